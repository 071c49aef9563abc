"""What a parameter allows, declared once (regemb_utils.infra.constraints): the estimators, chapter 4's Settings, the
chapters' parameters and the explorer refuse a value with the same words, from the same declaration."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from regemb_utils.classification import estimators
from regemb_utils.classification.knn import K
from regemb_utils.classification.settings import Settings
from regemb_utils.infra.constraints import BOOLEAN, checked, either, integer, list_of, literal, one_of, real
from regemb_utils.study.params import ParameterError, chapter_parameters


@pytest.mark.parametrize(
    "constraint, good, bad",
    [
        (integer(1), [1, np.int64(7)], [0, True, 1.0, "1", None]),
        (integer(2, 10, odd=True), [3, 9], [1, 2, 11, 4]),
        (real(-1, 1, high_open=True), [-1, 0, 0.5, np.float32(0.25)], [1, 1.5, float("nan"), False, "0"]),
        (real(0, np.inf, low_open=True), [1e-9, 1e9], [0, -1, float("inf")]),
        (BOOLEAN, [True, False, np.bool_(True)], [0, 1, "True", None]),
        (one_of(("pot", "pyemd")), ["pot"], ["POT", None, 0]),
        (one_of((1, 3)), [1, 3], [True, 1.0, 2]),
        (either(literal("all", stored=None), integer(1)), ["all", 4], ["All", 0, None]),
    ],
)
def test_each_constraint_accepts_what_it_says_and_refuses_the_rest_naming_the_parameter(constraint, good, bad):
    for value in good:
        assert constraint.accepts(value)
        constraint.check(value, "x")
    for value in bad:
        assert not constraint.accepts(value)
        with pytest.raises(ValueError) as error:
            constraint.check(value, "x")
        assert str(error.value) == f"x={value!r} is not allowed; x must be {constraint.allowed}"


def test_values_are_stored_in_the_form_a_computation_reads():
    assert type(integer(1).check(np.int64(3), "k")) is int
    assert type(real(0, 1).check(1, "s")) is float
    assert either(literal("all", stored=None), integer(1)).check("all", "n") is None
    assert list_of(integer(1)).check([5, 2], "C") == (2, 5)  # sorted by default
    assert list_of(integer(1), order=None).check([5, 2], "C") == (5, 2)
    assert list_of(integer(1)).check(4, "C") == (4,)  # one bare value is a list of one
    assert checked({"k": np.int64(5), "other": object()}, {"k": K}) == {"k": 5}  # only what is declared


@pytest.mark.parametrize(
    "value, reason",
    [
        ({1: 2}, "a mapping is not a list"),
        ({1}, "a set is not a list"),
        ([], "the list is empty"),
        ([3, 3.0], "3 given more than once"),
    ],
)
def test_a_refused_list_says_why(value, reason):
    with pytest.raises(ValueError) as error:
        list_of(real(0, 10)).check(value, "C")
    assert str(error.value).startswith(f"C={value!r} is not allowed ({reason}); C must be a non-empty list")


def test_k_is_odd_is_said_once_and_every_route_refuses_an_even_k_with_those_words():
    assert K.accepts(19) and not K.accepts(4) and not K.accepts(-1) and not K.accepts(True)
    refusals = []
    with pytest.raises(ValueError) as error:
        estimators.CosineClassifier(k=4).fit(["a b", "b c"], [0, 1])
    refusals.append(str(error.value))
    with pytest.raises(ValueError) as error:
        Settings(ks=(1, 4))
    refusals.append(str(error.value))
    with pytest.raises(ParameterError) as error:
        chapter_parameters("04_scm_vs_wmd", "smoke", ks=[1, 4])
    refusals.append(str(error.value))
    assert all("is not allowed" in text for text in refusals)
    assert K.allowed in refusals[0] and K.allowed in refusals[1]  # the estimators and Settings: K itself
    assert "[1, 3, 5, ..., 19]" in refusals[2]  # chapter 4: the paper's ks, drawn from knn.K_VALUES


def test_every_estimator_declares_each_of_its_plain_parameters():
    """Every parameter of every estimator is declared, except the objects it reads (embeddings, a dictionary)."""
    for name in estimators.__all__:
        cls = getattr(estimators, name)
        if not inspect.isclass(cls) or not hasattr(cls, "_constraints"):
            continue
        parameters = set(inspect.signature(cls.__init__).parameters) - {"self", "vectors", "dictionary"}
        assert parameters == set(cls._constraints), name
