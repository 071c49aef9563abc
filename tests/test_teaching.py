"""The book's teaching apparatus (issue 22), checked on its sources: every chapter ends with 2-4 exercises whose
solutions are hidden until opened, every glossary term is linked from its first use in every page that uses it,
every citation key is in the bibliography, and Theorem 1 is a numbered theorem block that chapter 3's check refers
to. (The build with -W in ``test_book.py`` fails on an unknown citation, term or theorem reference.)"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
_TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
# The course's chapters (the table of contents' numbered part) end with exercises; every notebook page links terms.
CHAPTERS = [ROOT / f"{e['file']}.ipynb" for part in _TOC["parts"] if part.get("numbered") for e in part["chapters"]]
NOTEBOOKS = [
    ROOT / f"{e['file']}.ipynb"
    for part in _TOC["parts"]
    for e in part["chapters"]
    if (ROOT / f"{e['file']}.ipynb").exists()
]
PAGES = ["intro.md", "appendix_paper_code.md", "teachers.md"]
# Terms that the prose writes as formulas: their first use is the formula on its own.
MATH_FORMS = {"S": "$S$", "S′": "$S'$", "C": "$C$"}
# Spans that are not prose: fenced blocks, display and inline math, roles, code, links, HTML, headings, emphasis marks.
_SPANS = re.compile(
    r"(`{3,}[\s\S]*?`{3,}|\$\$[\s\S]*?\$\$|\{[\w:-]+\}`[^`]*`|`[^`]*`|\$[^$\n]+\$|!?\[[^\]]*\]\([^)]*\)"
    r"|<[^>\n]+>|^#.*$|\*{1,2})",
    re.M,
)
_ROLE = re.compile(r"\{term\}`([^`<]*?)(?:\s*<([^>]+)>)?`")


def glossary_entries() -> list[list[str]]:
    """The glossary's entries, each as the list of its names (a term and its synonyms), from glossary.md."""
    text = (ROOT / "glossary.md").read_text()
    block = text[text.index("```{glossary}") + len("```{glossary}") :]
    block = block[: block.index("\n```")]
    entries, names = [], []
    for line in block.splitlines():
        if line.strip() and not line.startswith(" "):
            names.append(line.strip())
        elif names:
            entries.append(names)
            names = []
    return entries


def prose(path: Path) -> str:
    """A page's text, or a chapter's markdown cells in order."""
    if path.suffix == ".md":
        return path.read_text()
    return "\n\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown")


def segments(text: str):
    """(kind, text, offset) in order: "prose", "role" (a {term} role), "math" or "other"."""
    position = 0
    for match in _SPANS.finditer(text):
        if match.start() > position:
            yield "prose", text[position : match.start()], position
        span = match.group(0)
        kind = "role" if span.startswith("{term}") else "math" if span.startswith("$") else "other"
        yield kind, span, match.start()
        position = match.end()
    if position < len(text):
        yield "prose", text[position:], position


def _inside_word(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] is part of a word split by emphasis marks, as in **Sym**metric."""
    before, after = text[max(0, start - 3) : start], text[end : end + 3]
    return bool(
        re.fullmatch(r"\w\*{1,2}", before[-3:])
        or re.fullmatch(r"\*{1,2}\w", after[:3])
        or re.match(r"\*{1,2}\w", after)
    )


def first_use(text: str, names):
    """How the first use of a glossary entry (any of its ``names``) in ``text`` is written: ("role", span, offset)
    when it is a {term} link, ("prose"/"math", span, offset) when it is not linked, None when the text does not use
    it."""
    names = [names] if isinstance(names, str) else names
    words = [re.compile(rf"(?<![\w\-–'′]){re.escape(name)}(?![\w\-–′+])") for name in names]  # not C in C++
    for kind, span, start in segments(text):
        if kind == "role":
            match = _ROLE.fullmatch(span)
            if match and {(match.group(2) or match.group(1)).strip(), match.group(1).strip()} & set(names):
                return "role", span, start
        elif kind == "prose":
            found = [
                m
                for word in words
                for m in word.finditer(span)
                if not _inside_word(text, start + m.start(), start + m.end())
            ]
            if found:
                first = min(found, key=lambda m: m.start())
                return "prose", first.group(0), start + first.start()
        elif kind == "math" and span in {MATH_FORMS.get(name) for name in names}:
            return "math", span, start
    return None


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_ends_with_exercises_and_hidden_solutions(path):
    cells = nbformat.read(path, as_version=4).cells
    heading = [i for i, c in enumerate(cells) if c.cell_type == "markdown" and c.source.startswith("## Exercises")]
    assert len(heading) == 1, "one Exercises section per chapter"
    tail = [c for c in cells[heading[0] :]]
    assert not any(c.cell_type == "markdown" and c.source.startswith("## ") for c in tail[1:]), (
        "the Exercises section is the chapter's last"
    )
    labels = [m.group(1) for c in tail for m in re.finditer(r"\{exercise\}.*\n:label: (\S+)", c.source)]
    assert 2 <= len(labels) <= 4
    for label in labels:
        starts = [
            i for i, c in enumerate(tail) if re.search(rf"\{{solution-start\}} {label}\n:class: dropdown", c.source)
        ]
        assert len(starts) == 1, f"{label}: one solution, hidden (dropdown) until opened"
        i = starts[0]
        assert tail[i + 1].cell_type == "code" and "exercises." in tail[i + 1].source, (
            f"{label}: the solution's code calls regemb_utils.chapters.exercises"
        )
        assert "{solution-end}" in tail[i + 2].source and len(tail[i + 2].source) > 200, (
            f"{label}: the solution states its result before it ends"
        )


@pytest.mark.parametrize("path", [*NOTEBOOKS, *(ROOT / p for p in PAGES)], ids=lambda p: p.stem)
def test_glossary_terms_are_linked_at_their_first_use(path):
    text = prose(path)
    unlinked = [
        (names[0], found[1], text[max(0, found[2] - 40) : found[2] + 40].replace("\n", " "))
        for names in glossary_entries()
        if (found := first_use(text, names)) and found[0] != "role"
    ]
    assert not unlinked, "first uses not linked to the glossary: " + "; ".join(map(str, unlinked))


def test_every_term_link_names_a_glossary_term():
    terms = {name for names in glossary_entries() for name in names}
    for path in [*NOTEBOOKS, *(ROOT / p for p in PAGES)]:
        for shown, target in _ROLE.findall(prose(path)):
            assert (target or shown).strip() in terms, f"{path.name}: {{term}} {target or shown!r} is not defined"


def test_first_use_finds_links_prose_and_formulas():
    text = "# SCM\nThe `SCM`, **Dom**inant, $S'$ in {term}`Word Mover's Distance <WMD>`; the SCM, WMD, Dom and $S$."
    assert first_use("a C++ program; C", ["C"])[2] == len("a C++ program; ")  # C++ is not the term C
    assert first_use(text, ["SCM", "soft cosine measure"])[0] == "prose"
    assert first_use(text, ["WMD"])[0] == "role"
    assert first_use(text, ["Word Mover's Distance"]) == (
        "role",
        "{term}`Word Mover's Distance <WMD>`",
        text.index("{term}"),
    )
    assert first_use(text, ["S′"]) == ("math", "$S'$", text.index("$S'$"))
    assert first_use(text, ["Dom"]) == ("prose", "Dom", text.index("Dom and"))  # not the split word **Dom**inant
    assert first_use(text, ["C"]) is None


def test_citations_resolve_to_the_bibliography():
    keys = set(re.findall(r"@\w+\{([^,]+),", (ROOT / "references.bib").read_text()))
    cited = set()
    for path in [*NOTEBOOKS, *(ROOT / p for p in [*PAGES, "glossary.md"])]:
        for group in re.findall(r"\{cite:[a-z]+\}`([^`]+)`", prose(path)):
            cited |= {key.strip() for key in group.split(",")}
    assert cited and cited <= keys, f"cited but not in references.bib: {sorted(cited - keys)}"
    assert "```{bibliography}" in (ROOT / "bibliography.md").read_text()


def test_theorem_1_is_a_theorem_block_that_chapter_3_refers_to():
    text = prose(ROOT / "notebooks" / "03_orthogonalization.ipynb")
    assert re.search(r"````\{prf:theorem\}.*\n:label: theorem-1\n", text)
    assert "{prf:proof}" in text
    check = text[text.index("## Theorem 1, checked") :]
    assert check.index("{prf:ref}`theorem-1`") < 200, "the numerical check names the theorem it checks"
