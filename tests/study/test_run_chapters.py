"""scripts/run_chapters.py's tidying of saved outputs: progress bars keep only what a terminal finally shows."""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path

from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("run_chapters", ROOT / "scripts" / "run_chapters.py")
run_chapters = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run_chapters)


def test_two_stacked_progress_bars_keep_one_final_line_each():
    """Two bars at positions 0 and 1, updated in turn (as two models training at once), then a print."""
    stream = io.StringIO()
    first = tqdm(total=100, desc="32-bit", file=stream, position=0, mininterval=0, ascii=True)
    second = tqdm(total=100, desc="1-bit", file=stream, position=1, mininterval=0, ascii=True)
    for _ in range(100):
        first.update(1)
        second.update(1) if second.n < 60 else None
    first.close()
    second.close()
    stream.write("done\n")
    raw = stream.getvalue()
    assert raw.count("32-bit") > 50  # every update was written
    shown = [line.rstrip() for line in run_chapters.terminal_text(raw).split("\n") if line.strip()]
    assert len(shown) == 3, shown
    assert shown[0].startswith("32-bit: 100%") and shown[1].startswith("1-bit:  60%") and shown[2] == "done"


def test_a_rewritten_line_keeps_its_last_state_and_other_text_stays():
    assert run_chapters.terminal_text("loading\nx 10%\rx 55%\rx 100%\nready\n") == "loading\nx 100%\nready\n"
