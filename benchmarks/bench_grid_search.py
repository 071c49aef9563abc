"""Benchmark: scikit-learn's GridSearchCV over the soft-cosine classifier's C, threshold and exponent, today's
estimator (chapter 4's engine: one neighbour search and one per-dictionary preparation of S′ shared by every grid
point and fold) against the estimator as of ``--baseline-ref`` (its own neighbour search and preparation in every
fit), measured in the same run on the same data.

The data are a practitioner's: OHSUMED's 13 categories C11–C23, which the study never uses (the single-label
abstracts of the distribution's training part, ``data/ohsumed``), ``--documents`` of them in a seeded order, with
200-d word2vec embeddings that gensim trains on these abstracts (``--min-count`` leaves some words without one, so
that the report of the words without an embedding shows). Both searches run on one core (BLAS and numba limited to
one thread) and are timed in wall and CPU seconds; their scores are compared (equal up to float rounding) and the
fitted model's missing-word report is printed.

Run:  .venv/bin/python benchmarks/bench_grid_search.py            (defaults: 1,500 abstracts, 3 folds, 12 grid points)
      .venv/bin/python benchmarks/bench_grid_search.py --quick    (600 abstracts, 2 folds, 4 grid points)
      .venv/bin/python benchmarks/bench_grid_search.py --quick --vocabulary 100000   (a pre-trained model's vocabulary)
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

OHSUMED_UNUSED = tuple(f"C{i:02d}" for i in range(11, 24))


def ohsumed_unused(n_documents: int, seed: int):
    """(texts, labels) of up to ``n_documents`` single-label training abstracts of C11–C23, in a seeded order."""
    import tarfile

    from regemb_utils.text.datasets import data_file

    documents = []
    with tarfile.open(data_file("ohsumed/ohsumed_single_23.tar.xz"), "r|xz") as tar:
        for member in tar:
            parts = member.name.split("/")
            if member.isfile() and len(parts) == 4 and parts[1] == "training" and parts[2] in OHSUMED_UNUSED:
                documents.append((parts[3], parts[2], tar.extractfile(member).read().decode("utf-8")))
    folders = {}
    for file_id, _, _ in documents:
        folders[file_id] = folders.get(file_id, 0) + 1
    single = sorted((file_id, category, text) for file_id, category, text in documents if folders[file_id] == 1)
    order = np.random.default_rng(seed).permutation(len(single))[:n_documents]
    return [single[i][2] for i in order], np.array([single[i][1] for i in order])


def baseline_estimators(ref: str):
    """``regemb_utils/classification/estimators.py`` as of git ``ref``, imported as a module of the package
    ``regemb_utils.classification`` (its relative imports resolve to today's package)."""
    import importlib.util
    import pathlib
    import subprocess
    import sys
    import tempfile

    root = pathlib.Path(__file__).resolve().parents[1]
    source = subprocess.run(
        ["git", "-C", str(root), "show", f"{ref}:regemb_utils/classification/estimators.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = pathlib.Path(tempfile.mkdtemp()) / "baseline_estimators.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("regemb_utils.classification.baseline_estimators", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def timed_search(estimator, grid, texts, labels, folds):
    import warnings

    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from threadpoolctl import threadpool_limits

    search = GridSearchCV(
        estimator, grid, cv=StratifiedKFold(folds, shuffle=True, random_state=0), n_jobs=1, error_score="raise"
    )
    with threadpool_limits(1), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wall, cpu = time.perf_counter(), time.process_time()
        search.fit(texts, labels)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    reports = [w for w in caught if w.category.__name__ == "MissingEmbeddingsWarning"]
    return search, wall, cpu, reports


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=int, default=1500)
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--C", type=int, nargs="+", default=[100, 200, 400])
    parser.add_argument("--thresholds", type=float, nargs="+", default=[0.0, 0.3])
    parser.add_argument("--exponents", type=float, nargs="+", default=[1.0, 2.0])
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--min-count", type=int, default=5, help="word2vec: words rarer than this get no embedding")
    parser.add_argument(
        "--vocabulary",
        type=int,
        default=None,
        help="pad the embeddings with random vectors of other words up to this many words (a "
        "pre-trained model's vocabulary, among which S′'s neighbours are searched)",
    )
    parser.add_argument("--baseline-ref", default="dfbe8a2", help="git ref of the estimators before the shared engine")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--quick", action="store_true", help="600 abstracts, 2 folds, C in {100, 200}, one exponent")
    args = parser.parse_args()
    if args.quick:
        args.documents, args.folds, args.C, args.exponents = 600, 2, [100, 200], [2.0]

    from gensim.models import Word2Vec

    from regemb_utils.classification import engine
    from regemb_utils.classification.estimators import SoftCosineClassifier
    from regemb_utils.text.tokenization import tokenize

    texts, labels = ohsumed_unused(args.documents, args.seed)
    start = time.perf_counter()
    model = Word2Vec(
        [tokenize(text) for text in texts],
        vector_size=200,
        window=10,
        min_count=args.min_count,
        seed=args.seed,
        workers=1,
        epochs=5,
    )
    kv = model.wv
    if args.vocabulary and args.vocabulary > len(kv):
        rng = np.random.default_rng(args.seed)
        extra = args.vocabulary - len(kv)
        scale = float(np.std(kv.vectors))
        kv.add_vectors(
            [f"other{i}" for i in range(extra)],
            (scale * rng.standard_normal((extra, kv.vector_size))).astype(np.float32),
        )
    grid = {"C": args.C, "threshold": args.thresholds, "exponent": args.exponents}
    points = int(np.prod([len(v) for v in grid.values()]))
    print(
        f"OHSUMED C11–C23: {len(texts):,} abstracts, {len(set(labels))} categories; word2vec {len(kv):,} words "
        f"× 200 ({time.perf_counter() - start:.1f} s); grid {grid}, k = {args.k}: {points} points × {args.folds} "
        f"folds + refit = {points * args.folds + 1} fits, one core"
    )

    old = baseline_estimators(args.baseline_ref).SoftCosineClassifier(kv, k=args.k, orthogonalized=True)
    before, before_wall, before_cpu, _ = timed_search(old, grid, texts, labels, args.folds)
    engine._SHARED.clear()
    new = SoftCosineClassifier(kv, k=args.k, orthogonalized=True)
    after, after_wall, after_cpu, reports = timed_search(new, grid, texts, labels, args.folds)

    old_scores, new_scores = before.cv_results_["mean_test_score"], after.cv_results_["mean_test_score"]
    print(f"{'route':<42}{'wall s':>9}{'CPU s':>9}{'s / fit':>9}")
    fits = points * args.folds + 1
    for name, wall, cpu in (
        (f"before ({args.baseline_ref}): S′ prepared per fit", before_wall, before_cpu),
        ("today: shared neighbours and preparation", after_wall, after_cpu),
    ):
        print(f"{name:<42}{wall:9.1f}{cpu:9.1f}{wall / fits:9.2f}")
    print(f"speed-up (wall): {before_wall / after_wall:.1f}×; CPU: {before_cpu / after_cpu:.1f}×")
    print(
        f"scores: max |difference| {np.max(np.abs(old_scores - new_scores)):.2g}; best {after.best_params_} "
        f"(before: {before.best_params_}), accuracy {after.best_score_:.4f}"
    )
    best = after.best_estimator_
    print(
        f"words without an embedding: {len(reports)} warning(s) in {fits} fits; the refit model: "
        f"{best.n_missing_words_:,} words, {100 * best.missing_share_:.2f} % of the tokens, most frequent "
        f"{best.missing_words_[:5]}"
    )


if __name__ == "__main__":
    main()
