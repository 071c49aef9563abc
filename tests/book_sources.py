"""What a book build needs besides the executed chapters: the tests build the book in a temporary directory from
notebooks run there, never from the committed ones."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def copy_book_sources(where: Path, api: bool = True) -> None:
    """The book's configuration, its pages (every top-level ``.md`` and ``.yml``, and the API reference's pages in
    ``api/``; only the table of contents' pages are built), its bibliography (``.bib``), its Sphinx extensions
    (``_ext``) and its offline assets, copied into ``where``. Without ``api``, the API reference is left out of the
    table of contents (its pages read the package, not the chapters, and take most of a build's time)."""
    for path in ROOT.iterdir():
        if path.is_file() and path.suffix in (".yml", ".md", ".bib"):
            shutil.copy(path, where / path.name)
        elif path.is_dir() and path.name in ("_ext", "assets", "api"):
            shutil.copytree(path, where / path.name)
    if not api:
        toc = yaml.safe_load((where / "_toc.yml").read_text())
        for part in toc["parts"]:
            part["chapters"] = [entry for entry in part["chapters"] if entry["file"] != "api"]
        (where / "_toc.yml").write_text(yaml.safe_dump(toc, sort_keys=False, allow_unicode=True))
