"""What the chapters' prose attributes to the paper, its code or its authors, as the values the chapters glue.

Every value comes from :mod:`regemb_utils.paper` (with its source there); these functions only name them as the
chapters' prose does (``{glue:text}`paper_epochs```) and write sets and powers the way the prose shows them.
"""

from __future__ import annotations

import numpy as np
from IPython.display import Markdown

from ..text.datasets import DATASETS
from .. import paper

__all__ = ["PARAMETER_SYMBOLS", "parameter_text", "training_prose", "orthogonalization_prose", "classification_prose"]

# the orthogonalized SCM's parameters as the paper writes them (its Table 2 and §6.4)
PARAMETER_SYMBOLS = {
    "nonzero_limit": "C",
    "exponent": "o",
    "threshold": "t",
    "symmetric": "Sym",
    "dominant": "Dom",
    "idf": "Idf",
    "slope": "s",
}


def parameter_text(params) -> str | None:
    """Selected parameters as the paper writes them: the switches by name ("no Dom" when off), the numbers with their
    symbol and true minus signs; None when there are none.

    Parameters
    ----------
    params : mapping
        Parameter name (``symmetric``, ``nonzero_limit``, ...) to its selected value.

    Returns
    -------
    str or None
        The parameters as text.

    Examples
    --------
    >>> parameter_text({"symmetric": True, "dominant": False, "idf": True, "nonzero_limit": 400, "threshold": -1.0,
    ...                 "exponent": 2.0})
    'Sym, no Dom, Idf, C = 400, t = −1, o = 2'
    >>> parameter_text({}) is None
    True
    """
    parts = []
    for key, value in params.items():
        name = PARAMETER_SYMBOLS.get(key, key)
        if isinstance(value, (bool, np.bool_)):
            parts.append(name if value else f"no {name}")
        else:
            parts.append(f"{name} = {_number(value)}")
    return ", ".join(parts) or None


def value_set(values) -> Markdown:
    """A set of numbers as Markdown text, in the order given, with true minus signs.

    Parameters
    ----------
    values : iterable of float

    Returns
    -------
    IPython.display.Markdown

    Examples
    --------
    >>> value_set([-1.0, -0.5, 0.0, 0.5]).data
    '{−1, −0.5, 0, 0.5}'
    """
    return Markdown("{" + ", ".join(_number(v) for v in values) + "}")


def _number(value) -> str:
    """A parameter value as text: numbers as short as they print, with a true minus sign."""
    if isinstance(value, (float, int, np.integer)) and not isinstance(value, bool):
        return (f"{value:g}" if isinstance(value, float) else str(value)).replace("-", "−")
    return str(value)


def training_prose() -> dict:
    """Chapter 2's values from the paper: epochs, dimensions, the text8 analogy accuracy, the good/bad cosines and
    their statistics, the training settings of the paper's code and its vocabulary.

    Returns
    -------
    dict
        ``{glue name: value}``.

    Examples
    --------
    >>> values = training_prose()
    >>> values["paper_epochs"] == paper.EPOCHS.value, values["paper_sample"].data
    (True, '10⁻⁴')
    """
    values = {"paper_epochs": paper.EPOCHS.value}
    for model in ("32-bit", "1-bit"):
        key = model.replace("-bit", "")
        values[f"paper_dimensions_{key}"] = paper.DIMENSIONS[model].value
        values[f"paper_text8_{key}"] = paper.TEXT8_ANALOGY[model].value
        values[f"paper_good_bad_{key}"] = paper.GOOD_BAD[model, "cosine"].value
        for stat in ("mean", "sd"):
            values[f"paper_cos_{stat}_{key}"] = paper.COSINES[model, stat].value
    for name in ("window", "negative", "min_count", "alpha"):
        values[f"paper_{name}"] = paper.TRAINING_SETTINGS[name].value
    values["paper_epochs_code"] = paper.TRAINING_SETTINGS["epochs"].value
    exponent = f"{np.log10(paper.TRAINING_SETTINGS['sample'].value):.0f}".replace("-", "⁻")
    values["paper_sample"] = Markdown("10" + exponent.translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")))
    values["paper_vocabulary"] = paper.VOCABULARY.value
    return values


def orthogonalization_prose() -> dict:
    """Chapter 3's values from the paper: the thresholds of its text and of its code, the code's C, Figure 1's words,
    the data sets whose Table 2 setting is not positive definite (not both Sym and Dom), and Table 2's thresholds and
    exponents.

    Returns
    -------
    dict
        ``{glue name: value}``.

    Examples
    --------
    >>> orthogonalization_prose()["code_nonzero_limits"].data
    '{100, 200, 400, 800}'
    """
    not_definite = [d.upper() for d, row in paper.table_2().iterrows() if not (row.symmetric and row.dominant)]
    return {
        "text_thresholds": value_set(paper.TEXT_THRESHOLDS.value),
        "code_thresholds": value_set(paper.PAPER_GRID["threshold"]),
        "code_nonzero_limits": value_set(paper.PAPER_GRID["nonzero_limit"]),
        "paper_figure_1_words": paper.FIGURE_1_WORDS.value,
        "table_2_not_definite": Markdown(", ".join(not_definite)),
        "table_2_thresholds": value_set(sorted(set(paper.table_2().threshold))),
        "table_2_exponents": value_set(sorted(set(paper.table_2().exponent))),
    }


def classification_prose() -> dict:
    """Chapter 4's values from the paper: the 39 % (abstract and §6.2) and the numbers behind it (with the ratio that
    the exact caption errors give for the quantized and orthogonalized SCM, ``paper_caption_ratio``), the speed
    claims, the significance tests, the validation share and the thresholds of its text and of its code.

    Returns
    -------
    dict
        ``{glue name: value}``.

    Examples
    --------
    >>> values = classification_prose()
    >>> values["paper_reduction"] == paper.ERROR_REDUCTION.value, values["paper_code_thresholds"]
    (True, '-1, -0.5, 0, 0.5')
    >>> round(values["paper_caption_ratio"], 2)  # not §6.2's 60.57 %: §6.2's pair is not this one
    60.62
    """
    values = {
        name: item.value
        for name, item in (
            ("paper_reduction", paper.ERROR_REDUCTION),
            ("paper_lowest", paper.LOWEST_RELATIVE_ERROR),
            ("paper_faster", paper.FASTER_THAN),
            ("paper_slowdown", paper.SPEED_RATIO),
            ("paper_tests", paper.SIGNIFICANCE_TESTS),
            ("paper_not_significant", paper.NOT_SIGNIFICANT),
            ("paper_ratio", paper.REGULARIZED_ERROR_RATIO),
            ("paper_validation_share", paper.VALIDATION_SHARE),
        )
    }
    # §6.2's ratio recomputed for the quantized and orthogonalized SCM from the exact caption errors (BoW cancels)
    caption = {
        m: np.mean([paper.TEST_ERRORS[m, d].value for d in DATASETS]) for m in ("soft_vsm", "soft_vsm_quantized_ortho")
    }
    values["paper_caption_ratio"] = float(100 * caption["soft_vsm_quantized_ortho"] / caption["soft_vsm"])
    values["paper_text_thresholds"] = ", ".join(f"{t:g}" for t in paper.TEXT_THRESHOLDS.value)
    values["paper_code_thresholds"] = ", ".join(f"{t:g}" for t in paper.PAPER_GRID["threshold"])
    return values
