"""The streaming accumulator of bits: the one path from a table's rows to :class:`CallBits`.

Bits are 0/1, ``true``/``false``, ``0.0``/``1.0`` or inspect's ``C``/``I`` (any case).

**Ragged call counts.** Each example keeps all its recorded calls in call-index
order (K_i of them); a wide row may end early (missing or empty trailing cells), a long
file may lack some (example, call) rows. Such a file is analysed as it is, never cut
to the smallest K_i, and :attr:`ReadInfo.notes` (printed by ``certify analyze``) says
how many examples have fewer calls than the most, naming the first, and whether the
call indices of a long file skip a number. The paper's two-call estimator uses each example's first two
calls; the U-statistics use all K_i calls of each example (each example's
estimate is unbiased on its own); quantities needing k calls (moment m_k, a
k-vote empirical accuracy) are reported only when *every* example has at least
k calls, so no example is dropped and no selection on call counts can bias them.
In wide form an empty cell is "not recorded" only after the row's last recorded
call; an empty cell before a recorded call is a missing value (error).

**Reading is streamed.** Every table reaches :class:`CallBits` through one path,
:class:`Cells`: blocks of rows, each distinct cell value converted once, bits placed
with numpy into an (examples x calls) array. A CSV is never held whole in memory: the
memory grows with the number of examples, not rows (``benchmarks/bench_large_csv.py``).
"""

from __future__ import annotations

import math
from dataclasses import replace
from itertools import repeat

import numpy as np

from .._calls import CallBits, DataError, ReadInfo, abbreviate
from ._columns import role_columns
from ._memory import SortedIndex, TextCodes, trim_heap

__all__ = ["MAX_CALL_INDICES", "MAX_ROWS", "Cells"]

_TRUE = {"1", "1.0", "true", "c"}
_FALSE = {"0", "0.0", "false", "i"}


def _where(source: str, row, column) -> str:
    return f"{source}: row {row}, column {column!r}"


def _bit(value, source: str, row, column, context=None):
    """0.0 / 1.0 for a binary cell, None for an empty one; DataError otherwise.

    ``context(column)``, if given, returns the tail of the error message (how the columns were read).
    """
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    if isinstance(value, np.generic):
        value = value.item()  # report 0.5, not np.float64(0.5)
    if isinstance(value, (int, float)):
        v = float(value)
        if math.isnan(v):
            return None
        if v in (0.0, 1.0):
            return v
        raise DataError(f"{_where(source, row, column)}: value {value!r} is not binary (0/1, true/false)"
                    f"{context(column) if context else ''}")
    text = str(value).strip()
    if text == "" or text.lower() in ("na", "nan", "null", "none"):
        return None
    low = text.lower()
    if low in _TRUE:
        return 1.0
    if low in _FALSE:
        return 0.0
    raise DataError(f"{_where(source, row, column)}: value {value!r} is not binary (0/1, true/false)"
                    f"{context(column) if context else ''}")


#: At most this many distinct call indices in a long table: the bits are kept as an
#: (examples x call indices) array while the file streams, so an index that is not a
#: call number (a timestamp, a global row counter) is refused instead of exhausting memory.
MAX_CALL_INDICES = 4096
#: Row numbers are kept as 32-bit unsigned integers (half the memory of 64-bit ones).
MAX_ROWS = 2**32 - 1
#: Tables of at least this many (example, call) cells (or rows read) give freed heap memory
#: back to the system: as they grow, every so many rows, and before the result is built
#: (:func:`~certify.readers._memory.trim_heap`).
_TRIM_CELLS = 1 << 20


def _is_blank(value) -> bool:
    return value is None or (isinstance(value, str) and value.strip() == "")


def _id_text(value, source, row, column) -> str:
    if value is None or str(value).strip() == "" or (isinstance(value, float) and math.isnan(value)):
        raise DataError(f"{_where(source, row, column)}: missing example id")
    return str(value)


def _call_index(value, source, row, column, context) -> int:
    try:
        if isinstance(value, bool):
            raise ValueError
        c = float(value)
        if not c.is_integer():
            raise ValueError
        return int(c)
    except (TypeError, ValueError, OverflowError):
        raise DataError(f"{_where(source, row, column)}: call index {value!r} is not an integer{context(column)}") from None


class Cells:
    """Per-example bits, filled block by block (the one path from a table to :class:`CallBits`).

    Every table (CSV, TSV, JSONL, Parquet, run store, inspect_ai records, arrays) is
    handed over in :class:`~certify.readers._blocks.Block` s; each distinct cell value of a
    block is converted once (``_bit``, ``_call_index``, ``_id_text``) and the rows are
    placed with numpy. What is kept is O(examples x distinct call indices): one bit and
    the row it came from per (example, call), the example ids and groups; never the rows.

    Errors name the earliest offending row of a block, checking a row's id, then its call
    index, then its bits (the order a row is read in); wide-form duplicate keys are
    reported after every value was read, long-form duplicates where they occur.

    Parameters
    ----------
    source : str
        File name for messages.
    row_label : str
        What a row is called in messages (``"row"``, ``"line"``, ``"sample"``, ``"call"``).
    info : ReadInfo
        Which column has which role (``form``, ``id``, ``calls``, ``call``, ``correct``, ``groups``).
    context : callable, optional
        ``context(column)``: the tail of a value error (how the columns were read).
    labels : sequence, optional
        ``labels[r - 1]`` names row r in messages (default: r itself).
    """

    def __init__(self, source: str, row_label: str, info: ReadInfo, context=None, labels=None):
        self.source, self.row_label, self.info = source, row_label, info
        self.context = context or (lambda column: "")
        self.labels = labels
        self.ids = TextCodes()  # example id text -> id code
        self.id_text: list[str] = self.ids.texts  # id code -> text
        self.group_code: dict[tuple, int] = {}
        self.example = SortedIndex()  # with groups: group index << 32 | id code -> example index
        self.n = 0
        self.ex_key = np.zeros(0, dtype=np.int64)
        self.ex_first = np.zeros(0, dtype=np.int64)
        # call index -> column of the arrays below; wide form: the call columns in order
        self.call_value: list[int] = list(range(len(info.calls))) if info.form == "wide" else []
        self.call_pos: dict[int, int] = {v: v for v in self.call_value}
        self.bit = np.zeros((0, len(self.call_value)), dtype=np.int8)
        self.row = np.zeros((0, len(self.call_value)), dtype=np.uint32)  # 0: no call recorded
        self.duplicate: tuple[int, str] | None = None  # wide form: the first duplicated key, reported at the end
        self.untrimmed = 0  # rows read since the heap was last trimmed (trim_heap)

    # ---- helpers ------------------------------------------------------------------------------

    def label(self, row) -> object:
        return self.labels[int(row) - 1] if self.labels is not None else int(row)

    def _grow(self, n: int, v: int) -> None:
        cap_n, cap_v = self.bit.shape
        if n <= cap_n and v <= cap_v:
            return
        # examples grow by half again (amortized copies); call indices are few and grow exactly
        new_n = max(n, cap_n + cap_n // 2, 1024) if n > cap_n else cap_n
        new_v = max(v, cap_v)
        for name in ("bit", "row"):
            old = getattr(self, name)
            new = np.zeros((new_n, new_v), dtype=old.dtype)
            new[: old.shape[0], : old.shape[1]] = old
            setattr(self, name, new)
        for name in ("ex_key", "ex_first"):
            old = getattr(self, name)
            new = np.zeros(new_n, dtype=np.int64)
            new[: len(old)] = old
            setattr(self, name, new)
        del old, new
        if new_n * new_v >= _TRIM_CELLS:
            trim_heap()

    def _convert(self, enc, convert, rows, priority, errors) -> tuple[list, np.ndarray]:
        """``convert(value, row)`` on each distinct value; failures become ``errors`` entries.

        Returns the converted values (``None`` where conversion failed) and a bad-row mask.
        """
        out, bad = [], []
        for u, value in enumerate(enc.values):
            try:
                out.append(convert(value, None))
            except DataError:
                out.append(None)
                bad.append(u)
        if not bad:
            return out, np.zeros(len(rows), dtype=bool)
        is_bad = np.zeros(len(enc.values), dtype=bool)
        is_bad[bad] = True
        mask = is_bad[enc.codes]
        first = int(np.argmin(np.where(mask, rows, np.iinfo(np.int64).max)))
        try:
            convert(enc.values[enc.codes[first]], self.label(rows[first]))
        except DataError as exc:  # the same failure, now naming its row
            errors.append((int(rows[first]), priority, str(exc)))
        return out, mask

    def _id_codes(self, texts: list) -> np.ndarray:
        """Global codes of id texts (``None``: no id, code 0), new ids numbered in order."""
        codes = self.ids.codes(texts)
        missing = np.flatnonzero(codes < 0)
        if len(missing):
            texts = list(map(texts.__getitem__, missing.tolist()))
            new = list(dict.fromkeys(t for t in texts if t is not None))
            start = len(self.id_text)
            self.ids.add(new)
            local = dict(zip(new, range(start, start + len(new))))
            # rows without an id get code 0 (reported by the caller)
            codes[missing] = np.fromiter(map(local.get, texts, repeat(0)), dtype=np.int64, count=len(texts))
        return codes

    def _id_texts(self, enc, rows, errors) -> tuple[list, np.ndarray]:
        """The id text of each distinct id value (``None`` when missing) and the rows without an id."""
        values, column = enc.values, self.info.id
        if enc.texts and all(map(str.strip, values)):  # CSV cells, none blank: the texts are the ids
            return values, np.zeros(len(rows), dtype=bool)
        # _id_text's rule, written out so that a block of CSV texts costs one pass
        texts = [v if type(v) is str and v.strip() else
                 None if v is None or type(v) is str or (isinstance(v, float) and math.isnan(v)) or not str(v).strip()
                 else str(v) for v in values]
        if all(t is not None for t in texts):
            return texts, np.zeros(len(rows), dtype=bool)
        return self._convert(enc, lambda v, r: _id_text(v, self.source, r, column), rows, 0, errors)

    def _keys(self, block, errors) -> tuple[np.ndarray, np.ndarray]:
        """Example key (group index << 32 | id code) of every row, and the rows with a bad id."""
        info, rows = self.info, block.rows
        if info.id is None:  # wide form without ids: the row number is the id
            codes = self._id_codes(list(map(str, rows.tolist())))
            bad = np.zeros(len(rows), dtype=bool)
        else:
            enc = block.columns[info.id]
            texts, bad = self._id_texts(enc, rows, errors)
            codes = self._id_codes(texts)[enc.codes]
        gidx = np.zeros(len(rows), dtype=np.int64)
        if info.groups:
            stacked = np.stack([block.columns[g].codes for g in info.groups], axis=1)
            combos, inverse = np.unique(stacked, axis=0, return_inverse=True)
            # a group is named by its values as text, as in the dataset/policy label
            lut = np.array([self.group_code.setdefault(
                tuple(str(block.columns[g].values[c]) for g, c in zip(info.groups, combo)), len(self.group_code))
                for combo in combos.tolist()], dtype=np.int64)
            gidx = lut[inverse.reshape(-1)]
        return (gidx << 32) | codes, bad

    def _known(self, keys: np.ndarray) -> np.ndarray:
        """Which keys are examples already."""
        if not self.info.groups:
            return (keys & 0xFFFFFFFF) < self.n
        return self.example.find(keys)[1]

    def _index(self, key: int) -> int:
        return key & 0xFFFFFFFF if not self.info.groups else int(self.example.get(np.array([key], dtype=np.int64))[0])

    def _examples(self, keys: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Example index of every key (new keys become new examples)."""
        before = self.n
        if not self.info.groups:
            # one group: the id code is the example index (ids are numbered in order of first sight)
            ex = keys & 0xFFFFFFFF
            self.n = max(self.n, int(ex.max()) + 1) if len(ex) else self.n
        else:
            uniq, inverse = np.unique(keys, return_inverse=True)
            got = self.example.get(uniq)
            new = np.flatnonzero(got < 0)  # new examples, numbered in key order
            if len(new):
                got[new] = np.arange(before, before + len(new), dtype=np.int64)
                self.example.add(uniq[new], got[new])
                self.n += len(new)
            ex = got[inverse.reshape(-1)]
        self._grow(self.n, len(self.call_value))
        fresh = ex >= before
        if fresh.any():
            self.ex_key[ex[fresh]] = keys[fresh]
            self.ex_first[before: self.n] = np.iinfo(np.int64).max
            np.minimum.at(self.ex_first, ex[fresh], rows[fresh])
        return ex

    def _raise_first(self, errors) -> None:
        if errors:
            raise DataError(min(errors)[2])

    def _blank_rows(self, block, names) -> np.ndarray:
        """Rows whose cells in ``names`` are all empty."""
        blank = np.ones(len(block.rows), dtype=bool)
        # columns with few distinct values first: usually they rule out every row at once
        for name in sorted(names, key=lambda c: len(block.columns[c].values)):
            enc = block.columns[name]
            empty = [u for u, v in enumerate(enc.values) if _is_blank(v)]
            if not empty:
                return np.zeros(len(block.rows), dtype=bool)
            blank &= np.isin(enc.codes, empty)
            if not blank.any():
                break
        return blank

    # ---- the two forms ------------------------------------------------------------------------

    def add(self, block, skip_blank: bool = False) -> None:
        """Read one block (wide or long form, per :attr:`info`: :mod:`certify.readers._columns`).

        ``skip_blank``: drop rows whose cells are all empty (text tables, where a blank
        line or a row of delimiters is not a record).
        """
        info = self.info
        names = role_columns(info)
        keep = None
        if len(block.rows) > 1 and (np.diff(block.rows) < 0).any():
            keep = np.argsort(block.rows, kind="stable")  # padded short rows come last: put them in place
        if skip_blank:
            blank = self._blank_rows(block, names)
            if blank.any():
                keep = np.flatnonzero(~blank) if keep is None else keep[~blank[keep]]
        if keep is not None:
            block = type(block)(block.rows[keep], {c: replace(e, codes=e.codes[keep]) for c, e in block.columns.items()})
        if len(block.rows) == 0:
            return
        if block.rows[-1] > MAX_ROWS:
            raise DataError(f"{self.source}: more than {MAX_ROWS:,} rows; split the file")
        if info.form == "wide":
            self._add_wide(block)
        else:
            self._add_long(block)
        self.untrimmed += len(block.rows)
        if self.untrimmed >= _TRIM_CELLS:  # a large table: every million rows or so
            self.untrimmed = 0
            trim_heap()

    def _add_long(self, block) -> None:
        info, source, rows = self.info, self.source, block.rows
        errors: list = []
        keys, bad_id = self._keys(block, errors)
        call_enc, bit_enc = block.columns[info.call], block.columns[info.correct]

        def bit(value, row):
            b = _bit(value, source, row, info.correct, self.context)
            if b is None:
                raise DataError(f"{_where(source, row, info.correct)}: missing value")
            return b

        calls, bad_call = self._convert(call_enc, lambda v, r: _call_index(v, source, r, info.call, self.context),
                                        rows, 1, errors)
        bits, bad_bit = self._convert(bit_enc, bit, rows, 2, errors)
        valid = ~(bad_id | bad_call | bad_bit)
        for c in calls:
            if c is not None and c not in self.call_pos:
                if len(self.call_value) == MAX_CALL_INDICES:
                    raise DataError(f"{source}: column {info.call!r} has more than {MAX_CALL_INDICES} distinct call "
                                    f"indices; it must number the calls of each example (0, 1, 2, ...)"
                                    f"{self.context(info.call)}")
                self.call_pos[c] = len(self.call_value)
                self.call_value.append(c)
        pos_lut = np.array([-1 if c is None else self.call_pos[c] for c in calls], dtype=np.int64)
        bit_lut = np.array([-1 if b is None else int(b) for b in bits], dtype=np.int8)
        rows, keys = rows[valid], keys[valid]
        pos, val = pos_lut[call_enc.codes[valid]], bit_lut[bit_enc.codes[valid]]
        ex = self._examples(keys, rows)
        # duplicated (example, call): a cell filled by an earlier block, or by two rows of this
        # one (then one write overwrites the other, and reading back tells); both cost O(rows)
        earlier = self.row[ex, pos]
        self.row[ex, pos] = rows
        if (earlier > 0).any() or (self.row[ex, pos] != rows).any():
            cell = ex * len(self.call_value) + pos
            order = np.lexsort((rows, cell))
            same = cell[order][1:] == cell[order][:-1]
            dup_rows = np.concatenate([rows[earlier > 0], rows[order][1:][same]])
            dup_of = np.concatenate([earlier[earlier > 0].astype(np.int64), rows[order][:-1][same]])
            dup_at = np.concatenate([np.flatnonzero(earlier > 0), order[1:][same]])
            j = int(np.argmin(dup_rows))
            e, p = int(ex[dup_at[j]]), int(pos[dup_at[j]])
            errors.append((int(dup_rows[j]), 3,
                           f"{source}: {self.row_label} {self.label(dup_rows[j])} duplicates {self.row_label} "
                           f"{self.label(dup_of[j])}: (example, call) = ({self.id_text[int(self.ex_key[e]) & 0xFFFFFFFF]!r}, "
                           f"{self.call_value[p]}) appears twice"))
        self._raise_first(errors)
        self.bit[ex, pos] = val

    def _add_wide(self, block) -> None:
        info, source, rows = self.info, self.source, block.rows
        errors: list = []
        keys, bad = self._keys(block, errors)
        vals = np.empty((len(rows), len(info.calls)), dtype=np.int8)
        for j, name in enumerate(info.calls):
            enc = block.columns[name]
            bits, bad_j = self._convert(enc, lambda v, r, name=name: _bit(v, source, r, name, self.context),
                                        rows, 1 + j, errors)
            vals[:, j] = np.array([-1 if b is None else int(b) for b in bits], dtype=np.int8)[enc.codes]
            bad |= bad_j
        present = vals >= 0
        # a call is recorded after an empty cell: the empty cell is a missing value, not "fewer calls"
        later = np.flip(np.logical_or.accumulate(np.flip(present, axis=1), axis=1), axis=1)
        hole = ~present[:, :-1] & later[:, 1:] & ~bad[:, None]
        if hole.any():
            i = int(np.argmin(np.where(hole.any(axis=1), rows, np.iinfo(np.int64).max)))
            j = int(np.argmax(hole[i]))
            last = len(info.calls) - 1 - int(np.argmax(present[i, ::-1]))
            errors.append((int(rows[i]), 1 + len(info.calls),
                           f"{_where(source, self.label(rows[i]), info.calls[j])}: missing value before the recorded "
                           f"call in column {info.calls[last]!r}"))
        self._raise_first(errors)
        # a key seen before (earlier block or earlier row): a duplicate, reported once every value is read
        uniq, first_at = np.unique(keys, return_index=True)
        seen = self._known(uniq)
        dup = np.ones(len(keys), dtype=bool)
        dup[first_at[~seen]] = False
        if dup.any() and self.duplicate is None:
            i = int(np.argmin(np.where(dup, rows, np.iinfo(np.int64).max)))
            k = int(keys[i])
            known = self._known(np.array([k], dtype=np.int64))[0]
            first = self.ex_first[self._index(k)] if known else rows[keys == k].min()
            self.duplicate = (int(rows[i]), f"{source}: {self.row_label} {self.label(rows[i])} duplicates "
                              f"{self.row_label} {self.label(first)}: key {self.id_text[k & 0xFFFFFFFF]!r} appears twice")
        ok = ~dup
        ex = self._examples(keys[ok], rows[ok])
        self.bit[ex, : vals.shape[1]] = vals[ok]
        self.row[ex, : vals.shape[1]] = np.where(present[ok], rows[ok, None], 0)

    # ---- the result ---------------------------------------------------------------------------

    def finish(self, what: str = "data rows") -> tuple[dict[str, CallBits], list[str]]:
        """CallBits per group (groups and examples in order of first appearance) and notes.

        The notes say how many examples have fewer calls than the most of their group
        (ragged call counts are analysed as such, module docstring) and, in long form,
        when the call indices are not consecutive.
        """
        source = self.source
        if self.duplicate is not None:
            raise DataError(self.duplicate[1])
        n = self.n
        if n == 0:
            raise DataError(f"{source}: the file has no {what}")
        order = sorted(range(len(self.call_value)), key=self.call_value.__getitem__)
        in_order = order == list(range(len(order)))  # call indices first seen in increasing order (usual)
        present = self.row[:n] > 0 if in_order else (self.row[:n] > 0)[:, order]
        # finish() is the last call: drop the row numbers and the id lookup before the float
        # output is allocated, so that the peak is not both at once
        # (new empty arrays: a slice such as self.row[:0] would keep the whole array alive)
        self.row = np.zeros((0, self.row.shape[1]), dtype=self.row.dtype)
        self.ids.index, self.example = SortedIndex(), SortedIndex()
        if n * len(order) >= _TRIM_CELLS:
            trim_heap()
        k = present.sum(axis=1)
        first = self.ex_first[:n]
        short = np.flatnonzero(k < 2)
        if len(short):
            e = int(short[np.argmin(first[short])])
            raise DataError(f"{source}: {self.row_label} {self.label(first[e])}, example "
                            f"{self.id_text[int(self.ex_key[e]) & 0xFFFFFFFF]!r}: {int(k[e])} call(s) recorded; "
                            f"at least 2 are needed")
        # recorded calls first, in call-index order; NaN after an example's K_i calls. The
        # calls are put in place in the 1-byte bits, so that the float output is the only
        # (examples x calls) array of 8-byte values ever allocated.
        small = self.bit[:n] if in_order else self.bit[:n][:, order]
        if (present[:, 1:] & ~present[:, :-1]).any():  # some example skips a call index: close the gaps
            pack = np.argsort(~present, axis=1, kind="stable")
            small = np.take_along_axis(small, pack, axis=1)
            del pack
        del present
        bits = small.astype(float)
        del small
        self.bit = np.zeros((0, self.bit.shape[1]), dtype=self.bit.dtype)
        bits[np.arange(bits.shape[1])[None, :] >= k[:, None]] = np.nan
        names = {g: "/".join(t) for t, g in self.group_code.items()} or {0: ""}
        out, notes = {}, []
        if (len(names) == 1 and len(self.id_text) == n and (self.ex_key[:n] == np.arange(n)).all()
                and (first[1:] > first[:-1]).all()):
            # one group whose examples were numbered in file order (the usual file): the
            # example ids are the id texts as they are, the bits and counts are the whole arrays
            groups = [(0, slice(None), self.id_text)]
        else:
            id_text = np.array(self.id_text, dtype=object)
            group_of = self.ex_key[:n] >> 32
            firsts = {g: int(first[group_of == g].min()) for g in names}
            groups = []
            for g in sorted(names, key=firsts.__getitem__):
                members = np.flatnonzero(group_of == g)
                members = members[np.argsort(first[members], kind="stable")]
                # one group in file order: a view of the bits, not a second copy
                rows = slice(None) if len(members) == n and (members == np.arange(n)).all() else members
                groups.append((g, rows, id_text[self.ex_key[members] & 0xFFFFFFFF].tolist()))
        for g, rows, texts in groups:
            kg = k[rows]
            kmax = int(kg.max())
            ids = tuple(texts)
            member_first = first[rows]
            out[names[g]] = CallBits(ids, bits[rows, :kmax], kg.astype(int, copy=False), source, names[g])
            fewer = np.flatnonzero(kg < kmax)
            if len(fewer):
                i = int(fewer[0])
                where = f"{names[g]}: " if names[g] else ""
                notes.append(f"{where}{len(fewer)} of {len(ids)} examples {'has' if len(fewer) == 1 else 'have'} "
                             f"fewer than {kmax} calls (the first: example {ids[i]!r}, {self.row_label} "
                             f"{self.label(member_first[i])}, {int(kg[i])} calls); every recorded call is used, and "
                             f"quantities needing m calls only for m <= {int(kg.min())}")
        values = sorted(self.call_value)
        if self.info.form == "long" and values[-1] - values[0] + 1 != len(values):
            notes.append(f"call indices {abbreviate(map(str, values))} are not consecutive; each example's calls "
                         f"are used in index order")
        return out, notes
