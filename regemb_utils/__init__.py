"""Computations behind the regemb book (Novotný et al., 2020, reproduced and checked)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("regemb-utils")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+source"
