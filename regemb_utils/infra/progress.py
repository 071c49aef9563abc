"""Progress bars: widgets where a person watches (JupyterLab), plain text where chapters run in batch.

Every progress bar of the package comes from :func:`progress_bar`. Interactively it is ``tqdm.auto`` (a widget in a
notebook with ipywidgets, text in a terminal). ``scripts/run_chapters.py`` sets ``REGEMB_PROGRESS=text`` before it
runs the chapters with papermill: the saved notebooks then hold text bars (reduced to their last line), never widget
views, which a saved notebook and the book cannot show.
"""

from __future__ import annotations

import os

__all__ = ["mode", "progress_bar"]

VARIABLE = "REGEMB_PROGRESS"
MODES = ("auto", "text")


def mode() -> str:
    """``"text"`` when ``REGEMB_PROGRESS=text`` (batch runs), otherwise ``"auto"``; any other value is an error.

    Returns
    -------
    str
        ``"text"`` or ``"auto"``.

    Raises
    ------
    ValueError
        For another value of ``REGEMB_PROGRESS``.

    Examples
    --------
    >>> import os
    >>> saved = os.environ.pop(VARIABLE, None)
    >>> mode()
    'auto'
    >>> os.environ[VARIABLE] = "TEXT"
    >>> mode()
    'text'
    >>> _ = os.environ.pop(VARIABLE) if saved is None else os.environ.update({VARIABLE: saved})
    """
    value = os.environ.get(VARIABLE, "").strip().lower() or "auto"
    if value not in MODES:
        raise ValueError(f"{VARIABLE}={os.environ[VARIABLE]!r}; expected one of {', '.join(MODES)} (or unset)")
    return value


def progress_bar(iterable=None, **tqdm_kwargs):
    """A tqdm progress bar over ``iterable`` (or a manual one with ``total=``), text or widget as :func:`mode` says.

    Parameters
    ----------
    iterable : iterable, optional
        What is iterated.
    **tqdm_kwargs
        tqdm's arguments (``total``, ``desc``, ``unit``, ``disable``).

    Returns
    -------
    tqdm.tqdm
        The bar, iterable like ``iterable``.

    Examples
    --------
    >>> sum(progress_bar(range(3), disable=True))
    3
    """
    if mode() == "text":
        from tqdm.std import tqdm
    else:
        from tqdm.auto import tqdm
    return tqdm(iterable, **tqdm_kwargs)
