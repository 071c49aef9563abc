"""A CBOW trainer with Word2Bits' quantization (Lam, 2018), faithful to its update rule, compiled with numba.

This reproduces the training that the paper ran with ``agnusmaximus/Word2Bits`` (``src/word2bits.cpp``, itself
word2vec.c with quantization added), with ``-sample 1e-4 -window 10 -negative 24 -iter 10 -min-count 5 -alpha 0.05``
and ``-bitlevel 0 -size 200`` or ``-bitlevel 1 -size 1000``.

What one CBOW step does (:func:`cbow_update`, the same compiled function that the training kernel calls):

* the context vector ``h`` is the **average of the quantized input rows** ``quantize(u[c])``;
* the target (label 1) and each of the ``negative`` sampled words (label 0; a negative equal to the target is
  skipped, as in word2vec) are scored by ``f = h . quantize(v[w])``;
* ``g = (label - sigmoid(f)) * alpha``, with word2vec's clipping: ``f > 6`` gives ``g = (label - 1) * alpha`` and
  ``f < -6`` gives ``g = label * alpha``. (Word2Bits reads sigmoid from word2vec's 1000-entry ``expTable``; we
  compute it exactly in float32, which differs from the table by at most its bin width.)
* the input-side error accumulates ``g * quantize(v[w])`` with ``v[w]`` *before* its update, then the
  **full-precision** ``v[w] += g * h`` (straight-through estimator);
* after all targets, every context word's full-precision ``u[c] += error`` (not divided by the context size; a word
  that occurs twice in the context is updated twice).

The quantization function is Word2Bits' ``quantize(num, bitlevel)``:

* bit level 0: identity;
* bit level 1: ``sign(x) / 3``, where ``x >= 0`` maps to ``+1/3`` (so 0.0 and -0.0 both give +1/3);
* bit level 2: ``sign(x) * (0.25 if |x| <= 0.5 else 0.75)`` with ``x >= 0`` counted as positive, i.e.
  ``x > 0.5 -> 0.75``, ``0 <= x <= 0.5 -> 0.25``, ``-0.5 <= x < 0 -> -0.25``, ``x < -0.5 -> -0.75``.
  Note the boundary: Word2Bits tests ``num >= 0 && num <= .5`` on ``|x|``, so exactly ``+-0.5`` maps to ``+-0.25``
  (not ``+-0.75``). This matters only for values that are exactly +-0.5.

Word2Bits also accepts bit levels >= 4 (uniform levels); the paper uses only 0 and 1, and this module allows
0, 1 and 2.

Everything else follows word2vec.c / Word2Bits:

* vocabulary: words with count >= ``min_count``, sorted by descending count; ties are broken by first occurrence in
  the corpus (as gensim does; word2vec's ``qsort`` leaves them unspecified). Unlike word2vec there is no ``</s>``
  entry: our input is already split into articles, and ``</s>`` is never trained in word2vec anyway (its vector is
  the random initialisation), so the vocabulary is one word smaller than Word2Bits' (60,237 instead of 60,238 on
  fil8).
* initialisation: both ``u`` and ``v`` are ``((r & 0xFFFF) / 65536) - 0.5`` from word2vec's linear congruential
  generator ``r = r * 25214903917 + 11`` started at ``seed`` (Word2Bits: seed 1; ``v`` first, then ``u``), so for
  ``seed=1`` the initial matrices equal Word2Bits' bit for bit. Uniform in [-0.5, 0.5) on a grid of 1/65536.
* out-of-vocabulary words are dropped before anything else (they neither count nor break a context);
* sub-sampling keeps a word with probability ``(sqrt(f / (s T)) + 1) (s T) / f`` (f = its count, T = number of
  training words, s = ``sample``), drawn per occurrence and per epoch; ``sample=0`` disables it;
* sentences: one article, cut into pieces of at most ``max_piece`` (1000) words **after** sub-sampling, exactly as
  word2vec fills its ``sen[MAX_SENTENCE_LENGTH]`` buffer; a context never crosses a piece boundary;
* the effective window ``b`` is uniform in 1 to ``window`` per target word (``window - (r % window)``);
* negatives are drawn from the unigram^0.75 distribution with a Walker/Vose alias table (two LCG steps per draw:
  a uniform column ``(r >> 16) % V``, then a 32-bit coin against the column's threshold), exact up to 2^-32 per
  column. word2vec/Word2Bits use a 1e8-entry lookup table (an approximation to 1e-8 per word that costs a cache miss
  per draw) and gensim a binary search of the cumulative table (exact, but ~log2 V unpredictable branches per draw);
  the alias table gives the same distribution and is the fastest of the three.
* the learning rate decays linearly, ``alpha * (1 - done / (epochs * T + 1))``, floored at ``alpha * 1e-4``, where
  ``done`` counts words read (before sub-sampling) by all threads together; it is updated every 10,000 words per
  thread, as in word2vec.
* threads: the corpus is one int32 array of word ids with article offsets, split into ``workers`` contiguous ranges
  of about equal numbers of words; each thread runs the compiled kernel (``nogil``) on its range and updates the
  shared ``u`` and ``v`` without locks (Hogwild, as word2vec). Each thread has its own random generator, seeded from
  (``seed``, epoch, thread). With ``workers=1`` the result is bit-identical from run to run.
* the saved vector of each word is ``quantize(u + v, bitlevel)``.

Everything is computed in float32 (the loss sums are float64).

Speed: the training runs ``_train_range_fast``, declared ``same_result_as`` the plain kernel ``_train_range``
(which the module keeps as the definition of the result, so that the trained models keep their artifact key), and the
tests check that both give the same vectors and losses bit for bit. It does the same arithmetic in the same order and
only moves memory earlier: a word's window and negatives are drawn one word ahead (the same draws in the same order)
so that its rows of ``v`` are fetched into the cache while the previous word trains, the next negative's row is
fetched while one is scored, ``v[target]``'s two updates share one pass, and at bit level 1 the quantized rows are
computed on the fly instead of being written and read back. Each dot product keeps the reference's loop (a sum of
``h[k] * q[k]``), which the compiler vectorizes into the same partial sums (``fastmath`` reassociation), so that the
scores are equal too; the tests check it on the machine they run on.

The reported loss is the mean of ``-log sigmoid(score)`` terms (``score = f`` for the target and ``-f`` for a
negative), i.e. the negative-sampling objective per scored (word, target) pair.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from ..infra.keys import same_result_as
from ..infra.progress import progress_bar

__all__ = [
    "TrainingResult",
    "Vocabulary",
    "build_vocabulary",
    "cbow_update",
    "load_vectors",
    "quantize_array",
    "save_vectors",
    "train_word2bits",
]

ALLOWED_BITLEVELS = (0, 1, 2)
MAX_EXP = 6.0
ONE_THIRD = np.float32(1.0) / np.float32(3.0)
ALPHA_UPDATE_EVERY = 10_000  # words per thread between learning-rate updates (word2vec)

_FASTMATH = {"contract", "reassoc", "nsz", "arcp", "afn"}  # not nnan/ninf: keep IEEE comparisons sound
_JIT = dict(nogil=True, cache=True, error_model="numpy")


def check_bitlevel(bitlevel) -> int:
    """A bit level as an int, or a ValueError that names the allowed ones.

    Parameters
    ----------
    bitlevel : int
        0, 1 or 2.

    Returns
    -------
    int
        The bit level.

    Examples
    --------
    >>> check_bitlevel(np.int64(1))
    1
    """
    if (
        isinstance(bitlevel, bool)
        or not isinstance(bitlevel, (int, np.integer))
        or int(bitlevel) not in ALLOWED_BITLEVELS
    ):
        raise ValueError(
            f"unknown bit level {bitlevel!r}; allowed bit levels are {', '.join(map(str, ALLOWED_BITLEVELS))}"
        )
    return int(bitlevel)


# --------------------------------------------------------------------------------------------------------------------
# quantization
# --------------------------------------------------------------------------------------------------------------------


@njit(inline="always", **_JIT)
def _quantize(x, bitlevel):
    """Word2Bits' quantize() for one float32 value."""
    if bitlevel == 0:
        return x
    third = np.float32(1.0) / np.float32(3.0)
    if bitlevel == 1:
        return third if x >= np.float32(0.0) else -third
    # bitlevel 2: |x| <= 0.5 -> 0.25, else 0.75, sign taken with x >= 0 as positive
    ax = abs(x)
    mag = np.float32(0.25) if ax <= np.float32(0.5) else np.float32(0.75)
    return mag if x >= np.float32(0.0) else -mag


def quantize_array(x: np.ndarray, bitlevel: int) -> np.ndarray:
    """Word2Bits' quantize() applied to every element of a float32 array (a new array).

    Parameters
    ----------
    x : numpy.ndarray
        float32 values.
    bitlevel : int
        0 (no quantization), 1 or 2 bits.

    Returns
    -------
    numpy.ndarray
        The quantized values.

    Examples
    --------
    >>> x = np.array([0.2, -0.7, 0.01], dtype=np.float32)
    >>> quantize_array(x, 1).astype(float).round(4).tolist(), quantize_array(x, 2).tolist()
    ([0.3333, -0.3333, 0.3333], [0.25, -0.75, 0.25])
    """
    bitlevel = check_bitlevel(bitlevel)
    x = np.asarray(x, dtype=np.float32)
    if bitlevel == 0:
        return x.copy()
    positive = x >= 0
    if bitlevel == 1:
        return np.where(positive, ONE_THIRD, -ONE_THIRD).astype(np.float32)
    mag = np.where(np.abs(x) <= np.float32(0.5), np.float32(0.25), np.float32(0.75)).astype(np.float32)
    return np.where(positive, mag, -mag).astype(np.float32)


# --------------------------------------------------------------------------------------------------------------------
# one CBOW step
# --------------------------------------------------------------------------------------------------------------------


@njit(inline="always", fastmath=_FASTMATH, **_JIT)
def _quantize_row(row, bitlevel, out):
    """out[:] = quantize(row) for bit levels 1 and 2, written as branch-free loops that vectorize."""
    size = row.shape[0]
    third = np.float32(1.0) / np.float32(3.0)
    if bitlevel == 1:
        for k in range(size):
            out[k] = third if row[k] >= np.float32(0.0) else -third
    else:
        for k in range(size):
            x = row[k]
            mag = np.float32(0.25) if abs(x) <= np.float32(0.5) else np.float32(0.75)
            out[k] = mag if x >= np.float32(0.0) else -mag


@njit(fastmath=_FASTMATH, **_JIT)
def _cbow_step(u, v, ctx, n_ctx, word, negs, n_neg, alpha, bitlevel, neu1, neu1e, qrow, loss_out):
    """One CBOW + negative-sampling update, in place. Returns the number of scored targets.

    ``loss_out[0]`` is increased by the sum of -log sigmoid(score) over the scored targets.
    ``neu1``, ``neu1e`` and ``qrow`` are scratch float32 vectors of length ``size``.
    """
    size = u.shape[1]
    for k in range(size):
        neu1[k] = np.float32(0.0)
        neu1e[k] = np.float32(0.0)
    # context average of quantized input rows
    for j in range(n_ctx):
        row = u[ctx[j]]
        if bitlevel == 0:
            for k in range(size):
                neu1[k] += row[k]
        else:
            _quantize_row(row, bitlevel, qrow)
            for k in range(size):
                neu1[k] += qrow[k]
    inv = np.float32(1.0) / np.float32(n_ctx)
    for k in range(size):
        neu1[k] *= inv
    scored = 0
    loss = 0.0
    for d in range(n_neg + 1):
        if d == 0:
            target = word
            label = np.float32(1.0)
        else:
            target = negs[d - 1]
            if target == word:
                continue
            label = np.float32(0.0)
        row = v[target]
        if bitlevel == 0:
            q = row
        else:
            _quantize_row(row, bitlevel, qrow)
            q = qrow
        f = np.float32(0.0)
        for k in range(size):
            f += neu1[k] * q[k]
        # loss: -log sigmoid(z), z = f for the target, -f for a negative
        if f > np.float32(MAX_EXP) or f < np.float32(-MAX_EXP):
            if f > np.float32(MAX_EXP):
                g = (label - np.float32(1.0)) * alpha
            else:
                g = label * alpha
            z = float(f) if d == 0 else -float(f)  # numerically stable form
            if z > 0.0:
                loss += math.log1p(math.exp(-z))
            else:
                loss += math.log1p(math.exp(z)) - z
        else:
            sig = np.float32(1.0) / (np.float32(1.0) + np.exp(-f))
            g = (label - sig) * alpha
            loss -= math.log(float(sig) if d == 0 else 1.0 - float(sig))
        scored += 1
        for k in range(size):
            neu1e[k] += g * q[k]  # q is v[target] (or its quantization) before the update below
        for k in range(size):
            row[k] += g * neu1[k]
    for j in range(n_ctx):
        row = u[ctx[j]]
        for k in range(size):
            row[k] += neu1e[k]
    loss_out[0] += loss
    return scored


def _prefetcher(locality: int):
    """A compiled ``prefetch(matrix, i, j)``: a hint that brings the cache line of ``matrix[i, j]`` into the cache
    (``locality`` 3: every level, 2: L2 and beyond). It changes no value."""

    @intrinsic
    def prefetch(typingctx, matrix, i, j):
        def codegen(context, builder, signature, args):
            matrix_type = signature.args[0]
            array = context.make_array(matrix_type)(context, builder, args[0])
            index = [context.cast(builder, a, t, types.intp) for a, t in zip(args[1:], signature.args[1:])]
            pointer = cgutils.get_item_pointer(context, builder, matrix_type, array, index, wraparound=False)
            i32 = ir.IntType(32)
            function = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), [pointer.type, i32, i32, i32]), "llvm.prefetch.p0"
            )
            builder.call(function, [pointer, i32(0), i32(locality), i32(1)])  # read, locality, data cache
            return context.get_dummy_value()

        return types.void(matrix, i, j), codegen

    return prefetch


_prefetch_l1 = _prefetcher(3)
_prefetch_l2 = _prefetcher(2)
_LINE = 16  # float32 values per 64-byte cache line


@njit(fastmath=_FASTMATH, **_JIT)
@same_result_as(_cbow_step)
def _cbow_step_fast(
    u, v, ctx, n_ctx, word, negs, n_neg, alpha, bitlevel, neu1, neu1e, qrow, scores, loss_out, ahead, n_ahead
):
    """:func:`_cbow_step` with the same arithmetic in the same order, faster: the next scored word's row is fetched
    while this one is scored; ``v[target]``'s two updates share one pass; at bit level 1 the context sum, the score
    and the error quantize on the fly; the loss terms, which nothing else waits for, are summed (in the same order)
    after the updates. ``scores`` is a float32 scratch vector of length ``2 * (n_neg + 1)``; the rows of
    ``ahead[:n_ahead]`` (the next word's negatives) are fetched into the L2 cache, one per negative scored here."""
    size = u.shape[1]
    third = np.float32(1.0) / np.float32(3.0)
    for k in range(size):
        neu1[k] = np.float32(0.0)
        neu1e[k] = np.float32(0.0)
    for j in range(n_ctx):
        row = u[ctx[j]]
        if bitlevel == 0:
            for k in range(size):
                neu1[k] += row[k]
        elif bitlevel == 1:
            for k in range(size):
                neu1[k] += third if row[k] >= np.float32(0.0) else -third
        else:
            _quantize_row(row, bitlevel, qrow)
            for k in range(size):
                neu1[k] += qrow[k]
    inv = np.float32(1.0) / np.float32(n_ctx)
    for k in range(size):
        neu1[k] *= inv
    fs = scores[: n_neg + 1]
    sigs = scores[n_neg + 1 :]
    scored = 0
    for d in range(n_neg + 1):
        if d == 0:
            target = word
            label = np.float32(1.0)
        else:
            target = negs[d - 1]
            if target == word:
                continue
            label = np.float32(0.0)
        row = v[target]
        if d < n_neg:
            following = negs[d]
            for k in range(0, size, _LINE):
                _prefetch_l1(v, following, k)
        if d < n_ahead:
            following = ahead[d]
            for k in range(0, size, _LINE):
                _prefetch_l2(v, following, k)
        f = np.float32(0.0)
        if bitlevel == 0:
            for k in range(size):
                f += neu1[k] * row[k]
        elif bitlevel == 1:
            for k in range(size):
                f += neu1[k] * (third if row[k] >= np.float32(0.0) else -third)
        else:
            _quantize_row(row, bitlevel, qrow)
            for k in range(size):
                f += neu1[k] * qrow[k]
        fs[scored] = f
        if f > np.float32(MAX_EXP) or f < np.float32(-MAX_EXP):
            if f > np.float32(MAX_EXP):
                g = (label - np.float32(1.0)) * alpha
            else:
                g = label * alpha
        else:
            sig = np.float32(1.0) / (np.float32(1.0) + np.exp(-f))
            g = (label - sig) * alpha
            sigs[scored] = sig
        scored += 1
        if bitlevel == 0:
            for k in range(size):
                x = row[k]
                neu1e[k] += g * x  # v[target] before its update
                row[k] = x + g * neu1[k]
        elif bitlevel == 1:
            for k in range(size):
                x = row[k]
                neu1e[k] += g * (third if x >= np.float32(0.0) else -third)
                row[k] = x + g * neu1[k]
        else:
            for k in range(size):
                neu1e[k] += g * qrow[k]
                row[k] += g * neu1[k]
    for j in range(n_ctx):
        row = u[ctx[j]]
        for k in range(size):
            row[k] += neu1e[k]
    # loss: -log sigmoid(z), z = f for the target (always the first scored), -f for a negative
    loss = 0.0
    for i in range(scored):
        f = fs[i]
        if f > np.float32(MAX_EXP) or f < np.float32(-MAX_EXP):
            z = float(f) if i == 0 else -float(f)  # numerically stable form
            if z > 0.0:
                loss += math.log1p(math.exp(-z))
            else:
                loss += math.log1p(math.exp(z)) - z
        else:
            sig = sigs[i]
            loss -= math.log(float(sig) if i == 0 else 1.0 - float(sig))
    loss_out[0] += loss
    return scored


def cbow_update(
    u: np.ndarray,
    v: np.ndarray,
    context: Sequence[int],
    target: int,
    negatives: Sequence[int],
    alpha: float,
    bitlevel: int,
) -> tuple[float, int]:
    """Perform exactly one Word2Bits CBOW update step on ``u`` and ``v`` in place (the compiled step).

    ``u`` and ``v`` are C-contiguous float32 (vocabulary, size) matrices, ``context`` the ids of the context words
    (at least one), ``target`` the id of the centre word and ``negatives`` the ids of the sampled negative words.
    Returns (sum of -log sigmoid(score) over the scored targets, number of scored targets).

    Parameters
    ----------
    u, v : numpy.ndarray
        The input and output vectors, changed in place.
    context : sequence of int
        The context words' ids.
    target : int
        The centre word's id.
    negatives : sequence of int
        The negative words' ids.
    alpha : float
        The learning rate.
    bitlevel : int
        0 (full precision) or 1 (1-bit quantization in the forward pass).

    Returns
    -------
    (float, int)
        The loss and the number of scored targets.

    Raises
    ------
    ValueError
        For arrays of the wrong type or shape, an empty context or a word id out of range.

    Examples
    --------
    >>> u, v = np.zeros((3, 2), np.float32), np.zeros((3, 2), np.float32)
    >>> loss, scored = cbow_update(u, v, [0, 1], 2, [1], alpha=0.05, bitlevel=0)  # every score 0: 2 log 2
    >>> round(loss, 4), round(2 * math.log(2), 4), scored
    (1.3863, 1.3863, 2)
    """
    bitlevel = check_bitlevel(bitlevel)
    for name, m in (("u", u), ("v", v)):
        if not (
            isinstance(m, np.ndarray)
            and m.dtype == np.float32
            and m.ndim == 2
            and m.flags.c_contiguous
            and m.flags.writeable
        ):
            raise ValueError(f"{name} must be a writeable C-contiguous 2-d float32 array")
    if u.shape != v.shape:
        raise ValueError(f"u and v must have the same shape, got {u.shape} and {v.shape}")
    ctx = np.ascontiguousarray(context, dtype=np.int32)
    negs = np.ascontiguousarray(negatives, dtype=np.int32).reshape(-1)
    if ctx.ndim != 1 or len(ctx) == 0:
        raise ValueError("context must be a non-empty 1-d sequence of word ids")
    n = u.shape[0]
    for ids in (ctx, negs, np.array([target])):
        if len(ids) and (ids.min() < 0 or ids.max() >= n):
            raise ValueError(f"word ids must lie in [0, {n})")
    size = u.shape[1]
    neu1 = np.zeros(size, dtype=np.float32)
    neu1e = np.zeros(size, dtype=np.float32)
    qrow = np.zeros(size, dtype=np.float32)
    scores = np.zeros(2 * (len(negs) + 1), dtype=np.float32)
    loss = np.zeros(1, dtype=np.float64)
    scored = _cbow_step_fast(
        u,
        v,
        ctx,
        len(ctx),
        np.int32(target),
        negs,
        len(negs),
        np.float32(alpha),
        np.int64(bitlevel),
        neu1,
        neu1e,
        qrow,
        scores,
        loss,
        negs,
        0,
    )
    return float(loss[0]), int(scored)


# --------------------------------------------------------------------------------------------------------------------
# training kernel
# --------------------------------------------------------------------------------------------------------------------


@njit(**_JIT)
def _init_matrices(u, v, seed):
    """word2vec's LCG, as Word2Bits' InitNet: v first, then u, each ((r & 0xFFFF) / 65536) - 0.5."""
    r = np.uint64(seed)
    mul = np.uint64(25214903917)
    inc = np.uint64(11)
    mask = np.uint64(0xFFFF)
    n, size = v.shape
    for a in range(n):
        for b in range(size):
            r = r * mul + inc
            v[a, b] = np.float32(np.float32(r & mask) / np.float32(65536.0)) - np.float32(0.5)
    for a in range(n):
        for b in range(size):
            r = r * mul + inc
            u[a, b] = np.float32(np.float32(r & mask) / np.float32(65536.0)) - np.float32(0.5)


@njit(**_JIT)
def _alias_setup(weights, threshold, alias):
    """Walker/Vose alias table for the distribution proportional to ``weights`` (float64): a draw picks a column i
    uniformly and keeps i if a 32-bit uniform number is below ``threshold[i]``, else takes ``alias[i]``."""
    n = weights.shape[0]
    scaled = weights * (n / weights.sum())
    small = np.empty(n, dtype=np.int64)
    large = np.empty(n, dtype=np.int64)
    n_small = 0
    n_large = 0
    for i in range(n):
        alias[i] = i
        if scaled[i] < 1.0:
            small[n_small] = i
            n_small += 1
        else:
            large[n_large] = i
            n_large += 1
    while n_small > 0 and n_large > 0:
        n_small -= 1
        s = small[n_small]
        n_large -= 1
        big = large[n_large]
        threshold[s] = np.uint64(min(scaled[s] * 4294967296.0, 4294967295.0))
        alias[s] = big
        scaled[big] = (scaled[big] + scaled[s]) - 1.0
        if scaled[big] < 1.0:
            small[n_small] = big
            n_small += 1
        else:
            large[n_large] = big
            n_large += 1
    for k in range(n_large):  # left over (numerically ~1): always keep
        threshold[large[k]] = np.uint64(4294967296)
    for k in range(n_small):
        threshold[small[k]] = np.uint64(4294967296)


@njit(inline="always", **_JIT)
def _sample_negative(threshold, alias, r):
    """One draw from the alias table; advances the LCG twice. Returns (word id, new r)."""
    mul = np.uint64(25214903917)
    inc = np.uint64(11)
    r = r * mul + inc
    i = np.int64((r >> np.uint64(16)) % np.uint64(threshold.shape[0]))
    r = r * mul + inc
    coin = (r >> np.uint64(16)) & np.uint64(0xFFFFFFFF)
    if coin < threshold[i]:
        return i, r
    return np.int64(alias[i]), r


@njit(**_JIT)
def _draw_negatives(threshold, alias, n, seed):
    """n draws from the alias table (for tests)."""
    out = np.empty(n, dtype=np.int64)
    r = np.uint64(seed)
    for k in range(n):
        out[k], r = _sample_negative(threshold, alias, r)
    return out


@njit(**_JIT)
def _train_range(
    u,
    v,
    corpus,
    offsets,
    a_start,
    a_stop,
    keep,
    threshold,
    alias,
    window,
    negative,
    max_piece,
    bitlevel,
    start_alpha,
    total_words,
    done,
    loss_acc,
    thread,
    seed,
):
    """Train one epoch over articles [a_start, a_stop) of ``corpus``; the shared ``done[thread]`` counts words read
    and ``loss_acc[thread, 0/1]`` the summed loss and number of scored targets (both updated as it goes)."""
    size = u.shape[1]
    neu1 = np.zeros(size, dtype=np.float32)
    neu1e = np.zeros(size, dtype=np.float32)
    qrow = np.zeros(size, dtype=np.float32)
    sen = np.empty(max_piece, dtype=np.int32)
    ctx = np.empty(2 * window, dtype=np.int32)
    negs = np.empty(negative, dtype=np.int32)
    loss_buf = np.zeros(1, dtype=np.float64)
    r = np.uint64(seed)
    mul = np.uint64(25214903917)
    inc = np.uint64(11)
    mask = np.uint64(0xFFFF)
    uwindow = np.uint64(window)
    n_threads = done.shape[0]
    min_alpha = start_alpha * np.float32(1e-4)
    denom = np.float64(total_words) + 1.0

    # learning rate from the words read by all threads
    read_total = 0
    for t in range(n_threads):
        read_total += done[t]
    alpha = np.float32(start_alpha * (1.0 - read_total / denom))
    if alpha < min_alpha:
        alpha = min_alpha
    local = 0  # words read by this thread since the last report
    scored = 0

    for a in range(a_start, a_stop):
        pos = offsets[a]
        end = offsets[a + 1]
        while pos < end:
            # fill one piece of at most max_piece sub-sampled words
            length = 0
            while pos < end and length < max_piece:
                w = corpus[pos]
                pos += 1
                local += 1
                r = r * mul + inc
                if keep[w] < np.float32(r & mask) / np.float32(65536.0):
                    continue
                sen[length] = w
                length += 1
            # train on the piece
            for p in range(length):
                if local >= ALPHA_UPDATE_EVERY:
                    done[thread] += local
                    local = 0
                    read_total = 0
                    for t in range(n_threads):
                        read_total += done[t]
                    alpha = np.float32(start_alpha * (1.0 - read_total / denom))
                    if alpha < min_alpha:
                        alpha = min_alpha
                    loss_acc[thread, 0] += loss_buf[0]
                    loss_acc[thread, 1] += scored
                    loss_buf[0] = 0.0
                    scored = 0
                r = r * mul + inc
                b = np.int64(r % uwindow)  # effective window is window - b, in 1..window
                n_ctx = 0
                lo = p - window + b
                hi = p + window - b
                for c in range(lo, hi + 1):
                    if c == p or c < 0 or c >= length:
                        continue
                    ctx[n_ctx] = sen[c]
                    n_ctx += 1
                if n_ctx == 0:
                    continue
                for d in range(negative):
                    negs[d], r = _sample_negative(threshold, alias, r)
                scored += _cbow_step(
                    u, v, ctx, n_ctx, sen[p], negs, negative, alpha, bitlevel, neu1, neu1e, qrow, loss_buf
                )
    done[thread] += local
    loss_acc[thread, 0] += loss_buf[0]
    loss_acc[thread, 1] += scored


@njit(**_JIT)
@same_result_as(_train_range)
def _train_range_fast(
    u,
    v,
    corpus,
    offsets,
    a_start,
    a_stop,
    keep,
    threshold,
    alias,
    window,
    negative,
    max_piece,
    bitlevel,
    start_alpha,
    total_words,
    done,
    loss_acc,
    thread,
    seed,
):
    """:func:`_train_range` with the same random draws in the same order and the same updates, faster: a word's window
    and negatives are drawn before the previous word is trained (a piece of two words or more gives every word a
    context, so the draws do not depend on the training), and that word's rows are fetched meanwhile (its negatives'
    rows one per negative scored by :func:`_cbow_step_fast`, which makes each step)."""
    size = u.shape[1]
    neu1 = np.zeros(size, dtype=np.float32)
    neu1e = np.zeros(size, dtype=np.float32)
    qrow = np.zeros(size, dtype=np.float32)
    scores = np.zeros(2 * (negative + 1), dtype=np.float32)
    sen = np.empty(max_piece, dtype=np.int32)
    ctx = np.empty(2 * window, dtype=np.int32)
    drawn = np.empty((2, negative), dtype=np.int32)  # the negatives of word p in row p % 2
    loss_buf = np.zeros(1, dtype=np.float64)
    r = np.uint64(seed)
    mul = np.uint64(25214903917)
    inc = np.uint64(11)
    mask = np.uint64(0xFFFF)
    uwindow = np.uint64(window)
    n_threads = done.shape[0]
    min_alpha = start_alpha * np.float32(1e-4)
    denom = np.float64(total_words) + 1.0

    # learning rate from the words read by all threads
    read_total = 0
    for t in range(n_threads):
        read_total += done[t]
    alpha = np.float32(start_alpha * (1.0 - read_total / denom))
    if alpha < min_alpha:
        alpha = min_alpha
    local = 0  # words read by this thread since the last report
    scored = 0

    for a in range(a_start, a_stop):
        pos = offsets[a]
        end = offsets[a + 1]
        while pos < end:
            # fill one piece of at most max_piece sub-sampled words
            length = 0
            while pos < end and length < max_piece:
                w = corpus[pos]
                pos += 1
                local += 1
                r = r * mul + inc
                if keep[w] < np.float32(r & mask) / np.float32(65536.0):
                    continue
                sen[length] = w
                length += 1
            if length == 0:
                continue
            # the draws of word 0: its window, then (when it has a context) its negatives
            r = r * mul + inc
            b_next = np.int64(r % uwindow)
            if length > 1:
                for d in range(negative):
                    drawn[0, d], r = _sample_negative(threshold, alias, r)
            # train on the piece
            for p in range(length):
                if local >= ALPHA_UPDATE_EVERY:
                    done[thread] += local
                    local = 0
                    read_total = 0
                    for t in range(n_threads):
                        read_total += done[t]
                    alpha = np.float32(start_alpha * (1.0 - read_total / denom))
                    if alpha < min_alpha:
                        alpha = min_alpha
                    loss_acc[thread, 0] += loss_buf[0]
                    loss_acc[thread, 1] += scored
                    loss_buf[0] = 0.0
                    scored = 0
                b = b_next  # effective window is window - b, in 1..window
                if p + 1 < length:  # the draws of word p + 1, and its rows on their way to the cache
                    r = r * mul + inc
                    b_next = np.int64(r % uwindow)
                    following = drawn[(p + 1) % 2]
                    for d in range(negative):
                        following[d], r = _sample_negative(threshold, alias, r)
                    for k in range(0, size, _LINE):
                        _prefetch_l2(v, sen[p + 1], k)
                    if p + 1 + window < length:
                        for k in range(0, size, _LINE):
                            _prefetch_l2(u, sen[p + 1 + window], k)
                n_ctx = 0
                lo = p - window + b
                hi = p + window - b
                for c in range(lo, hi + 1):
                    if c == p or c < 0 or c >= length:
                        continue
                    ctx[n_ctx] = sen[c]
                    n_ctx += 1
                if n_ctx == 0:
                    continue
                scored += _cbow_step_fast(
                    u,
                    v,
                    ctx,
                    n_ctx,
                    sen[p],
                    drawn[p % 2],
                    negative,
                    alpha,
                    bitlevel,
                    neu1,
                    neu1e,
                    qrow,
                    scores,
                    loss_buf,
                    drawn[(p + 1) % 2],
                    negative if p + 1 < length else 0,
                )
    done[thread] += local
    loss_acc[thread, 0] += loss_buf[0]
    loss_acc[thread, 1] += scored


@njit(**_JIT)
def _sum_quantized(u, v, bitlevel, out):
    n, size = u.shape
    for a in range(n):
        for k in range(size):
            out[a, k] = _quantize(u[a, k] + v[a, k], bitlevel)


# --------------------------------------------------------------------------------------------------------------------
# vocabulary and corpus
# --------------------------------------------------------------------------------------------------------------------


@dataclass
class Vocabulary:
    """The vocabulary and the encoded corpus (:func:`build_vocabulary`).

    Parameters
    ----------
    words : list of str
        The kept words, by descending count.
    counts : numpy.ndarray
        Their counts (int64).
    corpus : numpy.ndarray
        int32 word ids of the whole corpus, out-of-vocabulary words dropped.
    offsets : numpy.ndarray
        Article a is ``corpus[offsets[a]:offsets[a + 1]]``.
    raw_words : int
        Tokens in the corpus, out-of-vocabulary ones included.

    Examples
    --------
    See :func:`build_vocabulary`.
    """

    words: list[str]
    counts: np.ndarray  # int64, descending
    corpus: np.ndarray  # int32 word ids of the whole corpus, out-of-vocabulary words dropped
    offsets: np.ndarray  # int64, article a is corpus[offsets[a]:offsets[a + 1]]
    raw_words: int  # tokens in the corpus, out-of-vocabulary ones included

    @property
    def training_words(self) -> int:
        return int(self.offsets[-1])


def build_vocabulary(corpus: Iterable[Sequence[str]], min_count: int = 5) -> Vocabulary:
    """One pass over the corpus: count words, keep those with count >= min_count in descending order of count
    (ties by first occurrence) and encode the corpus as int32 ids with article offsets.

    Parameters
    ----------
    corpus : iterable of sequence of str
        Token lists, one per article.
    min_count : int
        The fewest occurrences a kept word has.

    Returns
    -------
    Vocabulary
        The words, their counts and the encoded corpus.

    Examples
    --------
    >>> vocabulary = build_vocabulary([["a", "b", "a"], ["b", "a", "c"]], min_count=2)
    >>> vocabulary.words, vocabulary.counts.tolist(), vocabulary.corpus.tolist()
    (['a', 'b'], [3, 2], [0, 1, 0, 1, 0])
    """
    provisional: dict[str, int] = {}
    setdefault = provisional.setdefault
    chunks: list[np.ndarray] = []
    lengths: list[int] = []
    if isinstance(corpus, (str, bytes)):
        raise TypeError("corpus must be an iterable of token lists (one per article), not a string")
    for article in corpus:
        if isinstance(article, (str, bytes)):
            raise TypeError("each corpus item must be a list of tokens, not a string")
        ids = [setdefault(w, len(provisional)) for w in article]
        chunks.append(np.array(ids, dtype=np.int32))
        lengths.append(len(ids))
    raw_words = int(sum(lengths))
    if raw_words == 0:
        raise ValueError("the corpus is empty: it holds no tokens")
    ids = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int32)
    del chunks
    counts = np.bincount(ids, minlength=len(provisional)).astype(np.int64)
    order = np.argsort(-counts, kind="stable")  # descending count, ties by first occurrence
    order = order[counts[order] >= min_count]
    if len(order) == 0:
        raise ValueError(f"no word occurs at least min_count={min_count} times; the vocabulary would be empty")
    lookup = np.full(len(provisional), -1, dtype=np.int32)
    lookup[order] = np.arange(len(order), dtype=np.int32)
    mapped = lookup[ids]
    kept = mapped >= 0
    raw_offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=raw_offsets[1:])
    kept_cum = np.zeros(len(ids) + 1, dtype=np.int64)
    np.cumsum(kept, out=kept_cum[1:])
    offsets = kept_cum[raw_offsets]
    keys = list(provisional.keys())
    words = [keys[i] for i in order]
    return Vocabulary(
        words=words,
        counts=counts[order],
        corpus=np.ascontiguousarray(mapped[kept]),
        offsets=offsets,
        raw_words=raw_words,
    )


def _keep_probabilities(counts: np.ndarray, sample: float, train_words: int) -> np.ndarray:
    if sample <= 0:
        return np.full(len(counts), 2.0, dtype=np.float32)  # always kept
    st = np.float32(sample * train_words)
    c = counts.astype(np.float32)
    return ((np.sqrt(c / st) + np.float32(1.0)) * st / c).astype(np.float32)


def _negative_table(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Alias table (uint64 thresholds on a 32-bit scale, int32 aliases) for the unigram^0.75 distribution."""
    weights = counts.astype(np.float64) ** 0.75
    threshold = np.zeros(len(counts), dtype=np.uint64)
    alias = np.zeros(len(counts), dtype=np.int32)
    _alias_setup(weights, threshold, alias)
    return threshold, alias


def _split_articles(offsets: np.ndarray, parts: int) -> list[tuple[int, int]]:
    """Contiguous article ranges with about equal numbers of words."""
    n_articles = len(offsets) - 1
    total = offsets[-1]
    bounds = [0]
    for i in range(1, parts):
        bounds.append(int(np.searchsorted(offsets, total * i / parts)))
    bounds.append(n_articles)
    bounds = np.maximum.accumulate(np.clip(bounds, 0, n_articles))
    return [(int(bounds[i]), int(bounds[i + 1])) for i in range(parts)]


# --------------------------------------------------------------------------------------------------------------------
# training
# --------------------------------------------------------------------------------------------------------------------


@dataclass
class TrainingResult:
    """The trained vectors and what the training measured (:func:`train_word2bits`).

    Parameters
    ----------
    vectors : gensim.models.KeyedVectors
        ``quantize(u + v, bitlevel)``, words in vocabulary order, counts set.
    loss_per_epoch : list of float
        The mean loss of each epoch.
    words_per_second : float
        Words read (before sub-sampling) per second of training.
    seconds : float
        The training time, vocabulary building excluded.
    training_words : int
        In-vocabulary words in the corpus (one epoch).
    bitlevel : int
        The bit level.
    vocabulary_seconds : float
        The vocabulary's building time.
    params : dict
        The training settings.

    Examples
    --------
    See :func:`train_word2bits`.
    """

    vectors: "KeyedVectors"  # noqa: F821 - gensim.models.KeyedVectors
    loss_per_epoch: list[float]
    words_per_second: float  # raw: words read (before sub-sampling) per second of training
    seconds: float  # training time, vocabulary building excluded
    training_words: int  # in-vocabulary words in the corpus (one epoch)
    bitlevel: int = 0
    vocabulary_seconds: float = 0.0
    params: dict = field(default_factory=dict)


_WARMED_UP = False


def _warm_up() -> None:
    """Run the compiled kernels once on a tiny problem, so that compilation is not timed as training."""
    global _WARMED_UP
    if _WARMED_UP:
        return
    u = np.zeros((3, 4), dtype=np.float32)
    v = np.zeros((3, 4), dtype=np.float32)
    _init_matrices(u, v, 1)
    corpus = np.array([0, 1, 2, 0, 1], dtype=np.int32)
    offsets = np.array([0, 5], dtype=np.int64)
    keep = np.full(3, 2.0, dtype=np.float32)
    threshold, alias = _negative_table(np.array([3, 2, 1], dtype=np.int64))
    done = np.zeros(1, dtype=np.int64)
    loss_acc = np.zeros((1, 2), dtype=np.float64)
    for bitlevel in ALLOWED_BITLEVELS:
        _train_range_fast(
            u,
            v,
            corpus,
            offsets,
            0,
            1,
            keep,
            threshold,
            alias,
            2,
            2,
            1000,
            bitlevel,
            np.float32(0.05),
            5,
            done,
            loss_acc,
            0,
            np.uint64(1),
        )
    _sum_quantized(u, v, 0, np.empty_like(u))
    _WARMED_UP = True


@same_result_as(_warm_up)
def _compile_kernels() -> None:
    """Run the compiled kernels once on a tiny problem (compiling them, or loading them from numba's cache, the first
    time; about a millisecond after that), so that compilation is not timed as training.

    It stands for :func:`_warm_up`, which defines the ``word2bits`` key and is no longer called: the code hash reads
    ``_WARMED_UP`` by its value, so ``_warm_up`` moved the key after a process's first training (a model trained after
    another one was stored under a key that a fresh process does not look for). This one keeps no flag, so the key
    stays the one of a fresh process, under which the cached models are stored."""
    u = np.zeros((3, 4), dtype=np.float32)
    v = np.zeros((3, 4), dtype=np.float32)
    _init_matrices(u, v, 1)
    corpus = np.array([0, 1, 2, 0, 1], dtype=np.int32)
    offsets = np.array([0, 5], dtype=np.int64)
    keep = np.full(3, 2.0, dtype=np.float32)
    threshold, alias = _negative_table(np.array([3, 2, 1], dtype=np.int64))
    done = np.zeros(1, dtype=np.int64)
    loss_acc = np.zeros((1, 2), dtype=np.float64)
    for bitlevel in ALLOWED_BITLEVELS:
        _train_range_fast(
            u,
            v,
            corpus,
            offsets,
            0,
            1,
            keep,
            threshold,
            alias,
            2,
            2,
            1000,
            bitlevel,
            np.float32(0.05),
            5,
            done,
            loss_acc,
            0,
            np.uint64(1),
        )
    _sum_quantized(u, v, 0, np.empty_like(u))


def _check_int(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def train_word2bits(
    corpus: Iterable[Sequence[str]],
    *,
    size: int = 200,
    bitlevel: int = 0,
    window: int = 10,
    negative: int = 24,
    sample: float = 1e-4,
    epochs: int = 10,
    min_count: int = 5,
    alpha: float = 0.05,
    workers: int | None = None,
    seed: int = 1,
    max_piece: int = 1000,
    progress: bool = True,
) -> TrainingResult:
    """Train Word2Bits CBOW vectors; see the module docstring for the exact semantics.

    ``corpus`` is an iterable of token lists, one per article (it is read once). The saved vectors are
    ``quantize(u + v, bitlevel)`` in a gensim ``KeyedVectors``, words in vocabulary order, with the counts set as the
    ``count`` attribute.

    Parameters
    ----------
    corpus : iterable of sequence of str
        Token lists, one per article.
    size : int
        Dimensions.
    bitlevel : int
        0 (32-bit) or 1 (1-bit quantized).
    window : int
        The context window's largest half-width.
    negative : int
        Negative samples per target.
    sample : float
        The subsampling threshold of frequent words (0: none).
    epochs : int
        Passes over the corpus.
    min_count : int
        Words occurring fewer times are dropped.
    alpha : float
        The initial learning rate.
    workers : int, optional
        Training threads (default: every core; 1 is deterministic).
    seed : int
        The random seed.
    max_piece : int
        Tokens per training piece.
    progress : bool
        Show a progress bar.

    Returns
    -------
    TrainingResult
        The vectors (gensim ``KeyedVectors``) and what the training measured.

    Examples
    --------
    >>> result = train_word2bits([["a", "b", "a", "c"] * 20] * 5, size=4, bitlevel=1, min_count=1, epochs=1,
    ...                          workers=1, progress=False)
    >>> result.vectors.index_to_key, np.unique(np.abs(result.vectors.vectors)).astype(float).round(4).tolist()
    (['a', 'b', 'c'], [0.3333])
    """
    from gensim.models import KeyedVectors

    bitlevel = check_bitlevel(bitlevel)
    size = _check_int("size", size, 1)
    window = _check_int("window", window, 1)
    negative = _check_int("negative", negative, 1)
    epochs = _check_int("epochs", epochs, 1)
    min_count = _check_int("min_count", min_count, 1)
    max_piece = _check_int("max_piece", max_piece, 1)
    workers = _check_int("workers", (os.cpu_count() or 1) if workers is None else workers, 1)
    seed = _check_int("seed", seed, 0)
    if not (isinstance(alpha, (int, float)) and alpha > 0 and math.isfinite(alpha)):
        raise ValueError(f"alpha must be a positive finite number, got {alpha!r}")
    if not (isinstance(sample, (int, float)) and sample >= 0 and math.isfinite(sample)):
        raise ValueError(f"sample must be a non-negative finite number, got {sample!r}")

    t0 = time.perf_counter()
    vocab = build_vocabulary(corpus, min_count=min_count)
    vocabulary_seconds = time.perf_counter() - t0
    n_words = len(vocab.words)
    train_words = vocab.training_words
    keep = _keep_probabilities(vocab.counts, sample, train_words)
    threshold, alias = _negative_table(vocab.counts)

    _compile_kernels()  # compile (or load from numba's cache) before the clock starts
    u = np.empty((n_words, size), dtype=np.float32)
    v = np.empty((n_words, size), dtype=np.float32)
    _init_matrices(u, v, seed)

    ranges = _split_articles(vocab.offsets, workers)
    done = np.zeros(workers, dtype=np.int64)
    start_alpha = np.float32(alpha)
    total_words = epochs * train_words
    loss_per_epoch = []
    seconds = 0.0
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for epoch in range(epochs):
            loss_acc = np.zeros((workers, 2), dtype=np.float64)
            seeds = np.random.SeedSequence([seed, epoch]).generate_state(workers, dtype=np.uint64)
            before = int(done.sum())
            bar = progress_bar(
                total=train_words,
                desc=f"word2bits epoch {epoch + 1}/{epochs}",
                unit="word",
                unit_scale=True,
                disable=not progress,
                leave=False,
            )
            start = time.perf_counter()
            futures = [
                pool.submit(
                    _train_range_fast,
                    u,
                    v,
                    vocab.corpus,
                    vocab.offsets,
                    a0,
                    a1,
                    keep,
                    threshold,
                    alias,
                    window,
                    negative,
                    max_piece,
                    bitlevel,
                    start_alpha,
                    total_words,
                    done,
                    loss_acc,
                    t,
                    np.uint64(seeds[t]),
                )
                for t, (a0, a1) in enumerate(ranges)
            ]
            shown = 0
            while not all(f.done() for f in futures):
                time.sleep(0.2)
                now = int(done.sum()) - before
                if now > shown:
                    bar.update(now - shown)
                    shown = now
                    n_scored = loss_acc[:, 1].sum()
                    if n_scored:
                        bar.set_postfix(loss=f"{loss_acc[:, 0].sum() / n_scored:.4f}", refresh=False)
            for f in futures:
                f.result()
            seconds += time.perf_counter() - start
            now = int(done.sum()) - before
            bar.update(now - shown)
            n_scored = loss_acc[:, 1].sum()
            epoch_loss = float(loss_acc[:, 0].sum() / n_scored) if n_scored else float("nan")
            bar.set_postfix(loss=f"{epoch_loss:.4f}")
            bar.close()
            loss_per_epoch.append(epoch_loss)

    out = np.empty_like(u)
    _sum_quantized(u, v, bitlevel, out)
    kv = KeyedVectors(size, count=0, dtype=np.float32)
    kv.add_vectors(vocab.words, out)
    kv.allocate_vecattrs(attrs=["count"], types=[int])
    kv.expandos["count"][:] = vocab.counts
    words_read = int(done.sum())
    return TrainingResult(
        vectors=kv,
        loss_per_epoch=loss_per_epoch,
        words_per_second=words_read / seconds if seconds else float("nan"),
        seconds=seconds,
        training_words=train_words,
        bitlevel=bitlevel,
        vocabulary_seconds=vocabulary_seconds,
        params=dict(
            size=size,
            bitlevel=bitlevel,
            window=window,
            negative=negative,
            sample=sample,
            epochs=epochs,
            min_count=min_count,
            alpha=alpha,
            workers=workers,
            seed=seed,
            max_piece=max_piece,
        ),
    )


# --------------------------------------------------------------------------------------------------------------------
# storage
# --------------------------------------------------------------------------------------------------------------------

_LEVEL2_VALUES = np.array([-0.75, -0.25, 0.25, 0.75], dtype=np.float32)
_FORMAT = "regemb-word2bits-vectors/1"


def save_vectors(kv, directory: str | os.PathLike, bitlevel: int) -> Path:
    """Store ``kv`` (vectors of the given bit level) in ``directory``.

    Files: ``meta.json`` (format, bit level, shape), ``words.txt`` (one word per line, vocabulary order),
    ``counts.npy`` (int64) and ``vectors.npy``: float32 for bit level 0; ``np.packbits`` of the sign bits
    (1 = +1/3) for bit level 1 (32x smaller); uint8 codes 0..3 for -0.75, -0.25, 0.25, 0.75 at bit level 2.
    Raises ValueError if the vectors hold values that the bit level cannot represent exactly.

    Parameters
    ----------
    kv : gensim.models.KeyedVectors
        The vectors, with counts.
    directory : path-like
        Where the files go.
    bitlevel : int
        The vectors' bit level.

    Returns
    -------
    pathlib.Path
        The directory.

    Examples
    --------
    See :func:`load_vectors`.
    """
    bitlevel = check_bitlevel(bitlevel)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    vectors = np.asarray(kv.vectors, dtype=np.float32)
    n, size = vectors.shape
    words = list(kv.index_to_key)
    if any(("\n" in w or "\r" in w) for w in words):
        raise ValueError("words containing line breaks cannot be stored")
    if bitlevel == 0:
        payload = vectors
    elif bitlevel == 1:
        positive = vectors == ONE_THIRD
        if not np.all(positive | (vectors == -ONE_THIRD)):
            raise ValueError("bit level 1 vectors must hold only the values +1/3 and -1/3")
        payload = np.packbits(positive, axis=1)
    else:
        codes = np.searchsorted(_LEVEL2_VALUES, vectors).astype(np.uint8)
        if not np.array_equal(_LEVEL2_VALUES[np.minimum(codes, 3)], vectors):
            raise ValueError("bit level 2 vectors must hold only the values -0.75, -0.25, 0.25 and 0.75")
        payload = codes
    np.save(directory / "vectors.npy", payload)
    if "count" in kv.expandos:
        counts = np.asarray(kv.expandos["count"], dtype=np.int64)
    else:
        counts = np.zeros(n, dtype=np.int64)
    np.save(directory / "counts.npy", counts)
    (directory / "words.txt").write_text("".join(w + "\n" for w in words), encoding="utf-8")
    (directory / "meta.json").write_text(
        json.dumps({"format": _FORMAT, "bitlevel": bitlevel, "count": n, "size": size}), encoding="utf-8"
    )
    return directory


def load_vectors(directory: str | os.PathLike):
    """Load what :func:`save_vectors` stored, as a gensim ``KeyedVectors`` (float32, counts set).

    Parameters
    ----------
    directory : path-like
        What :func:`save_vectors` wrote.

    Returns
    -------
    gensim.models.KeyedVectors
        The vectors, with counts.

    Examples
    --------
    >>> import tempfile
    >>> result = train_word2bits([["a", "b", "a", "c"] * 20] * 5, size=4, bitlevel=1, min_count=1, epochs=1,
    ...                          workers=1, progress=False)
    >>> with tempfile.TemporaryDirectory() as directory:
    ...     kv = load_vectors(save_vectors(result.vectors, directory, 1))
    >>> bool((kv.vectors == result.vectors.vectors).all())
    True
    """
    from gensim.models import KeyedVectors

    directory = Path(directory)
    meta = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
    if meta.get("format") != _FORMAT:
        raise ValueError(f"{directory} does not hold vectors saved by save_vectors (format {meta.get('format')!r})")
    bitlevel = check_bitlevel(meta["bitlevel"])
    n, size = int(meta["count"]), int(meta["size"])
    payload = np.load(directory / "vectors.npy")
    if bitlevel == 0:
        vectors = payload.astype(np.float32, copy=False)
    elif bitlevel == 1:
        bits = np.unpackbits(payload, axis=1, count=size).astype(bool)
        vectors = np.where(bits, ONE_THIRD, -ONE_THIRD).astype(np.float32)
    else:
        vectors = _LEVEL2_VALUES[payload]
    words = (directory / "words.txt").read_text(encoding="utf-8").split("\n")[:-1]
    counts = np.load(directory / "counts.npy")
    if vectors.shape != (n, size) or len(words) != n or len(counts) != n:
        raise ValueError(f"{directory} is inconsistent: expected {n} words of size {size}")
    kv = KeyedVectors(size, count=0, dtype=np.float32)
    kv.add_vectors(words, vectors)
    kv.allocate_vecattrs(attrs=["count"], types=[int])
    kv.expandos["count"][:] = counts
    return kv
