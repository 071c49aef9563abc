"""Benchmark of the term-similarity-matrix builder (regemb_utils.termsim.matrix) against gensim 4.

Part A: gensim's SparseTermSimilarityMatrix at one grid point (C=100, symmetric, dominant, tf-idf, threshold 0,
exponent 2, rule "gensim") vs ours (cache once, then the matrix), on --compare-words words.
Part B: the neighbour cache for --words words at --dims dimensions (depth = --depth), 1-bit quantized by default as the
paper's 1000-d vectors (bit operations; BLAS on a slice of rows for the ratio), then the paper's grid of S' in its order
(Sym, Dom, C in {100, 200, 400, 800}, t in {-1, -0.5, 0, 0.5}, o in {1, 2, 3, 4}; one idf order) from one builder, as
chapter 4 builds it: the neighbours and the per-dictionary work shared by every point, thresholds that filter nothing
sharing one matrix, exponents without Dom derived from one matrix of cosines (wall and the process's CPU seconds per
point); then, in the same run, the points of the largest C each built alone (the route before this sharing): the
ratio.

Embeddings are random Gaussian vectors (cosine neighbours of random vectors are a worst case for nothing in
particular: the cost depends only on sizes). The dictionary and idfs come from a synthetic Zipf-distributed corpus
over the same words, so that idf ties look like real ones.

    .venv/bin/python benchmarks/bench_termsim.py            # defaults: A on 20,000 words, B on 70,556 x 1000 dims, 1-bit
"""

from __future__ import annotations

import argparse
import itertools
import os
import time

import numpy as np


def make_setting(n_words: int, dims: int, seed: int = 0, n_docs: int = 20000, doc_len: int = 100):
    from gensim.corpora import Dictionary
    from gensim.models import KeyedVectors, TfidfModel

    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(n_words)]
    kv = KeyedVectors(dims)
    kv.add_vectors(words, rng.standard_normal((n_words, dims), dtype=np.float32))
    p = 1.0 / np.arange(1, n_words + 1)
    p /= p.sum()
    docs = [[words[j] for j in rng.choice(n_words, size=doc_len, p=p)] for _ in range(n_docs)]
    docs.append(words)  # every word at least once
    dictionary = Dictionary(docs)
    tfidf = TfidfModel(dictionary=dictionary)
    return kv, dictionary, tfidf


def part_a(args):
    from gensim.similarities import SparseTermSimilarityMatrix, WordEmbeddingSimilarityIndex

    from regemb_utils.termsim.matrix import TermSimilarityBuilder, nearest_neighbours

    print(
        f"== A. gensim vs ours: {args.compare_words} words, {args.compare_dims} dims, C=100, symmetric, dominant, "
        f"tf-idf, threshold 0, exponent 2, rule gensim"
    )
    kv, dictionary, tfidf = make_setting(args.compare_words, args.compare_dims)
    start = time.perf_counter()
    index = WordEmbeddingSimilarityIndex(kv, threshold=0.0, exponent=2.0)
    reference = SparseTermSimilarityMatrix(
        index, dictionary, tfidf, symmetric=True, dominant=True, nonzero_limit=100, dtype=np.float32
    ).matrix
    t_gensim = time.perf_counter() - start
    print(f"gensim SparseTermSimilarityMatrix:          {t_gensim:8.2f} s   nnz={reference.nnz}")

    start = time.perf_counter()
    neighbours = nearest_neighbours(kv, list(dictionary.token2id), depth=args.depth, progress=False)
    t_cache = time.perf_counter() - start
    start = time.perf_counter()
    builder = TermSimilarityBuilder(neighbours, dictionary, tfidf)
    t_prep = time.perf_counter() - start
    builder.build(100, 0.0, 2.0, symmetric=True, dominant=True, fill_rule="gensim")  # numba warm-up (cached on disk)
    start = time.perf_counter()
    ours = builder.build(100, 0.0, 2.0, symmetric=True, dominant=True, fill_rule="gensim")
    t_build = time.perf_counter() - start
    differing = (abs(ours - reference) > 1e-6).nnz
    print(f"ours: neighbour cache (depth={args.depth}, once):      {t_cache:8.2f} s")
    print(f"ours: per-dictionary preparation (once):    {t_prep:8.2f} s")
    print(
        f"ours: matrix at this grid point:            {t_build:8.3f} s   nnz={ours.nnz}   "
        f"entries differing from gensim: {differing} ({differing / reference.nnz:.4%})"
    )
    print(f"speed-up per grid point: {t_gensim / t_build:8.0f} x")
    print(f"speed-up incl. cache + preparation:  {t_gensim / (t_cache + t_prep + t_build):8.1f} x")


def part_b(args):
    from regemb_utils.termsim.matrix import TermSimilarityBuilder, nearest_neighbours

    print(f"\n== B. scale: {args.words} words, {args.dims} dims, bit level {args.bitlevel}, depth={args.depth}")
    start = time.perf_counter()
    kv, dictionary, tfidf = make_setting(args.words, args.dims)
    if args.bitlevel == 1:  # Word2Bits' 1-bit quantization: sign(x) / 3
        kv.vectors[:] = np.where(kv.vectors >= 0, 1 / 3, -1 / 3).astype(np.float32)
    print(f"setting (random vectors, Zipf corpus):      {time.perf_counter() - start:8.2f} s")
    words = list(dictionary.token2id)
    start = time.perf_counter()
    neighbours = nearest_neighbours(kv, words, depth=args.depth, progress=not args.quiet)
    t_cache = time.perf_counter() - start
    print(f"neighbour cache:                            {t_cache:8.2f} s   (target <= 120 s)")
    if args.bitlevel == 1 and not args.skip_blas:  # the same cache with BLAS, on a slice of the rows
        rows = min(args.blas_rows, len(words))
        start = time.perf_counter()
        nearest_neighbours(kv, words[:rows], depth=args.depth, progress=False, bits=False)
        t_blas = (time.perf_counter() - start) * len(words) / rows
        print(
            f"the same with BLAS (from {rows} rows):      {t_blas:8.2f} s   bit operations are {t_blas / t_cache:.1f}x "
            f"faster"
        )
    del kv
    start = time.perf_counter()
    builder = TermSimilarityBuilder(neighbours, dictionary, tfidf)
    print(f"per-dictionary preparation (once):          {time.perf_counter() - start:8.2f} s")
    builder.build(10, 0.0, 2.0)  # numba warm-up
    builder.build(10, 0.0, 3.0, symmetric=False)
    grid = list(itertools.product((True, False), (True, False), args.C, args.thresholds, args.exponents))
    print(
        f"the paper's grid in its order (Sym, Dom, C, t, o), rule {args.rule}, one builder (one idf order): "
        f"{len(grid)} points; per (Sym, Dom, C): the sum and the slowest of its {len(grid) // (4 * len(args.C))} "
        f"points"
    )
    print(f"{'sym':>5} {'dom':>5} {'C':>4} {'seconds':>8} {'cpu s':>7} {'slowest':>8} {'its cpu s':>9}")
    times = {}
    for group in itertools.groupby(grid, key=lambda point: point[:3]):
        (symmetric, dominant, C), points = group
        total = cpu_total = slowest = slowest_cpu = 0.0
        for _, _, _, threshold, exponent in points:
            start, cpu = time.perf_counter(), time.process_time()
            S = builder.build(C, threshold, exponent, symmetric=symmetric, dominant=dominant, fill_rule=args.rule)
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
            del S
            times[symmetric, dominant, C, threshold, exponent] = seconds
            total, cpu_total = total + seconds, cpu_total + cpu
            if seconds > slowest:
                slowest, slowest_cpu = seconds, cpu
        print(
            f"{symmetric!s:>5} {dominant!s:>5} {C:>4} {total:8.2f} {cpu_total:7.2f} {slowest:8.3f} {slowest_cpu:9.3f}"
        )
    worst = max(times, key=times.get)
    print(
        f"all {len(grid)} grid points: {sum(times.values()):.1f} s; slowest grid point: {times[worst]:.3f} s at "
        f"{worst} (target <= 1 s)"
    )
    # the same run's reference: the points of the largest C built alone (the fill, transpose and assembly of every
    # point, as before grid points shared matrices)
    C = max(args.C)
    alone = {}
    for point in (p for p in grid if p[2] == C):
        symmetric, dominant, _, threshold, exponent = point
        start = time.perf_counter()
        S = builder._fill(C, threshold, exponent, symmetric, dominant, args.rule, True)
        alone[point] = time.perf_counter() - start
        del S
    shared = {point: times[point] for point in alone}
    print(
        f"C = {C}: each point alone {sum(alone.values()):.1f} s (slowest {max(alone.values()):.3f} s), shared "
        f"{sum(shared.values()):.1f} s (slowest {max(shared.values()):.3f} s): RATIO alone / shared "
        f"{sum(alone.values()) / sum(shared.values()):.1f}x"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--compare-words", type=int, default=20000)
    parser.add_argument("--compare-dims", type=int, default=200)
    parser.add_argument("--words", type=int, default=70556, help="the paper profile's words with an embedding")
    parser.add_argument("--bitlevel", type=int, choices=(0, 1), default=1, help="B: 1 = the paper's 1000-d vectors")
    parser.add_argument("--blas-rows", type=int, default=3000)
    parser.add_argument("--dims", type=int, default=1000)
    parser.add_argument("--depth", type=int, default=800)
    parser.add_argument("--skip-a", action="store_true", help="skip the gensim comparison")
    parser.add_argument("--skip-b", action="store_true", help="skip the scale run")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--C", type=int, nargs="+", default=[100, 200, 400, 800], help="B: the grid's C")
    parser.add_argument("--thresholds", type=float, nargs="+", default=[-1.0, -0.5, 0.0, 0.5], help="B: the grid's t")
    parser.add_argument("--exponents", type=float, nargs="+", default=[1.0, 2.0, 3.0, 4.0], help="B: the grid's o")
    parser.add_argument("--rule", choices=("paper", "gensim"), default="paper", help="B: the fill rule")
    parser.add_argument("--skip-blas", action="store_true", help="B: skip the BLAS neighbour search on a slice")
    args = parser.parse_args()
    print(f"cpus: {os.cpu_count()}")
    if not args.skip_a:
        part_a(args)
    if not args.skip_b:
        part_b(args)


if __name__ == "__main__":
    main()
