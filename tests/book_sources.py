"""What a book build needs besides the executed chapters: the tests build the book in a temporary directory from
notebooks run there, never from the committed ones."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def copy_book_sources(where: Path) -> None:
    """The book's configuration, its pages (every top-level ``.md`` and ``.yml``, and the API reference's pages in
    ``api/``; only the table of contents' pages are built), its bibliography (``.bib``), its Sphinx extensions
    (``_ext``) and its offline assets, copied into ``where``."""
    for path in ROOT.iterdir():
        if path.is_file() and path.suffix in (".yml", ".md", ".bib"):
            shutil.copy(path, where / path.name)
        elif path.is_dir() and path.name in ("_ext", "assets", "api"):
            shutil.copytree(path, where / path.name)
