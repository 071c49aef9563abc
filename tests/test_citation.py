"""A book one can cite: CITATION.cff, the package, the landing page and the changelog name one version, and the
citation names the paper the book reproduces as the bibliography does."""

import re
import tomllib
from pathlib import Path

import yaml

import regemb_utils

ROOT = Path(__file__).resolve().parents[1]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_the_citation_file_names_the_version_and_the_paper():
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert citation["cff-version"] == "1.2.0"
    assert str(citation["version"]) == VERSION
    assert citation["title"].startswith("regemb") and citation["authors"]
    (paper,) = [r for r in citation["references"] if r["type"] == "article"]
    bibliography = (ROOT / "references.bib").read_text()
    entry = bibliography[bibliography.index("@article{novotny2020text") :]
    entry = entry[: entry.index("\n}")]
    assert paper["title"] in entry and str(paper["year"]) in entry
    assert paper["identifiers"][0]["value"] in entry  # the arXiv number
    assert [a["family-names"] for a in paper["authors"]] == ["Novotný", "Ayetiran", "Štefánik", "Sojka"]


def test_the_package_and_the_changelog_name_the_same_version():
    assert regemb_utils.__version__ == VERSION  # the installed metadata (make setup reinstalls on a change)
    changelog = (ROOT / "changelog.md").read_text()
    versions = re.findall(r"^## (\d+\.\d+\.\d+) \(\d{4}-\d{2}-\d{2}\)$", changelog, flags=re.M)
    assert versions and versions[0] == VERSION, "the changelog's newest entry is the package's version"
    assert versions == sorted(versions, key=lambda v: tuple(map(int, v.split("."))), reverse=True)
    assert "{{ version }}" in (ROOT / "intro.md").read_text()  # the landing page shows it (tests/test_book.py)
