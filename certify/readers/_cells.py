"""The streaming accumulator of bits: the one path from a table's rows to :class:`CallBits`.

Bits are 0/1, ``true``/``false``, ``0.0``/``1.0`` or inspect's ``C``/``I`` (any case); a
JSON number is a bit only when the number its decimal text denotes is exactly 0 or 1
(``0.99999999999999999`` is not a bit, although it rounds to the float 1.0). Example ids
are read with surrounding white space removed, as headers and bits are (`` e1`` is
``e1``). Call indices are integers written in ASCII digits (an optional sign, an
optional ``.0``): ``1_0`` and ``١`` (Arabic-Indic one), which Python's own number
parsing reads as 10 and 1, are refused.

**Answers.** When the columns include answers (:mod:`certify.readers._columns`), each
distinct answer of a block is normalized once (:func:`~certify.readers._answers.normalize_answer`)
and its key interned to an id kept per (example, call), 4 bytes a cell; the per-example
answer codes of :attr:`CallBits.answers` are made once at the end
(:func:`~certify.readers._answers.answer_codes`). With a target column a call is correct
when its answer's key equals the target's key (a bit or correct column, if present, must
agree); without one (logs, run stores) the bits decide and the answers group the wrong
calls. A target column holds one kind of value (texts, numbers or booleans), and an
example has one target.

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
A long table's (examples x distinct call indices) array is refused when it would exceed
:data:`MAX_CELLS_PER_ROW` cells per row read (once past :data:`DENSE_CELLS`): a call
column that does not number each example's calls (a timestamp, a global row counter)
would otherwise cost memory quadratic in the file, while every file whose examples
share their call numbers (0, 1, 2, ...) is read whatever their count.
"""

from __future__ import annotations

import math
from dataclasses import replace
from itertools import repeat

import numpy as np

from .._calls import CallBits, DataError, ReadInfo, abbreviate
from ._answers import DEFAULT_NORMALIZATION, answer_codes, normalize_answer
from ._cell_values import _answer_text, _bit, _call_index, _id_text, _is_blank, _kind, _show, _where
from ._columns import role_columns
from ._memory import SortedIndex, TextCodes, trim_heap

__all__ = ["DENSE_CELLS", "MAX_CELLS_PER_ROW", "MAX_ROWS", "Cells"]


#: A long table's (examples x distinct call indices) array of any shape up to this many
#: cells is accepted: 2^24 cells cost at most 150 MB while reading (1-byte bit, 4-byte row,
#: 4-byte answer id) and 134 MB of float output.
DENSE_CELLS = 1 << 24
#: Past DENSE_CELLS, a long table may keep at most this many (example, call index) cells
#: per row read: a table whose examples share their call numbers fills them all (one row
#: per cell, or a few empty for ragged examples); a call column that is not a call number
#: fills one cell per example and index, and its array would grow with the square of the file.
MAX_CELLS_PER_ROW = 16
#: Row numbers are kept as 32-bit unsigned integers (half the memory of 64-bit ones).
MAX_ROWS = 2**32 - 1
#: Tables of at least this many (example, call) cells (or rows read) give freed heap memory
#: back to the system: as they grow, every so many rows, and before the result is built
#: (:func:`~certify.readers._memory.trim_heap`).
_TRIM_CELLS = 1 << 20


def _intern(table: TextCodes, texts: list) -> np.ndarray:
    """Codes of texts in ``table`` (new ones numbered in order of first sight); ``None`` gets -1."""
    codes = table.codes(texts)
    missing = np.flatnonzero(codes < 0)
    if len(missing):
        texts = list(map(texts.__getitem__, missing.tolist()))
        new = list(dict.fromkeys(t for t in texts if t is not None))
        start = len(table.texts)
        table.add(new)
        local = dict(zip(new, range(start, start + len(new))))
        codes[missing] = np.fromiter(map(local.get, texts, repeat(-1)), dtype=np.int64, count=len(texts))
    return codes


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
    normalize : str
        How answers are compared (:data:`~certify.readers._answers.NORMALIZATIONS`).
    """

    def __init__(
        self,
        source: str,
        row_label: str,
        info: ReadInfo,
        context=None,
        labels=None,
        normalize: str = DEFAULT_NORMALIZATION,
    ):
        self.source, self.row_label, self.info = source, row_label, info
        self.context = context or (lambda column: "")
        self.labels = labels
        self.normalize = normalize
        # answers: normalized keys interned to ids; per cell 0 no call, 1 no answer, 2 + id an answer
        self.keys = TextCodes()
        self.target_kinds: dict[str, int] = {}  # kind of target value -> first row with it
        self.ids = TextCodes()  # example id text -> id code
        self.id_text: list[str] = self.ids.texts  # id code -> text
        self.group_code: dict[tuple, int] = {}
        self.example = SortedIndex()  # with groups: group index << 32 | id code -> example index
        self.n = 0
        self.ex_key = np.zeros(0, dtype=np.int64)
        self.ex_first = np.zeros(0, dtype=np.int64)
        # call index -> column of the arrays below; wide form: the call columns in order
        width = len(info.calls or info.answers) if info.form == "wide" else 0
        self.call_value: list[int] = list(range(width))
        self.call_pos: dict[int, int] = {v: v for v in self.call_value}
        self.bit = np.zeros((0, width), dtype=np.int8)
        self.row = np.zeros((0, width), dtype=np.uint32)  # 0: no call recorded
        self.answer = np.zeros((0, width if info.answers else 0), dtype=np.int32)  # answer ids (see self.keys)
        self.target = np.zeros(0, dtype=np.int32)  # per example: 2 + the target's key id, 0 before it is read
        self.duplicate: tuple[int, str] | None = None  # wide form: the first duplicated key, reported at the end
        self.untrimmed = 0  # rows read since the heap was last trimmed (trim_heap)
        self.rows_read = 0

    # ---- helpers ------------------------------------------------------------------------------

    def label(self, row) -> object:
        return self.labels[int(row) - 1] if self.labels is not None else int(row)

    def _grow(self, n: int, v: int) -> None:
        cap_n, cap_v = self.bit.shape
        if n <= cap_n and v <= cap_v:
            return
        if self.info.form == "long" and n * v > max(DENSE_CELLS, MAX_CELLS_PER_ROW * self.rows_read):
            raise DataError(
                f"{self.source}: column {self.info.call!r} has {v:,} distinct call indices over {n:,} examples, an "
                f"(examples x call indices) table of {n * v:,} cells for {self.rows_read:,} {self.row_label}s read "
                f"(at most {MAX_CELLS_PER_ROW} per {self.row_label} past {DENSE_CELLS:,}); the call index must number "
                f"the calls of each example (0, 1, 2, ...){self.context(self.info.call)}"
            )
        # examples grow by half again (amortized copies); call indices are few and grow exactly
        new_n = max(n, cap_n + cap_n // 2, 1024) if n > cap_n else cap_n
        new_v = max(v, cap_v)
        for name in ("bit", "row", "answer"):
            old = getattr(self, name)
            width = new_v if name != "answer" or self.info.answers else 0  # no answers: an empty array
            new = np.zeros((new_n, width), dtype=old.dtype)
            new[: old.shape[0], : old.shape[1]] = old
            setattr(self, name, new)
        for name, dtype in (("ex_key", np.int64), ("ex_first", np.int64), ("target", np.int32)):
            old = getattr(self, name)
            new = np.zeros(new_n, dtype=dtype)
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
        codes = _intern(self.ids, texts)
        codes[codes < 0] = 0  # rows without an id (reported by the caller)
        return codes

    def _id_texts(self, enc, rows, errors) -> tuple[list, np.ndarray]:
        """The id text of each distinct id value (``None`` when missing) and the rows without an id."""
        values, column = enc.values, self.info.id
        if enc.texts:
            texts: list[str | None] = list(map(str.strip, values))
            if all(texts):  # CSV cells, none blank: the stripped texts are the ids
                return texts, np.zeros(len(rows), dtype=bool)
        # _id_text's rule, written out so that a block of CSV texts costs one pass
        texts = [
            v.strip() or None
            if type(v) is str
            else None
            if v is None or (isinstance(v, float) and math.isnan(v))
            else str(v).strip() or None
            for v in values
        ]
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
            lut = np.array(
                [
                    self.group_code.setdefault(
                        tuple(str(block.columns[g].values[c]).strip() for g, c in zip(info.groups, combo)),
                        len(self.group_code),
                    )
                    for combo in combos.tolist()
                ],
                dtype=np.int64,
            )
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
            self.ex_first[before : self.n] = np.iinfo(np.int64).max
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
            block = type(block)(
                block.rows[keep], {c: replace(e, codes=e.codes[keep]) for c, e in block.columns.items()}
            )
        if len(block.rows) == 0:
            return
        if block.rows[-1] > MAX_ROWS:
            raise DataError(f"{self.source}: more than {MAX_ROWS:,} rows; split the file")
        self.rows_read += len(block.rows)
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
        keys, bad = self._keys(block, errors)
        call_enc = block.columns[info.call]
        calls, bad_call = self._convert(
            call_enc, lambda v, r: _call_index(v, source, r, info.call, self.context), rows, 1, errors
        )
        bad |= bad_call
        given = None
        if info.correct is not None:
            bit_enc = block.columns[info.correct]

            def bit(value, row):
                b = _bit(value, source, row, info.correct, self.context)
                if b is None:
                    raise DataError(f"{_where(source, row, info.correct)}: missing value")
                return b

            bits, bad_bit = self._convert(bit_enc, bit, rows, 2, errors)
            bad |= bad_bit
            given = np.array([-1 if b is None else int(b) for b in bits], dtype=np.int8)[bit_enc.codes]
        answer = target = None
        if info.answers:
            answer, bad_answer = self._answer_ids(block, rows, info.answers[0], 3, errors)
            bad |= bad_answer
        if info.target is not None:
            target, bad_target = self._target_ids(block, rows, 4, errors)
            bad |= bad_target
            assert answer is not None  # a target column comes with answer columns (resolve_columns)
            computed = (answer == target).astype(np.int8)  # no answer (1) never equals a target (2 + id)
            if given is not None:
                self._disagree(block, rows, given, computed, answer, ~bad, info.correct, info.answers[0], 5, errors)
            given = computed
        valid = ~bad
        for c in calls:
            if c is not None and c not in self.call_pos:
                self.call_pos[c] = len(self.call_value)
                self.call_value.append(c)
        pos_lut = np.array([-1 if c is None else self.call_pos[c] for c in calls], dtype=np.int64)
        rows, keys = rows[valid], keys[valid]
        assert given is not None  # long form reads a correct column, or answers with a target (resolve_columns)
        pos, val = pos_lut[call_enc.codes[valid]], given[valid]
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
            errors.append(
                (
                    int(dup_rows[j]),
                    6,
                    f"{source}: {self.row_label} {self.label(dup_rows[j])} duplicates {self.row_label} "
                    f"{self.label(dup_of[j])}: (example, call) = ({_show(self._id_of(e))}, "
                    f"{self.call_value[p]}) appears twice",
                )
            )
        if target is not None:
            self._one_target(ex, rows, target[valid], errors)
        self._raise_first(errors)
        self.bit[ex, pos] = val
        if answer is not None:
            self.answer[ex, pos] = answer[valid]

    def _add_wide(self, block) -> None:
        info, source, rows = self.info, self.source, block.rows
        errors: list = []
        keys, bad = self._keys(block, errors)
        width = len(info.calls or info.answers)
        vals = np.empty((len(rows), width), dtype=np.int8)
        for j, name in enumerate(info.calls):
            enc = block.columns[name]
            bits, bad_j = self._convert(
                enc, lambda v, r, name=name: _bit(v, source, r, name, self.context), rows, 1 + j, errors
            )
            vals[:, j] = np.array([-1 if b is None else int(b) for b in bits], dtype=np.int8)[enc.codes]
            bad |= bad_j
        answers = None
        if info.answers:
            answers = np.empty((len(rows), width), dtype=np.int32)
            for j, name in enumerate(info.answers):
                answers[:, j], bad_j = self._answer_ids(block, rows, name, 1 + width + j, errors)
                bad |= bad_j
            target, bad_target = self._target_ids(block, rows, 1 + 2 * width, errors)
            bad |= bad_target
            computed = (answers == target[:, None]).astype(np.int8)
            if info.calls:
                for j, (call, name) in enumerate(zip(info.calls, info.answers)):
                    # an answer where no call is recorded: the bit cell is empty but the answer is not
                    orphan = ~bad & (vals[:, j] < 0) & (answers[:, j] != 1)
                    if orphan.any():
                        i = int(np.argmin(np.where(orphan, rows, np.iinfo(np.int64).max)))
                        errors.append(
                            (
                                int(rows[i]),
                                2 + 2 * width + j,
                                f"{_where(source, self.label(rows[i]), name)}: an answer for a call that is not "
                                f"recorded (column {call!r} is empty)",
                            )
                        )
                    self._disagree(
                        block,
                        rows,
                        vals[:, j],
                        computed[:, j],
                        answers[:, j],
                        ~bad & (vals[:, j] >= 0),
                        call,
                        name,
                        2 + 2 * width + j,
                        errors,
                    )
            else:
                vals = computed  # every answer column is a call; an empty answer is a call without an answer
        present = vals >= 0
        # a call is recorded after an empty cell: the empty cell is a missing value, not "fewer calls"
        later = np.flip(np.logical_or.accumulate(np.flip(present, axis=1), axis=1), axis=1)
        hole = ~present[:, :-1] & later[:, 1:] & ~bad[:, None]
        if hole.any():
            i = int(np.argmin(np.where(hole.any(axis=1), rows, np.iinfo(np.int64).max)))
            j = int(np.argmax(hole[i]))
            last = width - 1 - int(np.argmax(present[i, ::-1]))
            errors.append(
                (
                    int(rows[i]),
                    2 + 3 * width,
                    f"{_where(source, self.label(rows[i]), info.calls[j])}: missing value before the recorded "
                    f"call in column {info.calls[last]!r}",
                )
            )
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
            self.duplicate = (
                int(rows[i]),
                f"{source}: {self.row_label} {self.label(rows[i])} duplicates "
                f"{self.row_label} {self.label(first)}: key {_show(self.id_text[k & 0xFFFFFFFF])} appears twice",
            )
        ok = ~dup
        ex = self._examples(keys[ok], rows[ok])
        self.bit[ex, :width] = vals[ok]
        self.row[ex, :width] = np.where(present[ok], rows[ok, None], 0)
        if answers is not None:
            self.answer[ex, :width] = np.where(present[ok], answers[ok], 0)

    # ---- answers ------------------------------------------------------------------------------

    def _answer_ids(self, block, rows, column, priority, errors) -> tuple[np.ndarray, np.ndarray]:
        """Per row of an answer column: 1 for no answer, else 2 + its key's id; and the rows whose cell is not an
        answer."""
        enc = block.columns[column]
        texts, bad = self._convert(enc, lambda v, r: _answer_text(v, self.source, r, column), rows, priority, errors)
        keys = [None if t is None else normalize_answer(t, self.normalize) for t in texts]
        ids = (_intern(self.keys, keys) + 2).astype(np.int32)  # no key (-1) -> 1
        return ids[enc.codes], bad

    def _target_ids(self, block, rows, priority, errors) -> tuple[np.ndarray, np.ndarray]:
        """Per row: 2 + the id of the target's key; the rows without a target. One kind of value per column."""
        column, source = self.info.target, self.source

        def convert(value, row):
            text = _answer_text(value, source, row, column)
            key = None if text is None else normalize_answer(text, self.normalize)
            if key is None:
                raise DataError(
                    f"{_where(source, row, column)}: missing target (a call's answer is compared with "
                    f"its example's target)"
                )
            return _kind(value), key

        enc = block.columns[column]
        pairs, bad = self._convert(enc, convert, rows, priority, errors)
        for u, pair in enumerate(pairs):
            if pair is not None and pair[0] not in self.target_kinds:
                self.target_kinds[pair[0]] = int(rows[enc.codes == u].min())
        if len(self.target_kinds) > 1:
            (k1, r1), (k2, r2) = sorted(self.target_kinds.items(), key=lambda t: t[1])[:2]
            raise DataError(
                f"{source}: column {column!r} mixes {k1}s ({self.row_label} {self.label(r1)}) and {k2}s "
                f"({self.row_label} {self.label(r2)}); a target column holds one kind of value (write them "
                f"all as text, or all as numbers)"
            )
        ids = (_intern(self.keys, [None if p is None else p[1] for p in pairs]) + 2).astype(np.int32)
        return ids[enc.codes], bad

    def _disagree(
        self, block, rows, given, computed, answer, check, bit_column, answer_column, priority, errors
    ) -> None:
        """An error for the first row whose bit is not answer == target."""
        wrong = check & (given != computed)
        if not wrong.any():
            return
        i = int(np.argmin(np.where(wrong, rows, np.iinfo(np.int64).max)))
        a, t = block.columns[answer_column], block.columns[self.info.target]
        shown = "no answer" if answer[i] == 1 else f"the answer {_show(a.values[a.codes[i]])}"
        errors.append(
            (
                int(rows[i]),
                priority,
                f"{_where(self.source, self.label(rows[i]), bit_column)}: the bit is {int(given[i])} but "
                f"{shown} {'equals' if computed[i] else 'does not equal'} the target {_show(t.values[t.codes[i]])} "
                f"(--answer-normalize {self.normalize}); a bit or correct column must agree with answer == target",
            )
        )

    def _one_target(self, ex, rows, target, errors) -> None:
        """An error when an example's rows give it two targets (long form): the first target it was given is its own."""
        order = np.argsort(rows, kind="stable")
        uniq, first = np.unique(ex[order], return_index=True)
        known = self.target[uniq]
        own = np.where(known != 0, known, target[order][first])
        self.target[uniq] = own
        expected = own[np.searchsorted(uniq, ex)]
        clash = target != expected
        if clash.any():
            i = int(np.argmin(np.where(clash, rows, np.iinfo(np.int64).max)))
            texts = self.keys.texts
            errors.append(
                (
                    int(rows[i]),
                    7,
                    f"{self.source}: {self.row_label} {self.label(rows[i])}: example {_show(self._id_of(int(ex[i])))} "
                    f"has the target {_show(texts[target[i] - 2])} here and {_show(texts[expected[i] - 2])} in another "
                    f"{self.row_label}; an example has one target",
                )
            )

    def _id_of(self, example: int) -> str:
        return self.id_text[int(self.ex_key[example]) & 0xFFFFFFFF]

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
            raise DataError(
                f"{source}: {self.row_label} {self.label(first[e])}, example "
                f"{_show(self.id_text[int(self.ex_key[e]) & 0xFFFFFFFF])}: {int(k[e])} call(s) recorded; "
                f"at least 2 are needed"
            )
        # recorded calls first, in call-index order; NaN after an example's K_i calls. The
        # calls are put in place in the 1-byte bits, so that the float output is the only
        # (examples x calls) array of 8-byte values ever allocated.
        small = self.bit[:n] if in_order else self.bit[:n][:, order]
        codes = None
        if self.info.answers:
            codes = self.answer[:n] if in_order else self.answer[:n][:, order]
            self.answer = np.zeros((0, self.answer.shape[1]), dtype=self.answer.dtype)
        if (present[:, 1:] & ~present[:, :-1]).any():  # some example skips a call index: close the gaps
            pack = np.argsort(~present, axis=1, kind="stable")
            small = np.take_along_axis(small, pack, axis=1)
            if codes is not None:
                codes = np.take_along_axis(codes, pack, axis=1)
            del pack
        del present
        bits = small.astype(float)
        del small
        self.bit = np.zeros((0, self.bit.shape[1]), dtype=self.bit.dtype)
        bits[np.arange(bits.shape[1])[None, :] >= k[:, None]] = np.nan
        if codes is not None:
            # stored 0 (no call), 1 (no answer), 2 + key id -> answer_codes' -2, -1, key id
            codes = answer_codes(codes.astype(np.int64) - 2, bits == 1)
        names = {g: "/".join(t) for t, g in self.group_code.items()} or {0: ""}
        out, notes = {}, []
        if (
            len(names) == 1
            and len(self.id_text) == n
            and (self.ex_key[:n] == np.arange(n)).all()
            and (first[1:] > first[:-1]).all()
        ):
            # one group whose examples were numbered in file order (the usual file): the
            # example ids are the id texts as they are, the bits and counts are the whole arrays
            groups: list[tuple[int, slice | np.ndarray, list[str]]] = [(0, slice(None), self.id_text)]
        else:
            id_text = np.array(self.id_text, dtype=object)
            group_of = self.ex_key[:n] >> 32
            # every group's examples at once, by group and then by first row: one sort, so that
            # the work grows as n log n, not as n times the number of groups (a file can have a
            # group per example)
            by_group = np.lexsort((first, group_of))
            sorted_groups = group_of[by_group]
            starts = np.flatnonzero(np.r_[True, sorted_groups[1:] != sorted_groups[:-1]])
            spans = zip(starts.tolist(), np.r_[starts[1:], n].tolist())
            groups = []
            # groups in order of first appearance: a group's first member has its first row
            for a, b in sorted(spans, key=lambda span: first[by_group[span[0]]]):
                members = by_group[a:b]
                # one group in file order: a view of the bits, not a second copy
                rows = slice(None) if len(members) == n and (members == np.arange(n)).all() else members
                groups.append((int(sorted_groups[a]), rows, id_text[self.ex_key[members] & 0xFFFFFFFF].tolist()))
        for g, rows, texts in groups:
            kg = k[rows]
            kmax = int(kg.max())
            ids = tuple(texts)
            member_first = first[rows]
            out[names[g]] = CallBits(
                ids,
                bits[rows, :kmax],
                kg.astype(int, copy=False),
                source,
                names[g],
                answers=None if codes is None else codes[rows, :kmax],
            )
            fewer = np.flatnonzero(kg < kmax)
            if len(fewer):
                i = int(fewer[0])
                where = f"{names[g]}: " if names[g] else ""
                notes.append(
                    f"{where}{len(fewer)} of {len(ids)} examples {'has' if len(fewer) == 1 else 'have'} "
                    f"fewer than {kmax} calls (the first: example {ids[i]!r}, {self.row_label} "
                    f"{self.label(member_first[i])}, {int(kg[i])} calls); every recorded call is used, and "
                    f"quantities needing m calls only for m <= {int(kg.min())}"
                )
        values = sorted(self.call_value)
        if self.info.form == "long" and values[-1] - values[0] + 1 != len(values):
            notes.append(
                f"call indices {abbreviate(map(str, values))} are not consecutive; each example's calls "
                f"are used in index order"
            )
        return out, notes
