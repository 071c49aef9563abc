"""Sphinx extension: the package's version as the MyST substitution ``{{ version }}`` (the landing page shows it), read
from the installed package's metadata (``pyproject.toml``), so that the book, the package and ``CITATION.cff`` name one
version. Registered in ``_config.yml`` (``sphinx: local_extensions``)."""

from __future__ import annotations

from importlib.metadata import version


def _substitute(app, config):
    config.myst_substitutions = dict(config.myst_substitutions or {}, version=version("regemb-utils"))


def setup(app):
    app.connect("config-inited", _substitute)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
