r"""Readers: per-example, per-call correctness bits B_ij (paper eq. (hierarchy-main)) from files.

Every reader produces the call types of :mod:`certify._calls` (:class:`~certify.CallBits`, how the
file was read in :class:`ReadInfo`, :class:`~certify.DataError` for an unusable file) and imports
nothing above the math core: statistics, the likelihood engine, the experiment, the report
and the CLI all build on the readers, never the other way round.

Reading
-------

* :func:`~certify.read_bits` -- read one analysis' correctness bits; ``group`` selects among several.
* :func:`read_groups` -- read correctness bits, one :class:`~certify.CallBits` per group (``dataset/policy``).
* :func:`read_call_table` -- one :class:`~certify.CallBits` per group of a :class:`CallTable`.
* :func:`bits_from_array` -- CallBits from an (n, K) array of 0/1 (NaN only after an example's last call).

The call types
--------------

* :class:`~certify.CallBits` -- correctness bits of one analysis (one policy on one data set).
* :class:`ReadInfo` -- how a file was read: which column (or log field) gave what.
* :exc:`~certify.DataError` -- a data file is unusable; the message names the file, row and column.
* :class:`CallTable` -- a source of correctness bits, one row per call (how a higher layer hands its bits over).

Column roles, answers and score maps
------------------------------------

* :class:`ColumnMap` -- explicit column roles for tables; every field is optional.
* :func:`normalize_answer` -- the key an answer is compared by, or None for no answer.
* :data:`NORMALIZATIONS` -- the answer normalizations of :func:`normalize_answer`: exact, strip, casefold, number.
* :data:`DEFAULT_NORMALIZATION` -- the default ``answer_normalize=`` (``--answer-normalize``), ``"strip"``.
* :func:`parse_score_map` -- ``["N=0", "P=1"]`` (CLI ``--score-map``) -> ``{"N": 0, "P": 1}``.

The registry of file kinds
--------------------------

* :data:`READERS` -- every kind of file :func:`read_groups` reads, in the order they are tried.
* :class:`Reader` -- one kind of file :func:`read_groups` reads.
* :func:`reader_for` -- the first reader that handles a source (a path or a DataFrame), or None.
* :class:`ReadOptions` -- the keywords of :func:`read_groups`, as every reader receives them.

How files are read
------------------

**What reads what.** :func:`read_groups` and :func:`~certify.read_bits` ask the registry
(:mod:`certify.readers._registry`) which reader handles a file, by its suffix and, where a
suffix is shared, by its content:

* ``.csv`` / ``.tsv`` / ``.txt`` (UTF-8 with or without a byte-order mark, ``\n`` or
  ``\r\n`` line ends; comma, semicolon or tab, given with ``delimiter=`` / ``--delimiter``
  or found in the header line): :mod:`~certify.readers._csv`, streamed in blocks, parsed by
  pyarrow when installed, else by Python's :mod:`csv`;
* ``.jsonl`` / ``.ndjson``, one JSON object per line: :mod:`~certify.readers._jsonl`;
* ``.parquet`` (the ``parquet`` extra): :mod:`~certify.readers._parquet`;
* inspect_ai eval logs, ``.eval`` and (non-empty) ``.json``: :mod:`~certify.readers._inspect`
  (the ``status`` rule, ``allow_incomplete``, the score mapping :func:`parse_score_map`,
  the answers), read by :mod:`~certify.readers._inspect_files` (its two readers, after a
  strict load within limits: :mod:`~certify.readers._zip` for the archive);
* lm-evaluation-harness samples files (``samples_<task>_<date>.jsonl`` of
  ``lm_eval --log_samples``, a ``generate_until`` task with ``repeats``), recognized by
  the keys of their first line before the JSON-lines table reader is tried:
  :mod:`~certify.readers._lmeval` (the exact-match rule, ``ignore_case``, the answers, one
  task per file, the checks against the file's own metric);
* both logs: ``answer_regex`` (:mod:`~certify.readers._answer_regex`, bounded work) and
  the limits of reading them (:mod:`~certify.readers._log_limits`);
* the project's run store (``.sqlite``, ``.sqlite3``, ``.db``; ``certify/experiment/README.md``):
  :mod:`~certify.readers._store`, through the :class:`CallTable` protocol and an
  ``open_store=`` the caller passes (:class:`certify.experiment.RunStore`), so that the
  readers never import the experiment; :func:`read_call_table` reads any CallTable;
* a pandas DataFrame, passed instead of a path: :mod:`~certify.readers._frame`, read as a
  table file (``certify.analyze(df)`` reads one this way).

**Answers.** Where a source records each call's answer (table columns ``answer`` /
``answer1..K`` with a ``target``, the run store's parsed answers, logs), the answers become
:attr:`CallBits.answers` codes after one normalization (:func:`normalize_answer`,
:data:`NORMALIZATIONS`, ``answer_normalize=`` / ``--answer-normalize``); in tables a call
is correct when its answer equals the target (:mod:`~certify.readers._columns`,
:mod:`~certify.readers._cells`).

**How a table becomes CallBits.** The header's columns get their roles, by name or by an
explicit :class:`ColumnMap` (:mod:`~certify.readers._columns`: wide or long form, ids,
groups; the reader never guesses); the role columns then stream in blocks of rows
(:mod:`~certify.readers._blocks`: each distinct cell value of a block once) into one
accumulator (:mod:`~certify.readers._cells`: bit values, ragged call counts, duplicates,
kept compact by :mod:`~certify.readers._memory`), which gives one :class:`~certify.CallBits` per
group and the notes of :attr:`ReadInfo.notes` (:mod:`~certify.readers._tables`). Logs and
run stores hand their records (one per call) to the same accumulator, and
:func:`bits_from_array` an (examples x calls) array.

**Errors** (:class:`~certify.DataError`, an :class:`~certify.InputError`) are one line naming
the file, the row (1-based data row, header excluded, a blank line counts; JSONL: line),
the column and the rule: non-binary and missing values, examples with fewer than two
calls, empty files, duplicated (example, call) keys, columns without a role, answers
without a target, a target column of mixed kinds, a bit that disagrees with answer ==
target, a path that is not a regular file (a directory, a FIFO, a device, a link loop),
a file that is not UTF-8 text, a line or value beyond the reading limits
(:mod:`~certify.readers._csv`, :mod:`~certify.readers._jsonl`), call indices that would
need a table far larger than the file (:mod:`~certify.readers._cells`), a keyword that
does not apply to the file's kind (:mod:`~certify.readers._registry`). A value error in
a call or correct column also says which columns were read as what and how to map them.
Messages name CLI flags first and the Python keyword in brackets (``--group (group=)``).
"""

from .._calls import CallBits, DataError, ReadInfo
from ._answers import DEFAULT_NORMALIZATION, NORMALIZATIONS, normalize_answer
from ._columns import ColumnMap
from ._inspect import parse_score_map
from ._registry import READERS, Reader, ReadOptions, read_bits, read_groups, reader_for
from ._store import CallTable, read_call_table
from ._tables import bits_from_array

__all__ = [
    "DEFAULT_NORMALIZATION",
    "NORMALIZATIONS",
    "READERS",
    "CallBits",
    "CallTable",
    "ColumnMap",
    "DataError",
    "ReadInfo",
    "ReadOptions",
    "Reader",
    "bits_from_array",
    "normalize_answer",
    "parse_score_map",
    "read_bits",
    "read_call_table",
    "read_groups",
    "reader_for",
]
