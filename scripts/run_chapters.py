"""Execute every chapter of the book (in _toc.yml order) with papermill and a given profile."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import nbformat
import papermill
import yaml

ROOT = Path(__file__).resolve().parents[1]


def chapters() -> list[Path]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    return [ROOT / f"{entry['file']}.ipynb" for entry in toc["chapters"]]


def terminal_text(text: str) -> str:
    """What a terminal finally shows: each progress-bar line overwritten with ``\\r`` reduced to its last state."""
    return "\n".join(line.rsplit("\r", 1)[-1] for line in text.split("\n"))


def compact_streams(path: Path) -> None:
    """Progress bars write thousands of ``\\r`` updates, often as separate outputs; merge consecutive outputs of the
    same stream and keep only each bar's final state in the saved notebook."""
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        outputs = []
        for output in cell.get("outputs", []):
            previous = outputs[-1] if outputs else None
            if (output.get("output_type") == "stream" and previous is not None
                    and previous.get("output_type") == "stream" and previous["name"] == output["name"]):
                previous["text"] += output["text"]
            else:
                outputs.append(output)
        for output in outputs:
            if output.get("output_type") == "stream":
                output["text"] = terminal_text(output["text"])
        if "outputs" in cell:
            cell["outputs"] = outputs
    nbformat.write(notebook, path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--profile", default="paper")
    parser.add_argument("--output", type=Path, required=True, help="directory that receives the executed notebooks")
    parser.add_argument("--only", nargs="*", help="chapter names (e.g. 01_preprocessing) to run, default all")
    args = parser.parse_args()
    args.output.mkdir(parents=True, exist_ok=True)
    os.environ["REGEMB_PROGRESS"] = "text"  # text bars, not widgets, in the saved notebooks (regemb_utils/progress.py)
    for notebook in chapters():
        if args.only and notebook.stem not in args.only:
            continue
        print(f"running {notebook.name} with profile {args.profile}", flush=True)
        # Into a temporary file first: a chapter that fails never replaces a good notebook (it is kept for reading).
        partial = args.output / f".{notebook.stem}.partial.ipynb"
        papermill.execute_notebook(
            notebook, partial, parameters={"profile": args.profile}, cwd=notebook.parent, progress_bar=False
        )
        compact_streams(partial)
        partial.replace(args.output / notebook.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
