"""HTTP plumbing shared by the server backends: bounded replies, typed fields, retries with backoff, one-line errors.

A server's reply is read as it streams, to at most :data:`MAX_REPLY_BYTES`, and every
field a backend keeps is checked for its type and range (:func:`reply_text`,
:func:`reply_count`) before it reaches the store: a hostile or broken server costs a
bounded read and a one-line error, never a traceback or a value the store cannot hold.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any, Literal, overload

import httpx

from .._errors import BackendError, EndpointError, RequestRejected
from . import Backend

__all__ = [
    "MAX_REASON_CHARS",
    "MAX_REPLY_BYTES",
    "MAX_TOKEN_COUNT",
    "BadReply",
    "HttpBackend",
    "reply_count",
    "reply_object",
    "reply_text",
]

# Statuses worth retrying: the server is overloaded or failed transiently.
_RETRY_STATUS = {429, 500, 502, 503, 504}
_MAX_DELAY = 30.0

#: Largest reply body read (8 MiB), counted as it streams: a larger one is dropped unread.
#: A reply carries at most ``num_predict`` (<= 32768) generated tokens, a few hundred KB of
#: JSON even with every character escaped, plus Ollama's ``context`` (the token ids of prompt
#: and answer, under 1 MB at a 128k context).
MAX_REPLY_BYTES = 8 << 20
#: Largest token count a reply may report: llama.cpp, Ollama and vLLM count in 32-bit integers.
MAX_TOKEN_COUNT = 2**31 - 1
#: Longest stop reason kept (``stop``, ``length``, ``tool_calls``...).
MAX_REASON_CHARS = 64

_SURROGATE = re.compile("[\ud800-\udfff]")


class BadReply(Exception):
    """A reply that cannot be used: too large, not UTF-8 JSON, or a field of the wrong type or range.

    The message is one line naming the field, its value and the rule it breaks.
    """


def _show(value: Any) -> str:
    """A value as a message shows it: its JSON spelling, cut to 60 characters."""
    try:
        text = json.dumps(value, ensure_ascii=True)
    except (ValueError, TypeError):  # unreachable for decoded JSON; a message must never fail
        text = type(value).__name__
    return text if len(text) <= 60 else text[:57] + "..."


@overload
def reply_text(
    body: dict,
    key: str,
    where: str = "",
    *,
    optional: Literal[False] = False,
    null: str | None = None,
    max_chars: int | None = None,
) -> str: ...


@overload
def reply_text(
    body: dict,
    key: str,
    where: str = "",
    *,
    optional: bool,
    null: str | None = None,
    max_chars: int | None = None,
) -> str | None: ...


def reply_text(
    body: dict,
    key: str,
    where: str = "",
    *,
    optional: bool = False,
    null: str | None = None,
    max_chars: int | None = None,
) -> str | None:
    """The string field ``key`` of a decoded reply, checked.

    Parameters
    ----------
    body : dict
        The decoded reply (or an object inside it).
    key : str
        The field.
    where : str
        The path of ``body`` in the reply (``choices[0].message``), for the message.
    optional : bool
        An absent field is ``None`` (else a :class:`BadReply`).
    null : str or None
        What a JSON ``null`` stands for (``None``: ``null`` is as if absent).
    max_chars : int, optional
        Longest value accepted.

    Raises
    ------
    BadReply
        Not a string, a lone UTF-16 surrogate inside (a ``\\ud800`` escape: not Unicode
        text, and SQLite cannot store it), or longer than ``max_chars``.
    """
    name = f"{where}.{key}" if where else key
    if key not in body or body[key] is None:
        if key in body and null is not None:
            return null
        if optional:
            return None
        raise BadReply(f"reply has no field {name!r}")
    value = body[key]
    if not isinstance(value, str):
        raise BadReply(f"reply field {name} = {_show(value)}: must be a string")
    bad = _SURROGATE.search(value)
    if bad:
        raise BadReply(
            f"reply field {name} holds a lone surrogate ({bad.group()!a} at character {bad.start()}): "
            "must be Unicode text"
        )
    if max_chars is not None and len(value) > max_chars:
        raise BadReply(f"reply field {name} = {_show(value)}: must be at most {max_chars} characters")
    return value


def reply_count(body: dict, key: str, where: str = "") -> int | None:
    """The token-count field ``key`` of a decoded reply (``None`` if absent or ``null``), checked.

    Raises
    ------
    BadReply
        Not an integer from 0 to :data:`MAX_TOKEN_COUNT` (``true``, ``1.5``, ``-1``, ``1e30``,
        a list or an object are refused).
    """
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TOKEN_COUNT:
        name = f"{where}.{key}" if where else key
        raise BadReply(f"reply field {name} = {_show(value)}: must be an integer from 0 to {MAX_TOKEN_COUNT}")
    return value


@overload
def reply_object(body: dict, key: str, where: str = "", *, optional: Literal[False] = False) -> dict: ...


@overload
def reply_object(body: dict, key: str, where: str = "", *, optional: bool) -> dict | None: ...


def reply_object(body: dict, key: str, where: str = "", *, optional: bool = False) -> dict | None:
    """The object field ``key`` of a decoded reply (``None`` if ``optional`` and absent or ``null``)."""
    value = body.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, dict):
        name = f"{where}.{key}" if where else key
        raise BadReply(
            f"reply has no field {name!r}"
            if value is None
            else f"reply field {name} = {_show(value)}: must be an object"
        )
    return value


def _server_message(status: int, data: bytes) -> str:
    """The server's own error text (Ollama and OpenAI wrap it in an ``error`` field), one line."""
    text = data.decode("utf-8", "replace")
    try:
        body = json.loads(text)
        err = body.get("error", body) if isinstance(body, dict) else body
        if isinstance(err, dict):
            err = err.get("message", err)
        text = str(err)
    except (ValueError, RecursionError):
        pass
    return " ".join(text.split())[:300] or httpx.codes.get_reason_phrase(status) or f"HTTP {status}"


def _decode(data: bytes) -> Any:
    """The JSON value of a reply body.

    Raises
    ------
    BadReply
        Not UTF-8 (RFC 8259 JSON is), not JSON, an integer of over 4300 digits, or nested
        too deeply for Python's parser (which recurses once per level).
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadReply(f"reply is not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    try:
        return json.loads(text)
    except RecursionError:
        raise BadReply("reply is JSON nested too deeply") from None
    except ValueError as exc:
        raise BadReply(f"reply is not JSON ({' '.join(str(exc).split())[:80]}): {text[:80]!r}") from None


class HttpBackend(Backend):
    """A backend that speaks JSON over HTTP through one pooled ``httpx.Client``."""

    def __init__(self, cfg, endpoints, stop):
        super().__init__(cfg, endpoints, stop)
        limits = httpx.Limits(max_connections=max(4, len(self.slots()) * 2))
        self._client = httpx.Client(timeout=cfg.timeout, limits=limits, headers=self.headers())

    def headers(self) -> dict[str, str]:
        """Extra request headers (authentication)."""
        return {}

    def close(self) -> None:
        self._client.close()

    def _fetch(self, method: str, url: str, timeout: float, **kwargs) -> tuple[int, httpx.Headers, bytes]:
        """One request; its status, headers and body, read to at most :data:`MAX_REPLY_BYTES`.

        The body is read as it streams and dropped (the connection closed) as soon as it
        passes the limit, or once reading it has taken ``timeout`` seconds (a server that
        trickles bytes never ends httpx's read timeout, which bounds each wait only).

        Raises
        ------
        BadReply
            The body is larger than the limit, or took longer than ``timeout``.
        httpx.HTTPError
            The transport failed.
        """
        with self._client.stream(method, url, timeout=timeout, **kwargs) as r:
            start = time.perf_counter()
            declared = r.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > MAX_REPLY_BYTES:
                raise BadReply(
                    f"reply of {int(declared)} bytes, larger than the limit of {MAX_REPLY_BYTES >> 20} MiB for a reply"
                )
            body = bytearray()
            for chunk in r.iter_bytes():
                body += chunk
                if len(body) > MAX_REPLY_BYTES:
                    raise BadReply(f"reply larger than the limit of {MAX_REPLY_BYTES >> 20} MiB for a reply")
                if time.perf_counter() - start > timeout:
                    raise BadReply("timed out reading the reply")
            return r.status_code, r.headers, bytes(body)

    def get_json(self, endpoint: str, path: str) -> dict | None:
        """One GET for a pre-flight check, decoded.

        Returns
        -------
        dict or None
            The reply's JSON object; ``None`` if the server has no such path (404).

        Raises
        ------
        BackendError
            The endpoint is unreachable, answered an error status, or a reply too large.
        EndpointError
            The reply is not a JSON object: the URL is not the backend's API (an
            :class:`~certify._errors.InputError`, the config names the wrong URL).
        """
        url = endpoint + path
        try:
            status, headers, data = self._fetch("GET", url, min(self.cfg.timeout, 15.0))
        except httpx.HTTPError as exc:
            raise BackendError(f"{self.cfg.kind} endpoint {endpoint} unreachable: {_describe(exc)}") from None
        except BadReply as exc:
            raise BackendError(f"{url}: {exc}") from None
        if status == 404:
            return None
        if status >= 400:
            raise BackendError(f"{url} answered HTTP {status}: {_server_message(status, data)}")
        try:
            body = _decode(data)
        except BadReply:
            body = None
        if not isinstance(body, dict):
            kind = headers.get("content-type", "").split(";")[0] or "a reply"
            text = data[:200].decode("utf-8", "replace")
            raise EndpointError(
                f"backends.{self.cfg.name}.endpoints: {url} answered {kind}, not a JSON object "
                f"({' '.join(text.split())[:60]!r}); is {endpoint} the {self.cfg.kind} API's base URL?"
            )
        return body

    def post(
        self, endpoint: str, path: str, payload: dict, final=None, read: Callable[[dict], Any] | None = None
    ) -> tuple[Any, float, int]:
        """POST with retries on timeouts, connection errors, 429, 5xx and replies that cannot be used.

        Parameters
        ----------
        endpoint, path : str
            Where to post.
        payload : dict
            The JSON body.
        final : callable, optional
            ``final(body) -> bool`` on the text of an error reply: True marks a refusal
            that retrying cannot change (some servers report a rejected option as a 500),
            raised at once as :class:`RequestRejected`.
        read : callable, optional
            ``read(body)`` turns the decoded JSON object into what the caller keeps, raising
            :class:`BadReply` for a field of the wrong type or range (retried like a reply
            that is not JSON).

        Returns
        -------
        body : dict or what ``read`` returns
            The decoded JSON reply.
        latency : float
            Seconds taken by the successful attempt.
        attempts : int
            Requests made.

        Raises
        ------
        BackendError
            Every attempt failed; the message names the URL and the last failure (for a
            reply that cannot be used: the field, its value and the rule).
        """
        url = endpoint + path
        last = ""
        for attempt in range(1, self.cfg.max_retries + 2):
            if attempt > 1:
                delay = min(self.cfg.backoff * 2 ** (attempt - 2), _MAX_DELAY)
                if self.stop.wait(delay):
                    break
            start = time.perf_counter()
            try:
                status, _, data = self._fetch("POST", url, self.cfg.timeout, json=payload)
            except httpx.HTTPError as exc:
                last = _describe(exc)
                continue
            except BadReply as exc:
                last = str(exc)
                continue
            latency = time.perf_counter() - start
            if status >= 400 and final is not None and final(data.decode("utf-8", "replace")):
                raise RequestRejected(url, status, _server_message(status, data))
            if status in _RETRY_STATUS:
                last = f"HTTP {status}: {_server_message(status, data)}"
                continue
            if status >= 400:
                # 4xx will not get better by retrying: a missing model or a bad request.
                raise RequestRejected(url, status, _server_message(status, data))
            try:
                body = _decode(data)
                if not isinstance(body, dict):
                    raise BadReply(f"reply is not a JSON object: {_show(body)}")
                return (read(body) if read is not None else body), latency, attempt
            except BadReply as exc:
                last = str(exc)
                continue
        if self.stop.is_set() and not last:
            raise BackendError(f"{url}: stopped before the call completed")
        raise BackendError(f"{url}: {last} (gave up after {attempt} attempt{'s' * (attempt > 1)})")


def _describe(exc: httpx.HTTPError) -> str:
    """A short, one-line name for a transport failure."""
    kinds: dict[type[httpx.HTTPError], str] = {
        httpx.ConnectError: "connection refused or host unreachable",
        httpx.ConnectTimeout: "connect timed out",
        httpx.ReadTimeout: "timed out waiting for the reply",
        httpx.WriteTimeout: "timed out sending the request",
        httpx.PoolTimeout: "timed out waiting for a free connection",
        httpx.RemoteProtocolError: "server closed the connection",
    }
    kind = kinds.get(type(exc))
    return kind or f"{type(exc).__name__}: {' '.join(str(exc).split())[:120]}"
