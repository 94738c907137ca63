"""OpenAI-compatible chat completions (vLLM, the llama.cpp servers, hosted APIs)."""

from __future__ import annotations

import os

from .._errors import BackendError
from .._protocol import ANSWER_SCHEMA
from . import CallRequest, CallResult
from ._http import HttpBackend

__all__ = ["OpenAIBackend"]


class OpenAIBackend(HttpBackend):
    """``POST {base_url}/chat/completions`` with a ``json_schema`` response format.

    The endpoint is the base URL including ``/v1``. The API key comes from
    ``api_key`` or, when that is empty, from the environment variable ``api_key_env``.
    """

    def headers(self) -> dict[str, str]:
        key = self.cfg.api_key or os.environ.get(self.cfg.api_key_env, "")
        return {"Authorization": f"Bearer {key}"} if key else {}

    def check(self, models: set[str]) -> None:
        for endpoint in self.endpoints:
            r = self.get_once(endpoint, "/models")
            if r is None:
                continue  # some compatible servers do not list models; the first call will tell
            have = {m.get("id") for m in r.json().get("data", [])}
            missing = sorted(models - have)
            if missing:
                raise BackendError(f"model {missing[0]!r} not served by {endpoint} (it serves {', '.join(sorted(map(str, have)))})")

    def _response_format(self) -> dict:
        schema = dict(ANSWER_SCHEMA)
        if self.cfg.response_format == "json_object":
            return {"type": "json_object", "schema": schema}
        return {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema, "strict": True}}

    def call(self, request: CallRequest, endpoint: str) -> CallResult:
        payload = {
            "model": request.model,
            "messages": [{"role": "user", "content": request.prompt}],
            "temperature": request.temperature,
            "top_p": request.top_p,
            "max_tokens": request.num_predict,
            "seed": request.seed,
            "response_format": self._response_format(),
        }
        body, latency, attempts = self.post(endpoint, "/chat/completions", payload)
        try:
            choice = body["choices"][0]
            text = choice["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise BackendError(f"{endpoint}/chat/completions: reply has no choices[0].message: {str(body)[:120]}") from None
        usage = body.get("usage") or {}
        return CallResult(
            raw_output=text if isinstance(text, str) else "",
            latency_s=latency,
            prompt_tokens=usage.get("prompt_tokens"),
            completion_tokens=usage.get("completion_tokens"),
            stop_reason=choice.get("finish_reason"),
            endpoint=endpoint,
            attempts=attempts,
        )
