"""The core's JSON reading within limits (certify/_json_limits.py): every refusal one line, no recursion.

Each case states what Python's own ``json`` does with the same text, so that the test fails
if the strict parse ever falls back to it.
"""

from __future__ import annotations

import json
import os
import re
import sys

import pytest

from certify._json_limits import NotJson, Unreadable, decode_utf8, json_limits, parse_json, read_bytes


def _refused(text, match, **limits):
    with pytest.raises(NotJson, match=match) as info:
        parse_json(text, **{"depth": 64, **limits})
    assert "\n" not in str(info.value)


def test_valid_documents_parse_as_json_does():
    for text in ('{"a": [1, 2.5, "x", null, true], "b": {"c": "]}[{"}}', "[]", '"s"', "0", '[{"a": "\\"]"}]'):
        assert parse_json(text, depth=8) == json.loads(text)
        assert parse_json(text.encode(), depth=8) == json.loads(text)
    assert parse_json(b"\xef\xbb\xbf[1]", depth=2) == [1]  # a byte-order mark is dropped


def test_repeated_keys_are_refused_where_json_keeps_the_last():
    text = '{"status": "error", "samples": [], "status": "success"}'
    assert json.loads(text)["status"] == "success"
    _refused(text, r"^the key 'status' appears twice in one object$")
    _refused('[{"a": {"b": 1, "b": 2}}]', "the key 'b' appears twice")


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_non_json_constants_are_refused(constant):
    assert json.loads(f"[{constant}]")  # Python reads them
    _refused(f"[{constant}]", rf"^{constant} is not a JSON number$")


def test_an_integer_beyond_pythons_digit_limit_is_one_line():
    text = '{"n": ' + "7" * (sys.get_int_max_str_digits() + 1) + "}"
    with pytest.raises(ValueError, match="Exceeds the limit"):
        json.loads(text)
    _refused(text, rf"a number has more than {sys.get_int_max_str_digits()} digits")
    assert parse_json('{"n": ' + "7" * sys.get_int_max_str_digits() + "}", depth=1)["n"] % 10 == 7


def test_nesting_and_values_are_measured_without_recursion():
    deep = "[" * 200_000 + "]" * 200_000
    with pytest.raises(RecursionError):
        json.loads(deep)
    _refused(deep, r"^arrays and objects nest 200000 levels deep, deeper than the limit of 64$")
    assert json_limits("[" * 64 + "]" * 64, depth=64) is None
    assert "nest 65 levels" in json_limits("[" * 65 + "]" * 65, depth=64)
    _refused("[" + ",".join(["1"] * 100) + "]", "more than the limit of 50 JSON values", values=50)
    assert json_limits("[" + ",".join(["1"] * 48) + "]", depth=1, values=50) is None
    assert json_limits('["[[[", "{{"]', depth=1) is None  # brackets inside strings do not count
    for bad in ("][", '["]"', "[" * 10, "}"):
        assert json_limits(bad, depth=64) == "not valid JSON: its brackets do not balance"


def test_block_boundaries_do_not_change_the_depth(monkeypatch):
    """The running depth carries across blocks: the same depth with blocks of 3 brackets."""
    import certify._json_limits as core

    text = "[" * 7 + "{}" * 5 + "]" * 7
    whole = json_limits(text, depth=8), json_limits(text, depth=7)
    monkeypatch.setattr(core, "_BLOCK", 3)
    assert whole == (None, "arrays and objects nest 8 levels deep, deeper than the limit of 7")
    assert json_limits(text, depth=8) is None
    # read in blocks, the text is refused at the first block past the limit, which the message says
    assert json_limits(text, depth=7) == "arrays and objects nest 8 levels deep or more, deeper than the limit of 7"
    assert json_limits("[]]" + "[", depth=6) == "not valid JSON: its brackets do not balance"


def test_open_strings_of_escaped_quotes_cost_linear_time():
    """'"' then n times '\\"': each '"' once started a scan to the end (quadratic); now one scan."""
    text = '["' + '\\"' * 4_000_000
    assert json_limits(text, depth=8) == "not valid JSON: its brackets do not balance"
    _refused('"' + '\\"' * 4_000_000, r"^not valid JSON \(Unterminated string")


def test_invalid_utf8_bytes():
    _refused(b'["\xff"]', r"^is not UTF-8 text \(byte 2: invalid start byte\)$")
    with pytest.raises(Unreadable, match="byte 0"):
        decode_utf8(b"\xfe")


def test_read_bytes_stops_at_the_limit_and_reads_regular_files_only(tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 2049)
    with pytest.raises(Unreadable, match=r"^is larger than the limit of 2048 bytes \(0.00195312 MiB\) for a log$"):
        read_bytes(big, 2048, "a log")
    assert read_bytes(big, 2049, "a log") == b" " * 2049
    with pytest.raises(Unreadable, match="is not a regular file"):
        read_bytes(tmp_path, 10, "a log")
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)  # nobody writes it: opening it would block
    with pytest.raises(Unreadable, match="is not a regular file"):
        read_bytes(fifo, 10, "a log")
    with pytest.raises(Unreadable, match="is not a regular file"):
        read_bytes(tmp_path / "missing.json", 10, "a log")


def test_many_strings_are_refused_before_they_are_removed():
    """Each string of '["a","a",...]' is a value: the quote count alone refuses the text."""
    text = "[" + ",".join(['"a"'] * 1000) + "]"
    assert json_limits(text, depth=1, values=249) == "more than the limit of 249 JSON values"
    assert json_limits(text, depth=1, values=1001) is None
    assert "1000 JSON values" in json_limits(text, depth=1, values=1000)  # 1001 values: 1000 strings and the array
    keys = "{" + ",".join(f'"k{i}": "v"' for i in range(100)) + "}"  # 200 strings, 101 values
    assert json_limits(keys, depth=1, values=101) is None
    escaped = '["' + '\\"' * 1000 + '"]'  # one string however many escaped quotes
    assert json_limits(escaped, depth=1, values=2) is None


def test_a_budget_of_values_is_shared_by_several_documents():
    from certify._json_limits import ValueBudget

    budget = ValueBudget(10)
    assert parse_json("[1, 2, 3]", depth=2, values=budget) == [1, 2, 3] and budget.left == 6
    assert parse_json('{"a": "x, y"}', depth=2, values=budget) == {"a": "x, y"} and budget.left == 4  # no comma in a string counts
    with pytest.raises(NotJson, match="more than the limit of 4 JSON values"):
        parse_json("[1, 2, 3, 4]", depth=2, values=budget)
    assert budget.left == 4  # a refused document uses nothing


_STRING = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)', re.DOTALL)


def _reference(text: bytes) -> tuple[bool, int, int]:
    """Balance, depth and value count measured another way: strings replaced by "" with a regex,
    then brackets and commas counted one by one."""
    bare = _STRING.sub(b'""', text)
    level = deepest = 0
    balanced = True
    for ch in bare:
        if ch in b"[{":
            level += 1
            deepest = max(deepest, level)
        elif ch in b"]}":
            level -= 1
            balanced = balanced and level >= 0
    return balanced and level == 0, deepest, bare.count(b",") + sum(bare.count(c) for c in b"[{") + 1


_TOKENS = ["[", "]", "{", "}", ",", ":", '"a"', '"[\\"]"', '"\\\\"', '"{,}"', "1", " ", '"\\\\\\""', '"x\\\\\\\\"']


@pytest.mark.parametrize("block", [1, 3, 8, 2**22])
def test_the_block_scan_agrees_with_a_regex_on_random_texts(monkeypatch, block):
    """Texts of JSON tokens (escaped quotes and backslashes included, no backslash outside a string),
    cut into blocks of every size: strings, depth and values as the reference finds them."""
    import random

    import certify._json_limits as core

    monkeypatch.setattr(core, "_BLOCK", block)
    rng = random.Random(block)
    for _ in range(500):
        text = "".join(rng.choice(_TOKENS) for _ in range(rng.randint(0, 25))).encode()
        balanced, deepest, count = _reference(text)
        quotes = text.count(b'"') - text.count(b'\\"')  # the documented first test: quotes after no backslash
        for depth, values in ((3, 1000), (99, 4), (99, 1000)):
            got = json_limits(text, depth=depth, values=values)
            deep = f"arrays and objects nest {deepest} levels deep, deeper than the limit of {depth}"
            too_many = f"more than the limit of {values} JSON values"
            unbalanced = "not valid JSON: its brackets do not balance"
            if quotes // 4 > values:
                assert got == too_many, text
            elif not balanced:  # the scan may meet a limit in an earlier block first
                assert got == unbalanced or (block < len(text) and got.startswith(("arrays", too_many))), text
            elif deepest > depth:
                assert got == deep or (block < len(text) and got.startswith("arrays and objects nest")), text
            elif count > values:
                assert got == too_many, text
            else:
                assert got is None, text


def test_a_shared_strict_decoder_keeps_exact_numbers_and_the_rules():
    """strict_decoder(Decimal) reads 0.99999999999999999 as written (float would make it 1), and a
    decoder made once still refuses repeated keys and NaN; a text with fewer brackets than the
    depth limit is parsed without the scan and gives the same document."""
    from decimal import Decimal

    from certify._json_limits import strict_decoder

    decoder = strict_decoder(parse_float=Decimal)
    assert parse_json('{"b": 0.99999999999999999}', depth=1, decoder=decoder) == {"b": Decimal("0.99999999999999999")}
    with pytest.raises(NotJson, match="the key 'b' appears twice in one object"):
        parse_json('{"b": 1, "b": 0}', depth=1, decoder=decoder)
    with pytest.raises(NotJson, match="NaN is not a JSON number"):
        parse_json('{"b": NaN}', depth=1, decoder=decoder)
    with pytest.raises(NotJson, match="nest 2 levels deep, deeper than the limit of 1"):
        parse_json('{"b": [1]}', depth=1, decoder=decoder)
