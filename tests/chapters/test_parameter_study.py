"""Chapter 4's parameter study: the validation grid per (data set, method) and its interactive figure."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from classification_fixtures import fake_result

from regemb_utils.chapters.parameter_study import parameter_study_figure, validation_grid


def _result(dataset, method, seed):
    rng = np.random.default_rng(seed)
    rows = [
        dict(
            symmetric=s,
            dominant=True,
            idf=True,
            nonzero_limit=c,
            threshold=t,
            exponent=o,
            k=k,
            error=float(rng.integers(0, 40)) / 40,
        )
        for s, c, t, o, k in itertools.product((True, False), (10, 40), (-1.0, 0.0), (1.0, 4.0), (1, 3))
    ]
    table = pd.DataFrame(rows)
    best = table.iloc[int(table["error"].idxmin())].to_dict()
    params = {key: value for key, value in best.items() if key != "error"}
    return fake_result(dataset, method, np.zeros(4, dtype=int), params=params, validation=table)


@pytest.fixture
def results():
    return {
        ("bbcsport", "soft_vsm_ortho"): _result("bbcsport", "soft_vsm_ortho", 0),
        ("bbcsport", "bow"): _result("bbcsport", "bow", 1),
        ("twitter", "soft_vsm_quantized_ortho"): _result("twitter", "soft_vsm_quantized_ortho", 2),
        ("twitter", "soft_vsm_ortho"): _result("twitter", "soft_vsm_ortho", 3),
    }


def test_validation_grid_keeps_the_lowest_error_of_every_point(results):
    grid, selected = validation_grid(results)
    assert list(dict.fromkeys(zip(grid.dataset, grid.method))) == [
        ("bbcsport", "soft_vsm_ortho"),
        ("twitter", "soft_vsm_ortho"),
        ("twitter", "soft_vsm_quantized_ortho"),
    ]
    for row in grid.to_dict("records"):
        table = results[row["dataset"], row["method"]].validation
        at = table[
            (table.nonzero_limit == row["nonzero_limit"])
            & (table.threshold == row["threshold"])
            & (table.exponent == row["exponent"])
        ]
        assert len(at) == 4 and row["error"] == pytest.approx(100 * at["error"].min())
    for row in selected.to_dict("records"):
        result = results[row["dataset"], row["method"]]
        assert row["error"] == pytest.approx(100 * result.validation["error"].min())
        assert (row["nonzero_limit"], row["threshold"], row["exponent"]) == tuple(
            result.params[k] for k in ("nonzero_limit", "threshold", "exponent")
        )


def test_validation_grid_refuses_a_selected_point_outside_the_grid(results):
    results["bbcsport", "soft_vsm_ortho"].params["nonzero_limit"] = 999
    with pytest.raises(ValueError, match="is not in the validation table"):
        validation_grid(results)
    with pytest.raises(ValueError, match="no validation grid"):
        validation_grid({("bbcsport", "bow"): results["bbcsport", "bow"]})


def test_the_menu_shows_one_data_set_and_method_with_its_selected_point(results):
    grid, selected = validation_grid(results)
    figure = parameter_study_figure(grid, selected, {"soft_vsm_ortho": "ortho."})
    buttons = figure.layout.updatemenus[0].buttons
    assert [b.label for b in buttons] == ["BBCSPORT, ortho.", "TWITTER, ortho.", "TWITTER, soft_vsm_quantized_ortho"]
    panels = {"x": 1.0, "x2": 4.0}  # one panel per exponent
    for button, (dataset, method) in zip(buttons, dict.fromkeys(zip(grid.dataset, grid.method))):
        shown = [trace for trace, visible in zip(figure.data, button.args[0]["visible"]) if visible]
        part = grid[(grid.dataset == dataset) & (grid.method == method)]
        lines = [t for t in shown if t.name != "selected"]
        assert len(lines) == 4  # 2 exponents x 2 thresholds
        for trace in lines:
            threshold = float(trace.name.split("= ")[1])
            expected = part[(part.exponent == panels[trace.xaxis]) & (part.threshold == threshold)]
            assert list(trace.x) == sorted(expected.nonzero_limit)
            assert list(trace.y) == pytest.approx(list(expected.sort_values("nonzero_limit").error))
        (star,) = [t for t in shown if t.name == "selected"]
        chosen = selected[(selected.dataset == dataset) & (selected.method == method)].iloc[0]
        assert (star.x[0], star.y[0]) == (chosen.nonzero_limit, pytest.approx(chosen.error))
        assert panels[star.xaxis] == chosen.exponent
    assert [t.visible for t in figure.data] == buttons[0].args[0]["visible"]  # the first view at load
