"""The paper's claims as data: each claim is its words and section, a stated rule, and findings, one per unit of
evidence (a data set, a model or a parameter) and per training seed; the verdict is rendered from the findings' counts,
so that it never says more than they do ("holds on 4 of 6 data sets, open on 2 (TWITTER, REUTERS)"; "holds with seeds 1
and 3, does not hold with seed 2").

Which evidence each claim reads and how a finding is decided is :mod:`regemb_utils.chapters.claims`'; this module only
holds the vocabulary that every claim shares: the three results a finding can have, the rule on an interval, and the
wording of a verdict.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["RESULTS", "HOLDS", "FAILS", "OPEN", "Claim", "Finding", "Judgement", "interval_result", "verdict"]

HOLDS, FAILS, OPEN = RESULTS = ("holds", "does not hold", "open")


@dataclass(frozen=True)
class Claim:
    """One claim of the paper.

    Parameters
    ----------
    key : str
        A short name (e.g. ``"reduction"``).
    section : str
        Where the paper makes it (e.g. ``"abstract; §6.2"``).
    words : str
        The claim, in the paper's words where they can be quoted.
    rule : str
        How one finding is decided, in words.
    paper : str
        What the paper gives for it, with its source.
    where : str
        The page and anchor (relative to the chapters' folder) that shows the evidence.
    unit : str
        What one finding is about: ``"data set"``, ``"model"``, ``"parameter"`` or ``""`` (the claim as a whole).
    timed : bool
        Its evidence is a timing, so a rerun of the same computation may move it (the other claims' evidence is the
        same in every seeded run).

    Examples
    --------
    >>> Claim("idf", "§6.4", "Idf is important", "Holds when Idf is selected.", "Table 2", "p.html#t").unit
    'data set'
    """

    key: str
    section: str
    words: str
    rule: str
    paper: str
    where: str
    unit: str = "data set"
    timed: bool = False


@dataclass(frozen=True)
class Finding:
    """The result of a claim's rule on one unit of evidence.

    Parameters
    ----------
    result : str
        One of :data:`RESULTS`.
    shown : str
        Our number for that unit, as the book shows it (e.g. ``"37.3 % [30.1, 44.0]"``).
    unit : str or None
        The data set (upper case), model or parameter; None for a claim judged as a whole.
    seed : int or None
        The training seed of the evidence, where the claim rests on a seeded model; None otherwise.

    Raises
    ------
    ValueError
        For a result that is not one of :data:`RESULTS`.

    Examples
    --------
    >>> Finding("true", "1.0")
    Traceback (most recent call last):
    ...
    ValueError: a finding's result is one of 'holds', 'does not hold', 'open', not 'true'
    """

    result: str
    shown: str
    unit: str | None = None
    seed: int | None = None

    def __post_init__(self):
        if self.result not in RESULTS:
            raise ValueError(f"a finding's result is one of {', '.join(map(repr, RESULTS))}, not {self.result!r}")


@dataclass(frozen=True)
class Judgement:
    """A claim and its findings; :attr:`verdict` and :attr:`ours` render them.

    Parameters
    ----------
    claim : Claim
        The claim.
    findings : tuple of Finding
        Its findings.
    note : str
        What the verdict must be read with (shown after our numbers).

    Examples
    --------
    >>> claim = Claim("x", "§1", "It works.", "holds when it works", "stated", "p.html", unit="data set")
    >>> j = Judgement(claim, (Finding(HOLDS, "2.0", "BBCSPORT"), Finding(OPEN, "0.1", "TWITTER")))
    >>> j.verdict, j.ours
    ('holds on 1 of 2 data sets (BBCSPORT), open on 1 (TWITTER)', 'BBCSPORT 2.0; TWITTER 0.1')
    """

    claim: Claim
    findings: tuple[Finding, ...] = field(default_factory=tuple)
    note: str = ""  # what the verdict must be read with (e.g. evidence that was not recorded)

    @property
    def verdict(self) -> str:
        return verdict(self.findings, self.claim.unit)

    @property
    def brief_verdict(self) -> str:
        """:attr:`verdict` naming the units that move with the seed without what each seed gives."""
        return verdict(self.findings, self.claim.unit, brief=True)

    @property
    def ours(self) -> str:
        seeds = sorted({f.seed for f in self.findings if f.seed is not None})
        parts = []
        for seed in seeds or [None]:
            chosen = [f for f in self.findings if f.seed == seed]
            text = "; ".join(f"{f.unit} {f.shown}" if f.unit else f.shown for f in chosen)
            parts.append(f"seed {seed}: {text}" if len(seeds) > 1 else text)
        shown = " | ".join(parts)
        return f"{shown} ({self.note})" if self.note and shown else shown or self.note

    @property
    def depends_on_seed(self) -> bool:
        """Whether the findings' results differ between training seeds."""
        seeds = {f.seed for f in self.findings if f.seed is not None}
        per_seed = {s: sorted((str(f.unit), f.result) for f in self.findings if f.seed == s) for s in seeds}
        return len({tuple(v) for v in per_seed.values()}) > 1

    @property
    def holds_everywhere(self) -> bool:
        return bool(self.findings) and all(f.result == HOLDS for f in self.findings)


def interval_result(lower: float, upper: float, threshold: float = 0.0) -> str:
    """:data:`HOLDS` if the interval lies above ``threshold``, :data:`FAILS` if below, else (or a NaN end) :data:`OPEN`.

    Parameters
    ----------
    lower, upper, threshold : float

    Returns
    -------
    str

    Examples
    --------
    >>> [interval_result(*ends, 1.0) for ends in [(1.2, 3.0), (0.5, 0.9), (0.9, 1.1), (float("nan"), 2.0)]]
    ['holds', 'does not hold', 'open', 'open']
    """
    if math.isnan(lower) or math.isnan(upper):
        return OPEN
    return HOLDS if lower > threshold else FAILS if upper < threshold else OPEN


def joined(items: Sequence) -> str:
    """``items`` in words: ``"a"``, ``"a and b"``, ``"a, b and c"``.

    Parameters
    ----------
    items : sequence

    Returns
    -------
    str

    Examples
    --------
    >>> joined([1]), joined([1, 3]), joined(["x", "y", "z"])
    ('1', '1 and 3', 'x, y and z')
    """
    items = [str(i) for i in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _plural(unit: str, n: int) -> str:
    return unit if n == 1 else {"data set": "data sets", "model": "models", "parameter": "parameters"}.get(unit, unit)


def _counts(findings: Sequence[Finding], unit: str, total: int | None = None) -> str:
    """One seed's findings as counts: the largest group first, every group with its units named unless it is more
    than half of them; ``total``: the units of the claim where ``findings`` are some of them."""
    if not findings:
        return f"{OPEN} (no evidence in this run)"
    if not unit or all(f.unit is None for f in findings):
        results = {f.result for f in findings}
        return findings[0].result if len(results) == 1 else f"{OPEN} (findings disagree)"
    n = total or len(findings)
    groups = {r: [f.unit for f in findings if f.result == r] for r in RESULTS}
    groups = {r: units for r, units in groups.items() if units}
    if len(groups) == 1 and n == len(findings):
        ((result, units),) = groups.items()
        if n == 1:
            return f"{result} on {units[0]}"
        if result == FAILS:  # "does not hold on all 6" would read as "on some of them"
            return f"{result} on either {unit}" if n == 2 else f"{result} on any of the {n} {_plural(unit, n)}"
        return f"{result} on both {_plural(unit, n)}" if n == 2 else f"{result} on all {n} {_plural(unit, n)}"
    largest = max(groups, key=lambda r: (len(groups[r]), -RESULTS.index(r)))
    ordered = [largest, *(r for r in RESULTS if r in groups and r != largest)]
    parts = []
    for i, result in enumerate(ordered):
        units = groups[result]
        of = f" of {n} {_plural(unit, n)}" if i == 0 else ""
        named = "" if 2 * len(units) > n else f" ({', '.join(units)})"
        parts.append(f"{result} on {len(units)}{of}{named}")
    return ", ".join(parts)


def _seeds_of(findings: Sequence[Finding], unit) -> str:
    """What ``unit``'s findings say with which seed: "holds with seed 2, open with seeds 1 and 3"."""
    by_result: dict[str, list[int]] = {}
    for f in sorted((f for f in findings if f.unit == unit), key=lambda f: f.seed):
        by_result.setdefault(f.result, []).append(f.seed)
    return ", ".join(f"{r} with seed{'s' if len(s) > 1 else ''} {joined(s)}" for r, s in by_result.items())


def verdict(findings: Sequence[Finding], unit: str = "data set", brief: bool = False) -> str:
    """The verdict that ``findings`` support, worded as their counts; where the training seeds disagree, the units
    (data sets, models) whose result is the same with every seed are counted once and the others named, each with
    what it gives with which seed (``brief``: named only, for a page that links to the seeds' details).

    Parameters
    ----------
    findings : sequence of Finding
        A claim's findings.
    unit : str
        What a finding is about (:class:`Claim`'s ``unit``).
    brief : bool
        Name the units whose result moves with the seed without what each seed gives.

    Returns
    -------
    str
        E.g. ``"holds on 4 of 6 data sets, open on 2 (TWITTER, REUTERS)"``.

    Examples
    --------
    >>> d = ["BBCSPORT", "TWITTER", "OHSUMED", "REUTERS", "AMAZON", "20NEWS"]
    >>> verdict([Finding(OPEN if x in ("TWITTER", "REUTERS") else HOLDS, "", x) for x in d])
    'holds on 4 of 6 data sets, open on 2 (TWITTER, REUTERS)'
    >>> verdict([Finding(HOLDS, "", x) for x in d])
    'holds on all 6 data sets'
    >>> verdict([Finding(FAILS, "", x) for x in d]), verdict([Finding(FAILS, "", m) for m in ("32-bit", "1-bit")], "model")
    ('does not hold on any of the 6 data sets', 'does not hold on either model')
    >>> verdict([Finding(HOLDS, "", None, 1), Finding(FAILS, "", None, 2), Finding(HOLDS, "", None, 3)], unit="")
    'holds with seeds 1 and 3; does not hold with seed 2'
    >>> verdict([Finding(HOLDS, "", "BBCSPORT", s) for s in (1, 2, 3)])
    'holds on BBCSPORT, with each of the 3 seeds'
    >>> verdict([Finding(OPEN if x == "AMAZON" or (x == "TWITTER" and s == 2) else HOLDS, "", x, s)
    ...          for s in (1, 2, 3) for x in d])
    'holds on 4 of 6 data sets, open on 1 (AMAZON), with each of the 3 seeds; depends on the seed on 1 (TWITTER: holds with seeds 1 and 3, open with seed 2)'
    >>> verdict([Finding(OPEN if x == "AMAZON" or (x == "TWITTER" and s == 2) else HOLDS, "", x, s)
    ...          for s in (1, 2, 3) for x in d], brief=True)
    'holds on 4 of 6 data sets, open on 1 (AMAZON), with each of the 3 seeds; depends on the seed on 1 (TWITTER)'
    >>> verdict([])
    'open (no evidence in this run)'
    """
    seeds = sorted({f.seed for f in findings if f.seed is not None})
    if len(seeds) <= 1:
        return _counts(list(findings), unit)
    texts = {seed: _counts([f for f in findings if f.seed == seed], unit) for seed in seeds}
    if len(set(texts.values())) == 1:
        return f"{texts[seeds[0]]}, with each of the {len(seeds)} seeds"
    units = list(dict.fromkeys(f.unit for f in findings))
    if unit and None not in units:
        results = {u: {f.result for f in findings if f.unit == u} for u in units}
        stable = [Finding(next(iter(r)), "", u) for u, r in results.items() if len(r) == 1]
        moving = [u for u, r in results.items() if len(r) > 1]
        if not stable:
            return f"depends on the seed on all {len(units)} {_plural(unit, len(units))}"
        named = ", ".join(moving) if brief else "; ".join(f"{u}: {_seeds_of(findings, u)}" for u in moving)
        return (
            f"{_counts(stable, unit, len(units))}, with each of the {len(seeds)} seeds; depends on the seed on "
            f"{len(moving)} ({named})"
        )
    by_text: dict[str, list[int]] = {}
    for seed, text in texts.items():
        by_text.setdefault(text, []).append(seed)
    return "; ".join(f"{text} with seed{'s' if len(s) > 1 else ''} {joined(s)}" for text, s in by_text.items())
