"""The parameter study of chapter 4 as an interactive figure: the validation error of the orthogonalized SCMs over
the grid of C, threshold and exponent, per data set, with the point that model selection chose.

The figure is precomputed from chapter 4's validation tables (:attr:`regemb_utils.classification.knn_runs.MethodResult.validation`)
and needs no kernel: a dropdown picks the data set and method, one panel per exponent shows the error against C with
one line per threshold, and a star marks the selected point.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = ["validation_grid", "parameter_study_figure"]

STUDIED = ("nonzero_limit", "threshold", "exponent")  # the axes of the figure
ORTHOGONALIZED = ("soft_vsm_ortho", "soft_vsm_quantized_ortho")


def validation_grid(results: Mapping[tuple[str, str], object], methods: Sequence[str] = ORTHOGONALIZED):
    """``(grid, selected)``: the lowest validation error (%) at every (data set, method, C, t, o), over the other
    parameters (Sym, Dom, Idf, slope and k), and the selected point of each (data set, method) with its error.

    Parameters
    ----------
    results : mapping
        ``(data set, method)`` → :class:`regemb_utils.classification.knn_runs.MethodResult` (chapter 4's results).
    methods : sequence of str
        The methods shown.

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        The grid (columns C, t, o, error, dataset, method) and the selected points.

    Raises
    ------
    ValueError
        When a validation table lacks a column or the selected point, or no method has a grid.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> validation = pd.DataFrame({"nonzero_limit": [100, 100, 200, 200], "threshold": [-1.0, 0.0, -1.0, -1.0],
    ...                            "exponent": [1.0] * 4, "idf": [True, True, True, False], "error": [0.2, 0.3, 0.1, 0.15]})
    >>> result = SimpleNamespace(validation=validation,  # a MethodResult's validation table and chosen point
    ...                          params={"nonzero_limit": 200, "threshold": -1.0, "exponent": 1.0, "idf": True, "k": 3})
    >>> grid, selected = validation_grid({("bbcsport", "soft_vsm_ortho"): result})
    >>> grid[["nonzero_limit", "threshold", "error"]].values.tolist()  # the best over Idf at each (C, t, o)
    [[100.0, -1.0, 20.0], [100.0, 0.0, 30.0], [200.0, -1.0, 10.0]]
    >>> selected[["nonzero_limit", "error"]].values.tolist()
    [[200.0, 10.0]]
    """
    rows, chosen = [], []
    ordered = [(d, m) for d in dict.fromkeys(d for d, _ in results) for m in methods if (d, m) in results]
    for dataset, method in ordered:
        result = results[dataset, method]
        table = result.validation
        missing = [c for c in (*STUDIED, "error") if c not in table]
        if missing:
            raise ValueError(f"{dataset}/{method}: the validation table has no column {missing[0]!r}")
        best = table.groupby(list(STUDIED), as_index=False)["error"].min()
        rows.append(best.assign(dataset=dataset, method=method, error=100 * best["error"]))
        point = result.params
        match = np.ones(len(table), dtype=bool)
        for key, value in point.items():
            if key in table:
                match &= table[key].to_numpy() == value
        if not match.any():
            raise ValueError(f"{dataset}/{method}: the selected point {point} is not in the validation table")
        chosen.append(
            {
                "dataset": dataset,
                "method": method,
                **{k: point[k] for k in STUDIED},
                "error": 100 * float(table.loc[match, "error"].iloc[0]),
            }
        )
    if not rows:
        raise ValueError(f"no validation grid of {list(methods)} among the results")
    return pd.concat(rows, ignore_index=True), pd.DataFrame(chosen)


def parameter_study_figure(
    grid: pd.DataFrame, selected: pd.DataFrame, labels: Mapping[str, str] | None = None, height: int = 470
):
    """Plotly figure: a dropdown of (data set, method); one panel per exponent o with the validation error (%)
    against C (log axis), a line per threshold t, and the selected point as a star in its panel. The first view
    shown is the first that is not a complete tie.

    Parameters
    ----------
    grid, selected : pandas.DataFrame
        :func:`validation_grid`.
    labels : mapping, optional
        Method → its label on the menu.
    height : int
        The figure's height in pixels.

    Returns
    -------
    plotly.graph_objects.Figure
        One line per threshold in each exponent's panel, a star for the selected point, and a dropdown.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> validation = pd.DataFrame({"nonzero_limit": [100, 100, 200, 200], "threshold": [-1.0, 0.0, -1.0, -1.0],
    ...                            "exponent": [1.0] * 4, "idf": [True, True, True, False], "error": [0.2, 0.3, 0.1, 0.15]})
    >>> result = SimpleNamespace(validation=validation,  # a MethodResult's validation table and chosen point
    ...                          params={"nonzero_limit": 200, "threshold": -1.0, "exponent": 1.0, "idf": True, "k": 3})
    >>> grid, selected = validation_grid({("bbcsport", "soft_vsm_ortho"): result})
    >>> figure = parameter_study_figure(grid, selected, {"soft_vsm_ortho": "Soft VSM (ortho.)"})
    >>> [trace.name for trace in figure.data], [button.label for button in figure.layout.updatemenus[0].buttons]
    (['t = -1', 't = 0', 'selected'], ['BBCSPORT, Soft VSM (ortho.)'])
    >>> tie = SimpleNamespace(validation=validation.assign(error=0.2), params=result.params)  # every cell alike
    >>> grid, selected = validation_grid({("bbcsport", "soft_vsm_ortho"): tie, ("twitter", "soft_vsm_ortho"): result})
    >>> parameter_study_figure(grid, selected).layout.updatemenus[0].active  # TWITTER's view first, not the tie
    1
    """
    import plotly.graph_objects as go
    from plotly.colors import qualitative
    from plotly.subplots import make_subplots

    labels = labels or {}
    exponents = sorted(grid["exponent"].unique())
    thresholds = sorted(grid["threshold"].unique())
    colours = {t: qualitative.Safe[i % len(qualitative.Safe)] for i, t in enumerate(thresholds)}
    dashes = {t: ("solid", "dash", "dot", "dashdot")[i % 4] for i, t in enumerate(thresholds)}  # overlaps stay visible
    figure = make_subplots(
        rows=1,
        cols=len(exponents),
        shared_yaxes=True,
        horizontal_spacing=0.02,
        subplot_titles=[f"o = {o:g}" for o in exponents],
    )
    views = list(dict.fromkeys(zip(grid["dataset"], grid["method"])))
    # shown first: the first view whose grid is not a complete tie (where every line lies on the others)
    ties = [grid[(grid["dataset"] == d) & (grid["method"] == m)]["error"].nunique() <= 1 for d, m in views]
    first = ties.index(False) if False in ties else 0
    owner = []  # the view of every trace
    for v, (dataset, method) in enumerate(views):
        part = grid[(grid["dataset"] == dataset) & (grid["method"] == method)]
        for column, o in enumerate(exponents, start=1):
            for t in thresholds:
                line = part[(part["exponent"] == o) & (part["threshold"] == t)].sort_values("nonzero_limit")
                if line.empty:
                    continue
                figure.add_trace(
                    go.Scatter(
                        x=line["nonzero_limit"],
                        y=line["error"],
                        mode="lines+markers",
                        name=f"t = {t:g}",
                        legendgroup=f"t{t:g}",
                        showlegend=column == 1,
                        visible=v == first,
                        line=dict(color=colours[t], dash=dashes[t]),
                        marker=dict(size=6),
                        hovertemplate=f"C = %{{x}}<br>t = {t:g}, o = {o:g}<br>validation error %{{y:.2f}} %<extra></extra>",
                    ),
                    row=1,
                    col=column,
                )
                owner.append(v)
        point = selected[(selected["dataset"] == dataset) & (selected["method"] == method)]
        for row in point.to_dict("records"):
            figure.add_trace(
                go.Scatter(
                    x=[row["nonzero_limit"]],
                    y=[row["error"]],
                    mode="markers",
                    name="selected",
                    legendgroup="selected",
                    showlegend=True,
                    visible=v == first,
                    marker=dict(symbol="star", size=16, color="black", line=dict(color="white", width=1)),
                    hovertemplate=(
                        f"selected: C = {row['nonzero_limit']}, t = {row['threshold']:g}, "
                        f"o = {row['exponent']:g}<br>validation error %{{y:.2f}} %<extra></extra>"
                    ),
                ),
                row=1,
                col=exponents.index(row["exponent"]) + 1,
            )
            owner.append(v)
    owner = np.array(owner)
    buttons = [
        dict(
            label=f"{dataset.upper()}, {labels.get(method, method)}",
            method="update",
            args=[{"visible": (owner == v).tolist()}],
        )
        for v, (dataset, method) in enumerate(views)
    ]
    figure.update_xaxes(type="log", title_text="C", tickvals=sorted(grid["nonzero_limit"].unique()))
    figure.update_yaxes(title_text="validation error (%)", col=1)
    figure.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=80, b=10),
        font_size=13,
        updatemenus=[
            dict(
                buttons=buttons,
                active=first,
                direction="down",
                x=0,
                xanchor="left",
                y=1.22,
                yanchor="top",
                showactive=True,
            )
        ],
        legend=dict(orientation="h", x=0, xanchor="left", y=-0.22, yanchor="top"),
    )
    return figure
