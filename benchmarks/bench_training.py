"""Training speed and quality of our Word2Bits CBOW trainer against gensim's Word2Vec (CBOW) and against the original
Word2Bits C++ tool, same corpus, same threads, same run.

    .venv/bin/python benchmarks/bench_training.py [--words 3300000] [--workers 2] [--epochs 1] [--skip-original]
                                                  [--quality]

Corpus: the project's vendored Wikipedia corpus (``data/wikipedia``), tokenized as in the paper, one document per
article, cut into pieces of 1,000 words for both trainers (gensim truncates longer sentences at 10,000 words). Settings
as in the paper: window 10, negative 24, sample 1e-4, min_count 5, alpha 0.05 (gensim: sg=0, cbow_mean=1, hs=0).

The original tool (``third_party/word2bits/``, compiled by :func:`regemb_utils.embeddings.original.build_word2bits`
with its Makefile's flags, once, into the artifact cache's ``tools`` folder) is trained on the same pieces (one per
line, its sentence end) with the same flags and threads, for the 200-d 32-bit and the 1000-d 1-bit model; without a
C++ compiler the output says so and goes on.

Printed speeds are *raw* words per second: corpus words read per second of training (before sub-sampling; gensim's
``raw_word_count``), vocabulary building excluded for all three (the tool's training is timed from its
``Starting epoch: 0`` line to its last ``Epoch Loss`` line, read as it prints them, so that its vocabulary pass,
its 1e8-entry table of negatives and the saving of the vectors are not counted).

With ``--quality`` gensim and ours (200-d, bit level 0) are also trained with the paper profile's settings (10 epochs)
on the whole corpus, and the analogy accuracy on gensim's questions-words.txt (restrict_vocab=30000, as chapter 2) is
printed for both.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPOSITORY))

from regemb_utils.embeddings.original import ToolUnavailable, build_word2bits, write_token_stream  # noqa: E402
from regemb_utils.infra.cache import ArtifactCache  # noqa: E402
from regemb_utils.text.corpus import WikipediaCorpus  # noqa: E402
from regemb_utils.embeddings.trained import word_benchmarks  # noqa: E402
from regemb_utils.embeddings.word2bits import train_word2bits  # noqa: E402

PIECE = 1000


def corpus_pieces(n_words: int | None) -> list[list[str]]:
    """The first ``n_words`` words of the corpus (all if None), article by article, in pieces of at most 1,000."""
    pieces, total = [], 0
    for article in WikipediaCorpus():
        for start in range(0, len(article), PIECE):
            piece = article[start : start + PIECE]
            if n_words is not None:
                piece = piece[: n_words - total]
            if piece:
                pieces.append(piece)
                total += len(piece)
        if n_words is not None and total >= n_words:
            break
    return pieces


def train_gensim(
    corpus, *, size, epochs, workers, window=10, negative=24, sample=1e-4, min_count=5, alpha=0.05, seed=1
):
    from gensim.models import Word2Vec

    model = Word2Vec(
        vector_size=size,
        window=window,
        negative=negative,
        sample=sample,
        min_count=min_count,
        alpha=alpha,
        min_alpha=alpha * 1e-4,
        sg=0,
        cbow_mean=1,
        hs=0,
        workers=workers,
        seed=seed,
    )
    model.build_vocab(corpus)
    start = time.perf_counter()
    _, raw = model.train(corpus, total_examples=model.corpus_count, epochs=epochs)
    seconds = time.perf_counter() - start
    return model.wv, raw / seconds, seconds


def train_original(
    binary, stream, *, size, bitlevel, epochs, workers, window=10, negative=24, sample=1e-4, min_count=5, alpha=0.05
) -> float:
    """The original tool trained on ``stream``: its training's wall seconds (first epoch's start to last epoch's end,
    timed as its lines arrive; ``stdbuf`` makes its output line-buffered)."""
    with tempfile.TemporaryDirectory() as folder:
        flags = dict(
            size=size,
            bitlevel=bitlevel,
            window=window,
            negative=negative,
            sample=sample,
            iter=epochs,
            threads=workers,
            alpha=alpha,
            binary=1,
            debug=0,
        )
        command = [
            "stdbuf",
            "-oL",
            str(binary),
            "-train",
            str(stream),
            "-output",
            str(Path(folder) / "vectors.bin"),
            "-min-count",
            str(min_count),
            *(part for name, value in flags.items() for part in (f"-{name}", repr(value))),
        ]
        start = end = None
        with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as tool:
            for line in tool.stdout:
                if line.startswith("Starting epoch: 0"):
                    start = time.perf_counter()
                elif line.startswith("Epoch Loss"):
                    end = time.perf_counter()
        if tool.returncode != 0 or start is None or end is None:
            raise RuntimeError(f"the original Word2Bits tool failed (exit status {tool.returncode})")
    return end - start


def analogy(kv) -> float:
    return word_benchmarks(kv)["analogy accuracy"]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--words", type=int, default=3_300_000, help="corpus slice in words (default 3,300,000)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--skip-speed", action="store_true", help="only the --quality comparison")
    parser.add_argument("--skip-1000d", action="store_true", help="skip the 1000-d 1-bit speed run")
    parser.add_argument("--skip-original", action="store_true", help="do not train the original C++ tool")
    parser.add_argument("--quality", action="store_true", help="also compare analogy accuracy at the paper settings")
    parser.add_argument("--quality-epochs", type=int, default=10)
    args = parser.parse_args(argv)

    if not args.skip_speed:
        corpus = corpus_pieces(args.words)
        words = sum(map(len, corpus))
        print(
            f"corpus: {words:,} words in {len(corpus):,} pieces; workers={args.workers}, epochs={args.epochs}; "
            f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (wall-clock speeds: compare the ratios)"
        )
        _, gensim_wps, gensim_s = train_gensim(corpus, size=200, epochs=args.epochs, workers=args.workers)
        print(f"gensim Word2Vec CBOW 200-d:            {gensim_wps:12,.0f} raw words/s ({gensim_s:.1f} s)")
        models = [(200, 0)] + ([] if args.skip_1000d else [(1000, 1)])
        ours = {}
        for size, bitlevel in models:
            ours[size, bitlevel] = train_word2bits(
                corpus, size=size, bitlevel=bitlevel, epochs=args.epochs, workers=args.workers, progress=False
            )
            result = ours[size, bitlevel]
            print(
                f"word2bits bitlevel {bitlevel} {size}-d:{'':{11 - len(str(size))}}{result.words_per_second:12,.0f} "
                f"raw words/s ({result.seconds:.1f} s)"
            )
        print(f"ratio ours/gensim (200-d, 32 bit):     {ours[200, 0].words_per_second / gensim_wps:12.2f}")
        binary = None
        if not args.skip_original:
            try:
                binary = build_word2bits(ArtifactCache().root / "tools")
            except ToolUnavailable as why:
                print(f"original Word2Bits tool: not run ({why})")
            if binary is not None and shutil.which("stdbuf") is None:
                print("original Word2Bits tool: not run (no stdbuf to read its epoch lines as they come)")
                binary = None
        if binary is not None:
            with tempfile.TemporaryDirectory() as folder:
                stream = Path(folder) / "corpus.txt"
                write_token_stream(corpus, stream)
                for size, bitlevel in models:
                    result = ours[size, bitlevel]
                    seconds = train_original(
                        binary, stream, size=size, bitlevel=bitlevel, epochs=args.epochs, workers=args.workers
                    )
                    tool_wps = args.epochs * result.training_words / seconds
                    print(
                        f"original Word2Bits (C++) bitlevel {bitlevel} {size}-d:{'':{5 - len(str(size))}}"
                        f"{tool_wps:12,.0f} raw words/s ({seconds:.1f} s)"
                    )
                    print(
                        f"ratio ours/original ({size}-d, {32 if bitlevel == 0 else bitlevel} bit):"
                        f"{'':{8 - len(str(size)) - len(str(32 if bitlevel == 0 else bitlevel))}}"
                        f"{result.words_per_second / tool_wps:12.2f}"
                    )

    if args.quality:
        corpus = corpus_pieces(None)
        print(f"quality corpus: the whole corpus, {sum(map(len, corpus)):,} words, {args.quality_epochs} epochs")
        kv_gensim, wps, s = train_gensim(corpus, size=200, epochs=args.quality_epochs, workers=args.workers)
        gensim_accuracy = analogy(kv_gensim)
        print(f"gensim 200-d:          analogy {gensim_accuracy:.4f}  ({wps:,.0f} raw words/s, {s:.0f} s)")
        r = train_word2bits(corpus, size=200, bitlevel=0, epochs=args.quality_epochs, workers=args.workers)
        ours_accuracy = analogy(r.vectors)
        print(
            f"word2bits 0-bit 200-d: analogy {ours_accuracy:.4f}  ({r.words_per_second:,.0f} raw words/s, "
            f"{r.seconds:.0f} s)"
        )
        print(f"difference ours - gensim: {100 * (ours_accuracy - gensim_accuracy):+.1f} points (target within 2)")


if __name__ == "__main__":
    main()
