"""The registry that picks a file's reader (:mod:`certify.readers._registry`).

A reader is chosen by the file's suffix (in any case) and, where two kinds share a suffix,
by content: an lm-eval samples file before a JSON-lines table, an empty ``.json`` is no
inspect_ai log. Keywords that do not apply to the chosen kind are refused with one line.
"""

import inspect
import json
import sqlite3

import pytest

from certify.readers import READERS, DataError, ReadOptions, read_groups, reader_for

LMEVAL_LINE = {"doc_id": 0, "doc": {}, "target": "a", "resps": [["a", "b"]], "filtered_resps": ["a"], "filter": "none"}


@pytest.fixture()
def files(tmp_path):
    """One file of each kind, keyed by the reader that must read it (None: no reader)."""
    texts = {
        "a.csv": ("delimited table", "example_id,b0,b1\na,1,0\n"),
        "A.TSV": ("delimited table", "example_id\tb0\tb1\na\t1\t0\n"),
        "a.txt": ("delimited table", "example_id;b0;b1\na;1;0\n"),
        "empty.csv": ("delimited table", ""),
        "table.jsonl": ("JSON-lines table", '{"example_id": "a", "b0": 1, "b1": 0}\n'),
        "table.ndjson": ("JSON-lines table", '{"example_id": "a", "b0": 1, "b1": 0}\n'),
        "empty.jsonl": ("JSON-lines table", ""),
        "samples_t_2026-01-01T00-00-00.jsonl": ("lm-eval samples", json.dumps(LMEVAL_LINE) + "\n"),
        "renamed.NDJSON": ("lm-eval samples", "\n" + json.dumps(LMEVAL_LINE) + "\n"),
        "log.json": ("inspect_ai log", json.dumps({"samples": []})),
        "empty.json": (None, ""),
        "log.eval": ("inspect_ai log", "not even a zip archive"),
        "empty.eval": ("inspect_ai log", ""),
        "t.parquet": ("Parquet table", "not parquet"),
        "runs.sqlite": ("run store", ""),
        "runs.db": ("run store", ""),
        "book.xlsx": (None, "id,b0,b1\n"),
        "no_suffix": (None, "id,b0,b1\n"),
    }
    out = {}
    for name, (reader, text) in texts.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        out[tmp_path / name] = reader
    return out


def test_reader_for_picks_by_suffix_then_content(files):
    for path, expected in files.items():
        reader = reader_for(path)
        assert (reader.name if reader is not None else None) == expected, path.name


def test_readers_declare_what_read_groups_accepts():
    keywords = set(inspect.signature(read_groups).parameters) - {"path"}
    # every keyword read_groups takes reaches the readers, and no reader claims one it does not take
    assert {f for f in ReadOptions.__dataclass_fields__} == keywords
    for reader in READERS:
        assert reader.options <= keywords, reader.name
        assert all(s.startswith(".") and s == s.lower() for s in reader.suffixes), reader.name
    # a suffix two readers share is decided by the content test of the earlier one
    seen = {}
    for reader in READERS:
        for suffix in reader.suffixes:
            if suffix in seen:
                assert seen[suffix].sniff is not None, (suffix, seen[suffix].name, reader.name)
            seen.setdefault(suffix, reader)


def test_options_for_the_wrong_kind_of_file_are_refused_in_one_line(tmp_path):
    table = tmp_path / "a.csv"
    table.write_text("example_id,b0,b1\na,1,0\n")
    log = tmp_path / "log.json"
    log.write_text(json.dumps({"samples": []}))
    lines = tmp_path / "t.jsonl"
    lines.write_text('{"example_id": "a", "b0": 1, "b1": 0}\n')
    cases = [
        (table, {"answer_regex": "x"}, f"{table}: --answer-regex (answer_regex=) applies to logs only (lm-eval samples "
                                      f"files: .jsonl lines with doc_id, doc, target, resps; inspect_ai logs: .eval, .json)"),
        (log, {"ignore_case": True}, f"{log}: --answer-ignore-case (ignore_case=) applies to lm-eval samples files only "
                                     f"(.jsonl lines with doc_id, doc, target, resps)"),
        (table, {"scorer": "s", "score_map": {"N": 0}},
         f"{table}: --scorer (scorer=), --score-map (score_map=) apply to inspect_ai logs (.eval, .json) only"),
        (lines, {"delimiter": ","}, f"{lines}: --delimiter (delimiter=) applies to delimited text tables (.csv, .tsv, .txt) only"),
        (log, {"columns": {"id_col": "x"}}, f"{log}: column options (--id-col, --call-cols, --answer-cols, --call-col, "
                                            f"--correct-col, --answer-col, --target-col, --group-cols, --ignore-cols) "
                                            f"apply to tables (.csv, .tsv, .txt, .jsonl, .parquet) only"),
    ]
    for path, kw, message in cases:
        with pytest.raises(DataError) as info:
            read_groups(path, **kw)
        assert str(info.value) == message


def test_a_file_no_reader_handles(tmp_path):
    book = tmp_path / "book.xlsx"
    book.write_text("id,b0,b1\n")
    # column options may be right once the file is saved as a table: the type is what is wrong
    with pytest.raises(DataError, match=r"unknown file type '\.xlsx'; use \.csv"):
        read_groups(book, columns={"id_col": "id"})
    empty = tmp_path / "empty.json"
    empty.write_text("")
    with pytest.raises(DataError, match=r"empty\.json: the file is empty$"):
        read_groups(empty)
    with pytest.raises(DataError, match=r"--scorer \(scorer=\) applies to inspect_ai logs"):
        read_groups(empty, scorer="s")


def test_open_store_is_passed_to_a_store_and_ignored_elsewhere(tmp_path):
    class Store:
        def __init__(self, path):
            self.path = path

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def call_rows(self):
            return [("d", "p", "a", 0, 1), ("d", "p", "a", 1, 0), ("d", "p", "b", 0, 1), ("d", "p", "b", 1, 1)]

    store = tmp_path / "runs.db"
    sqlite3.connect(store).close()
    (bits,) = read_groups(store, open_store=Store).values()
    assert bits.group == "d/p" and bits.example_ids == ("a", "b") and bits.bits.tolist() == [[1, 0], [1, 1]]
    table = tmp_path / "a.csv"
    table.write_text("example_id,b0,b1\na,1,0\n")
    (bits,) = read_groups(table, open_store=Store).values()
    assert bits.bits.tolist() == [[1, 0]] and bits.read_info.form == "wide"
