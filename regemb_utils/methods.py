"""The methods of chapter 4 (the paper's seven configurations and two baselines) and the settings of a run."""
from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .selection import parameter_grid

__all__ = ["Method", "METHODS", "SPARSE_KEYS", "Settings"]


@dataclass(frozen=True)
class Method:
    label: str  # the name in the paper's figures
    weighting: str  # bow | nbow | dtb | tfidf_l1 (regemb_utils.representations)
    measure: str  # cosine | dense_scm | sparse_scm | l1 | wmd
    model: str | None = None  # "32-bit" or "1-bit" embeddings
    source: str = "paper"  # "paper" (its seven configurations) or "Sato et al. 2022"


# The paper's seven configurations in its plot order (notes §6), then the baselines of Sato et al. (2022).
METHODS: dict[str, Method] = {
    "bow": Method("BoW", "bow", "cosine"),
    "soft_vsm": Method("Soft VSM", "dtb", "dense_scm", "32-bit"),
    "wmd_quantized": Method("WMD (quant.)", "nbow", "wmd", "1-bit"),
    "soft_vsm_quantized": Method("Soft VSM (quan.)", "dtb", "dense_scm", "1-bit"),
    "wmd": Method("WMD", "nbow", "wmd", "32-bit"),
    "soft_vsm_quantized_ortho": Method("Soft VSM (quan., ortho.)", "dtb", "sparse_scm", "1-bit"),
    "soft_vsm_ortho": Method("Soft VSM (ortho.)", "dtb", "sparse_scm", "32-bit"),
    "tfidf_l1": Method("TF-IDF L1", "tfidf_l1", "l1", source="Sato et al. 2022"),
    "wmd_tfidf": Method("WMD (TF-IDF)", "tfidf_l1", "wmd", "32-bit", source="Sato et al. 2022"),
}

# The orthogonalization grid's keys in the paper's order (after the slope), notes §7-§8.
SPARSE_KEYS = ("symmetric", "dominant", "idf", "nonzero_limit", "threshold", "exponent")


@dataclass(frozen=True)
class Settings:
    """What a run needs besides the documents: the grid, k, and the options (from the chapter's parameters)."""

    ks: tuple[int, ...] = tuple(range(1, 20, 2))
    slopes: tuple[float, ...] = (0.0,)
    sparse_grid: tuple[tuple[str, tuple], ...] = ()  # ((key, values), ...) in SPARSE_KEYS order
    fill_rule: str = "paper"  # how S' handles a dominance violation (regemb_utils.termsim.FILL_RULES)
    reference: str = "train"
    wmd_solver: str = "pot"
    # (data set, at most this many WMD test queries: a number, None for all, or "power" (regemb_utils.wmd_samples))
    wmd_queries: tuple[tuple[str, int | str | None], ...] = ()
    # (data set, at most this many WMD validation queries); a data set missing here takes its wmd_queries number
    wmd_validation_queries: tuple[tuple[str, int | None], ...] = ()
    n_jobs: int = 1
    progress: bool = False

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

        ks = tuple_of("ks", self.ks)
        if not ks or any(isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1 or k % 2 == 0
                         for k in ks):
            raise ValueError(f"ks={self.ks!r} is not allowed; ks must be odd positive integers (the paper's "
                             "k ∈ {1, 3, …, 19}: odd, so that two classes never tie)")
        object.__setattr__(self, "ks", tuple(int(k) for k in ks))
        slopes = tuple_of("slopes", self.slopes)
        if not slopes or any(isinstance(s, bool) or not isinstance(s, numbers.Real) or not 0 <= s <= 1 for s in slopes):
            raise ValueError(f"slopes={self.slopes!r} is not allowed; slopes must be numbers in [0, 1]")
        object.__setattr__(self, "slopes", slopes)
        grid = dict(pairs("sparse_grid", self.sparse_grid))
        if grid:
            unknown, missing = sorted(set(grid) - set(SPARSE_KEYS)), [k for k in SPARSE_KEYS if k not in grid]
            if unknown or missing:
                raise ValueError(f"sparse_grid={self.sparse_grid!r} is not allowed: "
                                 + (f"unknown keys {unknown}; " if unknown else "")
                                 + (f"missing keys {missing}; " if missing else "")
                                 + f"it needs a value or a list of values for each of {', '.join(SPARSE_KEYS)}")
        object.__setattr__(self, "sparse_grid", tuple((key, tuple_of(key, grid[key])) for key in SPARSE_KEYS
                                                      if key in grid))
        for name, power in (("wmd_queries", True), ("wmd_validation_queries", False)):
            entries = pairs(name, getattr(self, name))
            for dataset, limit in entries:
                if not (limit is None or (power and limit == "power") or (
                        isinstance(limit, numbers.Integral) and not isinstance(limit, bool) and limit >= 1)):
                    allowed = "a positive number of queries, None for all" + (" or 'power'" if power else "")
                    raise ValueError(f"{name}[{dataset!r}]={limit!r} is not allowed; give {allowed}")
            object.__setattr__(self, name, tuple((dataset, limit if limit is None or limit == "power" else int(limit))
                                                 for dataset, limit in entries))
        if self.reference not in ("train", "train+validation"):
            raise ValueError(f"reference={self.reference!r} is not allowed; reference must be 'train' or "
                             "'train+validation'")

    @classmethod
    def from_parameters(cls, params: Mapping[str, Any], progress: bool = True) -> "Settings":
        grid = (("symmetric", params["symmetric"]), ("dominant", params["dominant"]), ("idf", params["idf"]),
                ("nonzero_limit", params["nonzero_limits"]), ("threshold", params["thresholds"]),
                ("exponent", params["exponents"]))
        return cls(ks=tuple(params["ks"]), slopes=tuple(params["slopes"]), sparse_grid=grid, fill_rule=params["fill_rule"],
                   reference=params["reference"], wmd_solver=params["wmd_solver"],
                   wmd_queries=tuple(params["wmd_queries"]),
                   wmd_validation_queries=tuple(params.get("wmd_validation_queries", ())), n_jobs=params["n_jobs"],
                   progress=progress)

    def points(self, method: str) -> list[dict[str, Any]]:
        """The method's grid points in the paper's order: the slope first, then the orthogonalization keys."""
        m = METHODS[method]
        if m.weighting != "dtb":
            return [{}]
        grid = [("slope", self.slopes)]
        if m.measure == "sparse_scm":
            if not self.sparse_grid:
                raise ValueError("the sparse SCM needs Settings.sparse_grid")
            grid += list(self.sparse_grid)
        return parameter_grid(dict(grid))

    def query_limit(self, method: str, dataset: str, split: str = "test", size: int | None = None) -> int | None:
        """At most this many queries of ``split`` for ``method`` on ``dataset`` (None: all); only WMD is limited.

        ``size`` is the split's number of documents; it resolves ``"power"`` (for the test split:
        :func:`regemb_utils.wmd_samples.power_queries`) and turns a limit of at least ``size`` into None."""
        if METHODS[method].measure != "wmd":
            return None
        test = dict(self.wmd_queries).get(dataset)
        if split == "test":
            value = test
        else:
            validation = dict(self.wmd_validation_queries)
            value = validation[dataset] if dataset in validation else (None if test == "power" else test)
        if value == "power":
            if size is None:
                raise ValueError("wmd_queries='power' needs the size of the test split")
            from .wmd_samples import resolve_queries

            return resolve_queries("power", dataset, method, size)
        if value is not None and size is not None and value >= size:
            return None
        return value

    def key(self, method: str) -> dict[str, Any]:
        """The settings that change the method's results (for the artifact key)."""
        m = METHODS[method]
        key: dict[str, Any] = {"ks": list(self.ks), "reference": self.reference}
        if m.weighting == "dtb":
            key["slopes"] = list(self.slopes)
        if m.measure == "sparse_scm":
            key["sparse_grid"] = [[name, list(values)] for name, values in self.sparse_grid]
            key["rule"] = self.fill_rule  # the key's name "rule" keeps existing caches valid
        if m.measure == "wmd":
            key["wmd_solver"] = self.wmd_solver
        return key
