"""The chapter pipeline: parameters read from a notebook's cells, records, lineage and inherited parameters."""
import json

import pytest

from regemb_utils.study.cache import ACCESSED, ArtifactCache
from regemb_utils.study.params import ParameterError
from regemb_utils.study.pipeline import PipelineError, given_parameters, records, start_chapter


def notebook(*cells, **values):
    """A namespace as IPython leaves it after the Parameters cell, papermill's injected cell and the current one."""
    return {"In": ["", *cells, "chapter = start_chapter(...)"], "Out": {}, "get_ipython": print, **values}


def test_parameters_come_from_the_parameters_and_injected_cells():
    namespace = notebook('profile = "paper"\ndatasets = None  # a list\n', '# Parameters\nprofile = "smoke"\ndimension = 20\n',
                         profile="smoke", datasets=None, dimension=20, results=[1, 2], pd=json)
    assert given_parameters(namespace) == {"profile": "smoke", "datasets": None, "dimension": 20}


def test_a_misspelt_name_stops_the_chapter_with_the_allowed_names(tmp_path):
    namespace = notebook('profile = "smoke"\nworkers = None\n', '# Parameters\nprofile = "smoke"\ndimension = 20\n',
                         profile="smoke", workers=None, dimension=20)
    with pytest.raises(ParameterError, match="unknown parameter.s. dimension for chapter 02_training; allowed: "
                                             "profile, dimensions, quantized_dimensions"):
        start_chapter("02_training", namespace, ArtifactCache(tmp_path))


def test_json_lists_are_read(tmp_path):
    chapter = start_chapter("01_preprocessing", notebook('# Parameters\nprofile = "smoke"\ndatasets = \'["reuters", "bbcsport"]\'\n',
                                                         profile="smoke", datasets='["reuters", "bbcsport"]'),
                            ArtifactCache(tmp_path))
    assert chapter.params.datasets == ("bbcsport", "reuters")


def test_a_missing_record_names_the_chapter_to_run_first(tmp_path):
    with pytest.raises(PipelineError, match="takes its inputs from chapter 02_training, which has no record for "
                                            "profile 'smoke'.*run chapter 02_training first"):
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
    with pytest.raises(PipelineError, match="asked to build on record 20990101T000000-abcdef of chapter "
                                            "01_preprocessing"):
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
    with pytest.raises(ParameterError, match=r"datasets=\['reuters'\] is not allowed; chapter 01_preprocessing "
                                             r".* ran only \['bbcsport', 'twitter'\]"):
        run("04_scm_vs_wmd", cache, datasets=["reuters"])
    with pytest.raises(ParameterError, match="max_documents=16 is not allowed; chapter 01_preprocessing .* kept 15"):
        run("04_scm_vs_wmd", cache, max_documents=16, ks=[1])
    with pytest.raises(ParameterError, match="max_documents=15 is not allowed; it must be at least the largest k"):
        run("04_scm_vs_wmd", cache, ks=[1, 19])


def test_chapter_5_checks_its_maps_against_chapter_4(tmp_path):
    from types import SimpleNamespace

    import numpy as np

    cache = ArtifactCache(tmp_path)
    lineage(cache)
    results = {(d, m): SimpleNamespace(truth=np.zeros(n)) for d, n in (("bbcsport", 40), ("twitter", 8))
               for m in ("soft_vsm", "soft_vsm_quantized_ortho")}
    run("04_scm_vs_wmd", cache).finish(results=results)
    assert run("05_confusion_tsne", cache, perplexity=5).params.datasets == ("bbcsport", "twitter")
    with pytest.raises(ParameterError, match="perplexity=8.0 is not allowed; .* twitter has 8 test documents"):
        run("05_confusion_tsne", cache, perplexity=8)
    assert run("05_confusion_tsne", cache, perplexity=8, datasets=["bbcsport"]).params.perplexity == 8.0
    with pytest.raises(ParameterError, match="bbcsport has 5 test documents on its map"):
        run("05_confusion_tsne", cache, perplexity=5, map_documents=5, datasets=["bbcsport"])
    run("04_scm_vs_wmd", cache, methods=["bow", "soft_vsm"]).finish(results=results)
    with pytest.raises(PipelineError, match="did not run soft_vsm_quantized_ortho"):
        run("05_confusion_tsne", cache)


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
    with pytest.raises(ParameterError, match=r"nonzero_limits=\[10, 60\] is not allowed; every C must be smaller "
                                             r"than the embeddings' vocabulary \(60 words"):
        run("03_orthogonalization", cache, nonzero_limits=[10, 60])
