"""The interactive explorer (``notebooks/explorer.ipynb``, ``make explore``): pick a data set, two documents and the
parameters of S', and see S''s sparsity, the SCM's word-pair contributions beside the WMD's flows, and the test
document's nearest training documents under each measure.

Everything comes from the chapters' records in the artifact cache (chapter 1's dictionary and data sets, chapter 2's
embeddings, chapter 3's neighbours), for the ``smoke`` or the ``paper`` profile; nothing is trained or downloaded.
:class:`Explorer` computes a :class:`View` (the numbers, for the tests), :func:`render` turns it into HTML whose
numbers carry ``data-value`` attributes (for the browser test), and :func:`app` wires both to ipywidgets. Bad input
(a document index out of range, a data set or profile that was never built) raises :class:`ExplorerError`, which the
app shows as a message.
"""

from __future__ import annotations

import html
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import sparse

from ..classification.engine import Measure, explain_pair
from ..classification.methods import represent_pair
from ..measures.similarity import sparse_scm
from ..measures.wmd import wmd_knn
from ..termsim.orthogonalization import MatrixGrid
from ..termsim.sources import restricted
from ..text.datasets import DATASETS
from ..infra.constraints import integer, one_of, real
from ..infra.cache import ArtifactCache
from ..study.params import PROFILES, chapter_parameters
from ..study.pipeline import Chapter, PipelineError, _lineage

__all__ = ["ExplorerError", "ExplorerSettings", "View", "Explorer", "render", "app"]

REFERENCES = 300  # the training documents searched for a test document's neighbours: the first ones of the split
TOP = 8  # rows shown in each table
NEIGHBOURS = 5
MEASURES = {"32-bit": ("soft_vsm_ortho", "wmd"), "1-bit": ("soft_vsm_quantized_ortho", "wmd_quantized")}
LIMITS = (1, 2, 5, 10, 20, 40, 100, 200, 400, 800)  # the choices of C (up to chapter 3's neighbour depth)
THRESHOLDS = (-1.0, -0.5, 0.0, 0.5)
EXPONENTS = (1.0, 2.0, 3.0, 4.0)


class ExplorerError(ValueError):
    """Input the explorer cannot show; the message says what is allowed.

    Parameters
    ----------
    message : str
        What cannot be shown and what is allowed.

    Examples
    --------
    >>> try:
    ...     Explorer().chapter("huge")
    ... except ExplorerError as error:
    ...     print(error)
    unknown profile 'huge'; allowed: smoke, paper
    """


@dataclass(frozen=True)
class ExplorerSettings:
    """What the explorer is asked to show: a profile, a data set, a test and a training document, and the parameters of S'.

    Parameters
    ----------
    profile : {"smoke", "paper"}
        Whose chapters' records to read.
    dataset : str
        A data set of :data:`regemb_utils.text.datasets.DATASETS`.
    query, reference : int
        A row of the test split and a row of the training split.
    model : str
        The embeddings (``"32-bit"`` or ``"1-bit"``).
    nonzero_limit : int
        C, the most non-zeros per column of S'.
    threshold, exponent : float
        t and o of S'.
    symmetric, dominant, idf : bool
        Sym, Dom and Idf of S'.

    Examples
    --------
    >>> settings = ExplorerSettings(dataset="twitter", nonzero_limit=100)
    >>> settings.profile, settings.dataset, settings.nonzero_limit, settings.threshold
    ('smoke', 'twitter', 100, -1.0)
    """

    profile: str = "smoke"
    dataset: str = "bbcsport"
    query: int = 0  # row of the test split
    reference: int = 0  # row of the training split
    model: str = "32-bit"
    nonzero_limit: int = 10
    threshold: float = -1.0
    exponent: float = 1.0
    symmetric: bool = True
    dominant: bool = True
    idf: bool = True


@dataclass
class View:
    """What the explorer shows for one :class:`ExplorerSettings`.

    Parameters
    ----------
    settings : ExplorerSettings
        What was asked for.
    words : int
        Dictionary words with an embedding (the columns of S' counted).
    nonzeros_per_column : float
        Mean non-zeros per column of S' over those words, the diagonal included.
    off_diagonal : int
        Stored pairs of distinct words.
    query_text, query_class, reference_text, reference_class : str
        The two documents and their classes.
    scm, wmd : float
        The two documents' SCM and WMD.
    contributions : pandas.DataFrame
        Query word, reference word, contribution to the SCM (largest \\|contribution\\| first).
    flows : pandas.DataFrame
        Query word, reference word, mass, distance, cost (largest cost first).
    scm_neighbours, wmd_neighbours : pandas.DataFrame
        The test document's nearest training documents under each measure.
    references : int
        Training documents searched.
    seconds : float
        How long the view took.

    Examples
    --------
    >>> empty = pd.DataFrame()
    >>> view = View(ExplorerSettings(), 120, 3.5, 290, "a goal", "sport", "the match", "sport", 0.42, 1.3,
    ...             empty, empty, empty, empty, 50)
    >>> html = render(view)
    >>> '<span data-value="scm">0.4200</span>' in html, view.settings.dataset
    (True, 'bbcsport')
    """

    settings: ExplorerSettings
    words: int  # dictionary words with an embedding (the columns counted)
    nonzeros_per_column: float  # mean non-zeros per column of S' over those words, the diagonal included
    off_diagonal: int  # stored pairs of distinct words
    query_text: str
    query_class: str
    reference_text: str
    reference_class: str
    scm: float
    wmd: float
    contributions: pd.DataFrame  # query word, reference word, contribution to the SCM (largest |contribution| first)
    flows: pd.DataFrame  # query word, reference word, mass, distance, cost (largest cost first)
    scm_neighbours: pd.DataFrame  # training document, class, SCM, text
    wmd_neighbours: pd.DataFrame  # training document, class, WMD, text
    references: int  # training documents searched
    seconds: float = field(default=0.0)


class Explorer:
    """Loads each profile's inputs once (lazily) and keeps the last few S' it built.

    Parameters
    ----------
    cache : ArtifactCache, optional
        Where the chapters' records are; by default the default cache.
    keep : int
        How many matrices S' it keeps.

    Attributes
    ----------
    cache : ArtifactCache
        As given.
    keep : int
        As given.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     try:
    ...         Explorer(ArtifactCache(folder)).datasets("smoke")
    ...     except ExplorerError as error:
    ...         print(str(error).split(":")[0].replace(folder, "<folder>"))
    the smoke profile was never built in <folder>
    """

    def __init__(self, cache=None, keep: int = 8):

        self.cache = cache if cache is not None else ArtifactCache()
        self.keep = keep
        self._chapters: dict[str, object] = {}
        self._inputs: dict[tuple, object] = {}
        self._matrices: OrderedDict = OrderedDict()

    # -- inputs --------------------------------------------------------------------------------------------------
    def chapter(self, profile: str):
        """The chapters' records for ``profile`` as chapter 4 would read them (chapters 1-3)."""

        if profile not in PROFILES:
            raise ExplorerError(f"unknown profile {profile!r}; allowed: {', '.join(PROFILES)}")
        if profile not in self._chapters:
            try:
                lineage = _lineage("04_scm_vs_wmd", profile, None, self.cache)
            except PipelineError:
                raise ExplorerError(
                    f"the {profile} profile was never built in {self.cache.root}: run chapters 1 to 3 first, e.g. "
                    f"`make book PROFILE={profile}` or `scripts/run_chapters.py --profile {profile} --output "
                    f"notebooks`"
                ) from None
            self._chapters[profile] = Chapter(
                "04_scm_vs_wmd", chapter_parameters("04_scm_vs_wmd", profile), lineage, self.cache
            )
        return self._chapters[profile]

    def datasets(self, profile: str) -> list[str]:
        """The data sets chapter 1 built for ``profile``."""
        return list(self.chapter(profile).record("01_preprocessing").parameter("datasets"))

    def depth(self, profile: str) -> int:
        """Chapter 3's neighbours per word: the largest C the explorer can build."""
        return int(self.chapter(profile).record("03_orthogonalization").values["neighbour_depth"])

    def _cached(self, key, compute):
        if key not in self._inputs:
            self._inputs[key] = compute()
        return self._inputs[key]

    def _dictionary(self, profile):
        return self._cached(("dictionary", profile), lambda: self.chapter(profile).dictionary())

    def _models(self, profile):
        return self._cached(("models", profile), lambda: self.chapter(profile).embeddings())

    def _documents(self, profile, dataset):
        if dataset not in self.datasets(profile):
            raise ExplorerError(
                f"the data set {dataset!r} was never built for the {profile} profile: chapter 1 ran "
                f"with {', '.join(self.datasets(profile))}; rerun it with this data set, e.g. "
                f'`make rerun CHAPTER=01 PROFILE={profile} ARGS="-p datasets \'[\\"{dataset}\\"]\'"`'
            )
        chapter = self.chapter(profile)
        return self._cached(
            ("documents", profile, dataset),
            lambda: (chapter.documents([dataset], None)[1][dataset], chapter.datasets([dataset])[dataset]),
        )

    def _grid(self, profile, model):

        def build():
            chapter = self.chapter(profile)
            dictionary, models = self._dictionary(profile), self._models(profile)
            neighbours = chapter.neighbour_caches({model: models[model]}, dictionary, self.depth(profile))[model][0]
            fill_rule = chapter.record("03_orthogonalization").parameter("fill_rule")
            embedded = np.array([dictionary[i] in models[model][0] for i in range(len(dictionary))])
            return MatrixGrid(neighbours, dictionary, fill_rule), embedded

        return self._cached(("grid", profile, model), build)

    def matrix(self, s: ExplorerSettings) -> sparse.csc_matrix:
        """S' over the whole dictionary for the settings' model and parameters (the last ``keep`` are kept)."""
        key = (s.profile, s.model, s.nonzero_limit, s.threshold, s.exponent, s.symmetric, s.dominant, s.idf)
        if key in self._matrices:
            self._matrices.move_to_end(key)
            return self._matrices[key]
        grid, _ = self._grid(s.profile, s.model)
        S = grid.build(
            symmetric=s.symmetric,
            dominant=s.dominant,
            idf=s.idf,
            nonzero_limit=s.nonzero_limit,
            threshold=s.threshold,
            exponent=s.exponent,
        ).tocsc()
        self._matrices[key] = S
        while len(self._matrices) > self.keep:
            self._matrices.popitem(last=False)
        return S

    # -- the view ------------------------------------------------------------------------------------------------
    def check(self, s: ExplorerSettings) -> None:
        """Raise :class:`ExplorerError` for settings outside what the records allow."""
        depth = self.depth(s.profile)
        constraints = (  # (what the page calls it, its value, what it allows)
            ("model", s.model, one_of(MEASURES)),
            (
                "C",
                s.nonzero_limit,
                integer(1, depth, allowed=f"an integer in [1, {depth}] (chapter 3 kept {depth} neighbours per word)"),
            ),
            ("t", s.threshold, real(-1, 1, high_open=True)),
            ("o", s.exponent, real(0, np.inf, low_open=True, allowed="a positive number")),
        )
        try:
            for name, value, constraint in constraints:
                constraint.check(value, name)
        except ValueError as error:
            raise ExplorerError(str(error)) from None
        documents, _ = self._documents(s.profile, s.dataset)
        for name, index, split in (("test document", s.query, "test"), ("training document", s.reference, "train")):
            n = documents.counts[split].shape[0]
            if not (isinstance(index, (int, np.integer)) and 0 <= index < n):
                raise ExplorerError(
                    f"{name} {index} is out of range: the {split} split of {s.dataset.upper()} has "
                    f"{n} documents, numbered 0 to {n - 1}"
                )

    def view(self, s: ExplorerSettings) -> View:

        start = time.perf_counter()
        self.check(s)
        documents, dataset = self._documents(s.profile, s.dataset)
        dictionary, models = self._dictionary(s.profile), self._models(s.profile)
        scm_method, wmd_method = MEASURES[s.model]
        S = self.matrix(s)
        _, embedded = self._grid(s.profile, s.model)
        per_column = np.diff(S.indptr)[embedded]
        off_diagonal = int(S.nnz - S.diagonal().astype(bool).sum())

        n_ref = min(REFERENCES, documents.counts["train"].shape[0])
        scm_q, scm_r = represent_pair(scm_method, documents, "test", "train")
        wmd_q, wmd_r = represent_pair(wmd_method, documents, "test", "train")
        S_terms = restricted(S, documents.terms)
        rows = self._cached(
            ("rows", s.profile, s.dataset, s.model),
            lambda: Measure.of(wmd_method).embeddings(models[s.model][0], dictionary, documents.terms),
        )
        words = lambda ids: [dictionary[int(documents.terms[i])] for i in ids]  # noqa: E731
        q, r = s.query, s.reference

        try:
            pair = explain_pair(scm_q[q], scm_r[r], S_terms, wmd_q[q], wmd_r[r], rows)
        except ValueError as error:  # a document without any weighted word
            raise ExplorerError(str(error)) from None
        contributions, flows, scm = pair.contribution_table(words), pair.flow_table(words), pair.scm

        texts, labels, names = dataset.train.texts, dataset.train.labels, dataset.class_names
        similarities = sparse_scm(scm_q[q], scm_r[:n_ref], S_terms)[0]
        order = np.argsort(-similarities, kind="stable")[:NEIGHBOURS]
        scm_neighbours = pd.DataFrame(
            {
                "training document": order,
                "class": [names[labels[k]] for k in order],
                "SCM": similarities[order],
                "text": [_snippet(texts[k]) for k in order],
            }
        )
        found = wmd_knn(wmd_q[q], wmd_r[:n_ref], rows, k=min(NEIGHBOURS, n_ref))
        order = found.indices[0]
        wmd_neighbours = pd.DataFrame(
            {
                "training document": order,
                "class": [names[labels[k]] for k in order],
                "WMD": found.distances[0],
                "text": [_snippet(texts[k]) for k in order],
            }
        )
        return View(
            s,
            int(embedded.sum()),
            float(per_column.mean()),
            off_diagonal,
            dataset.test.texts[q],
            names[dataset.test.labels[q]],
            texts[r],
            names[labels[r]],
            float(scm),
            float(pair.wmd),
            contributions,
            flows,
            scm_neighbours,
            wmd_neighbours,
            n_ref,
            time.perf_counter() - start,
        )


def _snippet(text: str, n: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


# -- HTML --------------------------------------------------------------------------------------------------------------


def _number(name: str, value: float, spec: str) -> str:
    return f'<span data-value="{name}">{format(value, spec)}</span>'


def _table(frame: pd.DataFrame, formats: Mapping[str, str], name: str) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    body = "".join(
        "<tr>"
        + "".join(f"<td>{html.escape(format(v, formats[c]) if c in formats else str(v))}</td>" for c, v in row.items())
        + "</tr>"
        for _, row in frame.iterrows()
    )
    return f'<table class="explorer-table" data-table="{name}"><tr>{head}</tr>{body}</table>'


def render(view: View) -> str:
    """The view as HTML; every number that a test reads has a ``data-value`` attribute.

    Parameters
    ----------
    view : View
        What to show.

    Returns
    -------
    str
        An HTML ``<div id="explorer-view">``.

    Examples
    --------
    >>> empty = pd.DataFrame()
    >>> view = View(ExplorerSettings(), 1200, 3.25, 2900, "a goal", "sport", "the match", "sport", 0.5, 1.25,
    ...             empty, empty, empty, empty, 50)
    >>> html = render(view)
    >>> html.startswith('<div id="explorer-view">'), "3.250" in html, "1,200" in html
    (True, True, True)
    """
    s = view.settings
    options = ", ".join(name for name, on in (("Sym", s.symmetric), ("Dom", s.dominant), ("Idf", s.idf)) if on)
    matrix = (
        f"<p><b>S′</b> ({s.model} embeddings, C = {s.nonzero_limit}, t = {s.threshold:g}, o = {s.exponent:g}"
        f"{', ' + options if options else ''}): "
        f"{_number('nonzeros-per-column', view.nonzeros_per_column, '.3f')} non-zeros per column on average "
        f"over the {_number('words', view.words, ',d')} words with an embedding (the diagonal included), "
        f"{_number('off-diagonal', view.off_diagonal, ',d')} stored pairs of distinct words.</p>"
    )
    documents = (
        f"<p><b>Test document {s.query}</b> ({html.escape(view.query_class)}): "
        f"{html.escape(_snippet(view.query_text, 300))}</p>"
        f"<p><b>Training document {s.reference}</b> ({html.escape(view.reference_class)}): "
        f"{html.escape(_snippet(view.reference_text, 300))}</p>"
    )
    measures = (
        f"<p>SCM = {_number('scm', view.scm, '.4f')}, the sum of the word pairs' contributions; "
        f"WMD = {_number('wmd', view.wmd, '.4f')}, the sum of the flows' costs.</p>"
    )
    pairs = (
        '<div class="explorer-row">'
        f"<div><p>The SCM's largest word-pair contributions</p>"
        f"{_table(view.contributions.head(TOP), {'contribution to the SCM': '.4f'}, 'contributions')}</div>"
        f"<div><p>The WMD's most expensive flows</p>"
        f"{_table(view.flows.head(TOP), {'mass': '.3f', 'distance': '.3f', 'cost': '.4f'}, 'flows')}</div>"
        "</div>"
    )
    neighbours = (
        f"<p>The test document's nearest neighbours among the first {view.references:,} training documents"
        f"</p>"
        '<div class="explorer-row">'
        f"<div><p>under the SCM</p>{_table(view.scm_neighbours, {'SCM': '.4f'}, 'scm-neighbours')}</div>"
        f"<div><p>under the WMD</p>{_table(view.wmd_neighbours, {'WMD': '.4f'}, 'wmd-neighbours')}</div>"
        "</div>"
    )
    timing = f'<p class="explorer-time">Computed in {_number("seconds", view.seconds, ".2f")} s.</p>'
    return f'<div id="explorer-view">{STYLE}{matrix}{documents}{measures}{pairs}{neighbours}{timing}</div>'


def render_error(error: Exception) -> str:
    """The explorer's HTML view of an error (e.g. an :class:`ExplorerError`): its escaped message in a paragraph.

    Parameters
    ----------
    error : Exception

    Returns
    -------
    str

    Examples
    --------
    >>> render_error(ExplorerError("query 7 > 5"))
    '<div id="explorer-view"><p class="explorer-error" data-value="error">query 7 &gt; 5</p></div>'
    """
    return f'<div id="explorer-view"><p class="explorer-error" data-value="error">{html.escape(str(error))}</p></div>'


STYLE = (
    "<style>.explorer-row{display:flex;gap:1.5em;flex-wrap:wrap}.explorer-table{border-collapse:collapse;"
    "font-size:90%}.explorer-table td,.explorer-table th{padding:2px 6px;border-bottom:1px solid #ddd;"
    "text-align:left}.explorer-error{color:#a00;font-weight:bold}</style>"
)


# -- the app ---------------------------------------------------------------------------------------------------------


def app(profile: str = "smoke", explorer: Explorer | None = None):
    """The ipywidgets app: controls on top, the view below, recomputed on every change.

    Parameters
    ----------
    profile : {"smoke", "paper"}
        The profile shown first.
    explorer : Explorer, optional
        The explorer to use; by default one on the default cache.

    Returns
    -------
    ipywidgets.VBox
        The controls and the view (the view shows an error message when the profile was never built).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     ui = app("smoke", Explorer(ArtifactCache(folder)))
    >>> type(ui).__name__, "never built" in ui.children[-1].value
    ('VBox', True)
    """
    import ipywidgets as w

    explorer = explorer or Explorer()
    defaults = ExplorerSettings(profile=profile)
    controls = {
        "profile": w.Dropdown(options=list(PROFILES), value=profile, description="profile"),
        "dataset": w.Dropdown(options=list(DATASETS), value=defaults.dataset, description="data set"),
        "query": w.IntText(value=0, description="test doc."),
        "reference": w.IntText(value=0, description="training doc."),
        "model": w.Dropdown(options=list(MEASURES), value=defaults.model, description="embeddings"),
        "nonzero_limit": w.Dropdown(options=list(LIMITS), value=defaults.nonzero_limit, description="C"),
        "threshold": w.Dropdown(options=list(THRESHOLDS), value=defaults.threshold, description="threshold t"),
        "exponent": w.Dropdown(options=list(EXPONENTS), value=defaults.exponent, description="exponent o"),
        "symmetric": w.Checkbox(value=True, description="Sym"),
        "dominant": w.Checkbox(value=True, description="Dom"),
        "idf": w.Checkbox(value=True, description="Idf"),
    }
    for name, control in controls.items():
        control.add_class(f"explorer-{name.replace('_', '-')}")
        control.style.description_width = "initial"

    def allowed_limits(*_):  # C up to chapter 3's neighbour depth for the chosen profile
        try:
            depth = explorer.depth(controls["profile"].value)
        except ExplorerError:
            return
        limits = [c for c in LIMITS if c <= depth] or [depth]
        if list(controls["nonzero_limit"].options) != limits:
            value = controls["nonzero_limit"].value
            controls["nonzero_limit"].options = limits
            controls["nonzero_limit"].value = value if value in limits else limits[-1]

    allowed_limits()
    controls["profile"].observe(allowed_limits, names="value")
    output = w.HTML()
    status = w.HTML()

    def update(*_):
        settings = ExplorerSettings(**{name: control.value for name, control in controls.items()})
        status.value = '<span data-value="state">computing</span>'
        try:
            output.value = render(explorer.view(settings))
        except ExplorerError as error:
            output.value = render_error(error)
        status.value = '<span data-value="state">ready</span>'

    for control in controls.values():
        control.observe(update, names="value")
    update()
    rows = [
        w.HBox([controls["profile"], controls["dataset"], controls["model"]]),
        w.HBox([controls["query"], controls["reference"]]),
        w.HBox([controls["nonzero_limit"], controls["threshold"], controls["exponent"]]),
        w.HBox([controls["symmetric"], controls["dominant"], controls["idf"], status]),
    ]
    return w.VBox([*rows, output])
