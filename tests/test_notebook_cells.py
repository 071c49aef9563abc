"""Notebook cells narrate: the computations and figures live in the package, and no code cell is longer than a
screen (25 lines)."""

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LONGEST = 25


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.name)
def test_no_code_cell_is_longer_than_a_screen(path):
    cells = json.loads(path.read_text())["cells"]
    long = [
        (i, len("".join(c["source"]).splitlines()))
        for i, c in enumerate(cells)
        if c["cell_type"] == "code" and len("".join(c["source"]).splitlines()) > LONGEST
    ]
    assert not long, f"{path.name}: code cells longer than {LONGEST} lines (cell, lines): {long}"
