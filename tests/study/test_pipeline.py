"""The chapter pipeline: parameters read from a notebook's cells, records, lineage and inherited parameters."""

import json
import shutil

import pytest

from regemb_utils.infra.cache import ACCESSED, ArtifactCache
from regemb_utils.study.params import ParameterError
from regemb_utils.study.pipeline import PipelineError, given_parameters, records, start_chapter


def notebook(*cells, **values):
    """A namespace as IPython leaves it after the Parameters cell, papermill's injected cell and the current one."""
    return {"In": ["", *cells, "chapter = start_chapter(...)"], "Out": {}, "get_ipython": print, **values}


def test_parameters_come_from_the_parameters_and_injected_cells():
    namespace = notebook(
        'profile = "paper"\ndatasets = None  # a list\n',
        '# Parameters\nprofile = "smoke"\ndimension = 20\n',
        profile="smoke",
        datasets=None,
        dimension=20,
        results=[1, 2],
        pd=json,
    )
    assert given_parameters(namespace) == {"profile": "smoke", "datasets": None, "dimension": 20}


def test_a_misspelt_name_stops_the_chapter_with_the_allowed_names(tmp_path):
    namespace = notebook(
        'profile = "smoke"\nworkers = None\n',
        '# Parameters\nprofile = "smoke"\ndimension = 20\n',
        profile="smoke",
        workers=None,
        dimension=20,
    )
    with pytest.raises(
        ParameterError,
        match="unknown parameter.s. dimension for chapter 02_training; allowed: "
        "profile, dimensions, quantized_dimensions",
    ):
        start_chapter("02_training", namespace, ArtifactCache(tmp_path))


def test_json_lists_are_read(tmp_path):
    chapter = start_chapter(
        "01_preprocessing",
        notebook(
            '# Parameters\nprofile = "smoke"\ndatasets = \'["reuters", "bbcsport"]\'\n',
            profile="smoke",
            datasets='["reuters", "bbcsport"]',
        ),
        ArtifactCache(tmp_path),
    )
    assert chapter.params.datasets == ("bbcsport", "reuters")


def test_a_missing_record_names_the_chapter_to_run_first(tmp_path):
    with pytest.raises(
        PipelineError,
        match="takes its inputs from chapter 02_training, which has no record for "
        "profile 'smoke'.*run chapter 02_training first",
    ):
        start_chapter("03_orthogonalization", notebook('profile = "smoke"\n', profile="smoke"), ArtifactCache(tmp_path))


def run(name, cache, **values):
    cells = ["profile = 'smoke'\n" + "".join(f"{k} = {v!r}\n" for k, v in values.items())]
    return start_chapter(name, notebook(*cells, profile="smoke", **values), cache)


def test_records_chain_the_chapters_and_the_latest_wins(tmp_path):
    cache = ArtifactCache(tmp_path)
    first = run("01_preprocessing", cache, datasets=["bbcsport", "twitter"]).finish(table_1="a")
    other = run("01_preprocessing", cache, datasets=["reuters"]).finish(table_1="b")
    assert [r.id for r in records("01_preprocessing", "smoke", cache)] == [first.id, other.id]
    second = run("02_training", cache)
    assert second.record("01_preprocessing").id == other.id  # the latest record of the chapter before
    pinned = run("02_training", cache, previous_record=first.id)
    assert pinned.record("01_preprocessing").values == {"table_1": "a"}
    done = pinned.finish(cosines={})
    saved = json.loads((done.path / "record.json").read_text())
    assert saved["previous"] == first.id and saved["parameters"]["workers"] == 1
    assert {"package", "code", "git"} <= set(saved["versions"])
    with pytest.raises(
        PipelineError, match="asked to build on record 20990101T000000-abcdef of chapter 01_preprocessing"
    ):
        run("02_training", cache, previous_record="20990101T000000-abcdef")


def test_the_record_lists_the_artifacts_the_chapter_used(tmp_path):
    cache = ArtifactCache(tmp_path)
    chapter = run("01_preprocessing", cache)
    cache.get("knn", {"x": 1}, lambda: 1)
    record = chapter.finish()
    assert [a["key"] for a in record.artifacts] == [cache.path("knn", {"x": 1}).name]
    assert record.artifacts[0]["computed"] is True and ACCESSED[-1]["path"] == str(cache.path("knn", {"x": 1}))


def lineage(cache, datasets=("bbcsport", "twitter"), max_documents=120):
    run("01_preprocessing", cache, datasets=list(datasets), max_documents=max_documents).finish()
    run("02_training", cache).finish()
    run("03_orthogonalization", cache).finish()


def test_chapter_4_inherits_chapter_1s_data_sets_and_documents(tmp_path):
    cache = ArtifactCache(tmp_path)
    lineage(cache, max_documents=15)
    chapter = run("04_scm_vs_wmd", cache, ks=[1, 3])
    assert chapter.params.datasets == ("bbcsport", "twitter")
    assert chapter.params.max_documents == 15  # the smoke default (20), cut to what chapter 1 kept
    assert run("04_scm_vs_wmd", cache, datasets=["twitter"], ks=[1]).params.datasets == ("twitter",)
    with pytest.raises(
        ParameterError,
        match=r"datasets=\['reuters'\] is not allowed; chapter 01_preprocessing "
        r".* ran only \['bbcsport', 'twitter'\]",
    ):
        run("04_scm_vs_wmd", cache, datasets=["reuters"])
    with pytest.raises(ParameterError, match="max_documents=16 is not allowed; chapter 01_preprocessing .* kept 15"):
        run("04_scm_vs_wmd", cache, max_documents=16, ks=[1])
    first = records("01_preprocessing", "smoke", cache)[-1]
    with pytest.raises(
        ParameterError,
        match=rf"max_documents=15 \(taken from chapter 01_preprocessing, record "
        rf"{first.id}, .*\) is not allowed; it must be at least the largest k",
    ):
        run("04_scm_vs_wmd", cache, ks=[1, 19])
    with pytest.raises(ParameterError, match=r"max_documents=11 is not allowed; max_documents must be at least the "):
        run("04_scm_vs_wmd", cache, ks=[1, 13], max_documents=11)
    assert run("04_scm_vs_wmd", cache, ks=[1], wmd_queries={"twitter": 5}).params.wmd_queries == (("twitter", 5),)
    with pytest.raises(
        ParameterError,
        match=r"wmd_queries=\{'twitter': 5\} is not allowed; it names data sets "
        r"this run does not classify \(twitter; datasets=\['bbcsport'\]\)",
    ):
        run("04_scm_vs_wmd", cache, ks=[1], datasets=["bbcsport"], wmd_queries={"twitter": 5})


def test_check_articles_above_chapter_1s_corpus_is_refused_at_the_first_cell(tmp_path):
    cache = ArtifactCache(tmp_path)
    run("01_preprocessing", cache, datasets=["bbcsport"], corpus_articles=300).finish()
    assert run("02_training", cache, check_articles=300).params.check_articles == 300
    for given in (301, "all"):
        with pytest.raises(
            ParameterError,
            match=rf"check_articles={given!r} is not allowed; chapter 01_preprocessing "
            r".* read 300 articles: give at most 300",
        ):
            run("02_training", cache, check_articles=given)


def test_chapter_5_checks_its_maps_against_chapter_4(tmp_path):
    from types import SimpleNamespace

    import numpy as np

    cache = ArtifactCache(tmp_path)
    lineage(cache)
    results = {
        (d, m): SimpleNamespace(truth=np.zeros(n))
        for d, n in (("bbcsport", 40), ("twitter", 8))
        for m in ("bow", "soft_vsm", "soft_vsm_quantized_ortho")
    }
    run("04_scm_vs_wmd", cache).finish(results=results)
    assert run("05_confusion_tsne", cache, perplexity=5).params.datasets == ("bbcsport", "twitter")
    with pytest.raises(ParameterError, match="perplexity=8.0 is not allowed; .* twitter has 8 test documents"):
        run("05_confusion_tsne", cache, perplexity=8)
    assert run("05_confusion_tsne", cache, perplexity=8, datasets=["bbcsport"]).params.perplexity == 8.0
    with pytest.raises(ParameterError, match="bbcsport has 5 test documents on its map"):
        run("05_confusion_tsne", cache, perplexity=5, map_documents=5, datasets=["bbcsport"])
    # without both soft VSMs the chapter runs, and says what it leaves out (tests/study/test_chapter_subsets.py)
    run("04_scm_vs_wmd", cache, methods=["bow"]).finish(results={k: v for k, v in results.items() if k[1] == "bow"})
    assert run("05_confusion_tsne", cache, perplexity=5).params.datasets == ("bbcsport", "twitter")


def test_data_dependent_ranges_are_checked_at_the_first_cell(tmp_path):
    import numpy as np

    cache = ArtifactCache(tmp_path)
    counts = np.arange(200, 0, -1)  # 200 words, counts 200 .. 1
    run("01_preprocessing", cache).finish(word_counts=counts)
    assert run("02_training", cache, min_count=151).params.min_count == 151  # 50 words occur 151 times or more
    with pytest.raises(ParameterError, match="min_count=152 is not allowed; .* 49 words .* give at most 151"):
        run("02_training", cache, min_count=152)
    run("02_training", cache).finish(vocabulary={"32-bit": 60, "1-bit": 60})
    assert run("03_orthogonalization", cache, nonzero_limits=[59]).params.nonzero_limits == (59,)
    with pytest.raises(
        ParameterError,
        match=r"nonzero_limits=\[10, 60\] is not allowed; every C must be smaller "
        r"than the embeddings' vocabulary \(60 words",
    ):
        run("03_orthogonalization", cache, nonzero_limits=[10, 60])


# ---------------------------------------------------------------------------------------------------------------------
# damaged, misplaced and half-written records; a full disk; an unreachable scheduler


def test_damaged_records_are_named_with_what_to_do(tmp_path):
    cache = ArtifactCache(tmp_path)
    record = run("01_preprocessing", cache).finish(table_1="a")
    (record.path / "record.json").write_text('{"id": "20')
    with pytest.raises(
        PipelineError,
        match=rf"the record {record.path} cannot be read \(JSONDecodeError.*remove "
        rf"{record.path}",
    ):
        run("02_training", cache)
    shutil.rmtree(record.path)  # as the message says
    record = run("01_preprocessing", cache).finish(table_1="b")
    (record.path / "values.pkl").write_bytes(b"\x80\x05garbage")
    with pytest.raises(PipelineError, match=rf"the record {record.path} cannot be read \(values.pkl: Unpickling"):
        run("02_training", cache)  # the record itself is readable; the values chapter 2 checks its min_count on not


def test_a_record_moved_to_another_profile_is_refused(tmp_path):
    cache = ArtifactCache(tmp_path)
    record = run("01_preprocessing", cache).finish()
    paper = tmp_path / "records" / "paper" / "01_preprocessing"
    paper.mkdir(parents=True)
    shutil.copytree(record.path, paper / record.id)
    with pytest.raises(
        PipelineError,
        match=rf"the record {paper / record.id} says it is of profile 'smoke', but it "
        r"lies among the records of profile 'paper'",
    ):
        records("01_preprocessing", "paper", cache)
    data = json.loads((record.path / "record.json").read_text())
    (record.path / "record.json").write_text(json.dumps(dict(data, profile="paper")))
    shutil.rmtree(paper / record.id)
    shutil.copytree(record.path, paper / record.id)
    shutil.rmtree(record.path)
    with pytest.raises(PipelineError, match=r"ran with profile 'smoke' but says 'paper'"):
        records("01_preprocessing", "paper", cache)


def test_staging_directories_are_never_read_as_records(tmp_path):
    cache = ArtifactCache(tmp_path)
    record = run("01_preprocessing", cache).finish(table_1="a")
    staging = record.path.with_name(f".{record.id}.half")
    shutil.copytree(record.path, staging)  # a record half-written when its chapter was killed, complete-looking
    assert [r.id for r in records("01_preprocessing", "smoke", cache)] == [record.id]


def test_records_replaced_by_a_file_is_named(tmp_path):
    cache = ArtifactCache(tmp_path)
    (tmp_path / "records").write_text("not a directory")
    with pytest.raises(PipelineError, match=rf"{tmp_path / 'records'} in the artifact cache is not a directory"):
        run("02_training", cache)


def test_a_full_disk_is_found_at_the_start_and_named_when_writing(tmp_path, monkeypatch):
    import errno
    import os
    import shutil as shell
    from collections import namedtuple

    from regemb_utils.infra import cache as cache_module
    from regemb_utils.infra.cache import CacheError

    cache = ArtifactCache(tmp_path)
    monkeypatch.setenv("REGEMB_CACHE", str(tmp_path))
    usage = namedtuple("usage", "total used free")
    real = shell.disk_usage
    monkeypatch.setattr(cache_module.shutil, "disk_usage", lambda path: usage(10 * 2**30, 10 * 2**30 - 2**20, 2**20))
    with pytest.raises(
        CacheError,
        match=rf"the artifact cache {tmp_path} \(REGEMB_CACHE\) has 1 MiB free; chapter "
        r"01_preprocessing .* needs about 64 MiB",
    ):
        run("01_preprocessing", cache)
    monkeypatch.setattr(cache_module.shutil, "disk_usage", real)
    chapter = run("01_preprocessing", cache)

    def full(*args):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("regemb_utils.study.pipeline.os.rename", full)
    with pytest.raises(
        CacheError,
        match=rf"could not be written into the artifact cache {tmp_path} "
        r"\(REGEMB_CACHE\): the disk is full. Free some space, or set REGEMB_CACHE",
    ):
        chapter.finish()
    monkeypatch.setattr(cache_module.os, "rename", full)
    with pytest.raises(CacheError, match="the disk is full"):
        cache.get("knn", {"full": 1}, lambda: 1)
    assert not [p for p in tmp_path.rglob(".*") if p.is_dir()]  # no staging directory left behind


def test_an_unreachable_dask_scheduler_stops_chapter_4_at_its_first_cell(tmp_path, monkeypatch):
    import socket
    import time

    cache = ArtifactCache(tmp_path)
    lineage(cache, max_documents=15)
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    start = time.perf_counter()
    monkeypatch.setattr("regemb_utils.infra.processes.SCHEDULER_TIMEOUT", 2)
    with pytest.raises(ConnectionError, match=rf"the dask scheduler tcp://127.0.0.1:{port} did not answer within 2 s"):
        run("04_scm_vs_wmd", cache, ks=[1], scheduler=f"tcp://127.0.0.1:{port}")
    assert time.perf_counter() - start < 30
