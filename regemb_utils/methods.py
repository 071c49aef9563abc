"""The methods of chapter 4 (the paper's seven configurations and two baselines) and the settings of a run."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

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


def _paper_store() -> str | None:
    from .wmd_store import default_folder

    folder = default_folder()
    return None if folder is None else str(folder)


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
    # a folder of stored WMD results (regemb_utils.wmd_store; the paper profile: results/wmd of a source checkout)
    wmd_store: str | None = None

    @classmethod
    def from_parameters(cls, params: Mapping[str, Any], progress: bool = True) -> "Settings":
        grid = (("symmetric", params["symmetric"]), ("dominant", params["dominant"]), ("idf", params["idf"]),
                ("nonzero_limit", params["nonzero_limits"]), ("threshold", params["thresholds"]),
                ("exponent", params["exponents"]))
        return cls(ks=tuple(params["ks"]), slopes=tuple(params["slopes"]), sparse_grid=grid, fill_rule=params["fill_rule"],
                   reference=params["reference"], wmd_solver=params["wmd_solver"],
                   wmd_queries=tuple(params["wmd_queries"]),
                   wmd_validation_queries=tuple(params.get("wmd_validation_queries", ())), n_jobs=params["n_jobs"],
                   progress=progress, wmd_store=_paper_store() if params.get("profile") == "paper" else None)

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
