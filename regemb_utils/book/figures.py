"""The chapters' figures, built here so that the chapters' cells narrate.

* Chapter 3: the sparsity of S' over the grid (:func:`sparsity_figure`) and the paper's Figure 1 (t-SNE maps of E
  and E', :func:`figure_1_tsne`, and S beside S' for the most frequent words, :func:`figure_1_matrices`).
* Chapter 4: the test errors beside the paper's (its Figure 8, :func:`figure_8`), the average relative to BoW
  (Figure 10, :func:`relative_figure`), the speeds (Figure 9, :func:`speed_figure`), the significance of every
  pairwise difference (:func:`significance_figure`) and the paired WMD-versus-SCM differences
  (:func:`paired_figure`), and the speed ratio measured with the paper's measure (:func:`speed_ratio_figure`).
* Chapter 6: the paper's test errors against ours (:func:`paper_vs_ours_figure`).
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import plotly.express as px
import seaborn as sns
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from sklearn.manifold import TSNE

from ..paper import PAPER_DOCUMENTS
from .style import FIGURE_DPI, FIGURE_WIDTH_IN, MIN_FONT_PT, absent_figure
from .plotting import place_labels

__all__ = [
    "sparsity_figure",
    "figure_1_tsne",
    "figure_1_matrices",
    "figure_8",
    "significance_figure",
    "paired_figure",
    "relative_figure",
    "speed_figure",
    "paper_vs_ours_figure",
    "speed_ratio_figure",
]

_SPARSITY_HEIGHT, _SPARSITY_BOTTOM = 900, 140  # the bottom margin: the x titles and the legend
SPARSITY_PANELS = {
    (True, True): "Sym, Dom",
    (True, False): "Sym only",
    (False, True): "Dom only",
    (False, False): "neither",
}


def sparsity_figure(sparsity: pd.DataFrame, models: Sequence[str]):
    """Non-zeros per column of S' against C, one panel per (Sym, Dom) and model, a line per o and ordering: a row of
    panels per (Sym, Dom), titled on the right, and a column per model (four columns of panels left a phone's screen
    too narrow for their titles and their values of C).

    Parameters
    ----------
    sparsity : pandas.DataFrame
        :func:`regemb_utils.chapters.orthogonalization.sparsity_table` rows of every model, with a ``model`` column.
    models : sequence of str
        The models in row order.

    Returns
    -------
    plotly.graph_objects.Figure
        The faceted line plot.

    Examples
    --------
    >>> rows = pd.DataFrame({"model": "32-bit", "symmetric": True, "dominant": True, "idf": True, "exponent": 1.0,
    ...                      "nonzero_limit": [10, 40], "nonzeros_per_column": [3.0, 9.5]})
    >>> len(sparsity_figure(rows, ["32-bit"]).data)
    1
    """
    sparsity = sparsity.assign(
        panel=[SPARSITY_PANELS[s, d] for s, d in zip(sparsity.symmetric, sparsity.dominant)],
        ordering=sparsity.idf.map({True: "Idf", False: "no Idf"}),
        o=sparsity.exponent.map("{:g}".format),
    )
    figure = px.line(
        sparsity,
        x="nonzero_limit",
        y="nonzeros_per_column",
        color="o",
        line_dash="ordering",
        facet_row="panel",
        facet_col="model",
        facet_row_spacing=0.04,
        facet_col_spacing=0.05,
        markers=True,
        log_x=True,
        log_y=True,
        height=_SPARSITY_HEIGHT,
        category_orders={"panel": list(SPARSITY_PANELS.values()), "model": list(models)},
        labels={
            "nonzero_limit": "C",
            "nonzeros_per_column": "off-diagonal non-zeros per column",
            "ordering": "",
            "o": "o",
        },
    )
    limits = sorted(sparsity.nonzero_limit.unique())
    figure.for_each_annotation(lambda a: a.update(text=a.text.split("=", 1)[-1], font_size=13))
    figure.update_xaxes(tickvals=limits, ticktext=[f"{c:,}" for c in limits], tickangle=0, minor_showgrid=False)
    low, high = sparsity.nonzeros_per_column.min(), sparsity.nonzeros_per_column.max()
    # as many ticks as a row's height holds apart: 1, 2, 5 per decade over a short range, fewer over a longer
    decades = np.log10(high / low) if low > 0 else 4.0
    steps = (1, 2, 5) if decades <= 1.5 else (1, 3) if decades <= 2.5 else (1,)
    ticks = [m * 10**e for e in range(-1, 6) for m in steps if low / 1.5 <= m * 10**e <= high * 1.5]
    figure.update_yaxes(tickvals=ticks, ticktext=[f"{t:,g}" for t in ticks], minor_showgrid=False)
    figure.update_traces(hovertemplate="C=%{x}<br>off-diagonal non-zeros per column=%{y:.2f}")
    # one y title for all rows (a title per row is longer than a row and overlaps the others)
    figure.update_yaxes(title_text="")
    figure.add_annotation(
        text="off-diagonal non-zeros per column",
        textangle=-90,
        x=0,
        xref="paper",
        xanchor="right",
        xshift=-48,
        y=0.5,
        yref="paper",
        showarrow=False,
        font_size=13,
    )
    figure.update_layout(
        font_size=13,
        margin=dict(l=80, r=30, t=40, b=_SPARSITY_BOTTOM),
        # below the x titles, in the bottom margin: two rows of four lines on a phone
        legend=dict(orientation="h", x=0, xanchor="left", y=0, yref="container", yanchor="bottom", title_text="o:"),
    )
    return figure


def figure_1_tsne(words: Sequence[str], E: np.ndarray, E_prime: np.ndarray):
    """The t-SNE maps of ``E`` and ``E'`` side by side, every word labelled at 9 pt without overlaps.

    Parameters
    ----------
    words : sequence of str
        The words, one per row of ``E`` and ``E_prime``.
    E, E_prime : numpy.ndarray
        Their embeddings and orthogonalized embeddings (dense rows).

    Returns
    -------
    matplotlib.figure.Figure
        The figure (closed: it is shown where it is glued).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> figure = figure_1_tsne([f"w{i}" for i in range(6)], rng.normal(size=(6, 4)), rng.normal(size=(6, 4)))
    >>> [ax.get_title() for ax in figure.axes]
    ['t-SNE of E', 't-SNE of E′ (orthogonalized)']
    """
    tsne, axes = plt.subplots(1, 2, figsize=(FIGURE_WIDTH_IN, 4.2), dpi=FIGURE_DPI, layout="constrained")
    points = []
    for ax, X, title in ((axes[0], E, "t-SNE of E"), (axes[1], E_prime, "t-SNE of E′ (orthogonalized)")):
        xy = TSNE(
            n_components=2, metric="cosine", perplexity=min(10, len(words) - 1), init="random", random_state=0
        ).fit_transform(X)
        ax.scatter(xy[:, 0], xy[:, 1], s=6, color="C0", zorder=2)
        ax.set_title(title, fontsize=MIN_FONT_PT + 1)
        ax.set(xticks=[], yticks=[])
        ax.margins(0.25)
        points.append(xy)
    for ax, xy in zip(axes, points):
        place_labels(ax, xy, words, fontsize=MIN_FONT_PT)
    plt.close(tsne)
    return tsne


def figure_1_matrices(words: Sequence[str], S_dense: np.ndarray, S_prime: np.ndarray):
    """S below the diagonal and S' above it, one matrix, so that every word can be labelled at a readable size.

    Parameters
    ----------
    words : sequence of str
        The rows and columns.
    S_dense, S_prime : numpy.ndarray
        All cosines of the words, and the orthogonalized S' on them.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (closed: it is shown where it is glued).

    Examples
    --------
    >>> S = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> shown = figure_1_matrices(["a", "b"], S, np.eye(2)).axes[0].images[0].get_array()
    >>> float(shown[1, 0]), bool(np.ma.is_masked(shown[0, 1]) or np.isnan(shown[0, 1]))  # S below; S' unstored: blank
    (0.5, True)
    """
    # above the diagonal the pairs that S' does not store are blank (white), not the colour of a cosine near 0
    both = np.where(np.tril(np.ones_like(S_dense, dtype=bool), -1), S_dense, np.where(S_prime != 0, S_prime, np.nan))
    side = FIGURE_WIDTH_IN - 1.0  # inches for the matrix; the rest for the row labels
    every = max(1, int(np.ceil(len(words) * (MIN_FONT_PT + 0.5) / 72 / side)))  # label as many words as fit at 9 pt
    images, ax = plt.subplots(figsize=(FIGURE_WIDTH_IN, side + 1.7), dpi=FIGURE_DPI, layout="constrained")
    colours = plt.get_cmap("viridis").copy()
    colours.set_bad("white")
    image = ax.imshow(both, cmap=colours, vmin=-0.2, vmax=1)
    ax.plot([-0.5, len(words) - 0.5], [-0.5, len(words) - 0.5], color="white", linewidth=1)
    shown = range(0, len(words), every)
    ax.set_xticks(shown, [words[i] for i in shown], rotation=90, fontsize=MIN_FONT_PT)
    ax.set_yticks(shown, [words[i] for i in shown], fontsize=MIN_FONT_PT)
    ax.set_title("below the diagonal: S (all cosines); above it: S′ (white: not stored)", fontsize=MIN_FONT_PT + 1)
    bar = images.colorbar(
        image,
        ax=ax,
        orientation="horizontal",
        shrink=0.6,
        aspect=40,
        pad=0.02,
        extend="min" if np.nanmin(both) < -0.2 else "neither",
    )  # cosines below -0.2 share its colour
    bar.set_label("similarity", fontsize=MIN_FONT_PT)
    bar.ax.tick_params(labelsize=MIN_FONT_PT)
    plt.close(images)
    return images


def _method_colour(label: str) -> str:
    return "tab:orange" if "ortho" in label else "tab:blue" if "WMD" in label else "tab:gray"


def figure_8(errors: pd.DataFrame, labels: Sequence[str]):
    """Every method's test error with its 95 % interval beside the paper's, one panel per data set (the paper's
    Figure 8; two columns, the methods named once per row of panels): bars coloured by kind (orange: orthogonalized
    SCM, blue: WMD, grey: the rest; the legend shows the same colours), the paper's value as a black diamond, and the
    number of test queries beside a WMD bar that answered fewer than the whole test split (a sample). Each panel has
    its own range of errors. Drawn at the column's width, every text at least 9 pt.

    Parameters
    ----------
    errors : pandas.DataFrame
        :func:`regemb_utils.chapters.scm_vs_wmd.error_table`.
    labels : sequence of str
        The methods' labels in the order of the bars.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (closed: it is shown where it is glued).

    Examples
    --------
    >>> errors = pd.DataFrame({"dataset": "bbcsport", "label": ["BoW", "WMD"], "error": [5.0, 4.0],
    ...                        "lower": [3.0, 2.5], "upper": [7.0, 6.0], "paper": [4.6, 4.3],
    ...                        "test documents": [220, 100]})
    >>> figure = figure_8(errors, ["BoW", "WMD"])
    >>> [t.get_text() for t in figure.axes[0].get_yticklabels()], [t.get_text() for t in figure.axes[0].texts]
    (['BoW', 'WMD'], ['n = 100'])
    >>> errors.loc[1, "test documents"] = 220  # every test query: nothing to say
    >>> [t.get_text() for t in figure_8(errors, ["BoW", "WMD"]).axes[0].texts]
    []
    """
    names = list(dict.fromkeys(errors["dataset"]))
    columns = min(2, len(names))
    rows_n = -(-len(names) // columns)
    fig, axes = plt.subplots(
        rows_n,
        columns,
        figsize=(FIGURE_WIDTH_IN, rows_n * (0.24 * len(labels) + 0.55) + 0.9),
        dpi=FIGURE_DPI,
        squeeze=False,
        sharey=True,
        layout="constrained",
    )
    y = np.arange(len(labels))
    for ax, name in zip(axes.flat, names):
        rows = errors[errors["dataset"] == name].set_index("label").reindex(labels)
        ax.barh(
            y,
            rows["error"],
            xerr=[rows["error"] - rows["lower"], rows["upper"] - rows["error"]],
            color=[_method_colour(label) for label in labels],
            alpha=0.8,
            capsize=2,
        )
        ax.plot(rows["paper"], y, "kD", markersize=4)
        whole = rows["test documents"].max()
        # each panel its own range, so that the small errors of an easy data set can be read
        right = min(100.0, 1.3 * float(np.nanmax([rows["upper"].max(), rows["paper"].max()])) + 2)
        for position, label, n, upper in zip(y, labels, rows["test documents"], rows["upper"]):
            if "WMD" in label and np.isfinite(n) and n < whole:  # a WMD method may answer a prefix of the queries
                ax.text(
                    min(upper + 0.02 * right, 0.7 * right), position, f"n = {n:,.0f}", va="center", fontsize=MIN_FONT_PT
                )
        ax.set_title(name.upper(), fontsize=MIN_FONT_PT + 1)
        ax.set_xlim(0, right)
        ax.tick_params(labelsize=MIN_FONT_PT)
    axes[0, 0].set_yticks(y, labels)
    axes[0, 0].invert_yaxis()
    for ax in axes[-1]:
        ax.set_xlabel("test error (%)", fontsize=MIN_FONT_PT + 1)
    for ax in list(axes.flat)[len(names) :]:
        ax.set_axis_off()
    handles = [
        Patch(color=_method_colour(kind), alpha=0.8, label=text)
        for kind, text in (("ortho", "ours: orthogonalized SCM"), ("WMD", "ours: WMD"), ("", "ours: the other methods"))
    ]
    handles.append(Line2D([], [], marker="D", color="k", linestyle="", markersize=4, label="the paper"))
    fig.legend(handles=handles, loc="outside lower center", ncol=2, fontsize=MIN_FONT_PT, frameon=False)
    plt.close(fig)
    return fig


def relative_figure(relative: pd.DataFrame):
    """Each method's mean test error relative to BoW's, ours beside the paper's (its Figure 10).

    Parameters
    ----------
    relative : pandas.DataFrame
        :func:`regemb_utils.chapters.scm_vs_wmd.relative_error_table`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (closed: it is shown where it is glued).

    Examples
    --------
    >>> relative = pd.DataFrame({"label": ["BoW", "WMD"], "relative error": [100.0, 73.5], "paper": [100.0, 70.18]})
    >>> [t.get_text() for t in relative_figure(relative).legends[0].get_texts()]
    ['ours', 'paper']
    """
    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH_IN, 0.4 * len(relative) + 1.6), dpi=FIGURE_DPI, layout="constrained")
    y = np.arange(len(relative))
    ax.barh(y - 0.2, relative["relative error"], height=0.4, label="ours")
    ax.barh(y + 0.2, relative["paper"], height=0.4, label="paper", color="tab:gray")
    ax.set(yticks=y, yticklabels=relative["label"], xlabel="mean test error relative to BoW (%)")
    ax.invert_yaxis()
    fig.legend(fontsize=MIN_FONT_PT, loc="outside lower center", ncol=2, frameon=False)
    plt.close(fig)
    return fig


def speed_figure(speeds: pd.DataFrame):
    """Document pairs per second per core (log scale): ours by exact evaluations and by the kNN search rate, and the
    paper's (its Figure 9).

    Parameters
    ----------
    speeds : pandas.DataFrame
        :func:`regemb_utils.chapters.scm_vs_wmd.speed_table`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (closed: it is shown where it is glued).

    Examples
    --------
    >>> speeds = pd.DataFrame({"label": ["BoW"], "exact evaluations per second per core": [1e7],
    ...                        "pairs per second per core": [1e7], "paper": [3.4e6]})
    >>> len(speed_figure(speeds).legends[0].get_texts())
    3
    """
    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH_IN, 0.5 * len(speeds) + 1.6), dpi=FIGURE_DPI, layout="constrained")
    y = np.arange(len(speeds))
    ax.barh(
        y - 0.27,
        speeds["exact evaluations per second per core"],
        height=0.27,
        label="ours: exact evaluations (as the paper's code counted)",
    )
    ax.barh(y, speeds["pairs per second per core"], height=0.27, label="ours: kNN search rate", color="tab:green")
    ax.barh(y + 0.27, speeds["paper"], height=0.27, label="paper (one Xeon X7560 core)", color="tab:gray")
    ax.set(xscale="log", yticks=y, yticklabels=speeds["label"], xlabel="document pairs per second per core")
    ax.invert_yaxis()
    fig.legend(fontsize=MIN_FONT_PT, loc="outside lower center", ncol=2, frameon=False)
    plt.close(fig)
    return fig


def paper_vs_ours_figure(rows: pd.DataFrame):
    """Each method's test error on each data set, the paper's (horizontal) against ours with its interval
    (vertical): colour tells the method, the marker the data set (hollow where its documents are not the paper's,
    :data:`regemb_utils.paper.PAPER_DOCUMENTS`), with a legend for each (chapter 6).

    Parameters
    ----------
    rows : pandas.DataFrame
        The scorecard's Figure 8 rows (:func:`regemb_utils.chapters.scorecard.scorecard`).

    Returns
    -------
    matplotlib.figure.Figure
        The figure (closed: it is shown where it is glued).

    Examples
    --------
    >>> rows = pd.DataFrame({"dataset": ["bbcsport", "twitter"], "method": "BoW", "paper": [23.0, 32.0],
    ...                      "ours": [24.1, 31.0], "lower": [18.9, 28.0], "upper": [30.2, 34.1]})
    >>> [t.get_text() for t in paper_vs_ours_figure(rows).axes[0].get_legend().get_texts()]
    ['BBCSPORT', 'TWITTER']
    """
    markers = dict(zip(dict.fromkeys(rows["dataset"]), "osD^vP*X"))
    colours = {method: f"C{i}" for i, method in enumerate(dict.fromkeys(rows["method"]))}
    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH_IN, 6.2), dpi=FIGURE_DPI, layout="constrained")
    for r in rows.itertuples(index=False):
        ax.errorbar(
            r.paper,
            r.ours,
            yerr=[[r.ours - r.lower], [r.upper - r.ours]],
            fmt=markers[r.dataset],
            color=colours[r.method],
            markerfacecolor=colours[r.method] if r.dataset in PAPER_DOCUMENTS else "white",
            markersize=6,
            capsize=2,
            alpha=0.85,
        )
    top = 5 + max(rows["paper"].max(), rows["upper"].max()) if len(rows) else 100
    ax.plot([0, top], [0, top], color="0.5", lw=0.8, ls="--")
    ax.set_xlim(0, top)
    ax.set_ylim(0, top)
    ax.set_xlabel("the paper's test error (%)", fontsize=MIN_FONT_PT + 1)
    ax.set_ylabel("our test error (%), 95 % interval", fontsize=MIN_FONT_PT + 1)
    ax.tick_params(labelsize=MIN_FONT_PT)
    methods = [Line2D([], [], marker="o", linestyle="", color=c, label=m) for m, c in colours.items()]
    datasets = [
        Line2D(
            [],
            [],
            marker=m,
            linestyle="",
            color="0.3",
            markerfacecolor="0.3" if d in PAPER_DOCUMENTS else "white",
            label=d.upper(),
        )
        for d, m in markers.items()
    ]
    ax.add_artist(
        ax.legend(handles=methods, title="method", fontsize=MIN_FONT_PT, title_fontsize=MIN_FONT_PT, loc="upper left")
    )
    ax.legend(
        handles=datasets,
        title="data set (hollow: not the\npaper's documents)",
        fontsize=MIN_FONT_PT,
        title_fontsize=MIN_FONT_PT,
        loc="lower right",
    )
    plt.close(fig)
    return fig


def significance_figure(chosen: pd.DataFrame, test: str):
    """−log₁₀ q of every pairwise comparison on every data set, signed (+: the first method errs less), "n.s." where the
    difference is not significant.

    Parameters
    ----------
    chosen : pandas.DataFrame
        :func:`regemb_utils.chapters.scm_vs_wmd.significance_table` of the chapter's test (without a row: a placeholder
        that says there is no pair of methods to test).
    test : {"mcnemar", "paper_t_test"}
        The test (its significance level: 0.05, or the paper's 0.025 per side).

    Returns
    -------
    matplotlib.figure.Figure
        The heat map (closed: it is shown where it is glued).

    Examples
    --------
    >>> chosen = pd.DataFrame({"dataset": "bbcsport", "a": ["BoW"], "b": ["WMD"], "error a": [5.0],
    ...                        "error b": [4.0], "q": [0.5]})
    >>> significance_figure(chosen, "mcnemar").axes[0].texts[0].get_text()
    'n.s.'
    """
    if not len(chosen):
        figure = absent_figure("", "this run has no pair of methods to test")
        plt.close(figure)
        return figure
    signed = -np.log10(chosen["q"].clip(lower=1e-12)) * np.sign(chosen["error b"] - chosen["error a"])
    grid = (
        chosen.assign(pair=chosen["a"] + " vs " + chosen["b"], signed=signed)
        .pivot(index="pair", columns="dataset", values="signed")
        .reindex(
            index=list(dict.fromkeys(chosen["a"] + " vs " + chosen["b"])),
            columns=list(dict.fromkeys(chosen["dataset"])),
        )
    )
    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH_IN, 0.24 * len(grid) + 1.6), dpi=FIGURE_DPI, layout="constrained")
    sns.heatmap(
        grid,
        cmap="RdBu",
        center=0,
        vmin=-12,
        vmax=12,
        ax=ax,
        linewidths=0.5,
        linecolor="white",
        cbar_kws={"label": "−log₁₀ q, signed  (+: the first method errs less)", "shrink": 0.6},
    )
    dots = grid.abs() < -np.log10(0.05 if test == "mcnemar" else 0.025)
    for (row, column), small in np.ndenumerate(dots.to_numpy()):
        if small and np.isfinite(grid.iat[row, column]):
            ax.text(column + 0.5, row + 0.5, "n.s.", ha="center", va="center", fontsize=9)
    ax.set(xlabel="", ylabel="")
    ax.set_xticklabels([t.get_text().upper() for t in ax.get_xticklabels()], fontsize=9, rotation=30, ha="right")
    ax.set_yticklabels(ax.get_yticklabels(), fontsize=9)
    plt.close(fig)
    return fig


def paired_figure(paired: pd.DataFrame):
    """The WMD's test error minus the regularized SCM's on the same queries, with its interval, per data set and WMD
    method, coloured by the verdict.

    Parameters
    ----------
    paired : pandas.DataFrame
        :func:`regemb_utils.chapters.scm_vs_wmd.paired_wmd_table` (without a row: a placeholder that says there is no
        WMD to compare with the regularized SCM).

    Returns
    -------
    matplotlib.figure.Figure
        The figure (closed: it is shown where it is glued).

    Examples
    --------
    >>> paired = pd.DataFrame({"dataset": ["bbcsport"], "label": ["WMD"], "queries": [220], "difference": [1.0],
    ...                        "difference lower": [-1.0], "difference upper": [3.0], "verdict": ["not decided"]})
    >>> [t.get_text() for t in paired_figure(paired).axes[0].get_yticklabels()]
    ['BBCSPORT: WMD (n = 220)']
    """
    if not len(paired):
        figure = absent_figure("", "this run has no WMD to compare with the regularized SCM")
        plt.close(figure)
        return figure
    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH_IN, 0.32 * len(paired) + 1.6), dpi=FIGURE_DPI, layout="constrained")
    colours = {"SCM better": "tab:orange", "WMD better": "tab:blue", "not decided": "tab:gray"}
    y = np.arange(len(paired))
    ax.errorbar(
        paired["difference"],
        y,
        xerr=[paired["difference"] - paired["difference lower"], paired["difference upper"] - paired["difference"]],
        fmt="none",
        ecolor="0.4",
        capsize=2,
    )
    ax.scatter(paired["difference"], y, c=[colours[v] for v in paired["verdict"]], zorder=3)
    ax.axvline(0, color="k", lw=0.8)
    ax.set(
        yticks=y,
        yticklabels=[
            f"{d.upper()}: {l} (n = {n:,d})" for d, l, n in zip(paired["dataset"], paired["label"], paired["queries"])
        ],
        xlabel="WMD's test error − regularized SCM's (points)",
    )
    ax.invert_yaxis()
    for verdict, colour in colours.items():
        ax.scatter([], [], c=colour, label=verdict)
    fig.legend(fontsize=9, loc="outside lower center", ncol=3, frameon=False)
    plt.close(fig)
    return fig


def speed_ratio_figure(ratios: pd.DataFrame, claims: Sequence[tuple[float, str]] = ()):
    """The rate ratio of two methods with its interval, per data set and pooled (log scale), with vertical lines at
    the values that the paper states.

    Parameters
    ----------
    ratios : pandas.DataFrame
        :func:`regemb_utils.classification.speed.speed_ratios` (without a row: a placeholder that says there is no
        ratio).
    claims : sequence of (float, str)
        The paper's values and their labels.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (closed: it is shown where it is glued).

    Examples
    --------
    >>> ratios = pd.DataFrame({"dataset": ["bbcsport", "pooled"], "ratio": [2e4, 3e4], "lower": [1e4, 2e4],
    ...                        "upper": [3e4, 5e4], "slow timings": [25, 25]})
    >>> [t.get_text() for t in speed_ratio_figure(ratios, [(1e4, "abstract")]).axes[0].get_yticklabels()]
    ['BBCSPORT (n = 25)', 'pooled (n = 25)']
    """
    if not len(ratios):
        figure = absent_figure("", "this run has no speed ratio to show")
        plt.close(figure)
        return figure
    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH_IN, 0.32 * len(ratios) + 1.8), dpi=FIGURE_DPI, layout="constrained")
    y = np.arange(len(ratios))
    ax.errorbar(
        ratios["ratio"],
        y,
        xerr=[ratios["ratio"] - ratios["lower"], ratios["upper"] - ratios["ratio"]],
        fmt="o",
        color="tab:orange",
        ecolor="0.4",
        capsize=2,
        label="ours, with its 95 % interval",
    )
    for (value, label), style in zip(claims, ("--", ":", "-.")):
        ax.axvline(value, color="k", lw=0.9, ls=style, label=label)
    ax.set(
        xscale="log",
        yticks=y,
        xlabel="pairs per second: regularized SCM / WMD",
        yticklabels=[
            f"{d if d == 'pooled' else d.upper()} (n = {n:,d})"
            for d, n in zip(ratios["dataset"], ratios["slow timings"])
        ],
    )
    ax.invert_yaxis()
    fig.legend(fontsize=MIN_FONT_PT, loc="outside lower center", ncol=2, frameon=False)
    plt.close(fig)
    return fig
