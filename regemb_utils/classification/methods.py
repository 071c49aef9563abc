"""The methods of chapter 4 (the paper's seven configurations and two baselines) and the settings of a run."""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..measures.representations import represent
from ..termsim.orthogonalization import SPARSE_KEYS, neighbour_depth
from ..text.documents import Documents
from .knn import ODD_K, is_odd_k
from .selection import parameter_grid
from .wmd_store import default_folder

__all__ = ["Method", "METHODS", "Settings", "represent_pair"]


@dataclass(frozen=True)
class Method:
    """One of chapter 4's methods: a document weighting, a measure and, where the measure needs one, an embedding.

    Parameters
    ----------
    label : str
        The name in the paper's figures.
    weighting : {"bow", "nbow", "dtb", "tfidf_l1"}
        :func:`regemb_utils.measures.representations.represent`'s weighting.
    measure : {"cosine", "dense_scm", "sparse_scm", "l1", "wmd"}
        How documents are compared.
    model : {"32-bit", "1-bit"} or None
        The embeddings.
    source : str
        ``"paper"`` (its seven configurations) or ``"Sato et al. 2022"``.

    Examples
    --------
    >>> METHODS["soft_vsm_ortho"]
    Method(label='Soft VSM (ortho.)', weighting='dtb', measure='sparse_scm', model='32-bit', source='paper')
    """

    label: str  # the name in the paper's figures
    weighting: str  # bow | nbow | dtb | tfidf_l1 (regemb_utils.measures.representations)
    measure: str  # cosine | dense_scm | sparse_scm | l1 | wmd
    model: str | None = None  # "32-bit" or "1-bit" embeddings
    source: str = "paper"  # "paper" (its seven configurations) or "Sato et al. 2022"


# The paper's seven configurations in its plot order (its Figure 8), then the baselines of Sato et al. (2022).
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

        ks = tuple_of("ks", self.ks)
        if not ks or not all(is_odd_k(k) for k in ks):
            raise ValueError(f"ks={self.ks!r} is not allowed; each k must be {ODD_K}")
        object.__setattr__(self, "ks", tuple(int(k) for k in ks))
        slopes = tuple_of("slopes", self.slopes)
        if not slopes or any(isinstance(s, bool) or not isinstance(s, numbers.Real) or not 0 <= s <= 1 for s in slopes):
            raise ValueError(f"slopes={self.slopes!r} is not allowed; slopes must be numbers in [0, 1]")
        object.__setattr__(self, "slopes", slopes)
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
        for name, power in (("wmd_queries", True), ("wmd_validation_queries", False)):
            entries = pairs(name, getattr(self, name))
            for dataset, limit in entries:
                if not (
                    limit is None
                    or (power and limit == "power")
                    or (isinstance(limit, numbers.Integral) and not isinstance(limit, bool) and limit >= 1)
                ):
                    allowed = "a positive number of queries, None for all" + (" or 'power'" if power else "")
                    raise ValueError(f"{name}[{dataset!r}]={limit!r} is not allowed; give {allowed}")
            object.__setattr__(
                self,
                name,
                tuple(
                    (dataset, limit if limit is None or limit == "power" else int(limit)) for dataset, limit in entries
                ),
            )
        if self.reference not in ("train", "train+validation"):
            raise ValueError(
                f"reference={self.reference!r} is not allowed; reference must be 'train' or 'train+validation'"
            )

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
        m = METHODS[method]
        if m.weighting != "dtb":
            return [{}]
        grid = [("slope", self.slopes)]
        if m.measure == "sparse_scm":
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


def represent_pair(method: str, documents: Documents, queries: str, reference: str, slope: float = 0.0):
    """Weighted query and reference matrices for ``method``; idf and avgdl come from the reference set.

    Parameters
    ----------
    method : str
        A key of :data:`METHODS`.
    documents : Documents
        One data set's term counts.
    queries, reference : str
        Split names (``"train+validation"`` joins two).
    slope : float
        The dtb pivot slope.

    Returns
    -------
    (scipy.sparse.csr_matrix, scipy.sparse.csr_matrix)
        The weighted queries and reference documents.

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> from regemb_utils.text.datasets import dataset_from_texts
    >>> from regemb_utils.text.documents import prepare_documents
    >>> data = dataset_from_texts("toy", ["a b", "b c", "c d", "d a", "a a", "b b", "c c", "d d"], [0, 1] * 4,
    ...                           test_size=2)
    >>> documents = prepare_documents(data, Dictionary([["a", "b", "c", "d"]]))
    >>> Q, R = represent_pair("bow", documents, "test", "train")
    >>> Q.shape[0], R.shape[0]
    (2, 4)
    """
    q_counts, _, _ = documents.split(queries)
    r_counts, _, r_lengths = documents.split(reference)
    avgdl = float(np.mean(r_lengths)) if np.mean(r_lengths) > 0 else 1.0
    return tuple(
        represent(METHODS[method].weighting, counts, train_counts=r_counts, avgdl=avgdl, slope=slope)
        for counts in (q_counts, r_counts)
    )
