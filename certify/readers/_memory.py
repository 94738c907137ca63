"""Keeping a large read small: compact indexes and giving freed memory back.

A table of millions of rows is read block by block (:mod:`certify.readers._cells`); what
it keeps must grow with the number of examples, not rows, and stay small per example:

* :class:`SortedIndex`: int64 keys -> int64 values in two sorted arrays (16 bytes a key);
* :class:`TextCodes`: texts (example ids) numbered in order of first sight, found through
  a :class:`SortedIndex` of their hashes;
* :func:`trim_heap`: the C heap's freed pages given back to the system (glibc).

``benchmarks/bench_large_csv.py`` measures the result: about 20 MB of peak memory for
300,000 examples.
"""

from __future__ import annotations

import ctypes
import operator

import numpy as np

__all__ = ["SortedIndex", "TextCodes", "trim_heap"]


def _find_malloc_trim():
    """glibc's ``malloc_trim``, or None where the C library has none."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except Exception:  # not glibc (macOS, Windows, musl): nothing to do
        return None


#: Looked up once, at import: the process's C library does not change while it runs.
_MALLOC_TRIM = _find_malloc_trim()


def trim_heap() -> None:
    """Give the C heap's free pages back to the operating system (glibc's ``malloc_trim``; elsewhere nothing).

    Reading a large table frees many blocks of a few hundred KB; glibc keeps such freed
    memory in its heap (resident) for later allocations, but the large arrays allocated
    later (the float bits of :meth:`certify.readers._cells.Cells.finish`) are mapped apart
    from the heap and never reuse it. Trimming at those points keeps the peak resident
    memory to what is in use (``benchmarks/bench_large_csv.py``: about 20 MB of 300,000 examples).
    """
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)


class SortedIndex:
    """int64 keys -> int64 values, kept as two arrays sorted by key (equal keys in insertion order).

    16 bytes a key, where a dict of Python ints takes ~60 and twice that while it resizes:
    the index of 300,000 examples of a large file (``benchmarks/bench_large_csv.py``).
    """

    def __init__(self):
        self.keys = np.zeros(0, dtype=np.int64)
        self.values = np.zeros(0, dtype=np.int64)

    def find(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each key, the position of the first equal key (if any) and whether there is one."""
        if len(self.keys) == 0:
            return np.zeros(len(keys), dtype=np.intp), np.zeros(len(keys), dtype=bool)
        if len(keys) > 256:  # keys in increasing order: each search starts where the last ended (3x faster)
            order = np.argsort(keys)
            pos = np.empty(len(keys), dtype=np.intp)
            pos[order] = np.searchsorted(self.keys, keys[order])
        else:
            pos = np.searchsorted(self.keys, keys)
        np.minimum(pos, len(self.keys) - 1, out=pos)
        return pos, self.keys[pos] == keys

    def get(self, keys: np.ndarray) -> np.ndarray:
        """The value of every key, -1 for a key not in the index."""
        pos, hit = self.find(keys)
        return np.where(hit, self.values[pos], -1) if len(self.keys) else np.full(len(keys), -1, dtype=np.int64)

    def add(self, keys: np.ndarray, values: np.ndarray) -> None:
        merged = np.concatenate([self.keys, keys])
        order = np.argsort(merged, kind="stable")  # a sorted run and a short one: merged in about linear time
        self.keys = merged[order]
        del merged
        self.values = np.concatenate([self.values, values])[order]


class TextCodes:
    """Texts numbered in order of first sight (the example ids of a table).

    The texts are kept in a list; finding a text's code goes through a :class:`SortedIndex`
    of their hashes, and every hash that matches is checked against the text itself, so
    two texts with the same hash are still told apart (as a dict would).
    """

    def __init__(self) -> None:
        self.texts: list = []
        self.index = SortedIndex()

    def codes(self, texts: list) -> np.ndarray:
        """The code of every text (``None`` or a text not seen yet: -1)."""
        m = len(texts)
        out = np.full(m, -1, dtype=np.int64)
        if not self.texts or not m:
            return out
        hashes = np.fromiter(map(hash, texts), dtype=np.int64, count=m)
        pos, hit = self.index.find(hashes)
        cand = self.index.values[pos]
        known = self.texts.__getitem__
        if hit.all():
            same = np.fromiter(map(operator.eq, map(known, cand.tolist()), texts), dtype=bool, count=m)
        else:
            at = np.flatnonzero(hit)
            same = np.zeros(m, dtype=bool)
            same[at] = np.fromiter(
                map(operator.eq, map(known, cand[at].tolist()), map(texts.__getitem__, at.tolist())),
                dtype=bool,
                count=len(at),
            )
        out[same] = cand[same]
        for i in np.flatnonzero(hit & ~same).tolist():  # another text has the same hash: try every one that has
            lo, hi = (
                np.searchsorted(self.index.keys, hashes[i], "left"),
                np.searchsorted(self.index.keys, hashes[i], "right"),
            )
            for c in self.index.values[lo:hi].tolist():
                if self.texts[c] == texts[i]:
                    out[i] = c
                    break
        return out

    def add(self, new: list) -> None:
        """Number texts not seen yet (distinct, none ``None``) after the ones already numbered."""
        start = len(self.texts)
        self.texts.extend(new)
        self.index.add(
            np.fromiter(map(hash, new), dtype=np.int64, count=len(new)),
            np.arange(start, start + len(new), dtype=np.int64),
        )
