"""regemb_utils.book.tables.table: what a reader sees in a rendered table, and the CSV behind its download link."""

from __future__ import annotations

import base64
import io
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from regemb_utils.book.tables import MISSING, collapsible, table


class _Cells(HTMLParser):
    """Header and body cell texts, the download link and whether a <details> wraps the table."""

    def __init__(self):
        super().__init__()
        self.header, self.rows, self.links, self.details, self.summary = [], [], [], False, None
        self._cell = None
        self._in_summary = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = [tag, ""]
        elif tag == "a":
            self.links.append(attrs)
        elif tag == "details":
            self.details = True
        elif tag == "summary":
            self._in_summary, self.summary = True, ""

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            (self.header if self._cell[0] == "th" else self.rows[-1]).append(self._cell[1])
            self._cell = None
        elif tag == "summary":
            self._in_summary = False

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[1] += data
        if self._in_summary:
            self.summary += data


def parse(rendered) -> _Cells:
    parser = _Cells()
    parser.feed(rendered.html)
    parser.rows = [row for row in parser.rows if row]
    return parser


def link_csv(parsed: _Cells) -> str:
    href = parsed.links[0]["href"]
    prefix = "data:text/csv;charset=utf-8;base64,"
    assert href.startswith(prefix)
    return base64.b64decode(href[len(prefix) :]).decode("utf-8")


@pytest.fixture
def frame():
    return pd.DataFrame(
        {
            "dataset": ["bbcsport", "twitter", "20news"],
            "test documents": [220, 932, 7528],
            "errors": [5.0, np.nan, 2256.0],  # whole numbers stored as floats because of the missing value
            "error": [0.0227, 0.3101, np.nan],
            "speed (pairs / s)": [1_462_366.25, 0.472, None],
            "symmetric": [True, False, True],
            "note": ["", None, "stated"],
        },
        index=[7, 3, 9],
    )


def test_no_nan_none_and_missing_values_are_dashes(frame):
    parsed = parse(table(frame, {"error": "percent"}))
    text = " ".join(cell for row in parsed.rows for cell in row)
    assert not re.search(r"\b(nan|NaN|None|NaT|<NA>)\b", text)
    assert "nan" not in table(frame).html.lower()
    assert parsed.rows[1][2] == MISSING and parsed.rows[2][3] == MISSING and parsed.rows[2][4] == MISSING
    assert parsed.rows[1][6] == MISSING


def test_integers_percentages_and_headers(frame):
    parsed = parse(table(frame, {"error": "percent"}))
    assert parsed.header == list(frame.columns)  # units in headers, as given
    assert [row[1] for row in parsed.rows] == ["220", "932", "7,528"]
    assert [row[2] for row in parsed.rows] == ["5", MISSING, "2,256"]  # whole floats shown as integers
    assert [row[3] for row in parsed.rows[:2]] == ["2.3\u00a0%", "31.0\u00a0%"]
    assert parsed.rows[0][4] == "1,462,366.25"
    assert [row[5] for row in parsed.rows] == ["yes", "no", "yes"]


def test_format_options(frame):
    parsed = parse(
        table(
            frame,
            {
                "error": "percent:2",
                "speed (pairs / s)": "int",
                "test documents": "{:d} docs",
                "errors": lambda v: f"<{v:g}>",
            },
        )
    )
    assert parsed.rows[0][3] == "2.27\u00a0%"
    assert parsed.rows[0][4] == "1,462,366"
    assert parsed.rows[2][1] == "7528 docs"
    assert parsed.rows[0][2] == "<5>"  # escaped in the HTML, shown as typed
    assert "&lt;5&gt;" in table(frame, {"errors": lambda v: f"<{v:g}>"}).html
    with pytest.raises(KeyError, match="no such"):
        table(frame, {"no such": "int"})


def test_index_is_hidden_unless_named(frame):
    parsed = parse(table(frame))
    assert len(parsed.header) == len(frame.columns) and all(row[0] != "7" for row in parsed.rows)
    named = parse(table(frame.set_index("dataset")))
    assert named.header[0] == "dataset" and named.rows[0][0] == "bbcsport"


def test_download_link_carries_the_frame(frame):
    rendered = table(frame, {"error": "percent"}, download="errors")
    parsed = parse(rendered)
    assert parsed.links[0]["download"] == "errors.csv"
    csv = link_csv(parsed)
    assert csv == rendered.csv
    back = pd.read_csv(io.StringIO(csv), keep_default_na=True)
    expected = frame.reset_index(drop=True)
    pd.testing.assert_frame_equal(back.drop(columns="note"), expected.drop(columns="note"), check_dtype=False)
    assert back["note"].isna().tolist() == [True, True, False]  # "" and None both come back empty
    assert table(frame).csv is None and not parse(table(frame)).links


def test_collapsed_tables(frame):
    parsed = parse(table(frame, download="all", collapsed="Show all 3 rows"))
    assert parsed.details and parsed.summary == "Show all 3 rows" and parsed.links
    assert "<details" in collapsible(table(frame), "More").html
    assert collapsible("<p>x</p>", "More").html.startswith('<details class="regemb-collapsed"><summary>More</summary>')


def test_only_data_frames():
    with pytest.raises(TypeError):
        table([1, 2, 3])


def test_links_wrap_their_cells_and_are_escaped():
    frame = pd.DataFrame({"claim": ["a < b", "c"], "verdict": ["holds", "does not hold"]})
    shown = table(frame, links={"claim": ["04.html#fig-speed", None]}).html
    assert '<a href="04.html#fig-speed">a &lt; b</a>' in shown
    assert '<td style="text-align: left">c</td>' in shown  # no href, no link
    with pytest.raises(ValueError, match="1 hrefs for 2 rows"):
        table(frame, links={"claim": ["x"]})
    with pytest.raises(KeyError, match="where"):
        table(frame, links={"where": ["x", "y"]})


def test_mixed_columns_as_numbers():
    frame = pd.DataFrame({"paper": [True, 11293, 0.1532, 819496.0, 39.43, 2.0, "x"]}, dtype=object)
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", table(frame, {"paper": "number"}).html)
    assert cells == ["yes", "11,293", "0.1532", "819,496", "39.43", "2", "x"]


def test_the_csv_can_hold_more_than_is_shown():
    full = pd.DataFrame({"error": [12.345], "lower": [9.0], "upper": [16.5]})
    shown = pd.DataFrame({"error (%)": ["12.3 [9.0, 16.5]"]})
    rendered = table(shown, download="errors", csv_frame=full)
    assert rendered.csv == full.to_csv(index=False) and "12.3 [9.0, 16.5]" in rendered.html


def test_values_as_given_keep_their_digits():
    """The paper's values are typed with the digits the paper prints: a bar label 23 stays 23, not 23.00, a caption's
    21.82 stays 21.82, a ratio 819,496 gets its separator, a flag reads yes/no."""
    given = pd.DataFrame({"paper": [23.0, 21.82, 0.1532, 819_496.0, 5.5]})
    assert [row[0] for row in parse(table(given, {"paper": "as given"})).rows] == [
        "23",
        "21.82",
        "0.1532",
        "819,496",
        "5.5",
    ]
    flags = pd.DataFrame({"paper": [True, np.nan]}, dtype=object)
    assert [row[0] for row in parse(table(flags, {"paper": "as given"})).rows] == ["yes", "—"]


def test_numbers_with_decimals_keep_whole_numbers_whole():
    html = table(pd.DataFrame({"difference": [-300.0, 2.0, 1.234, 73528.4]}), {"difference": "number:2"}).html
    for shown in (">-300<", ">2<", ">1.23<", ">73,528<"):
        assert shown in html
    assert "-300.00" not in html and ">2.00<" not in html


def test_the_caption_is_outside_the_scrolling_table(frame):
    """A wide table scrolls in its own box (the table, display: block); its caption is the <figcaption> of a <figure>
    that holds the table, before it and outside it, so that the caption wraps at the page's width instead of scrolling
    away with the table (a <caption> inside the table would scroll with it)."""
    shown = table(frame, caption="A caption that is long enough to wrap on a phone", download="x").html
    figure = re.fullmatch(
        r'<figure class="regemb-table-figure">(.*)</figure>(<p class="regemb-download">.*</p>)', shown
    )
    assert figure, shown[:200]
    caption, rest = re.fullmatch(
        r'<figcaption class="regemb-table-caption">([^<]*)</figcaption>(.*)', figure[1]
    ).groups()
    assert caption == "A caption that is long enough to wrap on a phone"
    assert rest.startswith('<table class="regemb-table table">') and rest.endswith("</table>")
    assert "<caption" not in shown
    said = table(frame.assign(unit="s")).html  # a constant column said in the caption goes there too
    assert re.search(r"<figcaption[^>]*>unit: s \(every row\)</figcaption><table", said)
    plain = table(frame).html  # no caption: no figure
    assert plain.startswith('<table class="regemb-table table">') and "figure" not in plain
    css = (Path(__file__).parents[2] / "assets" / "regemb.css").read_text()
    assert re.search(r"\.regemb-table-figure > figcaption\.regemb-table-caption \{[^}]*text-align: start", css)
    assert not re.search(r"\.regemb-table caption", css)


def test_one_precision_per_quantity():
    """A quantity reads the same in every table and sentence: tables name it (formats={column: quantity}), the package's
    prose calls shown(quantity, value), and the same value gives the same text either way."""
    from regemb_utils.book.tables import PRECISION, shown

    frame = pd.DataFrame({"error (%)": [20.4545, 7.0], "q": [0.0, 3.1234e-9], "s": [78.04, 12_345.6]})
    cells = parse(table(frame, {"error (%)": "test error", "q": "p-value", "s": "seconds"})).rows
    assert cells == [["20.45", "< 1e-300", "78"], ["7.00", "3.12e-09", "12,346"]]
    for quantity in PRECISION:  # table and prose agree
        for value in (0.0077149, 0.674, 20.4545, 78.04, 2.3512):
            assert parse(table(pd.DataFrame({"x": [value]}), {"x": quantity})).rows[0][0] == shown(quantity, value)
    assert shown("test error", np.nan) == MISSING
    assert "e+" not in shown("hours", 4321.0) and "e+" not in shown("seconds", 1234.5)


# glue names of the prose whose format spec is the book's one precision of their quantity (PRECISION): the prose writes
# the spec by hand, so this keeps it equal to the tables'
PROSE_QUANTITIES = {
    "reduction": "error reduction",
    "reduction_lower": "error reduction",
    "reduction_upper": "error reduction",
    "32bit_cache_seconds": "seconds",
    "1bit_cache_seconds": "seconds",
    "wmd_cost_low": "seconds",
    "wmd_cost_high": "seconds",
    "all_queries_hours": "hours",
    "wmd_run_core_hours": "hours",
    "32bit_good_bad": "cosine",
    "1bit_good_bad": "cosine",
    "ortho_relative": "error reduction",
    "max_build_seconds": "seconds",
    "median_build_seconds": "seconds",
}


def test_the_prose_writes_a_quantity_with_the_tables_precision():
    from regemb_utils.book.tables import PRECISION

    root = Path(__file__).parents[2]
    sources = [*sorted((root / "notebooks").glob("*.ipynb")), root / "intro.md"]
    found = {}
    for source in sources:
        text = source.read_text()
        for name, spec in re.findall(r"\{glue:text\}`(?:[\w/.]+::)?(\w+):([^`]+)`", text):
            if name in PROSE_QUANTITIES:
                found.setdefault(name, set()).add(spec)
    assert set(found) == set(PROSE_QUANTITIES), (
        f"glue names not found in the prose: {set(PROSE_QUANTITIES) - set(found)}"
    )
    wrong = {name: specs for name, specs in found.items() if specs != {PRECISION[PROSE_QUANTITIES[name]]}}
    assert not wrong, f"prose specs that are not their quantity's precision: {wrong}"


def test_values_read_off_a_figure_keep_the_digits_that_were_read():
    from regemb_utils.book.tables import paper_as_given

    rows = pd.DataFrame(
        {
            "paper": [5.5, 80.66, 44.40, 3_434_600.0],
            "paper read off a figure": [True, True, False, True],
            "paper decimals": [None, None, 2, None],
        }
    )
    assert paper_as_given(rows)["paper"].tolist() == ["≈ 5.5", "≈ 80.7", "44.40", "≈ 3,430,000"]
