"""The explorer's HTML (regemb_utils.apps.explorer.render): the numbers that the browser test reads, and document text
shown as text. The explorer's numbers and the page itself are tested on the smoke run in test_book.py."""

from __future__ import annotations

import re

import pandas as pd

from regemb_utils.apps.explorer import ExplorerError, ExplorerSettings, View, render, render_error


def _view(**changes):
    frame = pd.DataFrame({"query word": ["a"], "reference word": ["b"], "contribution to the SCM": [0.25]})
    flows = pd.DataFrame(
        {"query word": ["a"], "reference word": ["b"], "mass": [1.0], "distance": [0.5], "cost": [0.5]}
    )
    neighbours = pd.DataFrame({"training document": [4], "class": ["x"], "SCM": [0.9], "text": ["t"]})
    values = dict(
        settings=ExplorerSettings(),
        words=1234,
        nonzeros_per_column=2.5,
        off_diagonal=5678,
        query_text="<b>bold</b> & more",
        query_class="x",
        reference_text="plain",
        reference_class="y",
        scm=0.25,
        wmd=0.5,
        contributions=frame,
        flows=flows,
        scm_neighbours=neighbours,
        wmd_neighbours=neighbours.rename(columns={"SCM": "WMD"}),
        references=120,
        seconds=0.1,
    )
    values.update(changes)
    return View(**values)


def test_render_marks_every_number_the_tests_read():
    shown = dict(re.findall(r'data-value="([^"]+)">([^<]*)<', render(_view())))
    assert shown == {
        "nonzeros-per-column": "2.500",
        "words": "1,234",
        "off-diagonal": "5,678",
        "scm": "0.2500",
        "wmd": "0.5000",
        "seconds": "0.10",
    }


def test_render_shows_documents_and_errors_as_text():
    page = render(_view())
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; more" in page and "<b>bold</b>" not in page
    assert 'data-table="scm-neighbours"' in page and 'data-table="wmd-neighbours"' in page
    message = render_error(ExplorerError("test document 9 is out of range: <0 to 3>"))
    assert 'data-value="error">test document 9 is out of range: &lt;0 to 3&gt;</p>' in message
