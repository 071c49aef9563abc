"""Every number attributed to the paper or to its code, in one place, each with its source."""
from __future__ import annotations

import pandas as pd

from .data import DATASETS

__all__ = ["PAPER_TEST_ERRORS", "PAPER_RELATIVE_ERRORS", "PAPER_SPEEDS", "PAPER_TABLE_2"]


# Figure 8, test error (%): exact values where the notes have them (captions, Feb-2019 pickles), else bar labels.
PAPER_TEST_ERRORS: dict[str, dict[str, float]] = {
    method: dict(zip(DATASETS, values)) for method, values in {
        "bow": (23, 32, 54.73, 8.8, 29.29, 58.66),
        "soft_vsm": (21.82, 31.22, 50.71, 10.19, 10.04, 42.53),
        "wmd_quantized": (11, 33, 49, 5.9, 14, 44),
        "soft_vsm_quantized": (22.27, 31.12, 44.40, 9.4, 8.96, 39.53),
        "wmd": (9.1, 31, 50, 5.5, 11, 40),
        "soft_vsm_quantized_ortho": (2.27, 31.01, 24.14, 7.22, 6.33, 29.97),
        "soft_vsm_ortho": (2.3, 31, 24, 7.4, 6.6, 30),
    }.items()
}
# Figure 9: mean test error relative to BoW (%), read from the figure.
PAPER_RELATIVE_ERRORS = {"bow": 100.0, "soft_vsm": 80.66, "wmd_quantized": 76.02, "soft_vsm_quantized": 75.42,
                         "wmd": 70.18, "soft_vsm_quantized_ortho": 48.90, "soft_vsm_ortho": 48.86}
# Figure 10: document pairs per second per core (one Intel Xeon X7560 core), read from the figure.
PAPER_SPEEDS = {"bow": 3_434_600, "soft_vsm": 1_462_366, "wmd_quantized": 0.89, "soft_vsm_quantized": 811_964,
                "wmd": 0.472, "soft_vsm_quantized_ortho": 386_825, "soft_vsm_ortho": 536_641}
# Table 2: optimal parameters of Soft VSM (ortho.), 32-bit.
PAPER_TABLE_2 = pd.DataFrame(
    [("bbcsport", True, True, True, 100, -1.0, 2.0, 0.0, 1), ("twitter", True, False, True, 400, -1.0, 2.0, 0.0, 13),
     ("ohsumed", False, True, True, 200, -1.0, 4.0, 0.0, 11), ("reuters", True, True, True, 100, -1.0, 4.0, 0.0, 19),
     ("amazon", True, True, True, 100, -1.0, 4.0, 0.0, 17), ("20news", False, False, True, 100, -1.0, 3.0, 0.0, 1)],
    columns=["dataset", "symmetric", "dominant", "idf", "nonzero_limit", "threshold", "exponent", "slope", "k"],
).set_index("dataset")
