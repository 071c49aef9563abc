import pytest

from regemb_utils.text.tokenization import tokenize


@pytest.mark.parametrize(
    "text, tokens",
    [
        ("Hello, World!", ["hello", "world"]),
        # digits: a run with a letter is one token, a run of digits alone is no token
        ("mp3 players cost 199 dollars in 2019", ["mp3", "players", "cost", "dollars", "in"]),
        ("covid-19 and 3d", ["covid", "and", "3d"]),
        # underscores and hyphens separate tokens
        ("snake_case well-known", ["snake", "case", "well", "known"]),
        # accents are letters; upper case is folded (Unicode-aware)
        ("Café NAÏVE Ærø São-Paulo", ["café", "naïve", "ærø", "são", "paulo"]),
        # a combining accent (NFD) is composed first, so the word is not split at the accent
        ("cafe\u0301", ["café"]),
        # other scripts: Greek, Cyrillic, Arabic-Indic digits (digits, not letters)
        ("Ελληνικά Русский ١٢٣", ["ελληνικά", "русский"]),
        ("x²", ["x²"]),  # superscript two is alphanumeric (a digit), so it stays with the letter
        ("", []),
        ("... 42 !!!", []),
    ],
)
def test_paper_tokenizer(text, tokens):
    assert tokenize(text) == tokens


def test_gensim_tokenizer_is_the_papers_code():
    # gensim splits at digits and keeps underscores: the code differs from the text here
    assert tokenize("mp3 snake_case Café", tokenizer="gensim") == ["mp", "snake_case", "café"]
    assert tokenize("mp3 snake_case Café", tokenizer="paper") == ["mp3", "snake", "case", "café"]


def test_unknown_tokenizer():
    with pytest.raises(ValueError, match="unknown tokenizer 'nltk'; allowed: paper, gensim"):
        tokenize("x", tokenizer="nltk")
