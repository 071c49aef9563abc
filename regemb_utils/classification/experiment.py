"""Chapter 4's study on data sets of one's own: model selection on the validation split, the test run, paired
results (the package used as a library, on the same route as the book).

To classify new texts, or to search a grid with scikit-learn, use the estimators of :mod:`regemb_utils.classification.estimators`;
:func:`run_methods` is a thin wrapper over chapter 4's own run (:func:`classify`, the cached computation of
:mod:`regemb_utils.classification.knn_runs`; the estimators run the same measure objects,
:mod:`regemb_utils.classification.engine`), for a study whose tables
(:mod:`regemb_utils.chapters.scm_vs_wmd`) are the book's: the paper's selection rule, every k at once, query samples for the WMD,
timings, paired predictions for the significance tests.

    from regemb_utils.text.datasets import dataset_from_texts
    from regemb_utils.classification.experiment import run_methods
    from regemb_utils.classification.settings import Settings

    dataset = dataset_from_texts("mine", texts, labels, test_size=0.3)       # the paper's split rule
    results = run_methods(dataset, ["bow", "soft_vsm", "wmd"], Settings(ks=(1, 3, 5)), vectors=kv)

``results`` maps (data set, method) to :class:`regemb_utils.classification.knn_runs.MethodResult`; the tables of
:mod:`regemb_utils.chapters.scm_vs_wmd` read it. ``examples/own_dataset.py`` runs a small data set end to end.
"""

from __future__ import annotations

import logging
import tempfile
from contextlib import nullcontext
from collections.abc import Iterable, Mapping, Sequence

from gensim.corpora import Dictionary
from scipy import sparse

from ..infra.cache import ArtifactCache
from ..infra.keys import fingerprint
from ..text.datasets import Dataset
from ..text.documents import Documents, prepare_documents
from ..text.tokenization import tokenize
from .engine import Measure, MissingEmbeddings, as_keyed_vectors
from .knn_runs import MethodResult, _compute, _store, _Task
from .methods import METHODS
from .settings import Settings
from .wmd_samples import query_limit

__all__ = ["run_methods", "classify"]

log = logging.getLogger(__name__)

_MODELS = tuple(sorted({m.model for m in METHODS.values()} - {None}))


def _as_mapping(datasets) -> dict[str, Dataset]:
    if isinstance(datasets, Dataset):
        datasets = [datasets]
    datasets = list(datasets.values()) if isinstance(datasets, Mapping) else list(datasets)
    if not datasets or not all(isinstance(d, Dataset) for d in datasets):
        raise ValueError(
            "datasets must be a Dataset or a non-empty collection of them "
            "(regemb_utils.text.datasets.dataset_from_texts makes one)"
        )
    names = [d.name for d in datasets]
    if len(set(names)) != len(names):
        raise ValueError(f"data set names must differ, got {names}")
    return {d.name: d for d in datasets}


def _model_vectors(vectors, models: set[str]) -> dict[str, object]:
    """``{model: KeyedVectors}`` for the ``models`` the methods need, from ``vectors``: one set of embeddings (a
    ``KeyedVectors`` or a mapping word → vector) for every model, or a mapping model name → embeddings."""
    if vectors is None:
        given = {}
    elif isinstance(vectors, Mapping) and vectors and set(vectors) <= set(_MODELS):
        given = {model: as_keyed_vectors(kv, f"vectors[{model!r}]") for model, kv in vectors.items()}
    else:
        kv = as_keyed_vectors(vectors)
        given = {model: kv for model in _MODELS}
    lacking = sorted(models - set(given))
    if lacking:
        raise ValueError(
            f"the methods need embeddings for {lacking}: pass vectors=KeyedVectors (for every model) or "
            f"vectors={{{lacking[0]!r}: KeyedVectors}}"
        )
    return given


def training_dictionary(datasets: Iterable[Dataset], tokenizer: str = "paper") -> Dictionary:
    """A dictionary of the words of the data sets' training and validation documents (test words it lacks are
    dropped from the documents, as the paper's corpus dictionary drops the words it does not know).

    Parameters
    ----------
    datasets : iterable of Dataset
    tokenizer : {"paper", "gensim"}

    Returns
    -------
    gensim.corpora.Dictionary

    Examples
    --------
    >>> from regemb_utils.text.datasets import dataset_from_texts
    >>> d = dataset_from_texts("toy", ["a cat", "a dog", "my cat", "my dog", "a car", "the car", "old car"] * 2,
    ...                        ["pets", "pets", "pets", "pets", "cars", "cars", "cars"] * 2, test_size=4)
    >>> sorted(training_dictionary([d]).token2id)
    ['a', 'car', 'cat', 'dog', 'my', 'old', 'the']
    """
    return Dictionary(
        tokenize(text, tokenizer) for d in datasets for split in (d.train, d.validation) for text in split.texts
    )


def run_methods(
    datasets,
    methods: Sequence[str],
    settings: Settings,
    *,
    vectors=None,
    dictionary: Dictionary | None = None,
    tokenizer: str = "paper",
    cache: ArtifactCache | None = None,
) -> dict[tuple[str, str], MethodResult]:
    """Chapter 4's run of every method of ``methods`` on every data set, with ``settings``.

    Parameters
    ----------
    datasets : Dataset or collection of them
        :func:`regemb_utils.text.datasets.dataset_from_texts` makes one (the paper's split or a fixed test split).
    methods : list of str
        names from :data:`regemb_utils.classification.methods.METHODS`: ``bow`` (BoW), ``soft_vsm`` (Soft VSM, 32-bit),
        ``soft_vsm_quantized`` (1-bit), ``soft_vsm_ortho`` and ``soft_vsm_quantized_ortho`` (the SCM with S′),
        ``wmd`` and ``wmd_quantized`` (the exact WMD), ``tfidf_l1`` and ``wmd_tfidf`` (Sato et al. 2022).
    settings : Settings
        the ks (odd), the slopes, the S′ grid (``sparse_grid``; needed by the S′ methods), WMD query samples
        (``wmd_queries``: without one, the WMD answers every validation and test query), ``n_jobs``, ``progress``.
    vectors : KeyedVectors, mapping word → vector, or mapping {"32-bit": …, "1-bit": …}
        the embeddings of the methods' models; one set of embeddings serves every model.
    dictionary : gensim Dictionary, optional
        the words counted and the idf order of S′ (default: :func:`training_dictionary`).
    tokenizer : {"paper", "gensim"}
    cache : ArtifactCache, optional
        where the results are kept, keyed by their inputs' content, so that a rerun reads them (S′'s neighbour search
        included: it runs only for a result that is not there). None (default): nothing is kept (a temporary cache,
        removed at the end).

    Returns
    -------
    dict
        ``{(data set, method): MethodResult}`` (labels as codes into the data set's ``class_names``).

    Examples
    --------
    >>> from regemb_utils.text.datasets import dataset_from_texts
    >>> texts = ["a cat", "a dog", "my cat", "my dog", "a car", "the car", "old car", "my car"] * 2
    >>> d = dataset_from_texts("toy", texts, ["pets"] * 4 + ["cars"] * 4 + ["pets"] * 4 + ["cars"] * 4, test_size=4)
    >>> result = run_methods(d, ["bow"], Settings(ks=(1,)))["toy", "bow"]
    >>> result.k, result.test_error
    (1, 0.0)
    """
    datasets = _as_mapping(datasets)
    if isinstance(methods, str):
        raise TypeError(
            f"methods must be a list of method names, not the string {methods!r}; allowed: {', '.join(METHODS)}"
        )
    methods = list(methods)
    unknown = [m for m in methods if m not in METHODS]
    if unknown or not methods:
        raise ValueError(f"unknown or no methods {unknown}; allowed: {', '.join(METHODS)}")
    if not isinstance(settings, Settings):
        raise TypeError(
            f"settings must be a regemb_utils.classification.settings.Settings, got {type(settings).__name__}"
        )
    vectors = _model_vectors(vectors, {METHODS[m].model for m in methods} - {None})
    strays = {name for name, _ in settings.wmd_queries} - set(datasets)
    if strays:
        raise ValueError(
            f"settings.wmd_queries names {sorted(strays)}, which are not among the data sets {sorted(datasets)}"
        )
    measures = {method: Measure.of(method) for method in methods}
    sparse_methods = [m for m in methods if measures[m].needs_matrices]
    if sparse_methods and not settings.sparse_grid:
        raise ValueError(f"{sparse_methods} need settings.sparse_grid (the S′ grid)")
    for method in (m for m in methods if measures[m].transport):
        for name, d in datasets.items():
            try:
                limit = query_limit(settings, method, name, "test", len(d.test))
            except ValueError as error:
                raise ValueError(f"settings.wmd_queries for {name!r}: {error}") from None
            if limit is None:
                log.info(
                    "%s answers all %d test and %d validation queries of %s (settings.wmd_queries limits them)",
                    method,
                    len(d.test),
                    len(d.validation),
                    name,
                )
    dictionary = dictionary if dictionary is not None else training_dictionary(datasets.values(), tokenizer)
    documents = {name: prepare_documents(d, dictionary, tokenizer) for name, d in datasets.items()}
    small = [name for name, d in documents.items() if d.split(settings.reference)[0].shape[0] < max(settings.ks)]
    if small:
        raise ValueError(f"data set(s) {small} have fewer reference documents than the largest k ({max(settings.ks)})")
    for model, kv in vectors.items():
        if model in {METHODS[m].model for m in methods}:
            counts = sparse.vstack(
                [
                    _over_dictionary(d, split, len(dictionary))
                    for d in documents.values()
                    for split in ("train", "validation", "test")
                ]
            )
            MissingEmbeddings.of(kv, dictionary, counts).warn(f"the documents (the {model} embeddings)")
    with tempfile.TemporaryDirectory(prefix="regemb-") if cache is None else nullcontext(cache.root) as root:
        cache = ArtifactCache(root) if cache is None else cache
        results: dict[tuple[str, str], MethodResult] = {}
        for method, measure in measures.items():
            kv = vectors.get(measure.model)
            embeddings = (
                {name: measure.embeddings(kv, dictionary, d.terms) for name, d in documents.items()}
                if measure.needs_embeddings
                else None
            )
            matrices = measure.matrices(
                kv, dictionary, depth=settings.neighbour_depth, fill_rule=settings.fill_rule, progress=settings.progress
            )
            for name, result in classify(
                method, documents, settings, embeddings=embeddings, matrices=matrices, cache=cache
            ).items():
                results[name, method] = result
    return results


def _over_dictionary(documents, split: str, n_terms: int) -> sparse.csr_matrix:
    """The term counts of one split with the dictionary's ids as columns."""
    counts = documents.split(split)[0]
    return sparse.csr_matrix(
        (counts.data, documents.terms[counts.indices], counts.indptr), shape=(counts.shape[0], n_terms)
    )


# ---------------------------------------------------------------------------------------------------------------------
# chapter 4's runs of a method on every data set


def _limits(method: str, documents: dict[str, Documents], settings: Settings) -> dict[str, dict[str, int | None]]:
    """At most this many queries per data set and split (None: all): only a transport distance samples them."""
    sampled = Measure.of(method).transport
    return {
        name: {
            split: query_limit(settings, method, name, split, len(d.labels[split])) if sampled else None
            for split in ("validation", "test")
        }
        for name, d in documents.items()
    }


def classify(
    method: str,
    documents: dict[str, Documents],
    settings: Settings,
    *,
    embeddings: dict[str, np.ndarray] | None = None,
    matrices=None,
    cache: ArtifactCache | None = None,
) -> dict[str, MethodResult]:
    """``method`` on every data set of ``documents``: from the artifact cache, or computed (jointly) and stored.

    ``embeddings`` maps each data set to the :func:`regemb_utils.measures.similarity.embedding_matrix` rows of its
    ``Documents.terms`` (dense SCM and WMD);
    ``matrices`` builds S' for a grid point (sparse SCM: :mod:`regemb_utils.termsim.sources`). A result's key holds its
    inputs by content (the documents with their labels, the embedding rows, the S' source) and the settings that
    change it, so changed documents or labels are never answered from the cache.

    Parameters
    ----------
    method : str
        A key of :data:`regemb_utils.classification.methods.METHODS`.
    documents : dict of str to Documents
        The data sets.
    settings : Settings
        The grid, the ks and the options.
    embeddings : dict of str to numpy.ndarray, optional
        Needed by the dense SCM and the WMD.
    matrices : InMemoryMatrices or CachedMatrices, optional
        Needed by the sparse SCM.
    cache : ArtifactCache, optional
        Where results are kept (default: the package's cache location).

    Returns
    -------
    dict of str to MethodResult
        One result per data set.

    Examples
    --------
    >>> import tempfile
    >>> from gensim.corpora import Dictionary
    >>> from regemb_utils.infra.cache import ArtifactCache
    >>> from regemb_utils.text.datasets import dataset_from_texts
    >>> from regemb_utils.text.documents import prepare_documents
    >>> texts = ["ball goal", "goal match", "vote party", "party law"] * 5
    >>> data = dataset_from_texts("toy", texts, ["sport", "sport", "politics", "politics"] * 5, test_size=4)
    >>> documents = {"toy": prepare_documents(data, Dictionary(t.split() for t in texts))}
    >>> with tempfile.TemporaryDirectory() as root:
    ...     result = classify("bow", documents, Settings(ks=(1, 3)), cache=ArtifactCache(root))["toy"]
    >>> result.test_error
    0.0
    """
    measure = Measure.of(method)
    measure.check(embeddings, matrices)
    if embeddings is not None and set(documents) - set(embeddings):
        raise ValueError(f"no embedding rows for data set(s) {', '.join(sorted(set(documents) - set(embeddings)))}")
    cache = cache or ArtifactCache()
    keys = {}
    limits = _limits(method, documents, settings)  # None everywhere but for the WMD methods
    for name, d in documents.items():
        keys[name] = dict(
            settings.key(method),
            method=method,
            dataset=name,
            documents=fingerprint(d),
            embeddings=fingerprint(embeddings[name]) if measure.needs_embeddings else None,
            matrices=matrices.identity if measure.needs_matrices else None,
        )
        if any(limit is not None for limit in limits[name].values()):  # a prefix of the stratified order
            keys[name].update(
                query_limit=limits[name]["test"],
                validation_query_limit=limits[name]["validation"],
                query_order="stratified",
            )
    missing = {name: documents[name] for name in documents if not cache.has("knn", keys[name])}
    store = _store(method, settings)
    if store is not None:  # results from the cache: their stored results are checked all the same
        present = {name: d for name, d in documents.items() if name not in missing}
        task = _Task(
            method,
            present,
            embeddings,
            None,
            settings.ks,
            settings.wmd_solver,
            query_limits={name: limits[name] for name in present},
            store=store,
        )
        for name in present:
            task.check_stored(name, "validation", "train")
            task.check_stored(name, "test", settings.reference)
    computed = _compute(method, missing, settings, embeddings, matrices, limits, cache) if missing else {}

    def never():
        raise RuntimeError("artifact vanished")  # pragma: no cover

    return {
        name: cache.get("knn", keys[name], (lambda n=name: computed[n]) if name in computed else never)
        for name in documents
    }
