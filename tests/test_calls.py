"""The call types: answer codes agree with the bits, or the CallBits is refused."""

from __future__ import annotations

import numpy as np
import pytest

from certify._calls import CORRECT, NO_ANSWER, NO_CALL, CallBits
from certify._errors import InputError

BITS = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, np.nan]])


def test_codes_that_agree_with_the_bits_are_kept_as_int32():
    c = CallBits(("a", "b"), BITS, np.array([3, 2]), answers=np.array([[CORRECT, 1, NO_ANSWER], [2, CORRECT, NO_CALL]]))
    assert c.has_answers and c.abstentions == 1 and c.answers.dtype == np.int32
    assert not CallBits(("a", "b"), BITS, np.array([3, 2])).has_answers


@pytest.mark.parametrize("codes", [
    [[CORRECT, 1, CORRECT], [2, CORRECT, NO_CALL]],    # a correct code on an incorrect call
    [[CORRECT, 1, 1], [2, 3, NO_CALL]],                # a correct call with a wrong code
    [[CORRECT, 1, 1], [2, CORRECT, 4]],                # a code where no call exists
    [[CORRECT, 1, -3], [2, CORRECT, NO_CALL]],         # an undefined code
])
def test_codes_that_disagree_with_the_bits_are_refused(codes):
    with pytest.raises(InputError, match="answers"):
        CallBits(("a", "b"), BITS, np.array([3, 2]), answers=np.array(codes))


def test_successes_are_computed_once():
    c = CallBits(("a", "b"), BITS, np.array([3, 2]))
    assert c.successes is c.successes and list(c.successes) == [1.0, 1.0]
