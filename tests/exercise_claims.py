"""What the chapters' exercise solutions state (issue 22), checked on the values they glue when the chapters run.

:func:`check_exercise_claims` reads the executed chapters (the smoke run of ``tests/test_book.py``) and asserts each
solution's stated result; ``python tests/exercise_claims.py DIR`` checks the chapters executed into ``DIR``."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import numpy as np


def glued(path: Path) -> dict:
    """Every value a notebook glued (``myst_nb.glue``), read back from its text form."""
    values = {}
    for cell in json.loads(path.read_text())["cells"]:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            text = output.get("data", {}).get("application/papermill.record/text/plain")
            if name and text is not None:
                try:
                    values[name] = ast.literal_eval(text)
                except (ValueError, SyntaxError):
                    values[name] = text
    return values


def _records(text: str) -> list[dict]:
    return json.loads(text)


def check_exercise_claims(notebooks: Path) -> int:
    """Assert every exercise solution's stated result; returns the number of exercises checked."""
    g = {p.stem: glued(p) for p in sorted(notebooks.glob("0*.ipynb"))}
    checked = 0
    # chapter 1: nBOW weights add up to 1; the heaviest word is the most frequent known word
    nbow = g["01_preprocessing"]["ex_nbow"]
    assert abs(nbow["sum"] - 1) < 1e-12
    assert nbow["top_count"] == nbow["max_count"]
    assert abs(nbow["top_weight"] - nbow["top_count"] / nbow["known_tokens"]) < 1e-12
    checked += 1
    # chapter 1: the majority class's training error is at most 1 - 1/K
    rows = _records(g["01_preprocessing"]["ex_majority"])
    assert rows and all(r["training error"] <= r["bound 1 − 1/K"] + 1e-12 for r in rows)
    assert all(abs(r["bound 1 − 1/K"] - (1 - 1 / r["classes"])) < 1e-12 for r in rows)
    checked += 1
    # chapter 2: 1-bit cosines are 1 - 2h/d, at most d + 1 distinct values, as many as Hamming distances
    hamming = g["02_training"]["ex_hamming"]
    assert hamming["largest difference"] < 1e-5
    assert hamming["distinct cosines"] == hamming["distinct Hamming distances"] <= hamming["dimensions"] + 1
    checked += 1
    # chapter 2: exact zeros only for the 1-bit model (d even)
    zeros, dims = g["02_training"]["ex_zeros"], g["02_training"]["ex_zeros_dimensions"]
    assert dims["1-bit"] % 2 == 0 and zeros["1-bit"] > 0 and zeros["32-bit"] == 0
    checked += 1
    # chapter 3: at most C + 1 non-zeros per column; without Sym and Dom the mean grows with C; Dom has fewer
    density = _records(g["03_orthogonalization"]["ex_density"])
    assert all(r["most non-zeros in a column"] <= r["C"] + 1 == r["bound C + 1"] for r in density)
    free = sorted((r["C"], r["mean non-zeros per column"]) for r in density if not r["Sym"] and not r["Dom"])
    assert all(a[1] <= b[1] for a, b in zip(free, free[1:])) and free[0][1] < free[-1][1]
    mean = {(r["Sym"], r["Dom"], r["C"]): r["mean non-zeros per column"] for r in density}
    assert all(mean[s, True, c] < mean[s, False, c] for s, d, c in mean if d)
    checked += 1
    # chapter 3: with Dom positive definite and factorized; without, a negative eigenvalue and no factor
    eigen = _records(g["03_orthogonalization"]["ex_eigen"])
    assert all(r["smallest eigenvalue"] > 0 and r["Cholesky factor exists"] for r in eigen if r["Dom"])
    negative = [r for r in eigen if not r["Dom"] and r["smallest eigenvalue"] < -1e-9]
    assert negative and not any(r["Cholesky factor exists"] for r in negative)
    checked += 1
    # chapter 4: the contributions add up to the SCM, the flows' costs to the WMD, the mass to 1; the ranks differ
    pair = g["04_scm_vs_wmd"]["ex_disagree"]
    assert abs(pair["contributions"] - pair["scm"]) < 1e-9 and abs(pair["cost"] - pair["wmd"]) < 1e-6
    assert abs(pair["mass"] - 1) < 1e-9 and pair["scm_rank"] != pair["wmd_rank"]
    checked += 1
    # chapter 4: core hours constant; wall hours fall with N, never below core hours / N
    cores = _records(g["04_scm_vs_wmd"]["ex_wmd_hours"])
    assert cores[0]["cores"] == 1 and np.isclose(cores[0]["wall hours"], cores[0]["core hours"])
    assert np.allclose([r["core hours"] for r in cores], cores[0]["core hours"])
    assert all(b["wall hours"] <= a["wall hours"] + 1e-12 for a, b in zip(cores, cores[1:]))
    assert all(r["wall hours"] >= r["core hours"] / r["cores"] - 1e-12 for r in cores)
    checked += 1
    # chapter 5: the test error is the share-weighted mean of the per-class errors; t-SNE beats a random layout
    per_class = g["05_confusion_tsne"]["ex_per_class"]
    assert abs(per_class["combined"] - per_class["test_error"]) < 1e-12
    trust = g["05_confusion_tsne"]["ex_trust"]
    assert 0 <= trust["random"] < trust["t-SNE"] <= 1
    checked += 2
    # chapter 6: the reduction by hand equals the headline's; the count within the intervals grows with confidence
    reduction = g["06_scorecard"]["ex_reduction"]
    assert abs(reduction["by_hand"] - reduction["headline"]) < 1e-9
    counted = _records(g["06_scorecard"]["ex_intervals"])
    assert [r["confidence"] for r in counted] == sorted(r["confidence"] for r in counted)
    assert all(a["within"] <= b["within"] <= b["compared"] for a, b in zip(counted, counted[1:]))
    checked += 2
    # chapter 7: E'ᵀx carries the sparse SCM to rounding; the C chosen on validation errs no less than the grid's best
    kernel = g["07_baselines"]["ex_kernel"]
    assert kernel["largest difference"] < 1e-10 and kernel["pairs"] > 0
    chosen = g["07_baselines"]["ex_validation_c"]
    assert chosen["lowest"] <= chosen["chosen"] + 1e-12
    checked += 2
    return checked


if __name__ == "__main__":
    print(check_exercise_claims(Path(sys.argv[1])), "exercises checked")
