"""Ollama's native ``/api/generate``, called exactly as in the paper."""

from __future__ import annotations

from .._errors import BackendError
from .._protocol import answer_schema
from . import CallRequest, CallResult
from ._http import HttpBackend

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
            tags = [m for m in reply.get("models") or [] if isinstance(m, dict)]
            have = {m.get("model") or m.get("name") for m in tags} | {m.get("name") for m in tags}
            # Ollama treats "name" and "name:latest" as the same model.
            have |= {h.removesuffix(":latest") for h in have if h}
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
        body, latency, attempts = self.post(endpoint, "/api/generate", payload)
        if "response" not in body:
            raise BackendError(f"{endpoint}/api/generate: reply has no 'response' field: {str(body)[:120]}")
        return CallResult(
            raw_output=str(body["response"]),
            latency_s=latency,
            prompt_tokens=body.get("prompt_eval_count"),
            completion_tokens=body.get("eval_count"),
            stop_reason=body.get("done_reason"),
            endpoint=endpoint,
            attempts=attempts,
        )
