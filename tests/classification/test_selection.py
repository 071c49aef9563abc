"""Grid search: the grid, the parallel evaluation and the selection rule (notes §8)."""

from __future__ import annotations

import joblib
import pytest

from regemb_utils.classification.selection import (
    evaluate_grid,
    evaluate_grid_in_batches,
    parameter_grid,
    select_best,
    select_grid,
)


def test_selection_ties_go_to_the_earliest_point_then_the_smallest_k():
    table = [
        {"C": 100, "k": 1, "error": 0.30},
        {"C": 100, "k": 3, "error": 0.20},
        {"C": 100, "k": 5, "error": 0.20},
        {"C": 200, "k": 1, "error": 0.20},
        {"C": 200, "k": 3, "error": 0.25},
    ]
    best = select_best(table)
    assert best.best_params == {"C": 100, "k": 3} and best.best_error == 0.20
    table[0]["error"] = 0.10  # a strictly better later row would win, and so does the first row here
    assert select_best(table).best_params == {"C": 100, "k": 1}
    table[4]["error"] = 0.05
    assert select_best(table).best_params == {"C": 200, "k": 3}


def test_select_grid_rows_from_outcomes_in_grid_order():
    points = [{"slope": 0.0, "nonzero_limit": 100}, {"slope": 0.0, "nonzero_limit": 200}]
    # equal best error (2 of 10) at (point 0, k=3) and (point 1, k=1): the earlier point wins although its k is larger
    outcomes = [{5: 0.3, 1: 0.4, 3: 0.2}, {1: 0.2, 3: 0.2, 5: 0.2}]
    best = select_grid(points, outcomes)
    assert best.best_params == {"slope": 0.0, "nonzero_limit": 100, "k": 3} and best.best_error == 0.2
    assert [row["error"] for row in best.table] == [0.4, 0.2, 0.3, 0.2, 0.2, 0.2]  # k ascending inside a point


def _validation_error(params):
    return {1: abs(params["a"] - 2) / 10 + params["b"], 3: 0.3}


def test_grid_evaluated_locally_and_on_dask_selects_the_same():
    from dask.distributed import Client, LocalCluster

    grid = parameter_grid({"a": [1, 2, 3, 2], "b": [0.0, 0.0]})
    local = select_grid(grid, evaluate_grid(_validation_error, grid, n_jobs=2))
    assert local.best_params == {"a": 2, "b": 0.0, "k": 1} and local.best_error == 0.0
    assert len(local.table) == 16
    with LocalCluster(n_workers=2, processes=False, threads_per_worker=1, dashboard_address=None) as cluster:
        with Client(cluster), joblib.parallel_backend("dask"):
            distributed = select_grid(grid, evaluate_grid(_validation_error, grid))
    assert distributed == local
    with pytest.raises(ValueError, match="the grid is empty"):
        select_grid([], evaluate_grid(_validation_error, []))


def _point_and_thread(point):
    import threading
    import time

    time.sleep(0.02)  # both workers get points
    return point["a"], point["b"], threading.get_ident()


def test_grid_in_batches_gives_the_same_results_with_neighbours_on_one_worker():
    """Batches of consecutive points (four per worker): the results of evaluate_grid, in grid order, and each batch
    of neighbouring points evaluated by one worker (where S′ of neighbouring points is shared)."""
    grid = parameter_grid({"a": list(range(8)), "b": [0.0, 0.5]})  # 16 points, 2 workers: batches of 2
    assert evaluate_grid_in_batches(_validation_error, grid, n_jobs=2) == evaluate_grid(
        _validation_error, grid, n_jobs=2
    )
    with joblib.parallel_backend("threading"):
        outcomes = evaluate_grid_in_batches(_point_and_thread, grid, n_jobs=2)
    assert [outcome[:2] for outcome in outcomes] == [(point["a"], point["b"]) for point in grid]
    assert len({outcome[2] for outcome in outcomes}) == 2
    assert all(outcomes[i][2] == outcomes[i + 1][2] for i in range(0, len(grid), 2))
