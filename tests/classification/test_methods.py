"""The method table and the grid points of a run's settings."""

from __future__ import annotations

from regemb_utils.classification.methods import METHODS
from regemb_utils.classification.settings import Settings
from regemb_utils.study.params import _METHOD_NAMES

SPARSE_GRID = (
    ("symmetric", (True, False)),
    ("dominant", (True,)),
    ("idf", (True,)),
    ("nonzero_limit", (2, 4)),
    ("threshold", (-1.0,)),
    ("exponent", (1.0,)),
)


def test_method_names_match_the_parameters():
    assert tuple(METHODS) == _METHOD_NAMES


def test_grid_order_puts_the_slope_first_and_follows_the_paper():
    settings = Settings(slopes=(0.0, 0.5), sparse_grid=SPARSE_GRID)
    points = settings.points("soft_vsm_ortho")
    assert len(points) == 2 * 2 * 2
    assert points[0] == {
        "slope": 0.0,
        "symmetric": True,
        "dominant": True,
        "idf": True,
        "nonzero_limit": 2,
        "threshold": -1.0,
        "exponent": 1.0,
    }
    assert points[1]["nonzero_limit"] == 4 and points[2]["symmetric"] is False and points[4]["slope"] == 0.5
    assert settings.points("soft_vsm") == [{"slope": 0.0}, {"slope": 0.5}]
    assert settings.points("wmd") == settings.points("bow") == [{}]
