"""The compact bookkeeping of the streaming table reader (issue 16: a large CSV in bounded memory).

Example ids are found through a sorted array of their hashes (:class:`TextCodes`), examples of
grouped files through a sorted array of keys (:class:`SortedIndex`), and the result is built
after the row numbers are dropped. These tests read files cut into many small blocks, so that
ids recur across blocks, with both parsers, and compare every count with one computed here.
"""

import numpy as np
import pytest

import certify.readers._csv as csv_read
from certify.readers import ColumnMap, DataError
from certify.readers._csv import read_csv
from certify.readers._memory import SortedIndex, TextCodes, trim_heap

ENGINES = ["pyarrow", "python"]


class Colliding(str):
    """A text whose hash is that of every other one (as if all the ids collided)."""

    def __hash__(self):
        return 7


def test_text_codes_tell_apart_texts_with_the_same_hash():
    codes = TextCodes()
    first = [Colliding(t) for t in ("a", "b", "c")]
    codes.add(first)
    assert codes.codes([Colliding("c"), Colliding("a"), Colliding("z"), Colliding("b")]).tolist() == [2, 0, -1, 1]
    codes.add([Colliding("z")])
    assert codes.codes([Colliding("z"), Colliding("b")]).tolist() == [3, 1]
    assert codes.texts == ["a", "b", "c", "z"]


def test_text_codes_many_texts_and_none():
    codes = TextCodes()
    texts = [f"id{i}" for i in range(5000)]
    codes.add(texts[:3000])
    got = codes.codes([*texts[::-1], None])
    assert got.tolist() == [i if i < 3000 else -1 for i in range(4999, -1, -1)] + [-1]
    codes.add(texts[3000:])
    assert codes.codes(texts).tolist() == list(range(5000))


def test_sorted_index_get_and_add():
    index = SortedIndex()
    assert index.get(np.array([3], dtype=np.int64)).tolist() == [-1]
    index.add(np.array([5, 1 << 40, -2], dtype=np.int64), np.array([0, 1, 2], dtype=np.int64))
    index.add(np.array([7], dtype=np.int64), np.array([3], dtype=np.int64))
    keys = np.array([7, -2, 6, 1 << 40, 5, 1 << 41, -3], dtype=np.int64)
    assert index.get(keys).tolist() == [3, 2, -1, 1, 0, -1, -1]
    assert index.find(keys)[1].tolist() == [True, True, False, True, True, False, False]
    many = np.arange(1000, dtype=np.int64) * 3
    index.add(many[::-1].copy(), np.arange(1000, dtype=np.int64) + 10)
    assert index.get(many).tolist() == list(range(1009, 9, -1))


def test_trim_heap_runs_anywhere():
    trim_heap()
    trim_heap()


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of a few rows: every id recurs in many blocks."""
    monkeypatch.setattr(csv_read, "BLOCK_BYTES", 1 << 10)
    monkeypatch.setattr(csv_read, "BLOCK_ROWS", 37)


def write_long(path, rng, n, k, groups=False, call_order=None):
    """A long-form file with calls of every example spread over the file; returns the true bits per example."""
    b = rng.integers(0, 2, size=(n, k))
    cells = [(i, c) for c in (call_order or range(k)) for i in rng.permutation(n)]
    lines = ["example_id,call,correct" + (",task" if groups else "")]
    for i, c in cells:
        lines.append(f"x{i * 7919 % 100003},{c},{b[i, c]}" + (f",t{i % 3}" if groups else ""))
    path.write_text("\n".join(lines) + "\n")
    return b, cells


@pytest.mark.parametrize("engine", ENGINES)
def test_many_examples_ids_across_blocks(tmp_path, small_blocks, engine):
    rng = np.random.default_rng(11)
    n, k = 3000, 4
    path = tmp_path / "long.csv"
    b, cells = write_long(path, rng, n, k)
    out, info = read_csv(path, ColumnMap(), None, engine)
    (bits,) = out.values()
    order = list(dict.fromkeys(i for i, _ in cells))  # examples in order of first appearance
    assert bits.example_ids == tuple(f"x{i * 7919 % 100003}" for i in order)
    assert bits.counts.tolist() == [k] * n
    assert (bits.bits == b[order]).all()
    assert info.notes == ()


@pytest.mark.parametrize("engine", ENGINES)
def test_groups_across_blocks(tmp_path, small_blocks, engine):
    rng = np.random.default_rng(12)
    n, k = 2000, 3
    path = tmp_path / "groups.csv"
    b, cells = write_long(path, rng, n, k, groups=True)
    out, _ = read_csv(path, ColumnMap(), None, engine)
    order = list(dict.fromkeys(i for i, _ in cells))
    assert list(out) == list(dict.fromkeys(f"t{i % 3}" for i in order))
    for g, bits in out.items():
        members = [i for i in order if f"t{i % 3}" == g]
        assert bits.example_ids == tuple(f"x{i * 7919 % 100003}" for i in members)
        assert (bits.bits == b[members]).all() and bits.counts.tolist() == [k] * len(members)


@pytest.mark.parametrize("engine", ENGINES)
def test_calls_out_of_order_and_ragged_across_blocks(tmp_path, small_blocks, engine):
    rng = np.random.default_rng(13)
    n = 500
    b = rng.integers(0, 2, size=(n, 4))
    lines = ["example_id,call,correct"]
    rows = {}
    for c in (3, 1, 0):  # call 2 never recorded; call 3 seen first
        for i in range(n):
            if c == 3 and i % 5 == 0:
                continue  # every fifth example has calls 0 and 1 only
            lines.append(f"e{i},{c},{b[i, c]}")
            rows.setdefault(i, len(lines) - 1)
    path = tmp_path / "ragged.csv"
    path.write_text("\n".join(lines) + "\n")
    out, info = read_csv(path, ColumnMap(), None, engine)
    (bits,) = out.values()
    ids = sorted(range(n), key=rows.__getitem__)
    assert bits.example_ids == tuple(f"e{i}" for i in ids)
    assert bits.counts.tolist() == [2 if i % 5 == 0 else 3 for i in ids]
    for r, i in enumerate(ids):
        want = [b[i, 0], b[i, 1]] + ([] if i % 5 == 0 else [b[i, 3]])
        assert bits.bits[r, : len(want)].tolist() == want and np.isnan(bits.bits[r, len(want):]).all()
    assert info.notes[0].startswith(f"100 of {n} examples have fewer than 3 calls (the first: example 'e0', row 401, 2 calls)")
    assert info.notes[1].startswith("call indices 0, 1, 3 are not consecutive")


@pytest.mark.parametrize("engine", ENGINES)
def test_duplicate_across_blocks_names_both_rows(tmp_path, small_blocks, engine):
    lines = ["example_id,call,correct"] + [f"e{i},{c},1" for c in range(2) for i in range(400)]
    lines.append("e123,0,0")  # duplicates row 124, hundreds of rows (many blocks) before
    path = tmp_path / "dup.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError) as err:
        read_csv(path, ColumnMap(), None, engine)
    assert str(err.value) == f"{path}: row 801 duplicates row 124: (example, call) = ('e123', 0) appears twice"
