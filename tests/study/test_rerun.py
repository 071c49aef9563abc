"""Chapters as a pipeline, end to end with the smoke profile: two runs from empty caches give the same results, a
rerun with new parameters flows into every later chapter, and the book built after a rerun is consistent."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from book_sources import copy_book_sources
from conftest import run_chapters

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
pytestmark = pytest.mark.book

# Glue keys that hold timings (or a figure of them): the only numbers allowed to differ between two runs.
# The verdict tables show the measured speed ratio too; the verdicts of the claims whose evidence is not a timing are
# compared (claim_verdicts; the timed ones are speed_claim_verdicts).
# n_holding counts the timed claims too; measured_*, brute_*, *_over_*, rate_* and ranking_ours are chapter 4's speeds
# with the paper's measure.
TIMINGS = re.compile(
    r"seconds|minutes|hours|wmd_cost_|wps|time_ratio|speed|scm_over_wmd|^figure_10$|^verdicts"
    r"|^n_holding$|^measured_|^brute_|_over_|^rate_|^ranking_ours$"
)


def build_book(notebooks: Path, where: Path) -> Path:
    """The book built in ``where`` with warnings as errors from the executed ``notebooks``, without the API reference
    (which a rerun does not change; tests/test_book.py builds the whole book)."""
    where.mkdir()
    copy_book_sources(where, api=False)
    shutil.copytree(notebooks, where / "notebooks")
    subprocess.run(
        [BIN / "jupyter-book", "build", "--warningiserror", "--keep-going", where],
        check=True,
        capture_output=True,
        text=True,
    )
    return where / "_build" / "html"


def glued(notebook: Path) -> dict[str, object]:
    """Every value a chapter glued, by name (plain-text form)."""
    values = {}
    for cell in json.loads(notebook.read_text())["cells"]:
        for output in cell.get("outputs", []):
            key = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if key is not None:
                data = {
                    mime.rsplit("papermill.record/", 1)[-1]: "".join(value) if isinstance(value, list) else value
                    for mime, value in output.get("data", {}).items()
                }
                text = data.get("text/plain", "")
                if re.search(r" at 0x[0-9a-f]+>", text):  # an object: compare what it shows, not its address
                    text = (
                        json.dumps(data.get("application/vnd.plotly.v1+json"), sort_keys=True)
                        if "application/vnd.plotly.v1+json" in data
                        else data.get("image/png", text)
                    )
                values[key] = text
    return values


def latest(cache: Path, chapter: str) -> dict:
    directory = cache / "records" / "smoke" / chapter
    found = [json.loads((p / "record.json").read_text()) for p in directory.iterdir() if (p / "record.json").exists()]
    return max(found, key=lambda r: (r["finished"], r["id"]))


def test_two_runs_from_empty_caches_give_the_same_results(request, tmp_path_factory):
    cache, output = tmp_path_factory.mktemp("cache-b"), tmp_path_factory.mktemp("run-b")
    done = run_chapters(cache, output)  # first, so that it runs beside the session's run on another worker
    assert done.returncode == 0, done.stderr[-3000:]
    first = request.getfixturevalue("smoke_chapters")
    compared = 0
    for notebook in sorted(first[1].glob("*.ipynb")):
        a, b = glued(notebook), glued(output / notebook.name)
        assert a.keys() == b.keys(), notebook.name
        for key in a:
            if not TIMINGS.search(key):
                assert a[key] == b[key], f"{notebook.name}: {key} differs between two runs ({a[key]} vs {b[key]})"
                compared += 1
    assert compared > 100
    verdicts = glued(first[1] / "06_scorecard.ipynb")["claim_verdicts"]
    assert "reduction: " in verdicts and "faster: " not in verdicts  # timed claims move with the machine's load
    import numpy as np

    from regemb_utils.infra.cache import ArtifactCache
    from regemb_utils.chapters.training import Trainings

    training = latest(cache, "02_training")["parameters"]
    a = Trainings(training, 200, "paper", cache=ArtifactCache(first[0])).models()
    b = Trainings(training, 200, "paper", cache=ArtifactCache(cache)).models()
    for model in a:  # the two runs trained their own vectors, and they are the same
        np.testing.assert_array_equal(a[model][0].vectors, b[model][0].vectors)


def test_a_rerun_of_chapter_2_flows_into_chapters_3_and_4(smoke_chapters, smoke_cache, tmp_path):
    cache, base = smoke_cache, smoke_chapters[1]
    # without other seeds: the rerun also takes the book's path for a run that trains no other seed (and is shorter)
    # chapter 2 with new parameters, then chapters 3 and 4 (the flow on into chapters 5 to 7: the next tests)
    done = run_chapters(
        cache, tmp_path / "notebooks", "--only", "02", "-p", "dimensions", "20", "-p", "other_seeds", "none"
    )
    assert done.returncode == 0, done.stderr[-3000:]
    done = run_chapters(cache, tmp_path / "notebooks", "--only", "03", "04")
    assert done.returncode == 0, done.stderr[-3000:]
    training, orthogonalization, classification = (
        latest(cache, c) for c in ("02_training", "03_orthogonalization", "04_scm_vs_wmd")
    )
    assert training["parameters"]["dimensions"] == 20 and training["parameters"]["other_seeds"] == []
    assert orthogonalization["previous"] == training["id"] and classification["previous"] == orthogonalization["id"]
    trained = {a["key"] for a in training["artifacts"] if a["name"] == "word2bits"}  # and the check's own models
    assert len(trained & {a["key"] for a in orthogonalization["artifacts"]}) == 2  # chapter 3 uses the two new models
    assert any(a["name"] == "knn" and a["computed"] for a in classification["artifacts"])  # new embeddings, new results
    for notebook in base.glob("*.ipynb"):
        if not (tmp_path / "notebooks" / notebook.name).exists():
            shutil.copy(notebook, tmp_path / "notebooks")
    build_book(tmp_path / "notebooks", tmp_path / "book")


@pytest.mark.parametrize("chapter", ["04", "01"])
def test_a_rerun_on_one_data_set_builds_a_consistent_book(smoke_chapters, smoke_cache, tmp_path, chapter):
    cache, base = smoke_cache, smoke_chapters[1]
    done = run_chapters(cache, tmp_path / "notebooks", "--from", chapter, "-p", "datasets", '["twitter"]')
    assert done.returncode == 0, done.stderr[-3000:]
    for notebook in base.glob("*.ipynb"):
        if not (tmp_path / "notebooks" / notebook.name).exists():
            shutil.copy(notebook, tmp_path / "notebooks")
    html = build_book(tmp_path / "notebooks", tmp_path / "book")
    counts = set()
    for page in ("intro.html", "notebooks/06_scorecard.html"):
        text = re.sub(r"<[^>]+>", "", (html / page).read_text())
        counts |= {int(n) for n in re.findall(r"of\s+(?:the\s+)?(\d+)\s+data\s+sets", text)}
    assert counts == {1}, f"the landing page and the scorecard speak of {counts} data sets after a one-set rerun"
    assert glued(tmp_path / "notebooks" / "04_scm_vs_wmd.ipynb")["n_datasets"] == "1"


def _command():
    """``scripts/run_chapters.py`` as a module, to run its checks in this process (no interpreter to start per case)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("run_chapters_command", ROOT / "scripts" / "run_chapters.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bad_parameters_are_refused_before_anything_runs(smoke_cache, tmp_path, monkeypatch):
    cache = smoke_cache
    monkeypatch.setenv("REGEMB_CACHE", str(cache))
    command = _command()
    for args, message in (
        (["--from", "02", "-p", "dimension", "20"], "unknown parameter(s) dimension for chapter 02_training; allowed:"),
        (["--from", "02", "-y", "threshold: [0.5]"], "unknown parameter(s) threshold"),
        (
            ["--only", "03", "-p", "tsne_words", "1"],
            "tsne_words=1 is not allowed; tsne_words must be an integer of at least 2",
        ),
        (["--only", "01", "-p", "corpus_articles", "1"], "corpus_articles must be an integer of at least 200"),
        (["--only", "04", "-p", "methods", '["wmd"]'], "that includes 'bow'"),
        (["--only", "05", "-p", "perplexity", "0.5"], "perplexity must be a number in [1, 100]"),
        (["--only", "04", "-y", "ks: [1, 3, 1]"], "ks=[1, 3, 1] is not allowed (1 given more than once)"),
        (["--only", "04", "-y", "thresholds: [0, 0.0]"], "thresholds=[0, 0.0] is not allowed (0 given more than once)"),
        (
            ["--only", "01", "-y", "datasets: {bbcsport: 1}"],
            "datasets={'bbcsport': 1} is not allowed (a mapping is not a list)",
        ),
        (["--only", "04", "-y", "ks: [1"], "-y 'ks: [1' is not valid YAML"),
        (
            ["--only", "03", "-p", "tsne_words", "100000"],
            "tsne_words=100000 is not allowed; Figure 1 shows words among the factor_words=300 most frequent ones",
        ),
    ):
        with pytest.raises(SystemExit) as refused:
            command.main(["--profile", "smoke", "--output", str(tmp_path / "refused"), *args])
        assert isinstance(refused.value.code, str) and message in refused.value.code, (args, refused.value.code)
    assert not (tmp_path / "refused").exists()  # nothing ran
    # from the command line: the message on stderr, without a traceback
    done = run_chapters(cache, tmp_path, "--only", "01", "-p", "corpus_articles", "1")
    assert done.returncode != 0 and "corpus_articles must be an integer of at least 200" in done.stderr
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    # refused by the chapter itself, against chapter 4's record: the chapter's message, no traceback, no record
    before = len(list((cache / "records" / "smoke" / "05_confusion_tsne").iterdir()))
    done = run_chapters(cache, tmp_path, "--only", "05", "-p", "perplexity", "99")
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert (
        "05_confusion_tsne stopped at cell" in done.stderr
        and "ParameterError: perplexity=99.0 is not allowed" in done.stderr
        and "no record of the chapter was written" in done.stderr
    ), done.stderr[-2000:]
    assert len(list((cache / "records" / "smoke" / "05_confusion_tsne").iterdir())) == before
    env = dict(os.environ, REGEMB_CACHE=str(cache))  # papermill itself: the chapter stops at its first cell
    done = subprocess.run(
        [
            BIN / "papermill",
            ROOT / "notebooks" / "05_confusion_tsne.ipynb",
            tmp_path / "05.ipynb",
            "-p",
            "profile",
            "smoke",
            "-p",
            "perplexity",
            "99",
        ],
        env=env,
        capture_output=True,
        text=True,
        cwd=ROOT / "notebooks",
    )
    assert done.returncode != 0 and "perplexity=99.0 is not allowed" in done.stderr
    executed = json.loads((tmp_path / "05.ipynb").read_text())["cells"]
    failed = [i for i, c in enumerate(executed) if any(o["output_type"] == "error" for o in c.get("outputs", []))]
    first_code = next(
        i
        for i, c in enumerate(executed)
        if c["cell_type"] == "code"
        and "parameters" not in c["metadata"].get("tags", [])
        and "injected-parameters" not in c["metadata"].get("tags", [])
    )
    assert failed == [first_code]


def test_chapters_4_to_6_finish_with_bow_alone_and_say_what_they_leave_out(smoke_chapters, smoke_cache, tmp_path):
    """`make rerun CHAPTER=04 ARGS="-p methods '[\"bow\"]'"`: every later chapter runs to its end and the book builds;
    what needs other methods is said to be left out (every subset of methods: tests/study/test_chapter_subsets.py)."""
    done = run_chapters(smoke_cache, tmp_path / "notebooks", "--from", "04", "-p", "methods", '["bow"]')
    assert done.returncode == 0, done.stderr[-3000:]
    fourth, fifth, sixth = (latest(smoke_cache, c) for c in ("04_scm_vs_wmd", "05_confusion_tsne", "06_scorecard"))
    assert fourth["parameters"]["methods"] == ["bow"] and sixth["previous"] == fifth["id"]
    shown = {}
    for chapter in ("04_scm_vs_wmd", "05_confusion_tsne", "06_scorecard"):
        cells = json.loads((tmp_path / "notebooks" / f"{chapter}.ipynb").read_text())["cells"]
        outputs = [o for c in cells for o in c.get("outputs", [])]
        assert not [o for o in outputs if o["output_type"] == "error"], chapter
        shown[chapter] = "".join("".join(o.get("data", {}).get("text/markdown", "")) for o in outputs)
    assert "This run leaves this out: it needs a method besides BoW" in shown["04_scm_vs_wmd"]
    assert (
        "did not run Soft VSM and Soft VSM (quan., ortho.), so this run leaves out the confusion matrices"
        in shown["05_confusion_tsne"]
    )
    assert (
        "This run has no numbers for Table 2: chapter 4 did not run the methods behind them." in shown["06_scorecard"]
    )
    for notebook in smoke_chapters[1].glob("*.ipynb"):
        if not (tmp_path / "notebooks" / notebook.name).exists():
            shutil.copy(notebook, tmp_path / "notebooks")
    build_book(tmp_path / "notebooks", tmp_path / "book")
