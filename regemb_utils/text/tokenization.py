"""Tokenization, as the paper's text describes it (section 5.2).

"We preprocess the datasets by lower-casing the text and by tokenizing to longest non-empty sequences of
alphanumeric characters that contain at least one alphabetical character."

The paper's code instead called ``gensim.utils.tokenize(text, lower=True)``: runs of word characters that are
not digits, so digits split tokens (``mp3`` gives ``mp``) and underscores are kept (``foo_bar``).
Both are here (:data:`TOKENIZERS`); ``tokenizer="paper"`` (the text) is the default, ``tokenizer="gensim"`` the
code.
"""

from __future__ import annotations

import re
import unicodedata

from gensim.utils import tokenize as gensim_tokenize

__all__ = ["TOKENIZERS", "tokenize"]

TOKENIZERS = ("paper", "gensim")

# [^\W_] is a Unicode alphanumeric character: a letter or a digit of any script, not the underscore.
_ALNUM_RUN = re.compile(r"[^\W_]+")
_HAS_LETTER = re.compile(r"[^\W\d_]")


def tokenize(text: str, tokenizer: str = "paper") -> list[str]:
    """Lower-case ``text`` and split it into tokens.

    ``tokenizer="paper"``: maximal runs of alphanumeric characters that contain at least one letter; text is first
    put into Unicode NFC form, so a letter written with a combining accent stays one character.
    ``tokenizer="gensim"``: what the paper's code ran, ``gensim.utils.tokenize(text, lower=True)``.

    Parameters
    ----------
    text : str
        Any text.
    tokenizer : {"paper", "gensim"}
        The paper's text's rule (default) or its code's.

    Returns
    -------
    list of str
        The tokens, lower-cased, in order.

    Examples
    --------
    >>> tokenize("The MP3 player's 2nd_try")
    ['the', 'mp3', 'player', 's', '2nd', 'try']
    >>> tokenize("The MP3 player's 2nd_try", "gensim")
    ['the', 'mp', 'player', 's', 'nd_try']
    """
    if tokenizer == "paper":
        text = unicodedata.normalize("NFC", text).lower()
        return [token for token in _ALNUM_RUN.findall(text) if _HAS_LETTER.search(token)]
    if tokenizer == "gensim":
        return list(gensim_tokenize(text, lower=True))
    raise ValueError(f"unknown tokenizer {tokenizer!r}; allowed: {', '.join(TOKENIZERS)}")
