"""HTTP plumbing shared by the server backends: retries with backoff and one-line errors."""

from __future__ import annotations

import json
import time

import httpx

from .._errors import BackendError, EndpointError, RequestRejected
from . import Backend

__all__ = ["HttpBackend"]

# Statuses worth retrying: the server is overloaded or failed transiently.
_RETRY_STATUS = {429, 500, 502, 503, 504}
_MAX_DELAY = 30.0


def _server_message(response: httpx.Response) -> str:
    """The server's own error text (Ollama and OpenAI wrap it in an ``error`` field), one line."""
    try:
        body = response.json()
        err = body.get("error", body) if isinstance(body, dict) else body
        if isinstance(err, dict):
            err = err.get("message", err)
        text = str(err)
    except ValueError:
        text = response.text
    return " ".join(text.split())[:300] or response.reason_phrase


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

    def get_json(self, endpoint: str, path: str) -> dict | None:
        """One GET for a pre-flight check, decoded.

        Returns
        -------
        dict or None
            The reply's JSON object; ``None`` if the server has no such path (404).

        Raises
        ------
        BackendError
            The endpoint is unreachable or answered an error status.
        EndpointError
            The reply is not a JSON object: the URL is not the backend's API (an
            :class:`~certify._errors.InputError`, the config names the wrong URL).
        """
        url = endpoint + path
        try:
            r = self._client.get(url, timeout=min(self.cfg.timeout, 15.0))
        except httpx.HTTPError as exc:
            raise BackendError(f"{self.cfg.kind} endpoint {endpoint} unreachable: {_describe(exc)}") from None
        if r.status_code == 404:
            return None
        if r.status_code >= 400:
            raise BackendError(f"{url} answered HTTP {r.status_code}: {_server_message(r)}")
        try:
            body = r.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            kind = r.headers.get("content-type", "").split(";")[0] or "a reply"
            raise EndpointError(
                f"backends.{self.cfg.name}.endpoints: {url} answered {kind}, not a JSON object "
                f"({' '.join(r.text.split())[:60]!r}); is {endpoint} the {self.cfg.kind} API's base URL?"
            )
        return body

    def post(self, endpoint: str, path: str, payload: dict, final=None) -> tuple[dict, float, int]:
        """POST with retries on timeouts, connection errors, 429 and 5xx.

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

        Returns
        -------
        body : dict
            The decoded JSON reply.
        latency : float
            Seconds taken by the successful attempt.
        attempts : int
            Requests made.
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
                r = self._client.post(url, json=payload)
            except httpx.HTTPError as exc:
                last = _describe(exc)
                continue
            latency = time.perf_counter() - start
            if r.status_code >= 400 and final is not None and final(r.text):
                raise RequestRejected(url, r.status_code, _server_message(r))
            if r.status_code in _RETRY_STATUS:
                last = f"HTTP {r.status_code}: {_server_message(r)}"
                continue
            if r.status_code >= 400:
                # 4xx will not get better by retrying: a missing model or a bad request.
                raise RequestRejected(url, r.status_code, _server_message(r))
            try:
                body = r.json()
            except json.JSONDecodeError:
                last = f"reply is not JSON: {r.text[:80]!r}"
                continue
            if not isinstance(body, dict):
                last = f"reply is not a JSON object: {r.text[:80]!r}"
                continue
            return body, latency, attempt
        if self.stop.is_set() and not last:
            raise BackendError(f"{url}: stopped before the call completed")
        raise BackendError(f"{url}: {last} (gave up after {attempt} attempt{'s' * (attempt > 1)})")


def _describe(exc: httpx.HTTPError) -> str:
    """A short, one-line name for a transport failure."""
    kind = {
        httpx.ConnectError: "connection refused or host unreachable",
        httpx.ConnectTimeout: "connect timed out",
        httpx.ReadTimeout: "timed out waiting for the reply",
        httpx.WriteTimeout: "timed out sending the request",
        httpx.PoolTimeout: "timed out waiting for a free connection",
        httpx.RemoteProtocolError: "server closed the connection",
    }.get(type(exc))
    return kind or f"{type(exc).__name__}: {' '.join(str(exc).split())[:120]}"
