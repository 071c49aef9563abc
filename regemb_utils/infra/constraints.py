"""What a parameter allows, declared once: a :class:`Constraint` holds the allowed values in words and the test, and
refuses any other value with one message that names the parameter, the value and what is allowed.

The estimators (their ``_constraints``), chapter 4's :class:`regemb_utils.classification.settings.Settings` and the
chapters' parameters (:mod:`regemb_utils.study.params`) declare their parameters with these; "k is odd" is the one
constraint :data:`regemb_utils.classification.knn.K`.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Constraint", "integer", "real", "BOOLEAN", "one_of", "either", "literal", "list_of", "checked"]


@dataclass(frozen=True)
class Constraint:
    """The values a parameter allows: ``allowed`` in words, ``accepts`` as a test and ``convert`` to the form a
    computation reads.

    Parameters
    ----------
    allowed : str
        What is allowed, as it completes "… must be": "an integer ≥ 1".
    accepts : callable
        Value → whether it is allowed.
    convert : callable, optional
        An allowed value → its normalized form (a NumPy integer → int); the value itself by default.
    why : callable, optional
        A refused value → why, when more can be said than what is allowed ("the list is empty"), else "".

    Examples
    --------
    >>> integer(1).check(3, "C"), integer(1).accepts(0)
    (3, False)
    >>> integer(1).check(0, "C")
    Traceback (most recent call last):
    ...
    ValueError: C=0 is not allowed; C must be an integer ≥ 1
    """

    allowed: str
    accepts: Callable[[Any], bool]
    convert: Callable[[Any], Any] = lambda value: value
    why: Callable[[Any], str] = lambda value: ""

    def check(self, value: Any, name: str, shown: Any = None) -> Any:
        """``value`` in its normalized form, or a ``ValueError`` naming ``name``, the value (``shown`` if given: the
        text a reader typed) and what is allowed."""
        if not self.accepts(value):
            reason = self.why(value)
            raise ValueError(
                f"{name}={value if shown is None else shown!r} is not allowed{f' ({reason})' if reason else ''}; "
                f"{name} must be {self.allowed}"
            )
        return self.convert(value)

    def __or__(self, other: Constraint) -> Constraint:
        return either(self, other)


def _is_integer(value) -> bool:
    return not isinstance(value, (bool, np.bool_)) and isinstance(value, numbers.Integral)


def _is_real(value) -> bool:
    return not isinstance(value, (bool, np.bool_)) and isinstance(value, numbers.Real) and bool(np.isfinite(value))


def integer(low: int | None = None, high: int | None = None, *, odd: bool = False, allowed: str | None = None):
    """An integer (not a bool) in [low, high], odd if ``odd``; converted to int.

    Parameters
    ----------
    low, high : int, optional
        The smallest and the largest allowed (None: no bound).
    odd : bool
        Only odd integers.
    allowed : str, optional
        The words for it (by default the range, e.g. "an integer ≥ 1").

    Returns
    -------
    Constraint

    Examples
    --------
    >>> integer(1).allowed, integer(2, 10).allowed, integer().allowed
    ('an integer ≥ 1', 'an integer in [2, 10]', 'an integer')
    >>> integer(1, odd=True).accepts(3), integer(1, odd=True).accepts(4), integer(1).accepts(True)
    (True, False, False)
    """
    if allowed is None:
        kind = "an odd integer" if odd else "an integer"
        if low is not None and high is not None:
            allowed = f"{kind} in [{low:,}, {high:,}]"
        elif low is not None:
            allowed = f"{kind} ≥ {low:,}"
        elif high is not None:
            allowed = f"{kind} ≤ {high:,}"
        else:
            allowed = kind

    def accepts(value) -> bool:
        return (
            _is_integer(value)
            and (low is None or value >= low)
            and (high is None or value <= high)
            and (not odd or value % 2 == 1)
        )

    return Constraint(allowed, accepts, int)


def real(low: float, high: float, *, low_open: bool = False, high_open: bool = False, allowed: str | None = None):
    """A finite real number (an int too, not a bool) in the interval from ``low`` to ``high``; converted to float.

    Parameters
    ----------
    low, high : float
        The interval's ends (``numpy.inf`` for none).
    low_open, high_open : bool
        Whether an end is excluded.
    allowed : str, optional
        The words for it (by default the interval, e.g. "a number in [0, 1)").

    Returns
    -------
    Constraint

    Examples
    --------
    >>> real(0, 1, high_open=True).allowed, real(0, np.inf, low_open=True).allowed
    ('a number in [0, 1)', 'a number in (0, inf]')
    >>> real(-1, 1).check(1, "threshold"), real(0, 1).accepts(float("nan"))
    (1.0, False)
    """
    if allowed is None:
        allowed = f"a number in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"

    def accepts(value) -> bool:
        return (
            _is_real(value)
            and (low < value if low_open else low <= value)
            and (value < high if high_open else value <= high)
        )

    return Constraint(allowed, accepts, float)


BOOLEAN = Constraint("True or False", lambda value: isinstance(value, (bool, np.bool_)), bool)


def one_of(choices, *, allowed: str | None = None) -> Constraint:
    """One of ``choices`` (equal to one and of its type: ``True`` is not the choice ``1``).

    Parameters
    ----------
    choices : iterable
        The allowed values.
    allowed : str, optional
        The words for it (by default "one of" and the choices).

    Returns
    -------
    Constraint

    Examples
    --------
    >>> one_of(("pot", "pyemd")).allowed
    "one of 'pot', 'pyemd'"
    """
    choices = tuple(choices)
    if allowed is None:
        allowed = f"one of {', '.join(map(repr, choices))}"
    return Constraint(allowed, lambda value: any(type(value) is type(c) and value == c for c in choices))


_SAME = object()


def literal(value: Any, stored: Any = _SAME) -> Constraint:
    """Exactly ``value`` (a word such as ``"all"``), stored as ``stored``.

    Parameters
    ----------
    value : object
        The allowed value.
    stored : object, optional
        What a computation reads for it (the value itself by default; ``None`` for "all", say).

    Returns
    -------
    Constraint

    Examples
    --------
    >>> limit = integer(1) | literal("all", stored=None)
    >>> limit.allowed, limit.check("all", "max_documents") is None, limit.check(5, "max_documents")
    ('an integer ≥ 1 or "all"', True, 5)
    """
    kept = value if stored is _SAME else stored
    return Constraint(
        repr(value).replace("'", '"'), lambda given: type(given) is type(value) and given == value, lambda _: kept
    )


def either(*constraints: Constraint, allowed: str | None = None) -> Constraint:
    """A value that one of ``constraints`` allows, converted by the first that does (a refusal says why as the first
    of them that can).

    Parameters
    ----------
    *constraints : Constraint
        The alternatives, in order.
    allowed : str, optional
        The words for it (by default the alternatives' words joined by "or").

    Returns
    -------
    Constraint

    Examples
    --------
    >>> either(literal(None), integer(1)).allowed
    'None or an integer ≥ 1'
    """

    def first(value) -> Constraint | None:
        return next((c for c in constraints if c.accepts(value)), None)

    return Constraint(
        allowed or " or ".join(c.allowed for c in constraints),
        lambda value: first(value) is not None,
        lambda value: first(value).convert(value),
        lambda value: next((why for c in constraints if (why := c.why(value))), ""),
    )


def list_of(each: Constraint, *, order: Callable | None = sorted, allowed: str | None = None) -> Constraint:
    """A non-empty list of values that ``each`` allows, none given twice; one bare value counts as a list of one, a
    mapping or a set is no list (their keys would be taken). Stored as a tuple in the order ``order`` gives (sorted by
    default; None keeps the order given).

    Parameters
    ----------
    each : Constraint
        What each value allows.
    order : callable or None
        Converted values → their stored order.
    allowed : str, optional
        The words for it.

    Returns
    -------
    Constraint

    Examples
    --------
    >>> ks = list_of(integer(1, odd=True))
    >>> ks.check([5, 3], "ks"), ks.check(7, "ks"), ks.accepts([3, 3]), ks.accepts([])
    ((3, 5), (7,), False, False)
    >>> ks.check({3: 1}, "ks")
    Traceback (most recent call last):
    ...
    ValueError: ks={3: 1} is not allowed (a mapping is not a list); ks must be a non-empty list, each an odd integer ≥ 1, none twice
    """

    def listed(value) -> tuple | None:
        if isinstance(value, (Mapping, set, frozenset)):
            return None
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            return (value,)
        return tuple(value)

    def why(value) -> str:
        values = listed(value)
        if values is None:
            return f"a {'mapping' if isinstance(value, Mapping) else 'set'} is not a list"
        if not values:
            return "the list is empty"
        if all(each.accepts(v) for v in values):
            converted = [each.convert(v) for v in values]
            repeated = [values[converted.index(c)] for i, c in enumerate(converted) if c in converted[:i]]
            return f"{', '.join(map(repr, dict.fromkeys(repeated)))} given more than once" if repeated else ""
        return ""

    def accepts(value) -> bool:
        values = listed(value)
        if not values or not all(each.accepts(v) for v in values):
            return False
        converted = [each.convert(v) for v in values]
        return len(set(converted)) == len(converted)

    def convert(value) -> tuple:
        converted = [each.convert(v) for v in listed(value)]
        return tuple(order(converted) if order is not None else converted)

    return Constraint(allowed or f"a non-empty list, each {each.allowed}, none twice", accepts, convert, why)


def checked(values: Mapping[str, Any], constraints: Mapping[str, Constraint]) -> dict[str, Any]:
    """``values`` (name → value) that ``constraints`` (name → :class:`Constraint`) names, checked and normalized.

    Parameters
    ----------
    values, constraints : mapping

    Returns
    -------
    dict

    Examples
    --------
    >>> checked({"k": 3, "C": 100}, {"k": integer(1, odd=True), "C": integer(1)})
    {'k': 3, 'C': 100}
    """
    return {name: constraint.check(values[name], name) for name, constraint in constraints.items()}
