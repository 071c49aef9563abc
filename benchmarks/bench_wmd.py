"""Benchmark: exact WMD k-nearest neighbours with prefetch-and-prune against brute-force POT.

``--dataset 20news`` (one core): real 20NEWS documents (``load_dataset("20news")``, tokenized and counted over the
common dictionary as the chapters do, ``prepare_documents``), the first ``--queries`` test documents against the whole
train+validation split (11,293 documents), embeddings trained on the vendored Wikipedia corpus (32-bit, 200-d, window
10, negative 24, sample 1e-4, min_count 5, one worker; ``--corpus-articles`` and ``--epochs``, cached under
``--cache``) and their 1-bit quantization (Word2Bits' sign/3 of every row with an embedding; ``--embeddings``). For
each embedding, on one core (BLAS and numba limited to one thread): the search before this one ("before": the
module as of ``--baseline-ref``, by default ab76922, the best-first search before the single-precision lower costs
and vectorised c-transforms; its own per-phase clock where it has one, else a second run under cProfile splits its time
by phase), this ``wmd_knn`` ("after", its own per-phase CPU
clock), and brute force for the first ``--brute-queries`` queries. Prints CPU seconds per query (with the one-time
preparation of the collection spread over the queries, and without it), exact solves and per-candidate bounds per
query, the breakdown by phase, the ratios before/after, brute/after and brute/before, and asserts that both searches'
neighbours and distances (k = 19) equal brute force's.

Run:  .venv/bin/python benchmarks/bench_wmd.py --dataset 20news [--queries 3] [--brute-queries 1]
      (the first run trains the embeddings into --cache: about 4 minutes here; then about 3 minutes with
      --queries 10 --brute-queries 2)
      .venv/bin/python benchmarks/bench_wmd.py --dataset ohsumed --real --paper-embeddings --cache $REGEMB_CACHE
      (any data set's first queries in chapter 4's stratified order, with the paper profile's 32-bit embeddings)
      ``--record results/wmd_search.csv`` keeps each data set's and embedding's CPU seconds per query (before, after,
      brute force) in that file, one row per data set and embedding, replaced by a new run: chapter 4 shows it.

Default (``--dataset bbcsport``): BBCSPORT (``regemb_utils.text.datasets.load_dataset("bbcsport")``, the paper's tokenizer): the first ``--queries``
test documents against the whole training split (413 documents), nBOW weights over a dictionary of the dataset's
own tokens, and embeddings quickly trained with gensim's Word2Vec (CBOW, ``--dim`` dimensions, min_count 3) on the
dataset's own texts. The dictionary keeps words that occur in at least two documents; those seen fewer than 3 times
have no embedding and sit at the origin, as in the paper (there, words of the fil8 dictionary seen fewer than 5
times in fil8). With ``--synthetic`` (or when the data are missing) random documents of BBCSPORT-like sizes are used instead.

Prints the number of EMD solves of the search and of brute force, their ratio, wall times, and asserts that the
neighbours (k = 19) and their distances are identical. Both run with the same ``--jobs`` joblib workers.

Run:  .venv/bin/python benchmarks/bench_wmd.py [--queries 220] [--jobs 2]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np


def bbcsport_problem(dim: int, seed: int):
    from gensim.corpora import Dictionary
    from gensim.models import Word2Vec

    from regemb_utils.text.datasets import load_dataset
    from regemb_utils.text.tokenization import tokenize

    dataset = load_dataset("bbcsport")
    train = [tokenize(text) for text in dataset.train.texts]
    test = [tokenize(text) for text in dataset.test.texts]
    validation = [tokenize(text) for text in dataset.validation.texts]
    dictionary = Dictionary(train + validation + test)
    dictionary.filter_extremes(no_below=2, no_above=1.0, keep_n=None)  # like a corpus dictionary: no hapaxes
    model = Word2Vec(
        train + validation + test,
        vector_size=dim,
        window=10,
        min_count=3,
        sg=0,
        negative=10,
        epochs=10,
        workers=2,
        seed=seed,
    )
    return train, test, dictionary, model.wv, "BBCSPORT (real text, Word2Vec trained on it)"


def synthetic_problem(dim: int, seed: int):
    from gensim.corpora import Dictionary
    from gensim.models import KeyedVectors

    rng = np.random.default_rng(seed)
    vocabulary = [f"w{i}" for i in range(13000)]
    cdf = np.cumsum(np.arange(1, len(vocabulary) + 1) ** -1.0)
    cdf /= cdf[-1]

    def documents(n):
        return [
            [vocabulary[i] for i in np.searchsorted(cdf, rng.random(int(rng.integers(150, 450))))] for _ in range(n)
        ]

    train, test = documents(413), documents(220)
    dictionary = Dictionary(train + test)
    kv = KeyedVectors(vector_size=dim)
    words = [dictionary[i] for i in range(len(dictionary)) if dictionary.dfs[i] >= 2]
    kv.add_vectors(words, rng.normal(size=(len(words), dim)).astype(np.float32))
    return train, test, dictionary, kv, "synthetic Zipfian documents, random embeddings"


def real_problem(dataset: str, corpus_articles, epochs: int, cache_dir: str, paper_embeddings: bool):
    """A data set's test queries (in chapter 4's stratified order) and its train+validation reference set, counted over
    the common dictionary as the chapters do, with 32-bit embeddings: the paper profile's (``paper_embeddings``, read
    from the cache, never trained here) or 200-d ones trained on ``corpus_articles`` for ``epochs``."""
    from regemb_utils.infra.cache import ArtifactCache
    from regemb_utils.text.datasets import load_dataset
    from regemb_utils.text.documents import prepare_documents, stratified_order
    from regemb_utils.embeddings.trained import embedding_settings, trained_embeddings
    from regemb_utils.study.params import chapter_parameters
    from regemb_utils.text.corpus import corpus_dictionary
    from regemb_utils.classification.engine import Measure

    cache = ArtifactCache(cache_dir)
    if paper_embeddings:
        corpus_articles = None
        settings = embedding_settings(chapter_parameters("02_training", "paper"), "32-bit", None, "paper")
    else:
        settings = dict(
            size=200,
            corpus_articles=corpus_articles,
            tokenizer="paper",
            epochs=epochs,
            window=10,
            negative=24,
            sample=1e-4,
            min_count=5,
            workers=1,
        )
    try:  # the paper profile's model is read from the cache, never trained here
        vectors, summary = trained_embeddings("32-bit", cache=cache, train=not paper_embeddings, **settings)
    except LookupError as error:
        raise SystemExit(f"--paper-embeddings: {error}") from None
    dictionary = corpus_dictionary(corpus_articles, "paper", cache)
    documents = prepare_documents(load_dataset(dataset), dictionary, "paper")
    reference, _, _ = documents.split("train+validation")
    queries, labels, _ = documents.split("test")
    queries = queries[stratified_order(labels)]
    embeddings = Measure.of("wmd").embeddings(vectors, dictionary, documents.terms).astype(np.float64)
    return queries, reference, embeddings, len(dictionary), summary


def baseline_module(ref: str):
    """``regemb_utils/measures/wmd.py`` as of git ``ref`` (the search before this one), imported as a module of the
    package ``regemb_utils.measures`` (its relative imports resolve to today's package)."""
    import importlib.util
    import pathlib
    import subprocess
    import sys
    import tempfile

    root = pathlib.Path(__file__).resolve().parents[1]
    source = subprocess.run(
        ["git", "-C", str(root), "show", f"{ref}:regemb_utils/measures/wmd.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    source = source.replace("from ..study.progress import", "from ..infra.progress import")  # where it lives today
    path = pathlib.Path(tempfile.mkdtemp()) / "baseline_wmd.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("regemb_utils.measures.baseline_wmd", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["regemb_utils.measures.baseline_wmd"] = module
    spec.loader.exec_module(module)
    return module


# the before search's phases: its functions, measured with cProfile (CPU time, cumulative)
BASELINE_PHASES = {
    "query_distances": "setup (Dᵀ)",
    "_wcd": "WCD",
    "_relaxed": "ICT (every candidate)",
    "_dual": "entropic dual bounds",
    "_exact": "exact solves",
}


def profiled(call):
    """(result, CPU seconds, {phase: CPU seconds}) of the before search, phases from cProfile."""
    import cProfile
    import pstats

    profile = cProfile.Profile(time.process_time)
    cpu = time.process_time()
    result = profile.runcall(call)
    cpu = time.process_time() - cpu
    phases = dict.fromkeys(BASELINE_PHASES.values(), 0.0)
    for (filename, _, name), (_, _, _, cumulative, _) in pstats.Stats(profile).stats.items():
        if "baseline_wmd" in filename and name in BASELINE_PHASES:
            phases[BASELINE_PHASES[name]] += cumulative
    phases["rest (ordering, loop)"] = cpu - sum(phases.values())
    return result, cpu, phases


def preparation(result) -> float:
    """The one-time preparation's CPU seconds of a search result (0 if it does not record phases)."""
    return getattr(result, "phases", {}).get("preparation", 0.0)


def quantized(E):
    """The 1-bit variant of the embeddings: Word2Bits' 1-bit quantization (sign / 3) of every row with an embedding;
    the words without one stay at the origin."""
    from regemb_utils.embeddings.word2bits import quantize_array

    result = quantize_array(E.astype(np.float32), 1).astype(np.float64)
    result[~np.any(E != 0, axis=1)] = 0.0
    return result


def breakdown(phases, n):
    total = sum(phases.values())
    return "; ".join(f"{name} {seconds / n:.3f} s ({100 * seconds / total:.0f} %)" for name, seconds in phases.items())


def real_documents(args) -> None:
    import numba
    from threadpoolctl import threadpool_limits

    from regemb_utils.classification.knn import top_k
    from regemb_utils.measures.wmd import wmd_distances, wmd_knn

    t0 = time.perf_counter()
    Q, T, E32, dictionary_size, summary = real_problem(
        args.dataset, args.corpus_articles, args.epochs, args.cache, args.paper_embeddings
    )
    Q = Q[: args.queries]
    missing = int(np.sum(~np.any(E32 != 0, axis=1)))
    print(
        f"{args.dataset.upper()}: {Q.shape[0]} test queries × {T.shape[0]:,} train+validation documents; common dictionary "
        f"{dictionary_size:,} words (Wikipedia, {args.corpus_articles or 'all'} articles), {E32.shape[0]:,} of them in "
        f"{args.dataset.upper()}, {missing:,} without embedding (at the origin); 32-bit {E32.shape[1]}-d embeddings "
        f"({'the paper profile' if args.paper_embeddings else f'{args.epochs} epochs'}, "
        f"{summary.vocabulary:,} words, trained in {summary.seconds:.0f} s) and their 1-bit quantization; mean unique "
        f"words per document {np.mean(np.diff(T.indptr)):.0f} (reference) / {np.mean(np.diff(Q.indptr)):.0f} "
        f"(queries); prepared in {time.perf_counter() - t0:.1f} s"
    )
    numba.set_num_threads(1)
    baseline = baseline_module(args.baseline_ref)
    for search in (baseline.wmd_knn, wmd_knn):  # compile or load the numba kernels outside the timings
        search(Q[:1], T[:2000], E32, k=19)
    n, b = Q.shape[0], args.brute_queries
    for kind in args.embeddings:
        E = E32 if kind == "32-bit" else quantized(E32)
        with threadpool_limits(1):
            cpu = time.process_time()
            before = baseline.wmd_knn(Q, T, E, k=args.k)  # timed without the profiler ...
            before_cpu = time.process_time() - cpu
            if getattr(before, "phases", None):  # its own clock
                before_phases = before.phases
            else:  # its phases under cProfile
                _, _, before_phases = profiled(lambda: baseline.wmd_knn(Q, T, E, k=args.k))
            cpu = time.process_time()
            after = wmd_knn(Q, T, E, k=args.k)
            after_cpu = time.process_time() - cpu
            cpu = time.process_time()
            full = wmd_distances(Q[:b], T, E)
            brute_cpu = (time.process_time() - cpu) / b
        print(f"\n{kind} embeddings, one core, CPU seconds per query:")
        for name, result, seconds in (
            ("before (" + args.baseline_ref + ")", before, before_cpu),
            ("after (this wmd_knn)", after, after_cpu),
        ):
            print(
                f"  {name}: {seconds / n:.3f} s ({(seconds - preparation(result)) / n:.3f} s without the one-time "
                f"preparation); per query {result.n_solved / n:,.1f} exact EMD solves "
                f"({100 * result.share_solved:.2f} % of pairs), {result.n_certified / n:,.1f} candidates ruled out "
                f"by a per-candidate bound"
            )
        print(f"  brute force (POT, every pair) on the first {b} quer{'y' if b == 1 else 'ies'}: {brute_cpu:.3f} s")
        how = "its own clock" if getattr(before, "phases", None) else "a second run under cProfile"
        print(f"  before, by phase ({how}): {breakdown(before_phases, n)}")
        print(f"  after, by phase: {breakdown(after.phases, n)}")
        reference = top_k(-full, args.k)
        exact = np.take_along_axis(full, reference, axis=1)
        for name, result in (("before", before), ("after", after)):
            assert np.array_equal(result.indices[:b], reference), f"{kind} {name}: neighbours differ from brute force"
            assert np.array_equal(result.distances[:b], exact), f"{kind} {name}: distances differ from brute force"
        assert np.array_equal(after.indices, before.indices) and np.array_equal(after.distances, before.distances)
        print(
            f"  neighbours and distances (k = {args.k}) identical to brute force on {b} quer"
            f"{'y' if b == 1 else 'ies'} and between before and after on all {n}: OK"
        )
        print(f"  RATIO {kind} CPU per query, before / after: {before_cpu / after_cpu:.1f}x")
        print(f"  RATIO {kind} CPU per query, brute force / after: {brute_cpu * n / after_cpu:.1f}x")
        print(f"  RATIO {kind} CPU per query, brute force / before: {brute_cpu * n / before_cpu:.1f}x")
        search_before, search_after = before_cpu - preparation(before), after_cpu - preparation(after)
        print(
            f"  RATIO {kind} without the one-time preparation, before / after: {search_before / search_after:.1f}x, "
            f"brute force / after: {brute_cpu * n / search_after:.1f}x"
        )
        if args.record:
            record(
                args.record,
                {
                    "dataset": args.dataset,
                    "embeddings": kind,
                    "queries": n,
                    "brute-force queries": b,
                    "before (s / query)": before_cpu / n,
                    "after (s / query)": after_cpu / n,
                    "brute force (s / query)": brute_cpu,
                    "before": f"{args.baseline_ref}, bound=dual",
                    "measured": time.strftime("%Y-%m-%d"),
                },
            )


def record(path: str, row: dict) -> None:
    """Keep ``row`` in the CSV file ``path``, replacing the row of the same data set and embeddings."""
    import pandas as pd

    rows = pd.read_csv(path) if Path(path).exists() else pd.DataFrame(columns=list(row))
    rows = rows[~((rows["dataset"] == row["dataset"]) & (rows["embeddings"] == row["embeddings"]))]
    pd.concat([rows, pd.DataFrame([row])], ignore_index=True).to_csv(path, index=False, float_format="%.4g")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--dataset", choices=("bbcsport", "twitter", "ohsumed", "reuters", "amazon", "20news"), default="bbcsport"
    )
    parser.add_argument(
        "--real",
        action="store_true",
        help="the data set's real documents against the common "
        "dictionary with Wikipedia embeddings, today's search beside the new (implied by 20news)",
    )
    parser.add_argument(
        "--paper-embeddings",
        action="store_true",
        help="real documents: the paper profile's 32-bit model from --cache (never trained here)",
    )
    parser.add_argument("--queries", type=int, default=None, help="220 for bbcsport, 3 with real documents")
    parser.add_argument("--brute-queries", type=int, default=1, help="20news: queries solved by brute force")
    parser.add_argument("--corpus-articles", type=int, default=None, help="20news: Wikipedia articles (all)")
    parser.add_argument("--epochs", type=int, default=3, help="20news: training epochs")
    parser.add_argument("--cache", default="/tmp/regemb-bench-wmd", help="20news: artifact cache directory")
    parser.add_argument(
        "--baseline-ref",
        default="ab76922",
        help="real documents: git ref of the wmd.py before this search (the 'before')",
    )
    parser.add_argument(
        "--embeddings",
        nargs="+",
        choices=("32-bit", "1-bit"),
        default=["32-bit", "1-bit"],
        help="real documents: the 32-bit embeddings and/or their 1-bit quantization",
    )
    parser.add_argument(
        "--record",
        default=None,
        help="real documents: keep the CPU seconds per query in this CSV file (results/wmd_search.csv)",
    )
    parser.add_argument("--k", type=int, default=19)
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--synthetic", action="store_true")
    args = parser.parse_args()
    if args.dataset == "20news" or args.real or args.paper_embeddings:
        args.queries = args.queries or 3
        if not 1 <= args.brute_queries <= args.queries:
            parser.error("--brute-queries must lie in [1, --queries]")
        real_documents(args)
        return
    if args.dataset != "bbcsport":
        parser.error(f"--dataset {args.dataset} needs --real (real documents with Wikipedia embeddings)")
    args.queries = args.queries or 220

    from regemb_utils.classification.knn import top_k
    from regemb_utils.measures.representations import nbow_matrix
    from regemb_utils.measures.similarity import embedding_matrix
    from regemb_utils.measures.wmd import wmd_distances, wmd_knn

    t0 = time.perf_counter()
    if args.synthetic:
        problem = synthetic_problem(args.dim, args.seed)
    else:
        try:
            problem = bbcsport_problem(args.dim, args.seed)
        except Exception as error:  # data not restored: fall back to synthetic documents of similar size
            print(f"BBCSPORT unavailable ({type(error).__name__}: {error}); using synthetic documents")
            problem = synthetic_problem(args.dim, args.seed)
    train, test, dictionary, kv, description = problem
    test = test[: args.queries]
    T = nbow_matrix(train, dictionary)
    Q = nbow_matrix(test, dictionary)
    E = embedding_matrix(kv, dictionary, dtype=np.float64)
    missing = int(np.sum(~np.any(E != 0, axis=1)))
    print(
        f"{description}: {Q.shape[0]} queries × {T.shape[0]} training documents, dictionary {len(dictionary):,} "
        f"({missing:,} words without embedding, at the origin), {args.dim}-d; mean unique words per document "
        f"{np.mean(np.diff(T.indptr)):.0f} (train) / {np.mean(np.diff(Q.indptr)):.0f} (queries); "
        f"prepared in {time.perf_counter() - t0:.1f} s"
    )

    wmd_knn(Q[:1], T[:50], E, k=args.k)  # compile or load the numba kernels outside the timings
    t0 = time.perf_counter()
    pruned = wmd_knn(Q, T, E, k=args.k, n_jobs=args.jobs, progress=False)
    pruned_seconds = time.perf_counter() - t0
    print(
        f"prefetch-and-prune: {pruned.n_solved:,} EMD solves of "
        f"{pruned.n_pairs:,} pairs ({100 * pruned.share_solved:.2f} %), {pruned.n_certified:,} certified by the "
        f"dual bound ({100 * pruned.share_certified:.2f} %), {pruned_seconds:.1f} s wall with {args.jobs} jobs"
    )
    t0 = time.perf_counter()
    full = wmd_distances(Q, T, E, n_jobs=args.jobs)
    brute_seconds = time.perf_counter() - t0
    brute_solves = int(np.sum(np.isfinite(full)))
    print(f"brute force (POT): {brute_solves:,} EMD solves, {brute_seconds:.1f} s wall with {args.jobs} jobs")

    reference = top_k(-full, args.k)
    assert np.array_equal(reference, pruned.indices), "neighbours differ from brute force"
    assert np.array_equal(np.take_along_axis(full, reference, axis=1), pruned.distances), "distances differ"
    print(f"neighbours and distances identical to brute force (k = {args.k}): OK")
    best_possible = T.shape[0] / args.k
    print(
        f"RATIO EMD solves brute / pruned: {brute_solves / pruned.n_solved:.1f}x "
        f"(upper limit n_train / k = {best_possible:.1f}x); wall-time ratio {brute_seconds / pruned_seconds:.1f}x"
    )


if __name__ == "__main__":
    main()
