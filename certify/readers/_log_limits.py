"""The work limits of reading evaluation logs (inspect_ai logs, lm-eval samples files).

A hostile log (a decompression bomb, JSON nested a million levels deep, a sample of a
hundred million tiny values) must be refused with one line within half a minute and 2 GB of
memory, while the logs inspect_ai and lm-eval write for real evaluations are read. The values
are rows of docs/reference/limits.md; each says why. Reading a JSON document of a log costs about
0.1 s per MiB on a loaded 2-core machine (removing its strings to measure its nesting, then
parsing it), and inspect_ai's own reader, when installed, reads it once more.
"""

from __future__ import annotations

__all__ = ["MAX_LOG_ARCHIVE_BYTES", "MAX_LOG_DOCUMENT_BYTES", "MAX_LOG_JSON_DEPTH", "MAX_LOG_JSON_VALUES"]

#: Largest JSON document of a log (128 MiB): a ``.json`` log file, one member of a ``.eval``
#: archive once decompressed, the first line of a ``.jsonl`` file tested for being lm-eval
#: samples. Python holds a parsed document in memory several times its size; a sample of an
#: agent's long transcript is a few megabytes.
MAX_LOG_DOCUMENT_BYTES = 128 * 2**20

#: Most bytes the members of one ``.eval`` archive decompress to, together (256 MiB): each
#: member is decompressed to check its CRC and its JSON is parsed, so the bytes bound the
#: time; a 0.7 MB archive can hold 700 MB of zeros.
MAX_LOG_ARCHIVE_BYTES = 256 * 2**20

#: Deepest nesting of JSON arrays and objects in a log document: a whole inspect_ai ``.json``
#: log nests 9 levels (measured on one inspect_ai 0.3.285 wrote; a tool call's arguments add
#: their own); Python's parser recurses once per level and fails near 1000.
MAX_LOG_JSON_DEPTH = 100

#: Most JSON values in the documents of one log together (2^23, about 8.4 million): a parsed
#: value costs Python up to about 100 bytes (under 1 GB in all), and parsing them about 3 s.
MAX_LOG_JSON_VALUES = 2**23
