"""The book's build extension that trims what pages load (_ext/lean_pages.py): its figure recompression."""

import sys
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "_ext"))
from lean_pages import recompress_png  # noqa: E402


def test_recompressed_figures_keep_every_pixel_and_never_grow(tmp_path):
    rng = np.random.default_rng(0)
    pixels = np.repeat(rng.integers(0, 255, size=(60, 1, 4), dtype=np.uint8), 80, axis=1)  # stripes compress well
    path = tmp_path / "figure.png"
    Image.fromarray(pixels, "RGBA").save(path, compress_level=1)  # as a quick save would write it
    before = path.stat().st_size
    recompress_png(path)
    assert path.stat().st_size < before
    assert np.array_equal(np.asarray(Image.open(path)), pixels)
    smallest = path.read_bytes()
    recompress_png(path)  # already as small as it gets: left as it is
    assert path.read_bytes() == smallest
