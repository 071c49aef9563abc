"""Chapter 4's methods on data sets of one's own, with explicit settings (the package used as a library).

    from regemb_utils.text.datasets import dataset_from_texts
    from regemb_utils.classification.experiment import run_methods
    from regemb_utils.classification.methods import Settings

    dataset = dataset_from_texts("mine", texts, labels, test_size=0.3)       # the paper's split rule
    results = run_methods(dataset, ["bow", "soft_vsm", "wmd"], Settings(ks=(1, 3, 5)), vectors={"32-bit": kv})

``results`` maps (data set, method) to :class:`regemb_utils.classification.knn_runs.MethodResult`; the tables of
:mod:`regemb_utils.study.results` read it. ``examples/own_dataset.py`` runs a small data set end to end.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from gensim.corpora import Dictionary

from ..measures.similarity import embedding_matrix
from ..study.cache import ArtifactCache
from ..termsim.matrix import nearest_neighbours
from ..termsim.sources import InMemoryMatrices
from ..text.datasets import Dataset
from ..text.documents import prepare_documents
from ..text.tokenization import tokenize
from .knn_runs import MethodResult, classify
from .methods import METHODS, Settings


def _as_mapping(datasets) -> dict[str, Dataset]:
    if isinstance(datasets, Dataset):
        datasets = [datasets]
    datasets = list(datasets.values()) if isinstance(datasets, Mapping) else list(datasets)
    if not datasets or not all(isinstance(d, Dataset) for d in datasets):
        raise ValueError("datasets must be a Dataset or a non-empty collection of them "
                         "(regemb_utils.text.datasets.dataset_from_texts makes one)")
    names = [d.name for d in datasets]
    if len(set(names)) != len(names):
        raise ValueError(f"data set names must differ, got {names}")
    return {d.name: d for d in datasets}


def training_dictionary(datasets: Iterable[Dataset], tokenizer: str = "paper") -> Dictionary:
    """A dictionary of the words of the data sets' training and validation documents (test words it lacks are
    dropped from the documents, as the paper's corpus dictionary drops the words it does not know).

    Parameters
    ----------
    datasets : iterable of Dataset
        The data sets.
    tokenizer : {"paper", "gensim"}
        See :func:`regemb_utils.text.tokenization.tokenize`.

    Returns
    -------
    gensim.corpora.Dictionary
        Their training and validation words.

    Examples
    --------
    >>> from regemb_utils.text.datasets import dataset_from_texts
    >>> data = dataset_from_texts("toy", [f"w{i} common" for i in range(10)], [0, 1] * 5, test_size=2)
    >>> "common" in training_dictionary([data]).token2id
    True
    """
    return Dictionary(tokenize(text, tokenizer) for d in datasets for split in (d.train, d.validation)
                      for text in split.texts)


def run_methods(datasets, methods: Sequence[str], settings: Settings, *, vectors: Mapping[str, object] | None = None,
                dictionary: Dictionary | None = None, tokenizer: str = "paper",
                cache: ArtifactCache | None = None) -> dict[tuple[str, str], MethodResult]:
    """Every method of ``methods`` on every data set, with ``settings`` (ks, grids, WMD samples, ...).

    ``vectors`` maps "32-bit" and/or "1-bit" to gensim ``KeyedVectors`` (the methods' ``model``); ``dictionary``
    (default: :func:`training_dictionary`) defines the words the documents are counted over and, for the sparse SCM,
    the idf order of S'. Results are cached in ``cache`` (default: the package's cache location) by their inputs'
    content.

    Parameters
    ----------
    datasets : Dataset, sequence of Dataset or mapping of str to Dataset
        The data sets.
    methods : sequence of str
        Keys of :data:`regemb_utils.classification.methods.METHODS`.
    settings : Settings
        The grid, the ks and the options.
    vectors : mapping of str to gensim.models.KeyedVectors, optional
        ``"32-bit"`` and/or ``"1-bit"`` embeddings.
    dictionary : gensim.corpora.Dictionary, optional
        The documents' words.
    tokenizer : {"paper", "gensim"}
        See :func:`regemb_utils.text.tokenization.tokenize`.
    cache : ArtifactCache, optional
        Where results are kept.

    Returns
    -------
    dict of (str, str) to MethodResult
        ``{(data set, method): result}``.

    Examples
    --------
    >>> import tempfile
    >>> from regemb_utils.text.datasets import dataset_from_texts
    >>> texts = ["ball goal", "goal match", "vote party", "party law"] * 5
    >>> data = dataset_from_texts("toy", texts, ["sport", "sport", "politics", "politics"] * 5, test_size=4)
    >>> with tempfile.TemporaryDirectory() as root:
    ...     results = run_methods(data, ["bow"], Settings(ks=(1, 3)), cache=ArtifactCache(root))
    >>> results["toy", "bow"].test_error
    0.0
    """
    datasets = _as_mapping(datasets)
    unknown = [m for m in methods if m not in METHODS]
    if unknown or not methods:
        raise ValueError(f"unknown or no methods {unknown}; allowed: {', '.join(METHODS)}")
    vectors = dict(vectors or {})
    needed = {METHODS[m].model for m in methods} - {None} - set(vectors)
    if needed:
        raise ValueError(f"methods {[m for m in methods if METHODS[m].model in needed]} need vectors for "
                         f"{sorted(needed)}: pass vectors={{model: KeyedVectors}}")
    strays = {name for name, _ in settings.wmd_queries} - set(datasets)
    if strays:
        raise ValueError(f"settings.wmd_queries names {sorted(strays)}, which are not among the data sets "
                         f"{sorted(datasets)}")
    dictionary = dictionary if dictionary is not None else training_dictionary(datasets.values(), tokenizer)
    documents = {name: prepare_documents(d, dictionary, tokenizer) for name, d in datasets.items()}
    small = [name for name, d in documents.items() if d.split(settings.reference)[0].shape[0] < max(settings.ks)]
    if small:
        raise ValueError(f"data set(s) {small} have fewer reference documents than the largest k ({max(settings.ks)})")
    results: dict[tuple[str, str], MethodResult] = {}
    for method in methods:
        m = METHODS[method]
        embeddings = matrices = None
        if m.measure in ("dense_scm", "wmd"):
            embeddings = {name: embedding_matrix(vectors[m.model], dictionary, terms=d.terms)
                          for name, d in documents.items()}
        if m.measure == "sparse_scm":
            depth = settings.neighbour_depth
            if depth < 1:
                raise ValueError("the sparse SCM needs settings.sparse_grid with a nonzero_limit")
            kv = vectors[m.model]
            neighbours = nearest_neighbours(kv, [w for w in dictionary.token2id if w in kv], depth=depth, progress=False)
            matrices = InMemoryMatrices(neighbours, dictionary, settings.fill_rule)
        for name, result in classify(method, documents, settings, embeddings=embeddings, matrices=matrices,
                                     cache=cache).items():
            results[name, method] = result
    return results
