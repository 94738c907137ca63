"""Ollama's native ``/api/generate``, called exactly as in the paper."""

from __future__ import annotations

from .._errors import BackendError
from .._protocol import answer_schema
from . import CallRequest, CallResult
from ._http import MAX_REASON_CHARS, HttpBackend, reply_count, reply_text

__all__ = ["OllamaBackend"]


class OllamaBackend(HttpBackend):
    """``POST /api/generate`` with ``format`` = the answer schema and ``stream: false``.

    Options sent: ``temperature``, ``top_p``, ``num_predict`` and ``seed``; plus
    ``keep_alive`` (default ``30m``) so the model stays loaded between calls.
    """

    def check(self, models: set[str]) -> None:
        for endpoint in self.endpoints:
            reply = self.get_json(endpoint, "/api/tags")
            if reply is None:
                raise BackendError(f"{endpoint} is not an Ollama server (no /api/tags)")
            listed = reply.get("models") or []
            if not isinstance(listed, list):
                raise BackendError(f"{endpoint}/api/tags: reply field models is not a list")
            tags = [m for m in listed if isinstance(m, dict)]
            have = {n for m in tags for n in (m.get("model"), m.get("name")) if isinstance(n, str)}
            # Ollama treats "name" and "name:latest" as the same model.
            have |= {h.removesuffix(":latest") for h in have}
            for model in sorted(models):
                if model not in have and model.removesuffix(":latest") not in have:
                    raise BackendError(f"model {model!r} not found on {endpoint}; pull it first (ollama pull {model})")

    def call(self, request: CallRequest, endpoint: str) -> CallResult:
        payload = {
            "model": request.model,
            "prompt": request.prompt,
            "format": dict(answer_schema(request.answers)),
            "options": {
                "temperature": request.temperature,
                "top_p": request.top_p,
                "num_predict": request.num_predict,
                "seed": request.seed,
            },
            "stream": False,
            "keep_alive": self.cfg.keep_alive,
        }
        (text, prompt_tokens, completion_tokens, stop), latency, attempts = self.post(
            endpoint, "/api/generate", payload, read=_read_generate
        )
        return CallResult(
            raw_output=text,
            latency_s=latency,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            stop_reason=stop,
            endpoint=endpoint,
            attempts=attempts,
        )


def _read_generate(body: dict) -> tuple[str, int | None, int | None, str | None]:
    """``(response, prompt_eval_count, eval_count, done_reason)`` of an ``/api/generate`` reply, checked.

    Raises
    ------
    BadReply
        ``response`` missing or not a string of Unicode text, a count that is not an
        integer from 0 to ``MAX_TOKEN_COUNT``, or a ``done_reason`` that is not a short string.
    """
    return (
        reply_text(body, "response"),
        reply_count(body, "prompt_eval_count"),
        reply_count(body, "eval_count"),
        reply_text(body, "done_reason", optional=True, max_chars=MAX_REASON_CHARS),
    )
