"""The examples in the package's docstrings run and print what they show (doctest), every public function and class
documents itself with numpydoc sections (Parameters, Returns or Yields, and Examples; a class Parameters and Examples),
and the API reference pages document every module."""

import doctest
import importlib
import inspect
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted(
    ".".join(p.relative_to(ROOT).with_suffix("").parts)
    for p in (ROOT / "regemb_utils").rglob("*.py")
    if p.name != "__init__.py"
)

# Public names that cannot show a doctest example, each with the reason.
NO_EXAMPLE = {
    "regemb_utils.study.pipeline.run_classification": "needs chapters 1 and 2's records (trained embeddings)",
    "regemb_utils.study.pipeline.run_seed_classification": "needs chapters 1 and 2's records (trained embeddings)",
    "regemb_utils.chapters.baselines.run_linear_models": "needs chapters 1 to 4's records (tests/chapters/test_baselines.py)",
    "regemb_utils.chapters.scm_vs_wmd.speed_sample": "needs chapters 1-3's records (trained embeddings) and chapter "
    "4's results",
}


def _public(module_name):
    """The public functions and classes that module_name defines itself (not the ones it imports)."""
    module = importlib.import_module(module_name)
    return [
        (name, obj)
        for name, obj in vars(module).items()
        if not name.startswith("_")
        and (inspect.isfunction(obj) or inspect.isclass(obj))
        and obj.__module__ == module_name
    ]


PUBLIC = [(module, name) for module in MODULES for name, _ in _public(module)]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    for test in finder.find(module, name, globs=vars(module).copy()):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples of {name} failed"


@pytest.mark.parametrize("module, name", PUBLIC)
def test_public_names_have_numpydoc_sections(module, name):
    obj = getattr(importlib.import_module(module), name)
    doc = inspect.getdoc(obj) or ""
    sections = ("Parameters", "Examples") if inspect.isclass(obj) else ("Parameters", "Returns", "Examples")
    if not inspect.isclass(obj) and not inspect.signature(obj).parameters:
        sections = sections[1:]  # numpydoc: a function without parameters has no Parameters section
    if f"{module}.{name}" in NO_EXAMPLE:
        sections = tuple(section for section in sections if section != "Examples")
    if inspect.isgeneratorfunction(obj):
        sections = tuple("Yields" if section == "Returns" else section for section in sections)
    missing = [section for section in sections if f"\n{section}\n{'-' * len(section)}\n" not in doc]
    assert not missing, f"{module}.{name} has no {', '.join(missing)} section"


def test_the_exemptions_name_public_names():
    assert set(NO_EXAMPLE) <= {f"{module}.{name}" for module, name in PUBLIC}


def test_the_api_reference_documents_every_module():
    """api.md links the pages api/*.md; each module is documented on exactly one of them, a page of its subpackage
    (api/SUBPACKAGE.md or api/SUBPACKAGE-PART.md), and every page is in the book's table of contents."""
    index, toc = (ROOT / "api.md").read_text(), (ROOT / "_toc.yml").read_text()
    pages = sorted((ROOT / "api").glob("*.md"))
    assert pages, "no API pages in api/"
    unlinked = [page.name for page in pages if f"(api/{page.name})" not in index]
    assert not unlinked, f"api.md does not link {unlinked}"
    untocked = [page.name for page in pages if f"- file: api/{page.stem}\n" not in toc]
    assert not untocked, f"_toc.yml does not list {untocked}"
    found = {name: [page.stem for page in pages if f".. automodule:: {name}\n" in page.read_text()] for name in MODULES}
    wrong = {
        name: stems for name, stems in found.items() if len(stems) != 1 or stems[0].split("-")[0] != name.split(".")[1]
    }
    assert not wrong, f"modules not documented on exactly one page of their subpackage: {wrong}"
