"""How chapters show results: numbers glued into the prose, tables people can read, and figures that render offline."""

from __future__ import annotations

import base64
import html
import json
import math
import numbers
from collections.abc import Callable, Mapping

import myst_nb
import numpy as np
import pandas as pd
import plotly.io as pio

from ..embeddings.trained import COSINE_FORMAT
from .style import HighResolution

__all__ = [
    "glue",
    "glue_all",
    "TOOLBAR_PX",
    "with_toolbar_room",
    "OfflinePlotly",
    "Format",
    "Table",
    "table",
    "paper_as_given",
    "PRECISION",
    "shown",
]


def glue(name: str, value, display: bool = False):
    """``myst_nb.glue`` for numbers in the prose; numpy scalars become Python numbers, so that a format spec such as
    ``{glue:text}`name:.1f``` works (numpy 2 writes them as ``np.float64(...)``), and a matplotlib figure is glued
    at the book's resolution (:class:`regemb_utils.book.style.HighResolution`).

    Parameters
    ----------
    name : str
        The name the prose uses.
    value : object
        A number, text, Markdown, a table or a figure.
    display : bool
        Also show it where the cell runs.

    Returns
    -------
    None

    Examples
    --------
    In a chapter, ``glue("n_documents", np.int64(737))`` lets the prose write ``{glue:text}`n_documents:,d```.
    """
    if isinstance(value, np.generic):
        value = value.item()
    if type(value).__module__ == "matplotlib.figure":  # without importing matplotlib
        value = HighResolution(value)
    return myst_nb.glue(name, value, display=display)


def glue_all(prefix: str, values: Mapping[str, object]) -> None:
    """Glue every value of ``values`` as ``{prefix}_{key}`` without displaying it; a matplotlib figure is closed
    once glued (so that the notebook does not show it a second time).

    Parameters
    ----------
    prefix : str
        The names' common start (e.g. a data set's name).
    values : mapping of str to object
        What :func:`glue` takes: numbers, Markdown, tables, figures.

    Returns
    -------
    None

    Examples
    --------
    In a chapter, ``glue_all("bbcsport", {"caption": Markdown("..."), "map": figure})`` glues ``bbcsport_caption`` and
    ``bbcsport_map``.
    """
    import matplotlib.pyplot as plt

    for key, value in values.items():
        glue(f"{prefix}_{key}", value, display=False)
        if isinstance(value, plt.Figure):
            plt.close(value)


# plotly.js draws its toolbar (the "modebar", about 26 px tall) over the top right corner of a figure, on top of
# whatever the figure puts there; on a narrow screen a title or a menu reaches that corner
TOOLBAR_PX = 32
_PLOTLY_HEIGHT, _PLOTLY_TOP = 450, 100  # plotly.js's defaults for layout.height and layout.margin.t


def with_toolbar_room(figure):
    """A copy of the plotly ``figure`` with a strip :data:`TOOLBAR_PX` tall above everything it draws, for plotly's
    toolbar: the figure grows by the strip (its plot area keeps its height), its top margin by the strip, and a title
    or legend placed relative to the whole figure (``yref="container"``; a title by default) moves down by the strip.
    What is placed relative to the plot area (subplot titles, menus, legends above the plot) keeps its place there.

    Parameters
    ----------
    figure : plotly.graph_objects.Figure
        The figure (not changed).

    Returns
    -------
    plotly.graph_objects.Figure
        The copy.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> figure = go.Figure(layout={"height": 300, "margin": {"t": 60}, "title": {"text": "a title", "y": 0.9}})
    >>> roomy = with_toolbar_room(figure)
    >>> roomy.layout.height, roomy.layout.margin.t, figure.layout.height
    (332, 92, 300)
    >>> round((1 - roomy.layout.title.y) * roomy.layout.height)  # 30 px from the top, now 30 + 32
    62
    """
    import plotly.graph_objects as go

    roomy = go.Figure(figure)
    layout = roomy.layout
    height = layout.height or _PLOTLY_HEIGHT
    top = layout.margin.t if layout.margin.t is not None else _PLOTLY_TOP
    grown = height + TOOLBAR_PX

    def down(y, default):  # a position in the whole figure (0: bottom, 1: top), moved down by the strip
        return 1 - ((1 - (default if y in (None, "auto") else y)) * height + TOOLBAR_PX) / grown

    if layout.title.text and layout.title.yref in (None, "container"):
        auto = layout.title.y in (None, "auto")  # plotly.js: the title's middle at the middle of the top margin
        layout.title.y = down(layout.title.y, 1 - top / 2 / height)
        layout.title.yanchor = "middle" if auto else layout.title.yanchor
    if layout.legend.yref == "container" and layout.legend.y is not None:
        layout.legend.y = down(layout.legend.y, 1)
    layout.height, layout.margin.t = grown, top + TOOLBAR_PX
    return roomy


class OfflinePlotly:
    """Display a plotly figure without a CDN, with room for plotly's toolbar (:func:`with_toolbar_room`).

    The HTML output carries no plotly.js: the book loads it once from its own ``_static`` (``html_js_files`` in
    ``_config.yml``). JupyterLab renders the plotly JSON output with plotly's own extension.

    Parameters
    ----------
    figure : plotly.graph_objects.Figure
        The figure to display.

    Attributes
    ----------
    figure : plotly.graph_objects.Figure
        As given; it is shown with the toolbar's room.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> bundle = OfflinePlotly(go.Figure(go.Bar(y=[3, 1])))._repr_mimebundle_()
    >>> sorted(bundle), bundle["application/vnd.plotly.v1+json"]["data"][0]["y"], "cdn.plot.ly" in bundle["text/html"]
    (['application/vnd.plotly.v1+json', 'text/html'], [3, 1], False)
    >>> bundle["application/vnd.plotly.v1+json"]["layout"]["margin"]["t"]  # plotly's 100 px and the toolbar's
    132
    """

    def __init__(self, figure):
        self.figure = figure

    def _repr_mimebundle_(self, include=None, exclude=None):
        shown = with_toolbar_room(self.figure)
        return {
            "application/vnd.plotly.v1+json": json.loads(shown.to_json()),
            "text/html": pio.to_html(shown, include_plotlyjs=False, full_html=False),
        }


# ---------------------------------------------------------------------------------------------------------------------
# Tables

MISSING = "\u2014"  # an em dash stands for a missing value
_NBSP = "\u00a0"

Format = str | Callable[[object], str]


def _is_missing(value) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    try:
        return bool(isinstance(value, (float, np.floating)) and math.isnan(value))
    except TypeError:  # pragma: no cover - exotic scalars
        return False


# One precision per quantity: every table (``formats={column: quantity}``), glued value and sentence of the book that
# shows one of these quantities takes its digits from here, so that a number reads the same on every page (a glue
# reference in the prose writes the same spec: ``{glue:text}`name:.2f``` for a test error).
PRECISION: dict[str, str] = {
    "test error": ".2f",  # a test error (%), or a difference of two in points: the two decimals the paper prints
    "error reduction": ".2f",  # a test error relative to another (%) or a reduction of one (%): the paper's 39.43
    "cosine": COSINE_FORMAT,  # a cosine similarity or a Spearman ρ: three decimals
    "seconds": ".3g",  # a duration (s, s / query): three significant digits (78, 13.2, 0.00771), whole from 1,000 up
    "hours": ".3g",  # a duration (h): three significant digits (2.35), whole from 1,000 up
    "p-value": "p-value",  # a p- or q-value: three significant digits; one that underflowed to 0 as "< 1e-300"
}


def shown(quantity: str, value) -> str:
    """``value`` as the book shows ``quantity`` (:data:`PRECISION`): the one place that sets its digits.

    Parameters
    ----------
    quantity : str
        A key of :data:`PRECISION` ("test error", "cosine", "seconds", "p-value", ...).
    value : float
        The value, unrounded.

    Returns
    -------
    str
        Its text ("—" for a missing value).

    Examples
    --------
    >>> shown("test error", 20.4545), shown("cosine", 0.6741), shown("seconds", 78.04), shown("seconds", 0.0077149)
    ('20.45', '0.674', '78', '0.00771')
    >>> shown("hours", 2.3512), shown("seconds", 12_345.6), shown("p-value", 0.0), shown("p-value", 3.1234e-9)
    ('2.35', '12,346', '< 1e-300', '3.12e-09')
    """
    if _is_missing(value):
        return MISSING
    return _quantity_format(quantity)(value)


def _quantity_format(quantity: str) -> Callable[[object], str]:
    spec = PRECISION[quantity]
    if spec == "p-value":
        return lambda v: "< 1e-300" if float(v) == 0 else f"{float(v):.3g}"
    if spec.endswith("g"):  # significant digits, never an exponent: whole from 1,000 up
        return lambda v: f"{float(v):,.0f}" if abs(float(v)) >= 1000 else format(float(v), spec)
    return lambda v: format(float(v), spec)


def _named_format(name: str) -> Callable[[object], str] | None:
    if name in PRECISION:  # a quantity: its one precision
        return _quantity_format(name)
    if name == "int":
        return lambda v: f"{int(round(float(v))):,}"
    if name == "percent":  # a fraction shown as a percentage with one decimal
        return lambda v: f"{100 * float(v):,.1f}{_NBSP}%"
    if name == "number":  # a column of mixed values: yes/no, integers, floats to 4 significant digits
        return _number
    if name == "as given":  # values typed with the digits their source gives (the paper's): 23, 21.82, 819,496
        return _shown_with(lambda v: f"{v:,.0f}" if float(v).is_integer() else f"{v:g}")
    if name == "signed":  # a real as short as it prints, with a true minus sign (a grid's threshold: −1, −0.5)
        return lambda v: f"{float(v):g}".replace("-", "\u2212")
    if name.startswith("number:"):  # number:2 -> like "number", but every real with two decimals (whole numbers and
        digits = int(name.split(":", 1)[1])  # everything from 1,000 without: a difference of k or C is a whole number)
        return _shown_with(lambda v: f"{v:,.0f}" if abs(v) >= 1000 or v.is_integer() else f"{v:,.{digits}f}")
    if name.startswith("percent:"):  # percent:2 -> two decimals
        digits = int(name.split(":", 1)[1])
        return lambda v: f"{100 * float(v):,.{digits}f}{_NBSP}%"
    return None


def _shown_with(real: Callable[[float], str]) -> Callable[[object], str]:
    """A formatter: booleans as yes/no, integers with thousands separators, other reals by ``real``."""

    def fmt(v) -> str:
        if isinstance(v, (bool, np.bool_)):
            return "yes" if v else "no"
        if isinstance(v, numbers.Integral):
            return f"{int(v):,}"
        if isinstance(v, numbers.Real):
            return real(float(v))
        return str(v)

    return fmt


def _significant(v: float) -> str:
    if v.is_integer() and abs(v) < 1e15:
        return f"{int(v):,}"
    return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.4g}"


_number = _shown_with(_significant)


def _formatter(spec: Format) -> Callable[[object], str]:
    if callable(spec):
        return spec
    named = _named_format(spec)
    if named is not None:
        return named
    if "{" in spec:
        return spec.format
    return lambda v: format(v, spec)


def _default_formatter(column: pd.Series) -> Callable[[object], str]:
    """Integers (and float columns whose values are all whole numbers) with thousands separators; other floats with
    2 decimals (3 when every value is below 1 in magnitude), in scientific notation below 0.001; booleans yes/no."""
    values = [v for v in column if not _is_missing(v)]
    numeric = [v for v in values if isinstance(v, numbers.Number) and not isinstance(v, (bool, np.bool_))]
    if (
        values
        and len(numeric) == len(values)
        and all(float(v).is_integer() for v in numeric if math.isfinite(float(v)))
    ):
        return lambda v: f"{int(v):,}" if math.isfinite(float(v)) else str(float(v))
    decimals = 3 if numeric and max(abs(float(v)) for v in numeric) < 1 else 2

    def real(v: float) -> str:
        if v != 0 and abs(v) < 10**-3 and math.isfinite(v):
            return f"{v:.2e}"
        return f"{v:,.{decimals}f}"

    return _shown_with(real)


def _column_name(name) -> str:
    if isinstance(name, tuple):
        return " ".join(str(part) for part in name if str(part))
    return str(name)


class Table:
    """A rendered table: ``html`` (also its ``_repr_html_``, which Jupyter and the book display) and ``csv``.

    Parameters
    ----------
    html_text : str
        The table's HTML.
    csv : str or None
        The table's values as CSV (None when it has no download).

    Attributes
    ----------
    html : str
        As given.
    csv : str or None
        As given.

    Examples
    --------
    >>> shown = table(pd.DataFrame({"n": [1200]}), download="counts")
    >>> shown.csv, "1,200" in shown._repr_html_()
    ('n\\n1200\\n', True)
    """

    def __init__(self, html_text: str, csv: str | None):
        self.html = html_text
        self.csv = csv

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return f"<Table: {len(self.html):,} characters of HTML>"


def table(
    frame: pd.DataFrame,
    formats: Mapping[object, Format] | None = None,
    *,
    download: str | None = None,
    collapsed: str | None = None,
    caption: str | None = None,
    links: Mapping[object, object] | None = None,
    csv_frame: pd.DataFrame | None = None,
) -> Table:
    """Render ``frame`` as an HTML table for the book and for JupyterLab.

    * Column names are shown as given (put units in them: ``"test error (%)"``, ``"pairs / s"``).
    * ``formats`` maps a column to how its values are shown: ``"int"`` (thousands separators), ``"percent"`` (a
      fraction shown as a percentage with one decimal; ``"percent:2"`` for two), ``"number"`` (mixed values: yes/no,
      integers with separators, floats to 4 significant digits, whole above 1,000), ``"as given"`` (the digits a value
      was typed with, such as the paper's: 23, 21.82, 819,496), a quantity of :data:`PRECISION` (``"test error"``,
      ``"cosine"``, ``"seconds"``, ``"p-value"``: three significant digits, an underflow to 0 as "< 1e-300"; ...: the
      one precision of that quantity in the book), ``"signed"`` (as short as it prints, true minus signs), a format
      spec (``".3f"``), a format string (``"{:.2f} %"`` for values already in percent) or a function. Other columns: integers (and float columns
      whose values are all whole numbers) with thousands separators, other numbers with 2 or 3 decimals, booleans as
      yes/no.
    * Missing values (NaN, None, NA, NaT) are shown as an em dash, "—", never as nan.
    * The index is not shown; a named index (or MultiIndex) becomes the leading columns, so no data is lost.
    * ``download="name"`` adds a link that downloads the frame as ``name.csv`` (the values as computed, unformatted;
      missing values empty). The CSV travels inside the page as a ``data:`` URI, so it works offline in the built
      book and in JupyterLab (in an untrusted notebook JupyterLab's sanitizer may drop the link until the notebook
      is trusted or re-run).
    * ``collapsed="Show all 216 tests"`` wraps the table (and its link) in a ``<details>`` element that starts
      closed, with that summary line (see also :func:`collapsible`).
    * ``caption`` is shown above the table, outside it: table and caption are a ``<figure>`` and its ``<figcaption>``,
      so that a table wider than the page scrolls in its own box while its caption wraps at the page's width. A
      column that shows the same value in every row of a table of at least :data:`CONSTANT_ROWS` rows (and three
      columns) is said once, at the start of the caption, instead of in every row (the CSV keeps it).
    * ``csv_frame``: what the CSV download holds, when it is not the frame shown (e.g. the separate interval columns
      behind a compact display).
    * ``links={"claim": hrefs}`` makes each cell of that column a link to the href of its row (a sequence as long
      as the frame; None or "" for no link).

    Parameters
    ----------
    frame : pandas.DataFrame
        The values to show.
    formats : mapping, optional
        Column → how its values are shown (see above).
    download : str, optional
        The name of a CSV download of the frame.
    collapsed : str, optional
        The summary line of a ``<details>`` element that holds the table, closed.
    caption : str, optional
        A caption above the table.
    links : mapping, optional
        Column → one href per row (None or "" for none).
    csv_frame : pandas.DataFrame, optional
        What the CSV download holds, when it is not ``frame``.

    Returns
    -------
    Table
        The rendered table (its ``html`` and ``csv``).

    Examples
    --------
    >>> table(pd.DataFrame({"test error (%)": [4.5678]}), {"test error (%)": ".2f"}).html
    '<table class="regemb-table table"><thead><tr><th style="text-align: right">test error (%)</th></tr></thead><tbody><tr><td style="text-align: right">4.57</td></tr></tbody></table>'
    >>> same = table(pd.DataFrame({"data set": ["a", "b", "c"], "method": ["BoW"] * 3, "k": [1, 3, 5]}))
    >>> same.html.startswith('<figure class="regemb-table-figure"><figcaption class="regemb-table-caption">method: BoW')
    True
    >>> "(every row)</figcaption><table" in same.html, "<th" in same.html and ">method<" in same.html
    (True, False)
    >>> empty = table(pd.DataFrame({"data set": ["a", "b", "c"], "notes": [""] * 3, "k": [1, 3, 5]}))
    >>> "<figcaption" in empty.html, ">notes<" in empty.html
    (False, False)
    >>> tests = table(pd.DataFrame({"p": [0.0, 0.01234, 3e-12], "t": [-1.0, -0.5, 0.5]}), {"p": "p-value", "t": "signed"})
    >>> [c for c in ("&lt; 1e-300", ">0.0123<", ">3e-12<", ">−1<", ">−0.5<", ">0.5<") if c not in tests.html]
    []
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"table() needs a pandas DataFrame, not {type(frame).__name__}")
    formats = dict(formats or {})
    data = frame.reset_index() if any(name is not None for name in frame.index.names) else frame
    links = {column: list(hrefs) for column, hrefs in (links or {}).items()}
    unknown = [name for name in [*formats, *links] if name not in data.columns]
    if unknown:
        raise KeyError(
            f"formats or links name columns the frame does not have: {unknown}; columns: {list(data.columns)}"
        )
    for column, hrefs in links.items():
        if len(hrefs) != len(data):
            raise ValueError(f"links[{column!r}] has {len(hrefs)} hrefs for {len(data)} rows")

    formatters = {c: _formatter(formats[c]) if c in formats else _default_formatter(data[c]) for c in data.columns}
    shown_text = {c: [str(MISSING if _is_missing(v) else formatters[c](v)) for v in data[c]] for c in data.columns}
    constant = [
        c
        for c in data.columns
        if c not in links and len(data) >= CONSTANT_ROWS and len(data.columns) > 2 and len(set(shown_text[c])) == 1
    ]  # one value in every row: said once, in the caption
    said = "; ".join(f"{_column_name(c)}: {shown_text[c][0]}" for c in constant if shown_text[c][0].strip())
    if said:  # a column empty in every row is dropped without a word
        caption = f"{said} (every row). {caption}" if caption else f"{said} (every row)"
    columns = [c for c in data.columns if c not in constant]
    header = "".join(f'<th style="text-align: {_align(data[c])}">{html.escape(_column_name(c))}</th>' for c in columns)
    rows = []
    for row, values in enumerate(data[columns].itertuples(index=False, name=None)):
        cells = []
        for column, value in zip(columns, values):
            text = html.escape(str(MISSING if _is_missing(value) else formatters[column](value)))
            href = links[column][row] if column in links else None
            if href:
                text = f'<a href="{html.escape(str(href))}">{text}</a>'
            cells.append(f'<td style="text-align: {_align(data[column])}">{text}</td>')
        rows.append(f"<tr>{''.join(cells)}</tr>")
    body = f'<table class="regemb-table table"><thead><tr>{header}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    if caption:  # outside the table, which scrolls in its own box when wide: the caption wraps at the page's width
        body = (
            f'<figure class="regemb-table-figure"><figcaption class="regemb-table-caption">{html.escape(caption)}'
            f"</figcaption>{body}</figure>"
        )
    csv = None
    if download is not None:
        full = data if csv_frame is None else csv_frame
        csv = full.to_csv(index=False)
        name = download if download.endswith(".csv") else f"{download}.csv"
        uri = "data:text/csv;charset=utf-8;base64," + base64.b64encode(csv.encode("utf-8")).decode("ascii")
        body += (
            f'<p class="regemb-download"><a download="{html.escape(name)}" href="{uri}">'
            f"Download this table as CSV ({html.escape(name)}, {len(full):,} rows)</a></p>"
        )
    if collapsed is not None:
        body = _details(body, collapsed)
    return Table(body, csv)


CONSTANT_ROWS = 3  # a column with one value in at least this many rows goes into the caption


def _align(column: pd.Series) -> str:
    return "right" if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column) else "left"


def _details(body: str, summary: str) -> str:
    return f'<details class="regemb-collapsed"><summary>{html.escape(summary)}</summary>{body}</details>'


def collapsible(content, summary: str) -> Table:
    """Wrap a :class:`Table` (or any object with ``_repr_html_``, or an HTML string) in a closed ``<details>``.

    Parameters
    ----------
    content : Table, object with ``_repr_html_``, or str
        What is hidden.
    summary : str
        What the closed box shows.

    Returns
    -------
    Table
        The box.

    Examples
    --------
    >>> collapsible("<p>x</p>", "Show").html
    '<details class="regemb-collapsed"><summary>Show</summary><p>x</p></details>'
    """
    if isinstance(content, Table):
        return Table(_details(content.html, summary), content.csv)
    text = content._repr_html_() if hasattr(content, "_repr_html_") else str(content)
    return Table(_details(text, summary), None)


def paper_as_given(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with the paper's values as the paper gives them: a value read off a figure (column "paper read off a
    figure") as approximate, "≈" and the (at most three) significant digits that were read, never padded with zeros
    (a bar label read as 5.5 is "≈ 5.5", not "≈ 5.50"); one with the decimals its source prints (column "paper
    decimals": 0.0810, not 0.081; 44.40 of the paper's result files); the others with their own digits. Both columns
    are dropped.

    Parameters
    ----------
    rows : pandas.DataFrame
        Rows of :func:`scorecard`.

    Returns
    -------
    pandas.DataFrame
        The rows, their "paper" column text.

    Examples
    --------
    >>> rows = pd.DataFrame({"paper": [3_434_600.0, 21.82, 80.66, 0.081, np.nan, 5.5, 76.02, 100.0],
    ...                      "paper read off a figure": [True, False, True, False, False, True, True, True],
    ...                      "paper decimals": [None, None, None, 4, None, None, None, None]})
    >>> paper_as_given(rows)["paper"].tolist()
    ['≈ 3,430,000', '21.82', '≈ 80.7', '0.0810', None, '≈ 5.5', '≈ 76.0', '≈ 100']
    """
    if "paper read off a figure" not in rows:
        return rows
    decimals = rows["paper decimals"] if "paper decimals" in rows else [None] * len(rows)

    def shown(value, read_off, places) -> str | None:
        if value is None or isinstance(value, (float, np.floating)) and not np.isfinite(value):
            return None
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
            return "yes" if value is True else "no" if value is False else str(value)
        if read_off:  # at most three significant digits, and no digit the reading does not have (5.5, not 5.50)
            rounded = float(f"{value:.3g}")
            places = max(2 - int(np.floor(np.log10(abs(rounded)))), 0) if rounded else 0
            read = repr(float(value)).rstrip("0").partition(".")[2] if "e" not in repr(float(value)) else ""
            return f"≈ {rounded:,.{min(places, len(read))}f}"
        if places is not None and np.isfinite(places):
            return f"{value:,.{int(places)}f}"
        return f"{value:,.0f}" if float(value).is_integer() else f"{value:g}"

    return rows.assign(
        paper=[shown(*values) for values in zip(rows["paper"], rows["paper read off a figure"], decimals)]
    ).drop(columns=["paper read off a figure", "paper decimals"], errors="ignore")
