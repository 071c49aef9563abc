"""Chapter 3's figures, built here so that the chapter's cells narrate: the sparsity of S' over the grid and the
paper's Figure 1 (t-SNE maps of E and E', and S beside S' for the most frequent words)."""
from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import plotly.express as px
from sklearn.manifold import TSNE

from .document_maps import FIGURE_DPI, FIGURE_WIDTH_IN, MIN_FONT_PT
from .plotting import place_labels

__all__ = ["SPARSITY_PANELS", "sparsity_figure", "figure_1_tsne", "figure_1_matrices"]

SPARSITY_PANELS = {(True, True): "Sym, Dom", (True, False): "Sym only", (False, True): "Dom only",
                   (False, False): "neither"}


def sparsity_figure(sparsity: pd.DataFrame, models: Sequence[str]):
    """Non-zeros per column of S' against C, one panel per (Sym, Dom) and model, a line per o and ordering.

    Parameters
    ----------
    sparsity : pandas.DataFrame
        :func:`regemb_utils.termsim.orthogonalization.sparsity_table` rows of every model, with a ``model`` column.
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
        ordering=sparsity.idf.map({True: "Idf", False: "no Idf"}), o=sparsity.exponent.map("{:g}".format))
    figure = px.line(
        sparsity, x="nonzero_limit", y="nonzeros_per_column", color="o", line_dash="ordering", facet_col="panel",
        facet_row="model", markers=True, log_x=True, log_y=True, height=560,
        category_orders={"panel": list(SPARSITY_PANELS.values()), "model": list(models)},
        labels={"nonzero_limit": "C", "nonzeros_per_column": "non-zeros per column", "ordering": "", "o": "o"},
    )
    limits = sorted(sparsity.nonzero_limit.unique())
    figure.for_each_annotation(lambda a: a.update(text=a.text.split("=", 1)[-1], font_size=13))
    figure.update_xaxes(tickvals=limits, ticktext=[f"{c:,}" for c in limits], tickangle=0, minor_showgrid=False)
    low, high = sparsity.nonzeros_per_column.min(), sparsity.nonzeros_per_column.max()
    ticks = [m * 10**e for e in range(-1, 5) for m in (1, 2, 5) if low / 1.5 <= m * 10**e <= high * 1.5]
    figure.update_yaxes(tickvals=ticks, ticktext=[f"{t:,g}" for t in ticks], minor_showgrid=False)
    figure.update_traces(hovertemplate="C=%{x}<br>non-zeros per column=%{y:.2f}")
    figure.update_layout(font_size=13, margin=dict(l=10, r=40, t=40, b=10),
                         legend=dict(orientation="h", x=0, xanchor="left", y=-0.14, yanchor="top", title_text="o:"))
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
        xy = TSNE(n_components=2, metric="cosine", perplexity=min(10, len(words) - 1), init="random",
                  random_state=0).fit_transform(X)
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
    >>> float(figure_1_matrices(["a", "b"], S, np.eye(2)).axes[0].images[0].get_array()[1, 0])
    0.5
    """
    both = np.where(np.tril(np.ones_like(S_dense, dtype=bool), -1), S_dense, S_prime)
    side = FIGURE_WIDTH_IN - 1.0  # inches for the matrix; the rest for the row labels
    every = max(1, int(np.ceil(len(words) * (MIN_FONT_PT + 0.5) / 72 / side)))  # label as many words as fit at 9 pt
    images, ax = plt.subplots(figsize=(FIGURE_WIDTH_IN, side + 1.7), dpi=FIGURE_DPI, layout="constrained")
    image = ax.imshow(both, cmap="viridis", vmin=-0.2, vmax=1)
    ax.plot([-0.5, len(words) - 0.5], [-0.5, len(words) - 0.5], color="white", linewidth=1)
    shown = range(0, len(words), every)
    ax.set_xticks(shown, [words[i] for i in shown], rotation=90, fontsize=MIN_FONT_PT)
    ax.set_yticks(shown, [words[i] for i in shown], fontsize=MIN_FONT_PT)
    ax.set_title("below the diagonal: S (all cosines); above it: S′ (orthogonalized)", fontsize=MIN_FONT_PT + 1)
    bar = images.colorbar(image, ax=ax, orientation="horizontal", shrink=0.6, aspect=40, pad=0.02)
    bar.set_label("similarity", fontsize=MIN_FONT_PT)
    bar.ax.tick_params(labelsize=MIN_FONT_PT)
    plt.close(images)
    return images
