"""Execute the book's chapters (in _toc.yml order) with papermill.

    scripts/run_chapters.py --profile paper --output notebooks                 every chapter
    scripts/run_chapters.py --from 04 -p datasets '["bbcsport"]' -y 'ks: [1, 3]' --output notebooks
                                                                               chapter 4 with new parameters, then 5, 6

Parameters given with ``-p NAME VALUE`` (VALUE read as papermill does, and as JSON when it is a list or mapping) or
``-y YAML`` go to the first chapter run (``--from``, or ``--only``'s single chapter); every later chapter runs with
its defaults and takes its inputs from the records of the chapters before it (regemb_utils.study.pipeline), so a rerun
flows into the rest of the book. Unknown parameter names are refused before anything runs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

import nbformat
import papermill
import yaml

ROOT = Path(__file__).resolve().parents[1]
BATCH = {"REGEMB_PROGRESS": "text"}  # text bars, not widgets, in the saved notebooks (regemb_utils.infra.progress)


def chapters() -> list[Path]:
    """The book's notebooks in table-of-contents order (the chapters; the appendix is a page, not a notebook)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    entries = [entry for part in toc.get("parts", [toc]) for entry in part.get("chapters", [])]
    return [ROOT / f"{entry['file']}.ipynb" for entry in entries if (ROOT / f"{entry['file']}.ipynb").exists()]


def terminal_text(text: str) -> str:
    """What a terminal finally shows (line wrapping aside): ``\\r`` returns to the start of the line, ``\\n`` goes to
    the next line and the cursor-up escape to the one above, and text overwrites what is under the cursor. Progress
    bars that rewrite their line, and bars stacked at other positions (tqdm moves to them and back up), so keep only
    their last state.

    >>> terminal_text("a 1%\\ra 50%\\n\\rb 1%\\x1b[A\\ra 100%\\n\\rb 9%\\x1b[A\\n\\nend\\n")
    'a 100%\\nb 9%\\nend\\n'
    """
    lines, row, column = [""], 0, 0
    for part in re.split("(\r|\n|\x1b\\[A)", text):
        if part == "\r":
            column = 0
        elif part == "\n":
            row, column = row + 1, 0
            if row == len(lines):
                lines.append("")
        elif part == "\x1b[A":
            row = max(row - 1, 0)
        elif part:
            line = lines[row].ljust(column)
            lines[row] = line[:column] + part + line[column + len(part) :]
            column += len(part)
    return "\n".join(lines)


def tidy_notebook(path: Path) -> None:
    """Prepare an executed chapter for the book.

    Progress bars write thousands of ``\\r`` updates, often as separate outputs: merge consecutive outputs of the
    same stream and keep only each bar's final state. The cell that papermill injects repeats the parameters cell
    with the values given; the chapter shows every resolved value as a table, so the injected cell is tagged
    ``remove-cell`` and stays out of the book's page (JupyterLab still shows it)."""
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        tags = cell.metadata.setdefault("tags", [])
        if "injected-parameters" in tags and "remove-cell" not in tags:
            tags.append("remove-cell")
        outputs = []
        for output in cell.get("outputs", []):
            previous = outputs[-1] if outputs else None
            if (
                output.get("output_type") == "stream"
                and previous is not None
                and previous.get("output_type") == "stream"
                and previous["name"] == output["name"]
            ):
                previous["text"] += output["text"]
            else:
                outputs.append(output)
        for output in outputs:
            if output.get("output_type") == "stream":
                output["text"] = terminal_text(output["text"])
        if "outputs" in cell:
            cell["outputs"] = outputs
    nbformat.write(notebook, path)


def parse_value(text: str):
    """A ``-p`` value: None, a boolean, an integer, a float, a JSON list or mapping, else the string itself."""
    if text in ("None", "null"):
        return None
    if text in ("True", "False", "true", "false"):
        return text.lower() == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    if text.strip()[:1] in ("[", "{"):
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            raise SystemExit(f"-p value {text!r} looks like a list or mapping but is not valid JSON") from None
    return text


def select(names: list[str], wanted: str) -> int:
    matches = [i for i, name in enumerate(names) if name == wanted or name.split("_", 1)[0] == wanted]
    if len(matches) != 1:
        raise SystemExit(
            f"{'ambiguous' if matches else 'unknown'} chapter {wanted!r}; allowed: {', '.join(names)} "
            "(or their numbers, where only one chapter has it)"
        )
    return matches[0]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", default="paper", help="smoke or paper (default)")
    parser.add_argument("--output", type=Path, required=True, help="directory that receives the executed notebooks")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--from", dest="start", help="run this chapter (e.g. 04) and every chapter after it")
    group.add_argument("--only", nargs="*", help="run only these chapters (e.g. 01_preprocessing 03)")
    parser.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"))
    parser.add_argument("-y", "--yaml", action="append", default=[], help="parameters as YAML, e.g. 'ks: [1, 3]'")
    args = parser.parse_args(argv)

    from regemb_utils.infra.cache import ArtifactCache, CacheError, directory_from_environment
    from regemb_utils.study.params import ParameterError, chapter_parameters

    notebooks = chapters()
    names = [p.stem for p in notebooks]
    if args.only:
        selected = sorted({select(names, wanted) for wanted in args.only})
    else:
        selected = list(range(select(names, args.start) if args.start else 0, len(names)))
    parameters = {name: parse_value(value) for name, value in args.parameter}
    for text in args.yaml:
        try:
            loaded = yaml.safe_load(text)
        except yaml.YAMLError as error:
            raise SystemExit(
                f"-y {text!r} is not valid YAML ({str(error).splitlines()[0]}); give a mapping such as 'ks: [1, 3]'"
            ) from None
        if not isinstance(loaded, dict):
            raise SystemExit(f"-y {text!r} is not a YAML mapping of parameter names to values")
        parameters.update(loaded)
    if parameters and args.only and len(selected) > 1:
        raise SystemExit("-p/-y parameters go to one chapter: use --from CHAPTER, or --only with one chapter")
    first = names[selected[0]]
    try:  # names and values checked before anything runs; the chapter checks again against its inputs
        chapter_parameters(first, args.profile, **parameters)
        cache = ArtifactCache()
        cache.check_writable()
        data = directory_from_environment("REGEMB_DATA")
    except (ParameterError, CacheError, ValueError) as error:
        raise SystemExit(f"{first}: {error}") from None
    # absolute paths (relative ones start here, where the command ran): papermill's kernels run in notebooks/
    os.environ.update(BATCH, REGEMB_CACHE=str(cache.root), **({"REGEMB_DATA": str(data)} if data else {}))
    args.output.mkdir(parents=True, exist_ok=True)
    for index in selected:
        notebook = notebooks[index]
        given = dict(parameters) if index == selected[0] else {}
        print(f"running {notebook.name} with profile {args.profile}" + (f" and {given}" if given else ""), flush=True)
        # Into a temporary file first: a chapter that fails never replaces a good notebook (it is kept for reading).
        partial = args.output / f".{notebook.stem}.partial.ipynb"
        try:
            papermill.execute_notebook(
                notebook,
                partial,
                parameters={"profile": args.profile, **given},
                cwd=notebook.parent,
                progress_bar=False,
            )
        except papermill.PapermillExecutionError as error:  # the chapter's own message, not papermill's traceback
            later = ", ".join(notebooks[i].stem for i in selected if i > index)
            raise SystemExit(
                f"{notebook.stem} stopped at cell {error.exec_count}: {error.ename}: {error.evalue}\n"
                f"The executed chapter, with the error, is kept in {partial}; no record of the chapter was "
                f"written" + (f", and {later} did not run." if later else ".")
            ) from None
        tidy_notebook(partial)
        partial.replace(args.output / notebook.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
