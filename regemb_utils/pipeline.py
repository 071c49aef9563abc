"""Chapter 4 as a whole: its documents, each method's inputs, and every method on every data set."""
from __future__ import annotations

from .cache import ArtifactCache
from .documents import prepare_documents
from .knn_runs import MethodResult, classify, parallel_context
from .methods import METHODS, Settings
from .term_matrices import CachedMatrices

__all__ = ["chapter_documents", "method_inputs", "run_chapter"]


def chapter_documents(params, cache: ArtifactCache | None = None):
    """The common dictionary (chapter 1) and every chosen data set, cut to ``max_documents`` and counted over it."""
    from .data import load_dataset
    from .params import chapter_parameters
    from .preprocessing import corpus_dictionary, head

    preprocessing = chapter_parameters("01_preprocessing", params["profile"])
    dictionary = corpus_dictionary(preprocessing.corpus_articles, preprocessing.tokenizer, cache)
    documents = {name: prepare_documents(head(load_dataset(name), params["max_documents"]), dictionary,
                                         preprocessing.tokenizer) for name in params["datasets"]}
    return dictionary, documents


def method_inputs(method: str, params, dictionary, documents, models, cache: ArtifactCache | None = None):
    """(embeddings per data set, S' builder) that ``method`` needs: raw embedding rows for the dense SCM and the WMD,
    :class:`CachedMatrices` over chapter 3's neighbour cache (computed here if missing) for the sparse SCM."""
    from .orthogonalization import neighbour_cache
    from .params import chapter_parameters
    from .similarity import embedding_matrix
    from .termsim import is_binary

    cache = cache or ArtifactCache()
    m = METHODS[method]
    vectors = models[m.model][0] if m.model else None
    embeddings = matrices = None
    if m.measure in ("dense_scm", "wmd"):
        embeddings = {name: embedding_matrix(vectors, dictionary, terms=d.terms) for name, d in documents.items()}
    if m.measure == "sparse_scm":
        preprocessing = chapter_parameters("01_preprocessing", params["profile"])
        depth = max(params["nonzero_limits"])
        neighbour_key = dict(models[m.model][1], corpus_articles=preprocessing.corpus_articles,
                             dictionary_tokenizer=preprocessing.tokenizer, bit_operations=is_binary(vectors.vectors))
        neighbour_cache(vectors, dictionary, depth, neighbour_key, cache, load=False)  # chapter 3's, or computed now
        matrices = CachedMatrices(str(cache.root.resolve()), preprocessing.corpus_articles, preprocessing.tokenizer,
                                  tuple(sorted(neighbour_key.items())), depth, params["rule"])
    return embeddings, matrices


def run_chapter(params, *, cache: ArtifactCache | None = None, progress: bool = True):
    """Every method of ``params`` (chapter 4's parameters) on every data set: ``{(dataset, method): MethodResult}``.

    The dictionary and the embeddings are chapter 1's and chapter 2's (from the artifact cache), the neighbour caches
    chapter 3's (computed here if missing). Methods run one after the other; inside each, the grid points (or WMD
    batches) run in parallel where ``params.scheduler`` says.
    """
    from .embeddings import profile_embeddings
    from .params import chapter_parameters

    cache = cache or ArtifactCache()
    preprocessing = chapter_parameters("01_preprocessing", params["profile"])
    dictionary, documents = chapter_documents(params, cache)
    models = profile_embeddings(params["profile"], cache)
    settings = Settings.from_parameters(params, progress=progress)
    base = {"max_documents": params["max_documents"], "corpus_articles": preprocessing.corpus_articles,
            "tokenizer": preprocessing.tokenizer}
    results: dict[tuple[str, str], MethodResult] = {}
    with parallel_context(params["scheduler"], params["n_jobs"]):
        for method in params["methods"]:
            model_key = models[METHODS[method].model][1] if METHODS[method].model else None
            embeddings, matrices = method_inputs(method, params, dictionary, documents, models, cache)
            key = dict(base, embeddings=model_key)
            for name, result in classify(method, documents, settings, key=key, embeddings=embeddings,
                                         matrices=matrices, cache=cache).items():
                results[name, method] = result
    return results
