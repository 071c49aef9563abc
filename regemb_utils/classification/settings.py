"""The settings of a run of chapter 4 besides its documents: the grid, k and the options, checked once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..termsim.orthogonalization import SPARSE_KEYS, neighbour_depth
from .engine import Measure
from ..infra.constraints import integer, list_of, literal, one_of, real
from .knn import K
from .methods import METHODS
from .selection import parameter_grid
from .wmd_store import default_folder

__all__ = ["Settings"]

_KS = list_of(K, order=None)
_SLOPES = list_of(real(0, 1), order=None)
_VALIDATION_QUERIES = literal(None) | integer(1)  # at most this many queries, None for all
_TEST_QUERIES = _VALIDATION_QUERIES | literal("power", stored="power")
_REFERENCE = one_of(("train", "train+validation"))


def _paper_store() -> str | None:
    folder = default_folder()
    return None if folder is None else str(folder)


@dataclass(frozen=True)
class Settings:
    """What a run needs besides the documents: the grid, k, and the options (from the chapter's parameters).

    Parameters
    ----------
    ks : tuple of int
        kNN's k values (odd).
    slopes : tuple of float
        The dtb pivot slopes s.
    sparse_grid : tuple of (str, tuple) pairs
        The orthogonalization grid in :data:`regemb_utils.termsim.orthogonalization.SPARSE_KEYS` order.
    fill_rule : str
        How S' handles a dominance violation.
    reference : {"train", "train+validation"}
        The test run's reference set.
    wmd_solver : {"pot", "pyemd"}
        The exact EMD solver.
    wmd_queries, wmd_validation_queries : tuple of (str, int, "power" or None) pairs
        WMD queries per data set (:func:`regemb_utils.classification.wmd_samples.query_limit`).
    n_jobs : int
        joblib workers.
    progress : bool
        Show progress bars.

    Examples
    --------
    >>> Settings(ks=(1, 3), slopes=(0.0, 0.5)).points("soft_vsm")
    [{'slope': 0.0}, {'slope': 0.5}]
    >>> Settings().points("bow")
    [{}]
    """

    ks: tuple[int, ...] = tuple(range(1, 20, 2))
    slopes: tuple[float, ...] = (0.0,)
    sparse_grid: tuple[tuple[str, tuple], ...] = ()  # ((key, values), ...) in SPARSE_KEYS order
    fill_rule: str = "paper"  # how S' handles a dominance violation (regemb_utils.termsim.matrix.FILL_RULES)
    reference: str = "train"
    wmd_solver: str = "pot"
    # (data set, at most this many WMD test queries: a number, None for all, or "power" (regemb_utils.classification.wmd_samples))
    wmd_queries: tuple[tuple[str, int | str | None], ...] = ()
    # (data set, at most this many WMD validation queries); a data set missing here takes its wmd_queries number
    wmd_validation_queries: tuple[tuple[str, int | None], ...] = ()
    n_jobs: int = 1
    progress: bool = False
    # a folder of stored WMD results (regemb_utils.classification.wmd_store; the paper profile: results/wmd of a source checkout)
    wmd_store: str | None = None

    def __post_init__(self):
        """Every field as the run reads it, or a ``ValueError`` naming the field and what is allowed: one value where a
        tuple is expected becomes a tuple of it, a mapping where pairs are expected becomes its pairs, NumPy scalars
        become Python numbers."""

        def tuple_of(name, value):
            if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
                value = (value,)
            return tuple(v.item() if isinstance(v, np.generic) else v for v in value)

        def pairs(name, value):
            if not isinstance(value, Mapping) and (isinstance(value, (str, bytes)) or not hasattr(value, "__iter__")):
                raise ValueError(f"{name}={value!r} is not allowed; give a mapping or (key, value) pairs")
            items = list(value.items()) if isinstance(value, Mapping) else list(value)
            if not all(isinstance(item, (tuple, list)) and len(item) == 2 for item in items):
                raise ValueError(f"{name}={value!r} is not allowed; give a mapping or (key, value) pairs")
            return [(key, v.item() if isinstance(v, np.generic) else v) for key, v in items]

        object.__setattr__(self, "ks", _KS.check(self.ks, "ks"))
        object.__setattr__(self, "slopes", _SLOPES.check(self.slopes, "slopes"))
        grid = dict(pairs("sparse_grid", self.sparse_grid))
        if grid:
            unknown, missing = sorted(set(grid) - set(SPARSE_KEYS)), [k for k in SPARSE_KEYS if k not in grid]
            if unknown or missing:
                raise ValueError(
                    f"sparse_grid={self.sparse_grid!r} is not allowed: "
                    + (f"unknown keys {unknown}; " if unknown else "")
                    + (f"missing keys {missing}; " if missing else "")
                    + f"it needs a value or a list of values for each of {', '.join(SPARSE_KEYS)}"
                )
        object.__setattr__(
            self, "sparse_grid", tuple((key, tuple_of(key, grid[key])) for key in SPARSE_KEYS if key in grid)
        )
        for name, limit in (("wmd_queries", _TEST_QUERIES), ("wmd_validation_queries", _VALIDATION_QUERIES)):
            entries = pairs(name, getattr(self, name))
            object.__setattr__(
                self, name, tuple((dataset, limit.check(n, f"{name}[{dataset!r}]")) for dataset, n in entries)
            )
        _REFERENCE.check(self.reference, "reference")

    @classmethod
    def from_parameters(cls, params: Mapping[str, Any], progress: bool = True) -> "Settings":
        grid = (
            ("symmetric", params["symmetric"]),
            ("dominant", params["dominant"]),
            ("idf", params["idf"]),
            ("nonzero_limit", params["nonzero_limits"]),
            ("threshold", params["thresholds"]),
            ("exponent", params["exponents"]),
        )
        return cls(
            ks=tuple(params["ks"]),
            slopes=tuple(params["slopes"]),
            sparse_grid=grid,
            fill_rule=params["fill_rule"],
            reference=params["reference"],
            wmd_solver=params["wmd_solver"],
            wmd_queries=tuple(params["wmd_queries"]),
            wmd_validation_queries=tuple(params.get("wmd_validation_queries", ())),
            n_jobs=params["n_jobs"],
            progress=progress,
            wmd_store=_paper_store() if params.get("profile") == "paper" else None,
        )

    def points(self, method: str) -> list[dict[str, Any]]:
        """The method's grid points in the paper's order: the slope first, then the orthogonalization keys."""
        if METHODS[method].weighting != "dtb":
            return [{}]
        grid = [("slope", self.slopes)]
        if Measure.of(method).needs_matrices:
            if not self.sparse_grid:
                raise ValueError("the sparse SCM needs Settings.sparse_grid")
            grid += list(self.sparse_grid)
        return parameter_grid(dict(grid))

    @property
    def neighbour_depth(self) -> int:
        """Neighbours per word that the sparse grid's S' need: its largest C (``nonzero_limit``); 0 without one."""
        return neighbour_depth(dict(self.sparse_grid).get("nonzero_limit", ()))

    def key(self, method: str) -> dict[str, Any]:
        """The settings that change the method's results (for the artifact key)."""
        measure = Measure.of(method)
        key: dict[str, Any] = {"ks": list(self.ks), "reference": self.reference}
        if METHODS[method].weighting == "dtb":
            key["slopes"] = list(self.slopes)
        if measure.needs_matrices:
            key["sparse_grid"] = [[name, list(values)] for name, values in self.sparse_grid]
            key["rule"] = self.fill_rule  # the key's name "rule" keeps existing caches valid
        if measure.transport:
            key["wmd_solver"] = self.wmd_solver
        return key
