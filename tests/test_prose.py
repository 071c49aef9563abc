"""Prose a newcomer can follow: no paragraph of the book longer than about 140 words. A static check of the markdown
cells of every chapter and of the book's markdown pages (those of the table of contents); code cells, code blocks,
display math, tables and directive options are not prose and are not counted."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
LONGEST = 140

# Directives whose body is code, math or configuration rather than prose.
NOT_PROSE = {
    "code",
    "code-block",
    "code-cell",
    "sourcecode",
    "math",
    "raw",
    "eval-rst",
    "toctree",
    "bibliography",
    "literalinclude",
    "glue",
    "glue:md",
    "glue:any",
}
FENCE = re.compile(r"^(`{3,}|~{3,}|:{3,})\s*(\{([^}]*)\})?")
OPTION = re.compile(r"^:[\w-]+:(\s.*)?$")
LIST_ITEM = re.compile(r"^([-*+]|\d+[.)])\s")
ONE_WORD_ROLE = re.compile(r"\{(glue(:\w*)?|term|cite(:\w+)?|math|eq)\}`[^`]*`")
OTHER_ROLE = re.compile(r"\{[\w:-]+\}`([^`<]*?)\s*(<[^>`]*>)?`")


def paragraphs(text: str) -> list[str]:
    """The paragraphs of a markdown text, in order: blank lines, headings, list items, table rows, target labels,
    display math, fences and a directive's option lines separate them; the bodies of code, math and configuration
    directives (:data:`NOT_PROSE`) and of plain code blocks are left out, those of the others (admonitions, exercises,
    figures' captions, the glossary) kept."""
    found: list[str] = []
    current: list[str] = []
    fences: list[tuple[str, bool]] = []  # (closing marker, body is prose) of the open fences, innermost last
    in_options = in_math = False

    def end() -> None:
        if current:
            found.append(" ".join(current))
            current.clear()

    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(">"):  # a block quote's text is prose like any other
            stripped = stripped.lstrip("> ").strip()
        prose = all(body for _, body in fences)
        fence = FENCE.match(stripped)
        if (
            fences
            and fence
            and fence.group(2) is None
            and stripped.rstrip(stripped[0]) == ""
            and stripped[0] == fences[-1][0][0]
            and len(stripped) >= len(fences[-1][0])
        ):
            fences.pop()
            end()
            in_options = False
            continue
        if fence and prose and not (fence.group(1)[0] == ":" and fence.group(2) is None):
            end()
            name = (fence.group(3) or "").split()[0] if fence.group(3) else ""
            fences.append((fence.group(1), bool(name) and name not in NOT_PROSE and not name.startswith("auto")))
            in_options = True
            continue
        if not prose:
            continue
        if in_options and (OPTION.match(stripped) or stripped == "---"):
            continue
        in_options = False
        if stripped.startswith("$$"):
            end()
            in_math = not (in_math or (len(stripped) > 2 and stripped.endswith("$$")))
            continue
        if in_math:
            continue
        if (
            not stripped
            or stripped.startswith(("#", "|", "<!--"))
            or re.fullmatch(r"\(.+\)=", stripped)
            or re.fullmatch(r"[-*_=]{3,}", stripped)
        ):
            end()
            continue
        if LIST_ITEM.match(stripped) or stripped.startswith(": "):  # a list item or a definition starts its own
            end()
        current.append(stripped)
    end()
    return found


def words(paragraph: str) -> int:
    """How many words a reader sees: a glue value, a glossary term, a citation, inline math, a link's or a
    reference's text count as written (a role or formula as one word); punctuation standing alone is no word."""
    text = ONE_WORD_ROLE.sub(" W ", paragraph)
    text = OTHER_ROLE.sub(lambda m: f" {m.group(1) or 'W'} ", text)
    text = re.sub(r"\$[^$]+\$", " W ", text)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r" \1 ", text)
    return sum(1 for token in text.split() if re.search(r"\w", token))


def book_pages() -> list[Path]:
    """Every chapter notebook and every page of the table of contents."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    names = [toc["root"]]

    def walk(entries):
        for entry in entries or ():
            if "file" in entry:
                names.append(entry["file"])
            walk(entry.get("sections"))
            walk(entry.get("chapters"))

    walk(toc.get("parts"))
    walk(toc.get("chapters"))
    pages = set((ROOT / "notebooks").glob("*.ipynb"))
    for name in names:
        pages.update(p for p in (ROOT / f"{name}.md", ROOT / f"{name}.ipynb") if p.exists())
    return sorted(pages)


def markdown_cells(path: Path) -> list[tuple[str, str]]:
    """(where, text) of a page: each markdown cell of a notebook, the whole text of a markdown page."""
    if path.suffix == ".md":
        return [("", path.read_text())]
    cells = json.loads(path.read_text())["cells"]
    return [(f"cell {i}", "".join(c["source"])) for i, c in enumerate(cells) if c["cell_type"] == "markdown"]


def test_paragraphs_are_split_where_a_reader_sees_them_split():
    text = "\n".join(
        [
            "# A heading",
            "First paragraph, {glue:text}`a:.2f` and {term}`two words <S>` and $x + y$ words.",
            "",
            "- an item",
            "  continued",
            "- another {cite:p}`a,b`",
            "",
            "```python",
            "code is not prose",
            "```",
            "",
            "````{note}",
            ":class: dropdown",
            "Prose in a note, [linked text](x.md).",
            "````",
            "$$",
            "a + b",
            "$$",
            "(label)=",
            "| a | b |",
            "Last — one.",
        ]
    )
    assert paragraphs(text) == [
        "First paragraph, {glue:text}`a:.2f` and {term}`two words <S>` and $x + y$ words.",
        "- an item continued",
        "- another {cite:p}`a,b`",
        "Prose in a note, [linked text](x.md).",
        "Last — one.",
    ]
    assert [words(p) for p in paragraphs(text)] == [8, 3, 2, 6, 2]


def test_the_book_pages_include_the_landing_page_and_every_chapter_but_not_the_readme():
    names = {p.relative_to(ROOT).as_posix() for p in book_pages()}
    assert {"intro.md", "glossary.md", "appendix_paper_code.md", "notebooks/04_scm_vs_wmd.ipynb"} <= names
    assert "README.md" not in names


@pytest.mark.parametrize("path", book_pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_paragraph_is_longer_than_about_140_words(path):
    long = [
        f"{where or 'page'}, {words(p)} words: {' '.join(p.split()[:8])} ..."
        for where, text in markdown_cells(path)
        for p in paragraphs(text)
        if words(p) > LONGEST
    ]
    if long:
        pytest.fail(f"{path.relative_to(ROOT)}: paragraphs over {LONGEST} words:\n" + "\n".join(long))
