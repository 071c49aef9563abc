"""The package as a library: chapter 4's methods on a data set of one's own."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from classification_fixtures import separable_dataset

from regemb_utils.infra.keys import same_result_as
from regemb_utils.classification.estimators import MissingEmbeddingsWarning, SoftCosineClassifier
from regemb_utils.classification.experiment import classify, run_methods
from regemb_utils.classification.methods import METHODS
from regemb_utils.classification.settings import Settings
from regemb_utils.embeddings.word2bits import train_word2bits
from regemb_utils.measures.similarity import embedding_matrix
from regemb_utils.infra.cache import ArtifactCache
from regemb_utils.chapters.scm_vs_wmd import error_table
from regemb_utils.termsim import sources
from regemb_utils.termsim.matrix import nearest_neighbours
from regemb_utils.text.datasets import dataset_from_texts
from regemb_utils.text.documents import prepare_documents

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def toy():
    dataset, dictionary, kv = separable_dataset()
    return dataset, dictionary, kv


def test_run_methods_is_chapter_4s_route(toy, tmp_path):
    dataset, dictionary, kv = toy
    settings = Settings(
        ks=(1, 3),
        sparse_grid=(
            ("symmetric", (True,)),
            ("dominant", (True,)),
            ("idf", (True,)),
            ("nonzero_limit", (2, 4)),
            ("threshold", (0.0,)),
            ("exponent", (1.0,)),
        ),
    )
    ours = run_methods(
        dataset,
        ["bow", "soft_vsm", "soft_vsm_ortho", "wmd"],
        settings,
        vectors={"32-bit": kv},
        dictionary=dictionary,
        cache=ArtifactCache(tmp_path / "a"),
    )
    documents = {dataset.name: prepare_documents(dataset, dictionary)}
    rows = {dataset.name: embedding_matrix(kv, dictionary, terms=documents[dataset.name].terms)}
    for method in ("bow", "soft_vsm", "wmd"):
        direct = classify(method, documents, settings, embeddings=rows, cache=ArtifactCache(tmp_path / "b"))
        np.testing.assert_array_equal(ours[dataset.name, method].predictions[1], direct[dataset.name].predictions[1])
    assert all(r.test_error == 0 for r in ours.values())  # the problem is separable


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(methods=["lsi"]), "unknown or no methods ['lsi']"),
        (dict(methods=["wmd_quantized"]), "the methods need embeddings for ['1-bit']"),
        (dict(settings=Settings(ks=(1,), wmd_queries=(("toys", 5),))), "settings.wmd_queries names ['toys']"),
        (dict(settings=Settings(ks=(1, 99))), "fewer reference documents than the largest k (99)"),
        (dict(methods=["soft_vsm_ortho"]), "['soft_vsm_ortho'] need settings.sparse_grid"),
        (dict(datasets=[]), "datasets must be a Dataset or a non-empty collection"),
    ],
)
def test_bad_input_is_refused_before_any_work(toy, tmp_path, kwargs, message):
    dataset, dictionary, kv = toy
    arguments = dict(datasets=dataset, methods=["bow", "wmd"], settings=Settings(ks=(1,))) | kwargs
    with pytest.raises(ValueError) as error:
        run_methods(
            arguments.pop("datasets"),
            arguments.pop("methods"),
            arguments.pop("settings"),
            vectors={"32-bit": kv},
            dictionary=dictionary,
            cache=ArtifactCache(tmp_path),
        )
    assert message in str(error.value)


# ---------------------------------------------------------------------------------------------------------------------
# issue 18's friction points, one test each (9: tests/classification/test_estimators.py classifies new texts by their class names)

GRID = {"symmetric": True, "dominant": True, "idf": True, "nonzero_limit": [2, 4], "threshold": 0.0, "exponent": 1.0}


def _texts(n=40, seed=0):
    rng = np.random.default_rng(seed)
    words = {"A": [f"a{i}" for i in range(10)], "B": [f"b{i}" for i in range(10)]}
    labels = ["A", "B"] * (n // 2)
    return [" ".join(rng.choice(words[label], size=6)) for label in labels], labels


def test_1_a_fixed_train_test_split_and_a_seed():
    texts, labels = _texts()
    fixed = dataset_from_texts("mine", texts[:30], labels[:30], test_texts=texts[30:], test_labels=labels[30:])
    assert fixed.test.texts == texts[30:] and len(fixed.train) + len(fixed.validation) == 30
    assert [fixed.class_names[c] for c in fixed.test.labels] == labels[30:]
    other = dataset_from_texts("mine", texts, labels, test_size=10, random_state=7)
    assert other.test.texts != dataset_from_texts("mine", texts, labels, test_size=10).test.texts
    with pytest.raises(ValueError, match="test_texts and test_labels go together"):
        dataset_from_texts("mine", texts, labels, test_texts=texts[:3])
    with pytest.raises(ValueError, match="random_state='x' is not allowed; give an integer seed"):
        dataset_from_texts("mine", texts, labels, random_state="x")


def test_2_numpy_scalars_are_numbers():
    texts, labels = _texts()
    plain = dataset_from_texts("mine", texts, labels, test_size=10)
    assert dataset_from_texts("mine", texts, labels, test_size=np.int64(10)).test.texts == plain.test.texts
    assert dataset_from_texts("mine", texts, labels, test_size=np.float64(0.25)).test.texts == plain.test.texts
    assert Settings(ks=np.int64(3)).ks == (3,) and Settings(ks=[np.int32(1), 3]).ks == (1, 3)


def test_3_embeddings_as_keyed_vectors_a_word_mapping_or_per_model(toy, tmp_path):
    dataset, dictionary, kv = toy
    settings = Settings(ks=(1, 3))
    per_model = run_methods(dataset, ["soft_vsm"], settings, vectors={"32-bit": kv}, dictionary=dictionary)
    direct = run_methods(dataset, ["soft_vsm"], settings, vectors=kv, dictionary=dictionary)
    mapping = run_methods(
        dataset, ["soft_vsm"], settings, vectors={w: kv[w] for w in kv.index_to_key}, dictionary=dictionary
    )
    for results in (direct, mapping):
        np.testing.assert_array_equal(
            results["toy", "soft_vsm"].predictions[3], per_model["toy", "soft_vsm"].predictions[3]
        )
    with pytest.raises(
        TypeError,
        match=r"vectors must be a gensim KeyedVectors or a mapping word → vector, got "
        r"ndarray \(a NumPy array has no words",
    ):
        run_methods(dataset, ["wmd"], settings, vectors=kv.vectors, dictionary=dictionary)


def test_4_settings_take_mappings_and_single_values_and_name_what_is_missing():
    pairs = Settings(
        sparse_grid=(
            ("symmetric", (True,)),
            ("dominant", (True,)),
            ("idf", (True,)),
            ("nonzero_limit", (2, 4)),
            ("threshold", (0.0,)),
            ("exponent", (1.0,)),
        )
    )
    assert Settings(sparse_grid=GRID) == pairs
    assert Settings(sparse_grid=dict(reversed(list(GRID.items())))).key("soft_vsm_ortho") == pairs.key("soft_vsm_ortho")
    with pytest.raises(
        ValueError,
        match=r"missing keys \['dominant', 'idf', 'nonzero_limit', 'threshold', "
        r"'exponent'\]; it needs a value or a list of values for each of symmetric",
    ):
        Settings(sparse_grid={"symmetric": True})
    with pytest.raises(ValueError, match=r"unknown keys \['C'\]"):
        Settings(sparse_grid=dict(GRID, C=4))
    with pytest.raises(ValueError, match="sparse_grid=5 is not allowed; give a mapping or"):
        Settings(sparse_grid=5)


def test_5_wmd_samples_power_and_even_k_are_explicit(toy, caplog):
    dataset, dictionary, kv = toy
    with caplog.at_level("INFO", logger="regemb_utils.classification.experiment"):
        run_methods(dataset, ["wmd"], Settings(ks=(1,)), vectors=kv, dictionary=dictionary)
    assert f"wmd answers all {len(dataset.test)} test and {len(dataset.validation)} validation queries" in caplog.text
    texts, labels = _texts(1200)
    big = dataset_from_texts("mine", texts, labels, test_size=600)
    with pytest.raises(
        ValueError, match="settings.wmd_queries for 'mine': the paper has no test error .* give wmd_queries a number"
    ):
        run_methods(big, ["wmd"], Settings(ks=(1,), wmd_queries={"mine": "power"}), vectors=kv)
    with pytest.raises(
        ValueError, match="ks=.4,. is not allowed; ks must be a non-empty list, each an odd positive integer"
    ):
        Settings(ks=(4,))


def test_6_method_names_are_documented_and_a_string_is_refused(toy):
    dataset, dictionary, kv = toy
    assert all(f"``{name}``" in run_methods.__doc__ for name in METHODS)
    with pytest.raises(
        TypeError, match="methods must be a list of method names, not the string 'bow'; allowed: bow, soft_vsm, "
    ):
        run_methods(dataset, "bow", Settings(ks=(1,)), dictionary=dictionary)


def test_7_and_8_progress_reaches_the_neighbour_search_which_a_cached_rerun_skips(toy, tmp_path, monkeypatch):
    dataset, dictionary, kv = toy
    calls = []

    def recording(*args, **kwargs):
        calls.append(kwargs.get("progress"))
        return nearest_neighbours(*args, **kwargs)

    monkeypatch.setattr(sources, "nearest_neighbours", same_result_as(nearest_neighbours)(recording))  # a spy
    settings = Settings(ks=(1, 3), sparse_grid=GRID, progress=True)
    cache = ArtifactCache(tmp_path)
    first = run_methods(dataset, ["soft_vsm_ortho"], settings, vectors=kv, dictionary=dictionary, cache=cache)
    assert calls == [True]

    def never(*args, **kwargs):
        raise AssertionError("the neighbour search ran for a cached result")

    monkeypatch.setattr(sources, "nearest_neighbours", same_result_as(nearest_neighbours)(never))  # stands in for it
    again = run_methods(dataset, ["soft_vsm_ortho"], settings, vectors=kv, dictionary=dictionary, cache=cache)
    assert again["toy", "soft_vsm_ortho"].params == first["toy", "soft_vsm_ortho"].params


def test_10_caching_is_explicit_and_the_error_table_has_no_paper_column_for_ones_own_data(toy, tmp_path, monkeypatch):
    dataset, dictionary, kv = toy
    monkeypatch.setenv("REGEMB_CACHE", str(tmp_path / "default"))
    results = run_methods(dataset, ["bow"], Settings(ks=(1,)), dictionary=dictionary)
    assert not (tmp_path / "default").exists()  # nothing kept without a cache
    run_methods(dataset, ["bow"], Settings(ks=(1,)), dictionary=dictionary, cache=ArtifactCache(tmp_path / "kept"))
    assert len(list((tmp_path / "kept").glob("knn-*"))) == 1
    table = error_table(results)
    assert "paper" not in table.columns and table.loc[0, "error"] == 0.0


def test_11_embeddings_trained_on_ones_own_texts_serve_directly(toy):
    dataset, dictionary, _ = toy
    from gensim.models import Word2Vec

    sentences = [text.split() for text in dataset.train.texts + dataset.validation.texts]
    model = Word2Vec(sentences, vector_size=8, min_count=1, workers=1, seed=0, epochs=2)
    results = run_methods(dataset, ["wmd"], Settings(ks=(1,)), vectors=model, dictionary=dictionary)
    assert len(results["toy", "wmd"].truth) == len(dataset.test)
    assert SoftCosineClassifier(model).fit(dataset.train.texts, dataset.train.labels).predict(
        dataset.test.texts
    ).shape == (len(dataset.test),)
    # the book's own trainer (Word2Bits) takes any corpus of token lists too: 1-bit vectors of one's own texts
    one_bit = train_word2bits(sentences * 5, size=8, bitlevel=1, min_count=1, epochs=2, workers=1, progress=False)
    assert np.unique(np.abs(one_bit.vectors.vectors)).size == 1  # quantized
    model = SoftCosineClassifier(one_bit.vectors, orthogonalized=True, C=4).fit(
        dataset.train.texts, dataset.train.labels
    )
    assert model.term_similarity_.nnz > len(model.dictionary_)  # S' has off-diagonal entries


def test_12_words_without_an_embedding_are_reported(toy):
    dataset, dictionary, kv = toy
    kept = {w: kv[w] for w in kv.index_to_key[:15]}  # 5 of the 20 words lose their embedding
    with pytest.warns(
        MissingEmbeddingsWarning,
        match=r"5 of the 20 words of the documents \(the 32-bit embeddings\) "
        r"have no embedding \(\d+\.\d % of the tokens\), the most frequent",
    ):
        run_methods(dataset, ["soft_vsm"], Settings(ks=(1,)), vectors=kept, dictionary=dictionary)


@pytest.mark.book
def test_the_example_runs_from_the_wheel_installed_in_a_fresh_venv(tmp_path):
    """The wheel (built without network, with the shared venv's setuptools) installed, not editable, into a fresh
    virtual environment outside the repository; the dependencies come from the shared venv's site-packages (a .pth
    line, read after the new venv's own site-packages, so the wheel's package is the one imported)."""
    run = dict(
        capture_output=True,
        text=True,
        env={
            k: v for k, v in os.environ.items() if k not in ("REGEMB_CACHE", "REGEMB_DATA", "PYTHONPATH", "VIRTUAL_ENV")
        },
    )
    run["env"].update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    source = tmp_path / "source"  # the package's files only: no build/ left by an earlier build, no checkout state
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "regemb_utils", source / "regemb_utils", ignore=shutil.ignore_patterns("__pycache__"))
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", tmp_path / "wheel", source],
        **run,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = (tmp_path / "wheel").glob("regemb_utils-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True, **run)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], check=True, **run
    ).stdout.strip()
    shared = subprocess.run(
        [sys.executable, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], check=True, **run
    ).stdout.strip()
    installed = subprocess.run([python, "-m", "pip", "install", "--no-deps", wheel], **run)
    assert installed.returncode == 0, installed.stderr[-3000:]
    (Path(site) / "shared-venv.pth").write_text(shared + "\n")
    env = dict(run["env"], XDG_CACHE_HOME=str(tmp_path / "user-cache"), REGEMB_PROGRESS="text")
    where = subprocess.run(
        [python, "-c", "import regemb_utils.classification.estimators as e; print(e.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert where.stdout.startswith(site), where.stdout + where.stderr[-2000:]
    script = tmp_path / "own_dataset.py"
    script.write_text((ROOT / "examples" / "own_dataset.py").read_text())
    missing = subprocess.run([python, script], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert missing.returncode != 0 and "set REGEMB_DATA to the repository's data/ folder" in missing.stderr
    done = subprocess.run(
        [python, script], cwd=tmp_path, env=dict(env, REGEMB_DATA=str(ROOT / "data")), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    for method in ("BoW", "TF-IDF L1", "Soft VSM", "Soft VSM (ortho.)", "WMD"):
        assert any(re.match(rf"\s*{re.escape(method)}\s+\d", line) for line in lines), done.stdout
    assert "chosen by 3-fold cross-validation: {'C': " in done.stdout
    assert "new texts: ['music', 'sport']" in done.stdout
    # the embeddings went to the user's cache directory, nothing else was kept
    kept = sorted(p.name.split("-")[0] for p in (tmp_path / "user-cache" / "regemb").iterdir())
    assert kept == ["word2bits"]
