"""The vendored data, its checksums, the data set loaders (the project's reference splits) and the Wikipedia corpus."""

from __future__ import annotations

import codecs
import hashlib
import os
import pickle
import re
import shutil
import tarfile

import numpy as np
import pytest

from regemb_utils.text import datasets as datasets_module
from regemb_utils.text.corpus import WIKIPEDIA_ARTICLES, WikipediaCorpus, wikipedia_articles
from regemb_utils.text.datasets import DATASETS, FILES, DataChecksumError, data_file, load_dataset

# The reference split of this project, measured once and pinned: sizes and per-class counts of each split.
EXPECTED_COUNTS = {
    "bbcsport": {
        "train": [47, 69, 139, 99, 59],
        "validation": [16, 18, 41, 17, 12],
        "test": [38, 37, 85, 31, 29],
    },
    "twitter": {
        "train": [264, 1196, 280],
        "validation": [76, 299, 61],
        "test": [137, 616, 179],
    },
    "ohsumed": {
        "train": [92, 22, 16, 336, 68, 141, 26, 95, 33, 170],
        "validation": [22, 3, 5, 94, 15, 35, 3, 26, 2, 45],
        "test": [102, 50, 29, 600, 140, 178, 34, 129, 28, 342],
    },
    "reuters": {
        "train": [1254, 199, 2295, 36, 152, 171, 82, 199],
        "validation": [342, 54, 545, 5, 38, 35, 26, 52],
        "test": [696, 121, 1083, 10, 81, 87, 36, 75],
    },
    "amazon": {
        "train": [1089, 1155, 1096, 1140],
        "validation": [265, 285, 304, 266],
        "test": [646, 560, 600, 594],
    },
    "20news": {
        "train": [381, 461, 471, 478, 465, 461, 470, 469, 476, 485, 479, 473, 467, 478, 481, 483, 429, 463, 368, 296],
        "validation": [99, 122, 120, 108, 111, 131, 112, 125, 121, 111, 119, 121, 124, 115, 112, 115, 117, 99, 97, 80],
        "test": [319, 389, 394, 392, 384, 395, 389, 396, 398, 396, 399, 396, 393, 396, 394, 397, 364, 376, 310, 251],
    },
}
EXPECTED_SIZES = {
    "bbcsport": (413, 104, 220),
    "twitter": (1740, 436, 932),
    "ohsumed": (999, 250, 1632),
    "reuters": (4388, 1097, 2189),
    "amazon": (4480, 1120, 2400),
    "20news": (9034, 2259, 7528),
}
EXPECTED_CLASSES = {
    "bbcsport": ("athletics", "cricket", "football", "rugby", "tennis"),
    "twitter": ("positive", "neutral", "negative"),
    "ohsumed": ("C01", "C02", "C03", "C04", "C05", "C06", "C07", "C08", "C09", "C10"),
    "reuters": ("acq", "crude", "earn", "grain", "interest", "money-fx", "ship", "trade"),
    "amazon": ("books", "dvd", "electronics", "kitchen_&_housewares"),
    "20news": (
        "alt.atheism",
        "comp.graphics",
        "comp.os.ms-windows.misc",
        "comp.sys.ibm.pc.hardware",
        "comp.sys.mac.hardware",
        "comp.windows.x",
        "misc.forsale",
        "rec.autos",
        "rec.motorcycles",
        "rec.sport.baseball",
        "rec.sport.hockey",
        "sci.crypt",
        "sci.electronics",
        "sci.med",
        "sci.space",
        "soc.religion.christian",
        "talk.politics.guns",
        "talk.politics.mideast",
        "talk.politics.misc",
        "talk.religion.misc",
    ),
}
# Hash of each split's (label, text) sequence, order included: pins the exact documents of the reference split.
EXPECTED_FINGERPRINTS = {
    "bbcsport": {"train": "25f5bc1db001b0d2", "validation": "4ef5d9b847660695", "test": "1f97fe8a722e4f7e"},
    "twitter": {"train": "2fe61c4782f25bf3", "validation": "27596cda94937fd0", "test": "ad9179ba85d90996"},
    "ohsumed": {"train": "f4c96b59e01a6bee", "validation": "9bf26170bee0e009", "test": "f0f6b0525c8d0c80"},
    "reuters": {"train": "7067b0b6f310625b", "validation": "9c93e970422c360c", "test": "2c861096fbb72463"},
    "amazon": {"train": "23fb8b78dca8ec1e", "validation": "e0c6c7b4133d8598", "test": "f1a1f7ab569655cc"},
    "20news": {"train": "5b36368d71632859", "validation": "d1caf10e06f57917", "test": "1137049b31d8792b"},
}
SPLITS = ("train", "validation", "test")


def fingerprint(split) -> str:
    digest = hashlib.sha256()
    for text, label in zip(split.texts, split.labels):
        digest.update(f"{int(label)}\t{text}\x00".encode())
    return digest.hexdigest()[:16]


@pytest.fixture(scope="module")
def datasets():
    return {name: load_dataset(name) for name in DATASETS}


# ---------------------------------------------------------------------------------------------------------------------
# Vendored files and checksums


def test_sha256sums_lists_the_vendored_files_with_their_published_checksums():
    sums = dict(reversed(line.split()) for line in (datasets_module.DATA_DIR / "SHA256SUMS").read_text().splitlines())
    assert sorted(sums) == sorted(FILES.values())
    assert sums["20news/20news-bydate.tar.xz"] == "83eb10e1dace8778bf4c517c4baee3705eb79e4d49b6b11b66b7e387ef820619"
    assert sums["wikipedia/enwiki-2015-wikiextractor-AA.tar.xz"] == (
        "a7abe4706f668898a94f2401f673843b4d38ad53a4cb81b80ab7674705aac98e"
    )
    readme = (datasets_module.DATA_DIR / "README.md").read_text()
    for name, digest in sums.items():
        assert f"{digest}  {name}" in readme


@pytest.mark.parametrize("relative", sorted(FILES.values()))
def test_every_vendored_file_verifies(relative):
    path = data_file(relative)
    assert path == datasets_module.DATA_DIR / relative
    assert path.is_file()


@pytest.fixture
def bbcsport_copy(tmp_path):
    """A copy of the BBCSPORT file in a data folder of its own."""
    relative = FILES["bbcsport"]
    target = tmp_path / relative
    target.parent.mkdir(parents=True)
    shutil.copyfile(datasets_module.DATA_DIR / relative, target)
    return tmp_path, relative, target


def _flip_a_byte(path, offset=1000):
    stat = path.stat()
    content = bytearray(path.read_bytes())
    content[offset] ^= 0x01
    path.write_bytes(bytes(content))
    # A different modification time, even on a file system with a coarse clock.
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))


def test_damaged_file_raises_a_checksum_error_naming_the_file_and_the_fix(bbcsport_copy, monkeypatch):
    folder, relative, target = bbcsport_copy
    expected = datasets_module._expected_checksums()[relative]
    monkeypatch.setenv("REGEMB_DATA", str(folder))
    assert data_file(relative) == target  # the intact copy verifies, and its hash is memoised
    _flip_a_byte(target)
    with pytest.raises(DataChecksumError) as error:
        load_dataset("bbcsport")
    message = str(error.value)
    assert str(target) in message
    assert expected in message
    assert hashlib.sha256(target.read_bytes()).hexdigest() in message
    assert f"git checkout -- data/{relative}" in message
    assert isinstance(error.value, ValueError)


def test_damaged_file_found_through_the_directory_parameter(bbcsport_copy):
    folder, relative, target = bbcsport_copy
    _flip_a_byte(target, offset=-10)
    with pytest.raises(DataChecksumError, match="git checkout"):
        data_file(relative, folder)


def test_missing_file_raises_file_not_found_naming_the_file_and_the_fix(tmp_path, monkeypatch):
    monkeypatch.setenv("REGEMB_DATA", str(tmp_path))
    relative = FILES["twitter"]
    with pytest.raises(FileNotFoundError) as error:
        load_dataset("twitter")
    message = str(error.value)
    assert str(tmp_path / relative) in message
    assert datasets_module._expected_checksums()[relative] in message
    assert f"git checkout -- data/{relative}" in message
    with pytest.raises(FileNotFoundError):
        wikipedia_articles(1).__next__()


def test_unknown_dataset_name_lists_the_allowed_names():
    with pytest.raises(ValueError) as error:
        load_dataset("imdb")
    message = str(error.value)
    assert "imdb" in message
    for name in DATASETS:
        assert name in message


# ---------------------------------------------------------------------------------------------------------------------
# The reference splits


@pytest.mark.parametrize("name", DATASETS)
def test_split_sizes(datasets, name):
    dataset = datasets[name]
    assert dataset.name == name
    assert (len(dataset.train), len(dataset.validation), len(dataset.test)) == EXPECTED_SIZES[name]
    # the validation set is the last 20 % of train+validation, rounded as train_test_split(train_size=0.8) does
    assert len(dataset.train) == int(0.8 * (len(dataset.train) + len(dataset.validation)))


@pytest.mark.parametrize("name", DATASETS)
def test_per_class_counts(datasets, name):
    dataset = datasets[name]
    assert dataset.class_names == EXPECTED_CLASSES[name]
    for split in SPLITS:
        counts = np.bincount(dataset.splits[split].labels, minlength=len(dataset.class_names)).tolist()
        assert counts == EXPECTED_COUNTS[name][split], split


@pytest.mark.parametrize("name", DATASETS)
def test_split_contents_are_pinned(datasets, name):
    for split in SPLITS:
        assert fingerprint(datasets[name].splits[split]) == EXPECTED_FINGERPRINTS[name][split], split


@pytest.mark.parametrize("name", DATASETS)
def test_labels_index_class_names_and_texts_are_nonempty_strings(datasets, name):
    dataset = datasets[name]
    for split in SPLITS:
        part = dataset.splits[split]
        assert isinstance(part.labels, np.ndarray) and np.issubdtype(part.labels.dtype, np.integer)
        assert part.labels.shape == (len(part.texts),)
        assert part.labels.min() >= 0 and part.labels.max() < len(dataset.class_names)
        assert all(isinstance(text, str) and text.strip() for text in part.texts)


@pytest.mark.parametrize("name", DATASETS)
def test_two_loads_give_identical_splits(datasets, name):
    datasets_module._load_cached.cache_clear()  # parse the file again, not just the memoised result
    again = load_dataset(name)
    first = datasets[name]
    assert again.class_names == first.class_names
    for split in SPLITS:
        assert again.splits[split].texts == first.splits[split].texts
        assert np.array_equal(again.splits[split].labels, first.splits[split].labels)


def test_returned_splits_are_independent_copies():
    first = load_dataset("bbcsport")
    first.train.texts.clear()
    first.test.labels[:] = -1
    second = load_dataset("bbcsport")
    assert len(second.train) == 413
    assert second.test.labels.min() >= 0


def test_split_rejects_mismatched_lengths():
    with pytest.raises(ValueError):
        datasets_module.Split(["a", "b"], np.array([0]))


def test_document_content_examples(datasets):
    reuters = datasets["reuters"]
    # no SGML markup of the REUTERS fragments survives
    assert not any("<TITLE>" in text or "<BODY>" in text for text in reuters.train.texts + reuters.test.texts)
    amazon = datasets["amazon"]
    amazon_texts = amazon.train.texts + amazon.validation.texts + amazon.test.texts
    assert not any("<review" in text or "</review" in text for text in amazon_texts)
    # entities are unescaped once: the one review whose source says "&amp;quot;" keeps a literal "&quot;"
    assert sum("&quot;" in text for text in amazon_texts) == 1
    assert sum('"' in text for text in amazon_texts) > 1000
    twentynews = datasets["20news"]
    assert all(text.startswith("From:") or "From:" in text[:2000] for text in twentynews.test.texts[:50])
    bbcsport = datasets["bbcsport"]
    assert all("\n\n" in text for text in bbcsport.test.texts)  # title, blank line, body


# ---------------------------------------------------------------------------------------------------------------------
# 20NEWS equals scikit-learn's fetch_20newsgroups on an extracted copy of the archive


@pytest.fixture(scope="module")
def sklearn_20newsgroups(tmp_path_factory):
    """``fetch_20newsgroups`` itself, offline: its cache is built exactly as its download step builds it."""
    from sklearn.datasets import _twenty_newsgroups as twenty
    from sklearn.datasets import fetch_20newsgroups, load_files
    from sklearn.datasets._base import _pkl_filepath

    root = tmp_path_factory.mktemp("20news")
    extracted = root / "extracted"
    with tarfile.open(data_file(FILES["20news"]), "r:xz") as tar:
        tar.extractall(extracted, filter="data")
    cache = {
        subset: load_files(extracted / f"20news-bydate-{subset}", encoding="latin1") for subset in ("train", "test")
    }
    home = root / "home"
    home.mkdir()
    with open(_pkl_filepath(str(home), twenty.CACHE_NAME), "wb") as f:
        f.write(codecs.encode(pickle.dumps(cache), "zlib_codec"))
    result = {
        subset: fetch_20newsgroups(data_home=str(home), subset=subset, download_if_missing=False)
        for subset in ("train", "test")
    }
    return extracted, result


def test_20news_reader_equals_sklearn(sklearn_20newsgroups):
    extracted, expected = sklearn_20newsgroups
    ours = datasets_module.load_20newsgroups_bydate(data_file(FILES["20news"]))
    for subset in ("train", "test"):
        texts, target, target_names, filenames = ours[subset]
        reference = expected[subset]
        assert len(texts) == {"train": 11314, "test": 7532}[subset]
        assert target_names == list(reference.target_names)
        assert [os.path.relpath(f, extracted) for f in reference.filenames] == filenames
        assert np.array_equal(target, reference.target)
        assert texts == reference.data


def test_20news_dataset_is_the_head_of_sklearns_lists(datasets, sklearn_20newsgroups):
    _, expected = sklearn_20newsgroups
    dataset = datasets["20news"]
    assert dataset.test.texts == expected["test"].data[:7528]
    assert np.array_equal(dataset.test.labels, expected["test"].target[:7528])
    trval = set(dataset.train.texts) | set(dataset.validation.texts)
    assert trval == set(expected["train"].data[:11293])


# ---------------------------------------------------------------------------------------------------------------------
# Wikipedia


def test_wikipedia_first_articles():
    articles = list(wikipedia_articles(max_articles=3))
    assert [title for title, _ in articles] == ["Anarchism", "Autism", "Albedo"]
    title, text = articles[0]
    assert text.startswith("Anarchism\n\nAnarchism is a political philosophy")
    assert "<doc" not in text and "</doc>" not in text
    assert len(list(wikipedia_articles(max_articles=250))) == 250


def test_wikipedia_has_all_articles():
    count = 0
    for title, text in wikipedia_articles():
        count += 1
        assert title and text
    assert count == WIKIPEDIA_ARTICLES == 6514


def test_wikipedia_titles_are_unescaped():
    titles = [title for title, _ in wikipedia_articles(max_articles=2000)]
    assert "&amp;" not in " ".join(titles)


def test_wikipedia_corpus_is_reiterable_token_lists():
    corpus = WikipediaCorpus(max_articles=20)
    first = list(corpus)
    second = list(corpus)
    assert len(first) == len(corpus) == 20
    assert first == second
    assert first[0][:3] == ["anarchism", "anarchism", "is"]
    assert all(isinstance(token, str) and token == token.lower() for document in first for token in document)
    gensim_tokens = list(WikipediaCorpus(max_articles=20, tokenizer="gensim"))
    assert len(gensim_tokens) == 20 and gensim_tokens != first  # digits split tokens only with the gensim tokenizer


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_wikipedia_rejects_bad_max_articles(bad):
    with pytest.raises(ValueError):
        WikipediaCorpus(max_articles=bad)
    with pytest.raises(ValueError):
        next(wikipedia_articles(bad))


def test_wikipedia_corpus_rejects_unknown_tokenizer():
    with pytest.raises(ValueError, match="paper"):
        WikipediaCorpus(tokenizer="nltk")


def test_a_data_set_of_ones_own_is_split_by_the_papers_rule():
    from regemb_utils.text.datasets import _make_dataset, _split, dataset_from_texts

    texts = [f"document {i} about {'cats' if i % 3 else 'dogs'}" for i in range(50)]
    labels = ["cats" if i % 3 else "dogs" for i in range(50)]
    d = dataset_from_texts("pets", texts, labels, test_size=10)
    assert d.name == "pets" and d.class_names == ("cats", "dogs")
    assert (len(d.train), len(d.validation), len(d.test)) == (32, 8, 10)  # the last 20 % of the rest validate
    for split in d.splits.values():  # every text keeps its label
        assert all(
            d.class_names[label] == ("cats" if "cats" in text else "dogs")
            for text, label in zip(split.texts, split.labels)
        )
    same = _make_dataset(
        "pets",
        ("cats", "dogs"),
        *_split(texts, [0 if l == "cats" else 1 for l in labels], 40, 10),
        shuffle_validation=False,
    )
    assert d.test.texts == same.test.texts and d.train.texts == same.train.texts  # the loaders' own rule
    assert dataset_from_texts("pets", texts, labels, test_size=0.2).test.texts == d.test.texts
    assert dataset_from_texts("pets", texts, labels, test_size=10, class_names=["dogs", "cats"]).class_names == (
        "dogs",
        "cats",
    )


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(labels=["a"] * 9), "10 texts but 9 labels"),
        (dict(labels=["a"] * 10), "at least two classes"),
        (dict(test_size=6), "test_size=6 is not allowed"),
        (dict(test_size=0), "test_size=0 is not allowed"),
        (dict(class_names=["a"]), "labels ['b'] are not among class_names ['a']"),
    ],
)
def test_a_data_set_of_ones_own_refuses_bad_input(kwargs, message):
    from regemb_utils.text.datasets import dataset_from_texts

    arguments = dict(texts=[f"text {i}" for i in range(10)], labels=["a", "b"] * 5, test_size=2) | kwargs
    with pytest.raises(ValueError, match=re.escape(message)):
        dataset_from_texts("mine", **arguments)


def test_outside_the_repository_the_data_folder_is_named(monkeypatch, tmp_path):
    monkeypatch.delenv("REGEMB_DATA", raising=False)
    monkeypatch.setattr(datasets_module, "DATA_DIR", tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="set REGEMB_DATA to the repository's data/ folder"):
        datasets_module.data_dir()


def test_regemb_data_follows_regemb_caches_rule(bbcsport_copy, monkeypatch):
    folder, relative, target = bbcsport_copy
    monkeypatch.setenv("REGEMB_DATA", "")
    with pytest.raises(ValueError, match="REGEMB_DATA is set but empty; unset it"):
        data_file(relative)
    (folder / "notebooks").mkdir()
    monkeypatch.chdir(folder / "notebooks")  # as a papermill kernel: in notebooks/, $PWD where the user ran it
    monkeypatch.setenv("PWD", str(folder.parent))
    monkeypatch.setenv("REGEMB_DATA", folder.name)
    assert data_file(relative) == target
    monkeypatch.setenv("REGEMB_DATA", "no-such-folder")
    with pytest.raises(
        FileNotFoundError, match=f"REGEMB_DATA names {folder.parent / 'no-such-folder'}, which is not a directory"
    ):
        data_file(relative)


@pytest.mark.parametrize("kind", ["directory", "fifo", "unreadable", "device"])
def test_a_data_file_that_cannot_be_read_is_named_at_once(bbcsport_copy, monkeypatch, kind):
    import time

    folder, relative, target = bbcsport_copy
    monkeypatch.setenv("REGEMB_DATA", str(folder))
    target.unlink()
    if kind == "directory":
        target.mkdir()
        said = "is a directory, not a regular file"
    elif kind == "fifo":
        os.mkfifo(target)  # reading it would wait forever for a writer
        said = "is a FIFO (named pipe), not a regular file"
    elif kind == "device":
        target.symlink_to("/dev/null")
        said = "is a character device, not a regular file"
    else:
        shutil.copyfile(datasets_module.DATA_DIR / relative, target)
        target.chmod(0)
        if os.access(target, os.R_OK):  # root reads every file: refuse the read as the kernel would for others

            def refused(path):
                raise PermissionError(13, "Permission denied", str(path))

            monkeypatch.setattr(datasets_module, "file_sha256", refused)
        said = "cannot be read (Permission denied): make it readable"
    start = time.perf_counter()
    with pytest.raises(datasets_module.DataFileError) as error:
        load_dataset("bbcsport")
    assert time.perf_counter() - start < 10
    assert f"data file {target} {said}" in str(error.value) and "git checkout -- data/" in str(error.value)
