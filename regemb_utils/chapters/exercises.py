"""The computations behind the chapters' exercises (issue 22).

Each exercise's hidden solution in a chapter calls one function here and states what it shows; the test suite runs
the chapters with the smoke profile and checks those statements on the values the solutions glue
(``tests/test_book.py``), and checks each function against an independent computation (``tests/chapters/test_exercises.py``).
Every function works on what the chapter already has in memory (data sets, dictionary, embeddings, S', chapter 4's
results), so a solution runs in seconds on the smoke profile.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ..classification.engine import explain_pair
from ..classification.linear import LINEAR_MODELS, classifier, orthogonalized_features, tfidf_features
from ..classification.methods import represent_pair
from ..classification.wmd_samples import predict_wmd_time
from ..measures.representations import nbow_matrix
from ..measures.similarity import sparse_scm
from ..measures.wmd import wmd_distances
from ..termsim.cholesky import orthogonalized_embeddings
from ..termsim.sources import restricted
from ..text.tokenization import tokenize
from .scm_vs_wmd import error_table
from .scorecard import scorecard

__all__ = [
    "nbow_weights",
    "majority_bound",
    "hamming_cosines",
    "exact_zeros",
    "density_over_c",
    "smallest_eigenvalues",
    "Disagreement",
    "largest_disagreement",
    "word_columns",
    "wmd_hours_on_cores",
    "per_class_errors",
    "map_trustworthiness",
    "reduction_by_hand",
    "within_intervals",
    "kernel_check",
    "error_over_penalty",
]


# -- chapter 1 -----------------------------------------------------------------------------------------------------


def nbow_weights(text: str, dictionary, tokenizer: str = "paper") -> pd.DataFrame:
    """The normalized bag of words (nBOW) of one document over the common dictionary: one row per known word with
    its count and weight (count / number of known tokens), heaviest first. Words outside the dictionary are dropped.

    Parameters
    ----------
    text : str
        The document.
    dictionary : gensim.corpora.Dictionary
        The common dictionary.
    tokenizer : str
        A tokenizer of :data:`regemb_utils.text.tokenization.TOKENIZERS`.

    Returns
    -------
    pandas.DataFrame
        Columns word, count, weight.

    Raises
    ------
    ValueError
        When no word of the document is in the dictionary.

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> nbow_weights("the cat sat on the cat", Dictionary([["cat", "sat", "dog"]])).round(4).values.tolist()
    [['cat', 2, 0.6667], ['sat', 1, 0.3333]]
    """

    tokens = tokenize(text, tokenizer)
    known = [t for t in tokens if t in dictionary.token2id]
    if not known:
        raise ValueError("no word of the document is in the dictionary: its nBOW is empty")
    row = nbow_matrix([tokens], dictionary).tocsr()
    counts = Counter(known)
    frame = pd.DataFrame({"word": [dictionary[i] for i in row.indices], "weight": row.data})
    frame["count"] = frame.word.map(counts)
    return frame.sort_values(["weight", "word"], ascending=[False, True], ignore_index=True)[
        ["word", "count", "weight"]
    ]


def majority_bound(datasets: Mapping[str, object]) -> pd.DataFrame:
    """Per data set: the number of classes K, the error of always answering the training split's largest class on
    the training split itself and on the test split, and the bound 1 − 1/K on the first.

    Parameters
    ----------
    datasets : mapping
        Data set name → :class:`regemb_utils.text.datasets.Dataset`.

    Returns
    -------
    pandas.DataFrame
        Columns dataset, classes, training error, bound 1 − 1/K, test error.

    Examples
    --------
    >>> from regemb_utils.text.datasets import dataset_from_texts
    >>> toy = dataset_from_texts("toy", ["a b", "b c", "c d", "d a", "a a", "b b", "c c", "d d", "a c", "b d"],
    ...                          [0, 0, 0, 1, 1, 0, 0, 1, 0, 1], test_size=4)
    >>> majority_bound({"toy": toy}).values.tolist()
    [['toy', 2, 0.25, 0.5, 1.0]]
    """
    rows = []
    for name, dataset in datasets.items():
        k = len(dataset.class_names)
        train = np.bincount(dataset.train.labels, minlength=k)
        majority = int(np.argmax(train))
        rows.append(
            {
                "dataset": name,
                "classes": k,
                "training error": 1 - train[majority] / train.sum(),
                "bound 1 − 1/K": 1 - 1 / k,
                "test error": float(np.mean(dataset.test.labels != majority)),
            }
        )
    return pd.DataFrame(rows)


# -- chapter 2 -----------------------------------------------------------------------------------------------------


def _pairs(n: int, pairs: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    first = rng.integers(0, n, pairs)
    second = rng.integers(0, n - 1, pairs)
    return first, second + (second >= first)


def hamming_cosines(vectors, pairs: int = 20_000, seed: int = 0) -> dict[str, float]:
    """For random pairs of distinct words of 1-bit embeddings: the largest difference between their cosine and
    1 − 2h/d (h: the Hamming distance of their sign patterns, d: the dimensions), and how many distinct cosines
    occur (at most d + 1).

    Parameters
    ----------
    vectors : gensim.models.KeyedVectors
        1-bit embeddings (each coordinate ±c).
    pairs : int
        Random pairs drawn.
    seed : int
        Their seed.

    Returns
    -------
    dict
        ``dimensions``, ``pairs``, ``largest difference``, ``distinct cosines`` and ``distinct Hamming distances``.

    Examples
    --------
    >>> from gensim.models import KeyedVectors
    >>> kv = KeyedVectors(4)
    >>> kv.add_vectors(["a", "b", "c"], np.array([[1, 1, 1, 1], [1, -1, 1, 1], [-1, -1, 1, 1.0]]))
    >>> hamming_cosines(kv, pairs=50)
    {'dimensions': 4, 'pairs': 50, 'largest difference': 0.0, 'distinct cosines': 2, 'distinct Hamming distances': 2}
    """
    matrix = np.asarray(vectors.vectors)
    first, second = _pairs(len(matrix), pairs, seed)
    unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    cosines = np.einsum("ij,ij->i", unit[first].astype(np.float64), unit[second].astype(np.float64))
    signs = matrix > 0
    hamming = np.count_nonzero(signs[first] != signs[second], axis=1)
    d = matrix.shape[1]
    return {
        "dimensions": d,
        "pairs": pairs,
        "largest difference": float(np.max(np.abs(cosines - (1 - 2 * hamming / d)))),
        "distinct cosines": int(len(np.unique(np.round(cosines * d / 2)))),
        "distinct Hamming distances": int(len(np.unique(hamming))),
    }


def exact_zeros(models: Mapping[str, object], pairs: int = 20_000, seed: int = 0) -> pd.DataFrame:
    """Per model: the share of random word pairs whose cosine is exactly 0 (computed exactly, in integers, when the
    coordinates are ±c: the pair's signs agree in exactly half of the dimensions), and the dimensions.

    Parameters
    ----------
    models : mapping
        Model name → :class:`gensim.models.KeyedVectors`.
    pairs : int
        Random pairs drawn per model.
    seed : int
        Their seed.

    Returns
    -------
    pandas.DataFrame
        Columns model, dimensions, share exactly 0.

    Examples
    --------
    >>> from gensim.models import KeyedVectors
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(["a", "b", "c"], np.array([[1, 1], [1, -1], [-1, -1.0]]))  # 2 of 3 pairs are orthogonal
    >>> exact_zeros({"1-bit": kv}, pairs=1000).values.tolist()
    [['1-bit', 2, 0.665]]
    """
    rows = []
    for name, vectors in models.items():
        matrix = np.asarray(vectors.vectors)
        first, second = _pairs(len(matrix), pairs, seed)
        magnitude = np.abs(matrix)
        if np.all(magnitude == magnitude.flat[0]):  # ±c: the inner product is c²(d − 2h), zero iff h = d/2
            hamming = np.count_nonzero((matrix[first] > 0) != (matrix[second] > 0), axis=1)
            zero = 2 * hamming == matrix.shape[1]
        else:
            zero = np.einsum("ij,ij->i", matrix[first].astype(np.float64), matrix[second].astype(np.float64)) == 0
        rows.append({"model": name, "dimensions": matrix.shape[1], "share exactly 0": float(np.mean(zero))})
    return pd.DataFrame(rows)


# -- chapter 3 -----------------------------------------------------------------------------------------------------


def density_over_c(
    grid, limits: Sequence[int], embedded: np.ndarray, threshold: float = -1.0, exponent: float = 1.0
) -> pd.DataFrame:
    """Non-zeros per column of S' (over the words with an embedding) for each C, in the four Sym/Dom panels (Idf
    on), with the bound C + 1 (C neighbours and the diagonal).

    Parameters
    ----------
    grid : regemb_utils.termsim.orthogonalization.MatrixGrid
        Builds S'.
    limits : sequence of int
        The values of C.
    embedded : numpy.ndarray
        The columns of the words with an embedding.
    threshold, exponent : float
        t and o of S'.

    Returns
    -------
    pandas.DataFrame
        One row per (Sym, Dom, C): mean and most non-zeros per column, and the bound C + 1.

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> from gensim.models import KeyedVectors
    >>> from regemb_utils.termsim.matrix import nearest_neighbours
    >>> from regemb_utils.termsim.orthogonalization import MatrixGrid
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(["a", "b", "c"], np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]]))
    >>> grid = MatrixGrid(nearest_neighbours(kv, depth=2, progress=False), Dictionary([["a", "b", "c"], ["a", "b"], ["a"]]))
    >>> table = density_over_c(grid, [1, 2], np.arange(3))
    >>> table[["C", "most non-zeros in a column", "bound C + 1"]].values[:2].tolist()
    [[1, 2, 2], [2, 3, 3]]
    """
    rows = []
    for symmetric in (True, False):
        for dominant in (True, False):
            for c in sorted(limits):
                S = grid.build(
                    symmetric=symmetric,
                    dominant=dominant,
                    idf=True,
                    nonzero_limit=c,
                    threshold=threshold,
                    exponent=exponent,
                ).tocsc()
                per_column = np.diff(S.indptr)[np.asarray(embedded)]
                rows.append(
                    {
                        "Sym": symmetric,
                        "Dom": dominant,
                        "C": c,
                        "mean non-zeros per column": per_column.mean(),
                        "most non-zeros in a column": int(per_column.max()),
                        "bound C + 1": c + 1,
                    }
                )
    return pd.DataFrame(rows)


def smallest_eigenvalues(grid, limits: Sequence[int]) -> pd.DataFrame:
    """The smallest eigenvalue of the symmetric S' with t = −1, o = 1 and Idf, with and without Dom, for each C
    (dense, so only for a few thousand words), and whether CHOLMOD factorizes it.

    Parameters
    ----------
    grid : regemb_utils.termsim.orthogonalization.MatrixGrid
        Builds S'.
    limits : sequence of int
        The values of C.

    Returns
    -------
    pandas.DataFrame
        One row per (Dom, C): the smallest eigenvalue and whether the Cholesky factor exists.

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> from gensim.models import KeyedVectors
    >>> from regemb_utils.termsim.matrix import nearest_neighbours
    >>> from regemb_utils.termsim.orthogonalization import MatrixGrid
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(["a", "b", "c"], np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]]))
    >>> grid = MatrixGrid(nearest_neighbours(kv, depth=2, progress=False), Dictionary([["a", "b", "c"], ["a", "b"], ["a"]]))
    >>> table = smallest_eigenvalues(grid, [1, 2])
    >>> [(row.Dom, row.C, abs(round(row._3, 4)), row._4) for row in table.itertuples()]  # S' singular at C = 2
    [(True, 1, 0.4, True), (True, 2, 0.4, True), (False, 1, 0.4, True), (False, 2, 0.0, False)]
    """

    rows = []
    for dominant in (True, False):
        for c in sorted(limits):
            S = grid.build(symmetric=True, dominant=dominant, idf=True, nonzero_limit=c, threshold=-1.0, exponent=1.0)
            _, info = orthogonalized_embeddings(S)
            smallest = np.linalg.eigvalsh(S.toarray().astype(np.float64))[0]
            rows.append(
                {
                    "Dom": dominant,
                    "C": c,
                    "smallest eigenvalue": float(smallest),
                    "Cholesky factor exists": bool(info.ok),
                }
            )
    return pd.DataFrame(rows)


# -- chapter 4 -----------------------------------------------------------------------------------------------------


@dataclass
class Disagreement:
    """The test/training pair whose ranks under the SCM and the WMD differ most, with both explanations.

    Parameters
    ----------
    query, reference : int
        Rows of the test and of the training split.
    scm_rank, wmd_rank : int
        The reference's rank among the query's neighbours (0: nearest) under each measure.
    scm, wmd : float
        The pair's SCM and WMD.
    contributions : pandas.DataFrame
        Column pairs (query word, reference word) and their contribution to the SCM, largest \\|contribution\\| first.
    flows : pandas.DataFrame
        Column pairs, the mass moved, the distance and the cost, largest cost first.

    Examples
    --------
    See :func:`largest_disagreement`.

    >>> Disagreement(0, 3, 0, 5, 0.8, 1.2, pd.DataFrame(), pd.DataFrame()).wmd_rank
    5
    """

    query: int  # row of the test split
    reference: int  # row of the training split
    scm_rank: int  # rank of the reference among the query's neighbours (0: nearest)
    wmd_rank: int
    scm: float
    wmd: float
    contributions: (
        pd.DataFrame
    )  # column pairs (query, reference) and their contribution to the SCM, largest |contribution| first
    flows: pd.DataFrame  # column pairs, the mass moved, the distance and the cost (mass × distance), largest first


def largest_disagreement(
    documents,
    scm_method: str,
    term_similarity,
    wmd_method: str,
    embeddings: np.ndarray,
    *,
    slope: float = 0.0,
    queries: int = 20,
    references: int = 200,
) -> Disagreement:
    """Among the first ``queries`` test documents and the first ``references`` training documents of one data set
    (:class:`regemb_utils.text.documents.Documents`), the pair whose rank among the query's neighbours differs most
    between the SCM (``scm_method``'s weights, S' = ``term_similarity`` over the common dictionary) and the WMD
    (``wmd_method``'s weights, ``embeddings``: the rows of the data set's columns), with the SCM's word-pair
    contributions and the WMD's flows.

    Parameters
    ----------
    documents : regemb_utils.text.documents.Documents
        The data set's documents.
    scm_method : str
        A sparse-SCM method (its weights).
    term_similarity : scipy.sparse matrix
        S' over the common dictionary.
    wmd_method : str
        A WMD method (its weights).
    embeddings : numpy.ndarray
        One row per column of the documents (``documents.terms``).
    slope : float
        The dtb pivot slope of the SCM's weights.
    queries, references : int
        How many test and training documents are compared.

    Returns
    -------
    Disagreement
        The pair and both explanations.

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> from gensim.models import KeyedVectors
    >>> from regemb_utils.termsim.matrix import nearest_neighbours
    >>> from regemb_utils.termsim.orthogonalization import MatrixGrid
    >>> from regemb_utils.text.datasets import dataset_from_texts
    >>> from regemb_utils.text.documents import prepare_documents
    >>> data = dataset_from_texts("toy", ["a b", "b c", "c d", "d a", "a a", "b b", "c c", "d d"], [0, 1] * 4,
    ...                           test_size=3)
    >>> dictionary = Dictionary([["a", "b", "c", "d"]])
    >>> documents = prepare_documents(data, dictionary)
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(["a", "b", "c", "d"], np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0], [-0.6, 0.8]]))
    >>> grid = MatrixGrid(nearest_neighbours(kv, depth=2, progress=False), dictionary)
    >>> S = grid.build(symmetric=True, dominant=True, idf=False, nonzero_limit=2, threshold=-1.0, exponent=1.0)
    >>> E = kv.vectors[[kv.key_to_index[dictionary[int(i)]] for i in documents.terms]]
    >>> found = largest_disagreement(documents, "soft_vsm_ortho", S, "wmd", E)
    >>> found.query, found.reference, found.scm_rank, found.wmd_rank, round(found.scm, 3), round(found.wmd, 3)
    (0, 0, 1, 3, 0.8, 1.023)
    >>> word_columns(found.contributions, documents, dictionary).values.tolist()
    [['c', 'd', 0.800000011920929]]
    """

    n_q = min(queries, documents.counts["test"].shape[0])
    n_r = min(references, documents.counts["train"].shape[0])
    scm_q, scm_r = represent_pair(scm_method, documents, "test", "train", slope)
    wmd_q, wmd_r = represent_pair(wmd_method, documents, "test", "train")
    S = restricted(term_similarity, documents.terms)
    scm_q, scm_r, wmd_q, wmd_r = scm_q[:n_q], scm_r[:n_r], wmd_q[:n_q], wmd_r[:n_r]
    scm = sparse_scm(scm_q, scm_r, S)
    wmd = wmd_distances(wmd_q, wmd_r, embeddings)
    scm_rank = np.argsort(np.argsort(-scm, axis=1, kind="stable"), axis=1)
    wmd_rank = np.argsort(np.argsort(wmd, axis=1, kind="stable"), axis=1)
    gap = np.abs(scm_rank - wmd_rank)
    usable = np.isfinite(wmd) & (np.asarray(scm_q.getnnz(axis=1))[:, None] > 0) & (scm_r.getnnz(axis=1)[None, :] > 0)
    gap[~usable] = -1
    q, r = np.unravel_index(np.argmax(gap), gap.shape)
    pair = explain_pair(scm_q[q], scm_r[r], S, wmd_q[q], wmd_r[r], embeddings)
    return Disagreement(
        int(q),
        int(r),
        int(scm_rank[q, r]),
        int(wmd_rank[q, r]),
        float(scm[q, r]),
        float(wmd[q, r]),
        pair.contribution_table(),
        pair.flow_table(),
    )


def word_columns(frame: pd.DataFrame, documents, dictionary) -> pd.DataFrame:
    """``frame`` with its column indices (of a data set's documents) replaced by the words.

    Parameters
    ----------
    frame : pandas.DataFrame
        With columns ``query word`` and ``reference word`` holding column indices of ``documents``.
    documents : regemb_utils.text.documents.Documents
        The data set's documents.
    dictionary : gensim.corpora.Dictionary
        The common dictionary.

    Returns
    -------
    pandas.DataFrame
        A copy with the words.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from gensim.corpora import Dictionary
    >>> dictionary = Dictionary([["cat", "dog", "sat"]])
    >>> documents = SimpleNamespace(terms=np.array([2, 0]))  # the data set's columns are dictionary ids 2 and 0
    >>> word_columns(pd.DataFrame({"query word": [0], "reference word": [1]}), documents, dictionary).values.tolist()
    [['sat', 'cat']]
    """
    out = frame.copy()
    for column in ("query word", "reference word"):
        out[column] = [dictionary[int(documents.terms[i])] for i in out[column]]
    return out


def wmd_hours_on_cores(
    costs: pd.DataFrame, sizes: Mapping[tuple[str, str, str], int], cores: Sequence[int] = (1, 2, 4, 8, 16)
) -> pd.DataFrame:
    """Predicted wall and core hours of answering ``sizes`` WMD queries from scratch on each number of cores
    (:func:`regemb_utils.classification.wmd_samples.predict_wmd_time`).

    Parameters
    ----------
    costs : pandas.DataFrame
        Per-query one-core seconds (:func:`regemb_utils.classification.wmd_samples.costs_from_results`).
    sizes : mapping
        ``(data set, method, split)`` → queries.
    cores : sequence of int
        The numbers of cores.

    Returns
    -------
    pandas.DataFrame
        Columns cores, core hours, wall hours.

    Examples
    --------
    >>> costs = pd.DataFrame({"dataset": ["twitter"], "method": ["wmd"], "split": ["test"], "seconds per query": [36.0]})
    >>> wmd_hours_on_cores(costs, {("twitter", "wmd", "test"): 800}, cores=(1, 2)).values.tolist()
    [[1.0, 8.0, 8.0], [2.0, 8.0, 4.0]]
    """

    rows = []
    for n in cores:
        table = predict_wmd_time(costs, sizes, cores=n, show=False)
        rows.append(
            {
                "cores": n,
                "core hours": table["core seconds"].sum() / 3600,
                "wall hours": table["wall seconds"].sum() / 3600,
            }
        )
    return pd.DataFrame(rows)


# -- chapter 5 -----------------------------------------------------------------------------------------------------


def per_class_errors(counts: np.ndarray, class_names: Sequence[str]) -> pd.DataFrame:
    """From a confusion matrix (rows: true class, columns: predicted): each class's share of the test documents
    and its error (the share of its documents predicted as another class).

    Parameters
    ----------
    counts : numpy.ndarray
        Confusion counts.
    class_names : sequence of str
        The classes, in label order.

    Returns
    -------
    pandas.DataFrame
        Columns class, share, error.

    Examples
    --------
    >>> per_class_errors(np.array([[8, 2], [1, 9]]), ["crude", "grain"]).round(4).values.tolist()
    [['crude', 0.5, 0.2], ['grain', 0.5, 0.1]]
    """
    counts = np.asarray(counts)
    totals = counts.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        errors = np.where(totals > 0, 1 - np.diag(counts) / totals, np.nan)
    return pd.DataFrame({"class": list(class_names), "share": totals / totals.sum(), "error": errors})


def map_trustworthiness(
    dissimilarities: np.ndarray, coordinates: np.ndarray, k: int = 5, seed: int = 0
) -> dict[str, float]:
    """How well a map keeps each document's ``k`` nearest neighbours (scikit-learn's trustworthiness, 1 at best),
    for the t-SNE map and for a random layout of the same documents.

    Parameters
    ----------
    dissimilarities : numpy.ndarray
        The documents' square dissimilarities.
    coordinates : numpy.ndarray
        Their map.
    k : int
        Neighbours kept (at most (n − 1) / 2).
    seed : int
        The random layout's seed.

    Returns
    -------
    dict
        ``k``, ``t-SNE`` and ``random``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> points = np.vstack([rng.normal(0, 0.1, (6, 3)), rng.normal(3, 0.1, (6, 3))])
    >>> found = map_trustworthiness(np.linalg.norm(points[:, None] - points[None], axis=-1), points[:, :2], k=3)
    >>> found["k"], round(found["t-SNE"], 3), round(found["random"], 3)
    (3, 0.992, 0.571)
    """
    from sklearn.manifold import trustworthiness

    distances = np.asarray(dissimilarities, dtype=np.float64)
    k = min(k, (len(distances) - 1) // 2)
    random = np.random.default_rng(seed).normal(size=coordinates.shape)
    return {
        "k": k,
        "t-SNE": float(trustworthiness(distances, coordinates, n_neighbors=k, metric="precomputed")),
        "random": float(trustworthiness(distances, random, n_neighbors=k, metric="precomputed")),
    }


# -- chapter 6 -----------------------------------------------------------------------------------------------------


def reduction_by_hand(errors: pd.DataFrame, regularized: str = "soft_vsm_ortho", baseline: str = "soft_vsm") -> float:
    """The §6.2 reduction in % from Figure 8's test ``errors`` (:func:`regemb_utils.chapters.scm_vs_wmd.error_table`):
    100 (1 − mean error of ``regularized`` / mean error of ``baseline``) over the data sets both ran on.

    Parameters
    ----------
    errors : pandas.DataFrame
    regularized, baseline : str

    Returns
    -------
    float

    Examples
    --------
    >>> errors = pd.DataFrame({"dataset": ["a", "a", "b", "b"], "method": ["soft_vsm_ortho", "soft_vsm"] * 2,
    ...                        "error": [10.0, 20.0, 30.0, 40.0]})
    >>> round(reduction_by_hand(errors), 4)  # 1 - 20 / 30
    33.3333
    """
    wide = errors.pivot(index="dataset", columns="method", values="error")[[regularized, baseline]].dropna()
    return float(100 * (1 - wide[regularized].mean() / wide[baseline].mean()))


def within_intervals(results, confidences: Sequence[float] = (0.80, 0.90, 0.95, 0.99)) -> pd.DataFrame:
    """How many of the paper's test errors (Figure 8) lie within our Agresti–Coull intervals at each confidence, and
    how many would be expected there if both studies had measured the same errors on as many test documents: the
    paper's number varies as much as ours, so it falls inside our ``c`` interval with probability 2Φ(z/√2) − 1
    (z the normal quantile of ``c``), not ``c``.

    Parameters
    ----------
    results : mapping
        ``(data set, method)`` → :class:`regemb_utils.classification.knn_runs.MethodResult`.
    confidences : sequence of float
        The intervals' confidence levels.

    Returns
    -------
    pandas.DataFrame
        Columns confidence, compared, within, expected within (the count that the same errors would give).

    Examples
    --------
    >>> from regemb_utils.classification.knn_runs import MethodResult, Run
    >>> truth = np.array([0, 0, 1, 1, 0, 1, 0, 1, 1, 0])
    >>> def result(method, wrong):
    ...     predicted = np.where(np.arange(10) < wrong, 1 - truth, truth)
    ...     return MethodResult("bbcsport", method, {"k": 1}, pd.DataFrame(), truth, {1: predicted})
    >>> results = {("bbcsport", "bow"): result("bow", 4), ("bbcsport", "wmd"): result("wmd", 3)}
    >>> within_intervals(results).values.round(2).tolist()  # the paper's 9.1 % for the WMD: in the 99 % interval only
    [[0.8, 2.0, 1.0, 1.27], [0.9, 2.0, 1.0, 1.51], [0.95, 2.0, 1.0, 1.67], [0.99, 2.0, 2.0, 1.86]]
    """

    rows = []
    for confidence in confidences:
        card = scorecard(errors=error_table(results, confidence=confidence))
        compared = card[(card["section"] == "Figure 8") & card["paper within our interval"].notna()]
        same = 2 * stats.norm.cdf(stats.norm.ppf(0.5 + confidence / 2) / np.sqrt(2)) - 1
        rows.append(
            {
                "confidence": confidence,
                "compared": len(compared),
                "within": int(compared["paper within our interval"].astype(bool).sum()),
                "expected within": same * len(compared),
            }
        )
    return pd.DataFrame(rows)


# -- chapter 7 -----------------------------------------------------------------------------------------------------


def kernel_check(documents, S, point, reference: str = "train") -> dict[str, float]:
    """Theorem 1 on documents: the inner products of the normalized E′ᵀx of the test documents with those of the
    training documents against the sparse SCM of the same documents (chapter 4's kNN similarities).

    Parameters
    ----------
    documents : Documents
        One data set (chapter 4's).
    S : scipy.sparse matrix
        S′ over the dictionary at ``point`` (symmetric and dominant).
    point : mapping
        Its grid point with the dtb ``slope``.
    reference : str
        The split that weights the documents (chapter 4's reference set).

    Returns
    -------
    dict
        ``largest difference``, ``pairs`` compared and ``largest similarity``.

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> from regemb_utils.text.datasets import dataset_from_texts
    >>> from regemb_utils.text.documents import prepare_documents
    >>> texts = ["ball goal", "goal match", "vote party", "party law"] * 5
    >>> data = dataset_from_texts("toy", texts, ["sport", "sport", "politics", "politics"] * 5, test_size=4)
    >>> documents = prepare_documents(data, Dictionary(t.split() for t in texts))
    >>> from scipy import sparse
    >>> S = sparse.csc_matrix(np.eye(6) + 0.2 * (np.eye(6, k=1) + np.eye(6, k=-1)))  # dominant, so positive definite
    >>> check = kernel_check(documents, S, {"slope": 0.0})
    >>> check["largest difference"] < 1e-12, check["pairs"]
    (True, 48)
    """
    features, _ = orthogonalized_features(documents, S, reference, point.get("slope", 0.0))
    products = (features["test"] @ features[reference].T).toarray()
    Q, R = represent_pair("soft_vsm_ortho", documents, "test", reference, point.get("slope", 0.0))
    scm = np.asarray(sparse_scm(Q, R, restricted(S, documents.terms)))
    return {
        "largest difference": float(np.abs(products - scm).max()),
        "pairs": int(scm.size),
        "largest similarity": float(scm.max()),
    }


def error_over_penalty(
    documents, method: str, regularization: Sequence[float], reference: str = "train"
) -> pd.DataFrame:
    """A TF-IDF linear model's validation and test error (%) at every C (fitted on the training split for the
    validation error, on ``reference`` for the test error): how much choosing C on the validation split leaves on the
    table against the C that the test split would have chosen.

    Parameters
    ----------
    documents : Documents
        One data set.
    method : {"tfidf_svm", "tfidf_logistic"}
        The model.
    regularization : sequence of float
        The values of C.
    reference : str
        What the test-time model is fitted on.

    Returns
    -------
    pandas.DataFrame
        C, validation error (%), test error (%).

    Examples
    --------
    >>> from gensim.corpora import Dictionary
    >>> from regemb_utils.text.datasets import dataset_from_texts
    >>> from regemb_utils.text.documents import prepare_documents
    >>> texts = ["ball goal", "goal match", "vote party", "party law"] * 5
    >>> data = dataset_from_texts("toy", texts, ["sport", "sport", "politics", "politics"] * 5, test_size=4)
    >>> documents = prepare_documents(data, Dictionary(t.split() for t in texts))
    >>> error_over_penalty(documents, "tfidf_svm", (0.1, 1.0))["test error (%)"].tolist()
    [0.0, 0.0]
    """
    features = tfidf_features(documents, reference)
    labels = {split: documents.split(split)[1] for split in dict.fromkeys(("train", "validation", "test", reference))}
    rows = []
    for C in regularization:
        trained = classifier(LINEAR_MODELS[method].classifier, C).fit(features["train"], labels["train"])
        final = classifier(LINEAR_MODELS[method].classifier, C).fit(features[reference], labels[reference])
        rows.append(
            {
                "C": C,
                "validation error (%)": 100
                * float(np.mean(trained.predict(features["validation"]) != labels["validation"])),
                "test error (%)": 100 * float(np.mean(final.predict(features["test"]) != labels["test"])),
            }
        )
    return pd.DataFrame(rows)
