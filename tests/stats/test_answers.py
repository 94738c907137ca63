"""Answer normalization and the per-example answer codes, against a direct per-row computation."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from certify._calls import CORRECT, NO_ANSWER, NO_CALL
from certify.readers._answers import NO_ANSWER_ID, NO_CALL_ID, AnswerNumber, answer_codes, normalize_answer


@pytest.mark.parametrize("text, how, key", [
    ("  Paris ", "exact", "  Paris "), ("  Paris ", "strip", "Paris"), ("  PARIS  city", "casefold", "paris city"),
    ("   ", "strip", None), ("", "exact", None), (None, "number", None),
    ("Straße", "casefold", "strasse"), ("ＡＢＣ", "casefold", "abc"),
])
def test_text_normalizations(text, how, key):
    assert normalize_answer(text, how) == key


@pytest.mark.parametrize("a, b", [("5", "5.0"), ("+5", "5"), ("1,000", "1000"), ("3/4", "0.75"), ("-.5", "-1/2"),
                                  ("5e0", "5"), ("1E3", "1,000")])
def test_numbers_compare_as_numbers(a, b):
    assert normalize_answer(a, "number") == normalize_answer(b, "number")
    assert normalize_answer(a, "strip") != normalize_answer(b, "strip")


@pytest.mark.parametrize("text", ["١", "1_0", "12,34", "e5", ".", "1/0", "9" * 200, "inf", "nan"])
def test_texts_that_are_not_plain_numbers_compare_as_text(text):
    assert normalize_answer(text, "number") == normalize_answer(text, "casefold")


@pytest.mark.parametrize("how", ["casefold", "number"])
@pytest.mark.parametrize("a, b", [("10²", "102"), ("2⁴", "24"), ("H₂O", "h2o"), ("1½", "11/2"), ("½", "1/2"),
                                  ("①", "1"), ("𝟓", "5"), ("x²", "x2")])
def test_superscripts_fractions_and_other_compatibility_forms_stay_distinct(a, b, how):
    """Full NFKC would merge each pair (10² would read as 102): only width variants are folded."""
    assert normalize_answer(a, how) != normalize_answer(b, how)


@pytest.mark.parametrize("how", ["casefold", "number"])
@pytest.mark.parametrize("a, b", [("５", "5"), ("ＡＢＣ", "abc"), ("１２３", "123"), ("a\u3000b", "a b"), ("ｶﾞ", "ガ"),
                                  ("e\u0301", "\u00e9"), ("E\u0301", "\u00e9"), ("Å", "\u00e5")])
def test_width_variants_canonical_equivalents_and_case_are_merged(a, b, how):
    assert normalize_answer(a, how) == normalize_answer(b, how)


def test_full_width_digits_read_as_a_number():
    assert normalize_answer("１，０００", "number") == normalize_answer("1000", "number") == AnswerNumber(Fraction(1000))


@pytest.mark.parametrize("text", ["\x005/1", "\x001/2", "\x00-3/1"])
@pytest.mark.parametrize("how", ["exact", "strip", "casefold", "number"])
def test_no_text_gets_the_key_of_a_number(text, how):
    """A number's key is typed: a text beginning with NUL (the old key's form) never shares it."""
    numbers = {normalize_answer(n, "number") for n in ("5", "1/2", "-3")}
    assert all(isinstance(k, AnswerNumber) for k in numbers)
    assert normalize_answer(text, how) == text and text not in numbers


def test_unknown_normalization_is_refused():
    with pytest.raises(ValueError, match="--answer-normalize 'lower'"):
        normalize_answer("x", "lower")


def _codes_by_rows(ids, correct):
    out = np.empty(ids.shape, dtype=np.int32)
    for i in range(ids.shape[0]):
        seen = {}
        for j in range(ids.shape[1]):
            if ids[i, j] == NO_CALL_ID:
                out[i, j] = NO_CALL
            elif correct[i, j]:
                out[i, j] = CORRECT
            elif ids[i, j] == NO_ANSWER_ID:
                out[i, j] = NO_ANSWER
            else:
                out[i, j] = seen.setdefault(int(ids[i, j]), len(seen) + 1)
    return out


@pytest.mark.parametrize("seed", range(40))
def test_codes_match_a_row_by_row_computation(seed):
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(1, 30)), int(rng.integers(1, 12))
    ids = rng.integers(-2, 6, (n, k))
    correct = (rng.random((n, k)) < 0.3) & (ids != NO_CALL_ID)
    assert np.array_equal(answer_codes(ids, correct), _codes_by_rows(ids, correct))
