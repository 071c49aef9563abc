"""Benchmark: all-pairs sparse SCM (regemb_utils.measures.similarity.sparse_scm) against gensim, and the dense soft VSM.

A 20NEWS-sized synthetic problem: ``--queries`` × ``--collection`` documents of ``--unique`` unique words drawn
without replacement from a Zipfian distribution over a ``--terms`` dictionary, with positive ``dtb``-like weights,
and a random symmetric S' with unit diagonal and about ``--nonzero`` off-diagonal entries per column.

Everything is measured on ONE core (numba and BLAS limited to one thread), so pairs/s is pairs/s per core; the
process's CPU seconds are printed too (pairs per CPU second stay meaningful on a machine shared with other work).
Then the same with two numba threads (BLAS as configured): the speed-up of two threads over one.
gensim (``SparseTermSimilarityMatrix(S').inner_product(X, Y, normalized=(True, True))``, the batch path of gensim
4.4, which is what ``SoftCosineSimilarity`` calls per query chunk) runs on a ``--gensim-queries`` ×
``--gensim-collection`` subset and is scaled per pair; both results are checked to agree on that subset.

Run:  .venv/bin/python benchmarks/bench_scm.py            (defaults: 9000 × 7500, 60k terms, C = 100)
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import sparse
from threadpoolctl import threadpool_limits


def zipf_documents(rng, n_docs, n_terms, n_unique, exponent=1.0):
    """CSR [n_docs, n_terms]: ``n_unique`` distinct terms per document, drawn from a Zipfian distribution
    (inverse-CDF sampling with replacement; the first ``n_unique`` distinct draws are kept)."""
    cdf = np.cumsum(np.arange(1, n_terms + 1, dtype=np.float64) ** -exponent)
    cdf /= cdf[-1]
    indices = np.empty((n_docs, n_unique), dtype=np.int64)
    for i in range(n_docs):
        draws = 4 * n_unique
        while True:
            sample = np.minimum(np.searchsorted(cdf, rng.random(draws)), n_terms - 1)
            _, first = np.unique(sample, return_index=True)
            if len(first) >= n_unique:
                indices[i] = np.sort(sample[np.sort(first)[:n_unique]])
                break
            draws *= 2
    tf = rng.geometric(0.6, size=indices.shape)
    data = (1.0 + np.log2(1.0 + np.log2(tf))) * rng.uniform(0.5, 8.0, size=indices.shape)
    indptr = np.arange(0, n_docs * n_unique + 1, n_unique)
    return sparse.csr_matrix((data.ravel(), indices.ravel(), indptr), shape=(n_docs, n_terms))


def random_term_matrix(rng, n_terms, nonzero):
    """Symmetric S' with unit diagonal and ≈ ``nonzero`` off-diagonal entries per column (float32 CSC)."""
    half = nonzero // 2
    cols = np.repeat(np.arange(n_terms), half)
    rows = rng.integers(0, n_terms, size=cols.size)
    keep = rows != cols
    vals = rng.uniform(0.0, 1.0, size=cols.size)[keep] ** 2
    rows, cols = rows[keep], cols[keep]
    off = sparse.coo_matrix(
        (np.concatenate([vals, vals]), (np.concatenate([rows, cols]), np.concatenate([cols, rows]))),
        shape=(n_terms, n_terms),
    ).tocsc()
    off.sum_duplicates()
    off.data = np.minimum(off.data, 1.0)
    return (off + sparse.identity(n_terms, format="csc")).astype(np.float32).tocsc()


def as_corpus(matrix):
    matrix = sparse.csr_matrix(matrix)
    return [
        list(zip(matrix.indices[a:b].tolist(), matrix.data[a:b].tolist()))
        for a, b in zip(matrix.indptr[:-1], matrix.indptr[1:])
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=9000)
    parser.add_argument("--collection", type=int, default=7500)
    parser.add_argument("--terms", type=int, default=60000)
    parser.add_argument("--unique", type=int, default=150)
    parser.add_argument("--nonzero", type=int, default=100)
    parser.add_argument("--dim", type=int, default=200)
    parser.add_argument("--gensim-queries", type=int, default=600)
    parser.add_argument("--gensim-collection", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()

    import numba
    from gensim.similarities import SparseTermSimilarityMatrix

    from regemb_utils.measures.similarity import dense_scm, sparse_scm, unit_rows

    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    X = zipf_documents(rng, args.queries, args.terms, args.unique)
    Y = zipf_documents(rng, args.collection, args.terms, args.unique)
    S = random_term_matrix(rng, args.terms, args.nonzero)
    print(
        f"problem: X {X.shape} nnz {X.nnz:,}, Y {Y.shape} nnz {Y.nnz:,}, S' nnz {S.nnz:,} "
        f"({(S.nnz - args.terms) / args.terms:.1f} off-diagonal per column); built in {time.perf_counter() - t0:.1f} s"
    )

    numba.set_num_threads(1)
    with threadpool_limits(1):
        # warm-up (numba compilation / cache load) on a tiny slice
        sparse_scm(X[:5], Y[:5], S)

        # --- ours, all pairs, one core
        t0, c0 = time.perf_counter(), time.process_time()
        ours = sparse_scm(X, Y, S, dtype=np.float32)
        ours_seconds, ours_cpu = time.perf_counter() - t0, time.process_time() - c0
        pairs = X.shape[0] * Y.shape[0]
        ours_rate = pairs / ours_seconds
        print(
            f"sparse SCM (ours, 1 core): {pairs:,} pairs in {ours_seconds:.2f} s = {ours_rate / 1e6:.2f} M pairs/s "
            f"({ours_cpu:.2f} CPU s = {pairs / ours_cpu / 1e6:.2f} M pairs per CPU second)"
        )

        # --- gensim on a subset, one core
        gx, gy = X[: args.gensim_queries], Y[: args.gensim_collection]
        stm = SparseTermSimilarityMatrix(S)
        corpus_x, corpus_y = as_corpus(gx), as_corpus(gy)
        t0 = time.perf_counter()
        theirs = stm.inner_product(corpus_x, corpus_y, normalized=(True, True))
        gensim_seconds = time.perf_counter() - t0
        gensim_pairs = gx.shape[0] * gy.shape[0]
        gensim_rate = gensim_pairs / gensim_seconds
        theirs = np.asarray(theirs.todense())
        difference = float(np.max(np.abs(np.clip(ours[: gx.shape[0], : gy.shape[0]], -1, 1) - theirs)))
        print(
            f"sparse SCM (gensim 4.4 inner_product, 1 core): {gensim_pairs:,} pairs in {gensim_seconds:.2f} s "
            f"= {gensim_rate / 1e6:.3f} M pairs/s (max |ours - gensim| = {difference:.2e})"
        )
        print(f"RATIO sparse SCM ours / gensim (pairs/s per core): {ours_rate / gensim_rate:.1f}x")

        # --- dense soft VSM (X · E_unit, cosines), one core
        E = rng.normal(size=(args.terms, args.dim)).astype(np.float32)
        E[-args.terms // 20 :] = 0.0  # 5 % of the dictionary without embeddings
        unit = unit_rows(E)
        dense_scm(X[:5], Y[:5], unit, normalized_embeddings=True)
        t0 = time.perf_counter()
        dense = dense_scm(X, Y, unit, normalized_embeddings=True)
        dense_seconds = time.perf_counter() - t0
        print(
            f"dense soft VSM (ours, {args.dim}-d, 1 core): {pairs:,} pairs in {dense_seconds:.2f} s "
            f"= {pairs / dense_seconds / 1e6:.1f} M pairs/s"
        )
        assert np.all(np.isfinite(dense)) and np.all(np.isfinite(ours))

        # --- L1 distance of TF-IDF L1 rows (Sato et al.'s baseline) against scikit-learn, one core
        from sklearn.metrics.pairwise import manhattan_distances

        from regemb_utils.measures.representations import l1_normalize
        from regemb_utils.measures.similarity import l1_distance

        lx, ly = l1_normalize(X), l1_normalize(Y)
        l1_distance(lx[:5], ly[:5], n_threads=1)
        t0 = time.perf_counter()
        l1 = l1_distance(lx, ly, n_threads=1)
        l1_seconds = time.perf_counter() - t0
        sx, sy = lx[: args.gensim_queries], ly[: args.gensim_collection]
        t0 = time.perf_counter()
        reference = manhattan_distances(sx, sy)
        sk_seconds = time.perf_counter() - t0
        sk_rate = sx.shape[0] * sy.shape[0] / sk_seconds
        difference = float(np.max(np.abs(l1[: sx.shape[0], : sy.shape[0]] - reference)))
        print(
            f"L1 distance (ours, 1 core): {pairs / l1_seconds / 1e6:.1f} M pairs/s; scikit-learn "
            f"manhattan_distances: {sk_rate / 1e6:.3f} M pairs/s (max |difference| = {difference:.1e})"
        )
        print(f"RATIO L1 distance ours / scikit-learn (pairs/s per core): {pairs / l1_seconds / sk_rate:.1f}x")

    for threads in sorted({min(2, numba.config.NUMBA_NUM_THREADS), numba.config.NUMBA_NUM_THREADS}):
        numba.set_num_threads(threads)
        t0, c0 = time.perf_counter(), time.process_time()
        threaded = sparse_scm(X, Y, S, dtype=np.float32)
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        assert np.array_equal(threaded, ours)  # the thread count never changes a value
        print(
            f"sparse SCM (ours, {threads} threads): {pairs / seconds / 1e6:.2f} M pairs/s wall "
            f"({pairs / seconds / threads / 1e6:.2f} M pairs/s per core, {cpu:.2f} CPU s); "
            f"RATIO {threads} threads / 1 thread (wall): {ours_seconds / seconds:.2f}x"
        )
    print(
        f"SUMMARY sparse_scm_Mpairs_per_s_per_core={ours_rate / 1e6:.2f} "
        f"gensim_Mpairs_per_s_per_core={gensim_rate / 1e6:.3f} ratio={ours_rate / gensim_rate:.1f} "
        f"dense_scm_Mpairs_per_s_per_core={pairs / dense_seconds / 1e6:.1f}"
    )


if __name__ == "__main__":
    main()
