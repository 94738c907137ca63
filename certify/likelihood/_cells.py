"""Cells: the data of the K-call likelihood reduced to counts n_{K,S} (eqs. (L1)-(L2)).

Paper context: the hierarchy of eq. (hierarchy-main) -- calls B_ij ~ Bernoulli(q_i) independently
given q_i, q_i ~ pi -- with the law pi left completely unspecified. The equations of the
package :mod:`certify.likelihood` are labelled (L1)-(L13); each module carries the ones it implements.

**Cells (L1).** Example i has K_i >= 1 recorded calls, S_i of them correct. Given q_i,
S_i ~ Bin(K_i, q_i), so the data enter only through the counts n_c = #{i : (K_i, S_i) = c}
of the cells c = (K_c, S_c) -- at most sum_K (K+1) of them, whatever N = sum_c n_c is.
Every computation of the package runs over cells, never over examples. (The number of calls
may vary between examples; it must not depend on q_i -- the usual missing-at-random condition.)

**Likelihood (L2).** With the binomial kernel B_c(q) = C(K_c, S_c) q^S_c (1-q)^(K_c - S_c),

    p_c(pi) = E_pi[B_c(Q)],      l(pi) = sum_c n_c log p_c(pi)      (binomial coefficients kept).

pi -> p(pi) is linear and p -> sum_c n_c log p_c is strictly concave, so l is concave on the
convex set of laws on [0, 1], and all maximizers share one vector of cell probabilities.
The kernel and l are computed in :mod:`._problem`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._calls import CallBits
from .._errors import InputError

__all__ = ["CellCounts", "cell_counts"]


def _int_array(values, what: str) -> np.ndarray:
    """A 1-d integer array from integer-valued input, or an InputError naming the entry."""
    if isinstance(values, (str, bytes)):
        raise InputError(f"{what}={values!r} must be a sequence of integers")
    try:
        arr = np.asarray(values)
    except Exception:  # ragged nested input and the like
        raise InputError(f"{what} must be a 1-d sequence of integers") from None
    if arr.ndim != 1:
        raise InputError(f"{what} must be a 1-d sequence of integers; got shape {arr.shape}")
    if arr.dtype == bool:
        raise InputError(f"{what} must hold integers, not booleans")
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64)
    try:
        f = arr.astype(float)
    except (TypeError, ValueError):
        raise InputError(f"{what} must hold integers") from None
    bad = np.flatnonzero(~np.isfinite(f) | (f != np.round(f)))
    if len(bad):
        i = int(bad[0])
        v = arr[i].item() if isinstance(arr[i], np.generic) else arr[i]
        raise InputError(f"{what}[{i}]={v!r} is not an integer")
    return f.astype(np.int64)


@dataclass(frozen=True, eq=False)
class CellCounts:
    """Counts n_{K,S} of examples with K recorded calls of which S are correct (eq. (L1)).

    The likelihood depends on the data only through these counts, so every computation of
    this package works on the (at most sum_K (K+1)) cells instead of the N examples.

    Attributes
    ----------
    calls : ndarray of int, shape (C,)
        K of each cell (>= 1).
    successes : ndarray of int, shape (C,)
        S of each cell, 0 <= S <= K.
    multiplicity : ndarray of int, shape (C,)
        n_{K,S} >= 1, the number of examples in the cell.
    """

    calls: np.ndarray
    successes: np.ndarray
    multiplicity: np.ndarray

    def __post_init__(self):
        k = _int_array(self.calls, "calls")
        s = _int_array(self.successes, "successes")
        n = _int_array(self.multiplicity, "multiplicity")
        if not (len(k) == len(s) == len(n)):
            raise InputError(
                f"calls, successes and multiplicity have lengths {len(k)}, {len(s)}, {len(n)}; they must be equal"
            )
        _check_calls_successes(k, s, ("calls", "successes"))
        if len(n) and n.min() < 1:
            i = int(np.argmin(n))
            raise InputError(f"multiplicity[{i}]={int(n[i])} must be at least 1 (a cell holds at least one example)")
        keys = k * (int(k.max(initial=0)) + 2) + s
        if len(np.unique(keys)) != len(keys):
            raise InputError("cells (calls, successes) must be distinct; add the multiplicities of repeated cells")
        _check_sample(k, n)
        for name, arr in (("calls", k), ("successes", s), ("multiplicity", n)):
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)

    @property
    def n(self) -> int:
        """N, the number of examples."""
        return int(self.multiplicity.sum())

    @property
    def max_calls(self) -> int:
        """K_max, the largest number of calls of an example."""
        return int(self.calls.max())

    @property
    def size(self) -> int:
        """C, the number of distinct cells."""
        return len(self.calls)

    @classmethod
    def from_bits(cls, bits: CallBits, calls: int | None = None) -> CellCounts:
        """Cells of :class:`~certify.readers.CallBits`, optionally from the first ``calls`` calls only.

        Parameters
        ----------
        bits : CallBits
            Correctness bits (NaN past an example's K_i calls).
        calls : int, optional
            Use only the first ``calls`` calls of each example (an example with fewer calls
            keeps all of its K_i). Default: every recorded call.

        Returns
        -------
        CellCounts
        """
        if not isinstance(bits, CallBits):
            raise InputError(f"bits={type(bits).__name__} must be a CallBits (see certify.readers.read_bits)")
        if calls is not None:
            bits = bits.first_calls(calls)
        b = np.asarray(bits.bits, dtype=float)
        return cell_counts(np.asarray(bits.counts, dtype=np.int64), np.nansum(b, axis=1).astype(np.int64))


def _check_calls_successes(k: np.ndarray, s: np.ndarray, names: tuple[str, str]) -> None:
    kn, sn = names
    if len(k) and k.min() < 1:
        i = int(np.argmin(k))
        raise InputError(f"{kn}[{i}]={int(k[i])} breaks K_i >= 1: every example needs at least one recorded call")
    if len(s) and s.min() < 0:
        i = int(np.argmin(s))
        raise InputError(f"{sn}[{i}]={int(s[i])} breaks S_i >= 0: a count of correct calls cannot be negative")
    over = np.flatnonzero(s > k)
    if len(over):
        i = int(over[0])
        raise InputError(f"{sn}[{i}]={int(s[i])} exceeds {kn}[{i}]={int(k[i])}: 0 <= S_i <= K_i must hold")


def _check_sample(k: np.ndarray, n: np.ndarray) -> None:
    total = int(n.sum())
    if total < 2:
        raise InputError(f"N={total} example(s): a likelihood interval needs at least 2 examples")
    if int(k.max()) < 2:
        raise InputError(
            "every example has K_i = 1 call: one call per example identifies only the mean E[Q]; "
            "at least one example needs K_i >= 2 calls"
        )


def cell_counts(calls_per_example, successes_per_example) -> CellCounts:
    """Aggregate per-example (K_i, S_i) into cell counts n_{K,S}.

    Parameters
    ----------
    calls_per_example : sequence of int
        K_i >= 1, recorded calls of each example.
    successes_per_example : sequence of int
        S_i, correct calls of each example, 0 <= S_i <= K_i.

    Returns
    -------
    CellCounts
        Cells sorted by (K, S).

    Raises
    ------
    InputError
        If the lengths differ, a value is not an integer or breaks 1 <= K_i, 0 <= S_i <= K_i,
        there are fewer than 2 examples, or no example has K_i >= 2.
    """
    k = _int_array(calls_per_example, "calls_per_example")
    s = _int_array(successes_per_example, "successes_per_example")
    if len(k) != len(s):
        raise InputError(f"calls_per_example has {len(k)} entries and successes_per_example {len(s)}; they must match")
    if len(k) == 0:
        raise InputError("N=0 examples: a likelihood interval needs at least 2 examples")
    _check_calls_successes(k, s, ("calls_per_example", "successes_per_example"))
    # sorted by (K, S), each distinct pair once: np.unique(..., axis=0) does the same through a
    # sort of row bytes, 25 times slower (8.4 ms at 10,000 examples, which a forecast's bootstrap
    # pays per draw)
    order = np.lexsort((s, k))
    k, s = k[order], s[order]
    first = np.flatnonzero(np.concatenate([[True], (k[1:] != k[:-1]) | (s[1:] != s[:-1])]))
    counts = np.diff(np.append(first, len(k)))
    return CellCounts(k[first], s[first], counts.astype(np.int64))


def _as_cells(cells) -> CellCounts:
    if isinstance(cells, CellCounts):
        return cells
    if isinstance(cells, CallBits):
        return CellCounts.from_bits(cells)
    raise InputError(f"cells={type(cells).__name__} must be CellCounts (see cell_counts) or CallBits")
