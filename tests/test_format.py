"""The Python files are as ruff formats them (its settings: pyproject.toml's [tool.ruff]); the chapters are not."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_python_files_are_formatted():
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, f"run `ruff format .` (files it would change):\n{result.stdout}{result.stderr}"
