"""The methods of chapter 4: the paper's seven configurations and two baselines, and how each weights documents."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..measures.representations import represent
from ..text.documents import Documents

__all__ = ["Method", "METHODS", "represent_pair"]


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
