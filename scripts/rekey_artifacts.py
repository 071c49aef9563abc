"""One-off step of release 0.3.0: carry an artifact cache across the move of chapter 4's kNN search into the measure
objects (``regemb_utils.classification.engine``) and the declared parameter constraints of its settings
(``regemb_utils.infra.constraints``), which changed the code hashes of three artifact kinds but not what they compute,
so that nothing is recomputed.

    python scripts/rekey_artifacts.py [CACHE]      (CACHE: the artifact cache, by default the project's)

Each artifact of those kinds whose key was made with the code before the move is renamed to its key with the code now
(:func:`regemb_utils.infra.cache.rekey`); others are left alone. Running it twice does nothing the second time.
"""

from __future__ import annotations

import sys

import regemb_utils.classification  # noqa: F401  (declares the kinds below)
from regemb_utils.infra.cache import default_root, rekey

# The code hashes that stored these kinds before 0.3.0 (regemb_utils.infra.keys.code_hash of each kind's function).
# Chapter 4 measured its speeds in joblib's worker processes, where numba's default number of threads differed from the
# main process's and moved the hash (0.3.0 keeps the thread count out of every hash): those speeds were stored with
# the workers' hash, f2b1c45a3f7d6d33 (c7ccd95badc9d2c1 in the main process).
# The kNN results moved once more when chapter 4's Settings came to declare its parameters with
# regemb_utils.infra.constraints (90256948bf186a9f, the key of 0.3.0's measure objects before that); both carry across.
BEFORE = {
    "knn": ("f6cf5ad5ebcb1cf5", "90256948bf186a9f"),
    "speed": "f2b1c45a3f7d6d33",
    "wmd-batch": "1156bcd97f4f02e6",
}

if __name__ == "__main__":
    root = sys.argv[1] if len(sys.argv) > 1 else default_root()
    renamed = rekey(root, BEFORE)
    for kind in BEFORE:
        print(f"{kind}: {sum(old.startswith(kind + '-') for old, _ in renamed)} artifacts renamed")
