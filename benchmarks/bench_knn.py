"""Benchmark: the kNN ranking (regemb_utils.classification.knn.top_k, one compiled pass per row) against its NumPy
reference (``top_k_by_partition``: argpartition, sort of the candidates, exact re-ranking of rows with a tie at the
k-th place), which defines the result.

Every grid point of chapter 4 ranks the validation split against the training split of every data set; on 20NEWS
that is a ``--queries`` × ``--train`` similarity matrix (by default 20NEWS's validation × training sizes) with
k = 19. Two matrices: soft-cosine-like values (continuous, few ties) and a tie-heavy one (few distinct values, as
the 1-bit embeddings' similarities and the WMD's ±inf give). One core; both results are checked to be equal.

Run:  .venv/bin/python benchmarks/bench_knn.py [--queries 1130] [--train 10168] [--repeat 5]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from regemb_utils.classification.knn import top_k, top_k_by_partition


def best_of(function, repeat: int) -> float:
    """The smallest CPU time of ``repeat`` calls (seconds): the least disturbed by other work on the machine."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        function()
        times.append(time.process_time() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1130)
    parser.add_argument("--train", type=int, default=10168)
    parser.add_argument("--k", type=int, default=19)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    shape = (args.queries, args.train)
    matrices = {
        "continuous": rng.beta(2, 5, size=shape),
        "tie-heavy": rng.integers(0, 50, size=shape).astype(np.float64),
    }
    print(
        f"{args.queries:,} queries x {args.train:,} training documents, k = {args.k}, one core, best of "
        f"{args.repeat} (CPU seconds)"
    )
    with threadpool_limits(1):
        top_k(np.zeros((1, 2)), 1)  # compile (or load) the kernel outside the timing
        for name, similarities in matrices.items():
            assert np.array_equal(top_k(similarities, args.k), top_k_by_partition(similarities, args.k))
            ours = best_of(lambda: top_k(similarities, args.k), args.repeat)
            reference = best_of(lambda: top_k_by_partition(similarities, args.k), args.repeat)
            print(f"{name}: one pass {ours:.3f} s, partition reference {reference:.3f} s; equal indices")
            print(f"RATIO top_k {name}: reference / one pass = {reference / ours:.1f}x")


if __name__ == "__main__":
    main()
