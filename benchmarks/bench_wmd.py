"""Benchmark: exact WMD k-nearest neighbours with prefetch-and-prune against brute-force POT.

Data: BBCSPORT (``regemb_utils.data.load_dataset("bbcsport")``, the paper's tokenizer): the first ``--queries``
test documents against the whole training split (413 documents), nBOW weights over a dictionary of the dataset's
own tokens, and embeddings quickly trained with gensim's Word2Vec (CBOW, ``--dim`` dimensions, min_count 3) on the
dataset's own texts. The dictionary keeps words that occur in at least two documents; those seen fewer than 3 times
have no embedding and sit at the origin, as in the paper (there, words of the fil8 dictionary seen fewer than 5
times in fil8). With ``--synthetic`` (or when the data are missing) random documents of BBCSPORT-like sizes are used instead.

Prints the number of EMD solves of each method (``--rwmd``: also with the older max(WCD, RWMD) bound), their ratio, wall times, and asserts that the neighbours (k = 19)
and their distances are identical. Both methods run with the same ``--jobs`` joblib workers.

Run:  .venv/bin/python benchmarks/bench_wmd.py [--queries 220] [--jobs 2]
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def bbcsport_problem(dim: int, seed: int):
    from gensim.corpora import Dictionary
    from gensim.models import Word2Vec

    from regemb_utils.data import load_dataset
    from regemb_utils.text import tokenize

    dataset = load_dataset("bbcsport")
    train = [tokenize(text) for text in dataset.train.texts]
    test = [tokenize(text) for text in dataset.test.texts]
    validation = [tokenize(text) for text in dataset.validation.texts]
    dictionary = Dictionary(train + validation + test)
    dictionary.filter_extremes(no_below=2, no_above=1.0, keep_n=None)  # like a corpus dictionary: no hapaxes
    model = Word2Vec(
        train + validation + test, vector_size=dim, window=10, min_count=3, sg=0, negative=10, epochs=10,
        workers=2, seed=seed,
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
        return [[vocabulary[i] for i in np.searchsorted(cdf, rng.random(int(rng.integers(150, 450))))] for _ in range(n)]

    train, test = documents(413), documents(220)
    dictionary = Dictionary(train + test)
    kv = KeyedVectors(vector_size=dim)
    words = [dictionary[i] for i in range(len(dictionary)) if dictionary.dfs[i] >= 2]
    kv.add_vectors(words, rng.normal(size=(len(words), dim)).astype(np.float32))
    return train, test, dictionary, kv, "synthetic Zipfian documents, random embeddings"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=220)
    parser.add_argument("--k", type=int, default=19)
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--synthetic", action="store_true")
    parser.add_argument("--rwmd", action="store_true", help="also prune with max(WCD, RWMD) only (the old bound)")
    args = parser.parse_args()

    from regemb_utils.knn import top_k
    from regemb_utils.representations import nbow_matrix
    from regemb_utils.similarity import embedding_matrix
    from regemb_utils.wmd import wmd_distances, wmd_knn

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

    t0 = time.perf_counter()
    pruned = wmd_knn(Q, T, E, k=args.k, n_jobs=args.jobs, progress=False)
    pruned_seconds = time.perf_counter() - t0
    print(
        f"prefetch-and-prune with max(WCD, RWMD, ICT): {pruned.n_solved:,} EMD solves of {pruned.n_pairs:,} pairs "
        f"({100 * pruned.share_solved:.2f} %), {pruned_seconds:.1f} s wall with {args.jobs} jobs"
    )

    loose = None
    if args.rwmd:
        t0 = time.perf_counter()
        loose = wmd_knn(Q, T, E, k=args.k, n_jobs=args.jobs, bound="rwmd")
        print(
            f"prefetch-and-prune with max(WCD, RWMD) only: {loose.n_solved:,} EMD solves "
            f"({100 * loose.share_solved:.2f} %), {time.perf_counter() - t0:.1f} s wall with {args.jobs} jobs"
        )

    t0 = time.perf_counter()
    full = wmd_distances(Q, T, E, n_jobs=args.jobs)
    brute_seconds = time.perf_counter() - t0
    brute_solves = int(np.sum(np.isfinite(full)))
    print(f"brute force (POT): {brute_solves:,} EMD solves, {brute_seconds:.1f} s wall with {args.jobs} jobs")

    reference = top_k(-full, args.k)
    assert np.array_equal(reference, pruned.indices), "neighbours differ from brute force"
    assert np.array_equal(np.take_along_axis(full, reference, axis=1), pruned.distances), "distances differ"
    if loose is not None:
        assert np.array_equal(reference, loose.indices) and np.array_equal(loose.distances, pruned.distances)
        print(f"RATIO EMD solves brute / pruned with max(WCD, RWMD) only: {brute_solves / loose.n_solved:.1f}x")
    print(f"neighbours and distances identical to brute force (k = {args.k}): OK")
    best_possible = T.shape[0] / args.k
    print(
        f"RATIO EMD solves brute / pruned: {brute_solves / pruned.n_solved:.1f}x "
        f"(upper limit n_train / k = {best_possible:.1f}x); wall-time ratio {brute_seconds / pruned_seconds:.1f}x"
    )


if __name__ == "__main__":
    main()
