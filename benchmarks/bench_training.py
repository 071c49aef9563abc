"""Training speed of our Word2Bits CBOW trainer against gensim's Word2Vec (CBOW), on the same corpus slice.

    .venv/bin/python benchmarks/bench_training.py [--words 3300000] [--workers 2] [--epochs 1] [--quality]

Corpus: the first ``--words`` words of the text8-style enwik8 text (``wiki8-text8style.xz``; one line of lower-case
words), cut into pseudo-articles of 1,000 words. Settings as in the paper: window 10, negative 24, sample 1e-4,
min_count 5, alpha 0.05 (gensim: sg=0, cbow_mean=1, hs=0).

Printed speeds are *raw* words per second: corpus words read per second of training (before sub-sampling; gensim's
``raw_word_count``), vocabulary building excluded for both.

With ``--quality`` both are also trained at full settings (10 epochs, 200-d; ours also 1-bit 1000-d) on a larger
slice (``--quality-words``) and the analogy accuracy on gensim's questions-words.txt (restrict_vocab=30000) is printed.
"""
from __future__ import annotations

import argparse
import lzma
import os
import sys
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPOSITORY))

from regemb_utils.word2bits import train_word2bits  # noqa: E402

DEFAULT_TEXT = Path(os.environ.get("REGEMB_WIKI8", "/work/shared/data/wikipedia/wiki8-text8style.xz"))


def read_words(path: Path, n_words: int) -> list[str]:
    words: list[str] = []
    tail = ""
    with lzma.open(path, "rt", encoding="utf-8") as f:
        while len(words) < n_words:
            chunk = f.read(1 << 22)
            if not chunk:
                words.extend(tail.split())
                break
            parts = (tail + chunk).split(" ")
            tail = parts.pop()
            words.extend(w for w in parts if w)
    return words[:n_words]


def articles(words: list[str], length: int = 1000) -> list[list[str]]:
    return [words[i:i + length] for i in range(0, len(words), length)]


def train_gensim(corpus, *, size, epochs, workers, window=10, negative=24, sample=1e-4, min_count=5, alpha=0.05,
                 seed=1):
    from gensim.models import Word2Vec

    model = Word2Vec(vector_size=size, window=window, negative=negative, sample=sample, min_count=min_count,
                     alpha=alpha, sg=0, cbow_mean=1, hs=0, workers=workers, seed=seed)
    model.build_vocab(corpus)
    start = time.perf_counter()
    _, raw = model.train(corpus, total_examples=model.corpus_count, epochs=epochs)
    seconds = time.perf_counter() - start
    return model.wv, raw / seconds, seconds


def analogy(kv) -> float:
    from gensim.test.utils import datapath

    score, _ = kv.evaluate_word_analogies(datapath("questions-words.txt"), restrict_vocab=30000)
    return score


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--words", type=int, default=3_300_000, help="corpus slice in words (default 3,300,000)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--text", type=Path, default=DEFAULT_TEXT)
    parser.add_argument("--skip-1000d", action="store_true", help="skip the 1000-d 1-bit speed run")
    parser.add_argument("--quality", action="store_true", help="also compare analogy accuracy at full settings")
    parser.add_argument("--quality-words", type=int, default=17_000_000)
    parser.add_argument("--quality-epochs", type=int, default=10)
    args = parser.parse_args(argv)

    words = read_words(args.text, args.words)
    corpus = articles(words)
    print(f"corpus: {len(words):,} words in {len(corpus):,} pieces; workers={args.workers}, epochs={args.epochs}")

    _, gensim_wps, gensim_s = train_gensim(corpus, size=200, epochs=args.epochs, workers=args.workers)
    print(f"gensim Word2Vec CBOW 200-d:        {gensim_wps:12,.0f} raw words/s ({gensim_s:.1f} s)")
    ours = train_word2bits(corpus, size=200, bitlevel=0, epochs=args.epochs, workers=args.workers, progress=False)
    print(f"word2bits bitlevel 0 200-d:        {ours.words_per_second:12,.0f} raw words/s ({ours.seconds:.1f} s)")
    print(f"ratio ours/gensim (200-d, 32 bit): {ours.words_per_second / gensim_wps:12.2f}")
    if not args.skip_1000d:
        ours1 = train_word2bits(corpus, size=1000, bitlevel=1, epochs=args.epochs, workers=args.workers,
                                progress=False)
        print(f"word2bits bitlevel 1 1000-d:       {ours1.words_per_second:12,.0f} raw words/s ({ours1.seconds:.1f} s)")

    if args.quality:
        words = read_words(args.text, args.quality_words)
        corpus = articles(words)
        print(f"quality corpus: {len(words):,} words, {args.quality_epochs} epochs")
        kv_gensim, wps, s = train_gensim(corpus, size=200, epochs=args.quality_epochs, workers=args.workers)
        print(f"gensim 200-d:          analogy {analogy(kv_gensim):.4f}  ({wps:,.0f} raw words/s, {s:.0f} s)")
        r = train_word2bits(corpus, size=200, bitlevel=0, epochs=args.quality_epochs, workers=args.workers)
        print(f"word2bits 0-bit 200-d: analogy {analogy(r.vectors):.4f}  ({r.words_per_second:,.0f} raw words/s, "
              f"{r.seconds:.0f} s; loss per epoch {[round(x, 4) for x in r.loss_per_epoch]})")
        r = train_word2bits(corpus, size=1000, bitlevel=1, epochs=args.quality_epochs, workers=args.workers)
        print(f"word2bits 1-bit 1000-d: analogy {analogy(r.vectors):.4f}  ({r.words_per_second:,.0f} raw words/s, "
              f"{r.seconds:.0f} s)")


if __name__ == "__main__":
    main()
