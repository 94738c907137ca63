"""OpenAI-compatible chat completions (vLLM, the llama.cpp servers, hosted APIs).

Servers differ in which ``response_format`` they accept: OpenAI and vLLM take
``json_schema``; llama-cpp-python's server rejects it (HTTP 500, "Input should be
'text' or 'json_object'") and takes ``{"type": "json_object", "schema": ...}``;
some take neither. With ``response_format = "auto"`` (the default) the backend
tries them in the order of :data:`RESPONSE_FORMATS` once per run, with one short
probe request, and keeps the first one the server accepts; ``text`` sends no
``response_format`` and relies on the paper's parser (JSON, then the answers' regex).

The chat template a server applies is not part of any OpenAI-compatible reply.
llama-cpp-python's server reports the prompt's token count (``usage``) and
tokenizes text (``/extras/tokenize/count``), so the template is identified by
rendering the probe prompt in each template of :data:`CHAT_TEMPLATES` and keeping
the one whose token count matches; anywhere else it is recorded as ``unknown``.
"""

from __future__ import annotations

import os

from .._config import RESPONSE_FORMATS
from .._errors import BackendError, RequestRejected
from .._protocol import TASKS, YES_NO, answer_schema, build_prompt
from .._store import UNKNOWN
from . import CallRequest, CallResult
from ._http import MAX_REASON_CHARS, BadReply, HttpBackend, reply_count, reply_object, reply_text

__all__ = ["CHAT_TEMPLATES", "FALLBACK_CHAT_TEMPLATE", "OpenAIBackend", "RESPONSE_FORMATS"]

#: One user turn in llama-cpp-python's chat formats of the same names
#: (``llama_cpp/llama_chat_format.py``): (text before the message, text after it).
CHAT_TEMPLATES = {
    "llama-2": (" <s>[INST]", "  [/INST]"),
    "gemma": ("<start_of_turn>user\n", "<end_of_turn>\n<start_of_turn>model\n"),
    "chatml": ("<|im_start|>user\n", "<|im_end|>\n<|im_start|>assistant\n"),
    "llama-3": (
        "<|start_header_id|>user<|end_header_id|>\n\n",
        "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
    ),
}

#: What llama-cpp-python's server applies when neither ``--chat_format`` nor the
#: model file names a template.
FALLBACK_CHAT_TEMPLATE = "llama-2"

# A protocol prompt, so the probe exercises the same template path as the calls.
_PROBE_PROMPT = build_prompt(TASKS["parity"], {"number": "12"})


def _mentions_response_format(body: str) -> bool:
    """Whether an error reply is about ``response_format`` (the option the server lacks)."""
    return "response_format" in body


class OpenAIBackend(HttpBackend):
    """``POST {base_url}/chat/completions`` with the response format settled by :meth:`negotiate`.

    The endpoint is the base URL including ``/v1``. The API key comes from
    ``api_key`` or, when that is empty, from the environment variable ``api_key_env``.
    """

    def __init__(self, cfg, endpoints, stop):
        super().__init__(cfg, endpoints, stop)
        # Used until negotiate() settles it (a caller may call() directly).
        self.response_format = cfg.response_format if cfg.response_format != "auto" else RESPONSE_FORMATS[0]

    def headers(self) -> dict[str, str]:
        key = self.cfg.api_key or os.environ.get(self.cfg.api_key_env, "")
        return {"Authorization": f"Bearer {key}"} if key else {}

    def check(self, models: set[str]) -> None:
        for endpoint in self.endpoints:
            reply = self.get_json(endpoint, "/models")
            if reply is None:
                continue  # some compatible servers do not list models; the first call will tell
            listed = reply.get("data") or []
            if not isinstance(listed, list):
                raise BackendError(f"{endpoint}/models: reply field data is not a list")
            have = {m.get("id") for m in listed if isinstance(m, dict) and isinstance(m.get("id"), str)}
            missing = sorted(models - have)
            if missing:
                raise BackendError(
                    f"model {missing[0]!r} not served by {endpoint} (it serves {', '.join(sorted(map(str, have)))})"
                )

    def negotiate(self, models: set[str], recorded: dict, warn) -> dict[str, dict]:
        """Settle the response format, and identify the chat template of every endpoint and model.

        The format is, in order of precedence: the config's explicit
        ``response_format`` (a refusal is an error, never a fallback); the one the
        store recorded (a resumed run keeps its protocol); else the first of
        :data:`RESPONSE_FORMATS` that the first endpoint accepts for the first model.
        Every other (endpoint, model) is then probed once with it.

        Returns
        -------
        dict
            By model: ``response_format``, ``response_format_setting`` (the config's
            value) and ``chat_template`` (a name of :data:`CHAT_TEMPLATES` or ``unknown``).
        """
        setting = self.cfg.response_format
        candidates: tuple[str, ...]
        if setting != "auto":
            candidates = (setting,)
            why = f'backends.{self.cfg.name}.response_format = "{setting}" (remove the key to let certify pick)'
        elif recorded.get("response_format"):
            candidates = (recorded["response_format"],)
            why = f"response_format {candidates[0]!r} recorded in the store by an earlier run"
        else:
            candidates, why = RESPONSE_FORMATS, ""
        facts = {}
        for model in sorted(models):
            templates = {}
            for endpoint in self.endpoints:
                fmt, prompt_tokens = self._settle_format(endpoint, model, candidates, why)
                if len(candidates) > 1:  # settled: every other probe must accept it
                    candidates, why = (fmt,), f"response_format {fmt!r} (accepted by {endpoint} for {model!r})"
                templates[endpoint] = self._chat_template(endpoint, model, prompt_tokens)
            facts[model] = {
                "response_format": fmt,
                "response_format_setting": setting,
                "chat_template": self._one_template(model, templates, warn),
            }
        self.response_format = candidates[0]
        return facts

    def _settle_format(self, endpoint: str, model: str, candidates: tuple, why: str) -> tuple[str, int | None]:
        """The first of ``candidates`` the endpoint accepts, and the probe's prompt token count.

        Only a refusal that names ``response_format`` moves on to the next candidate;
        ``why`` (why there is one candidate only) makes such a refusal of the last one
        a one-line error that says which setting was refused.
        """
        for fmt in candidates:
            try:
                return fmt, self._probe(endpoint, model, fmt)
            except RequestRejected as exc:
                about_format = _mentions_response_format(exc.message)
                if about_format and fmt != candidates[-1]:
                    continue
                if about_format and why:
                    raise BackendError(f"{endpoint} rejects {why}: {exc.message[:160]}") from None
                raise
        raise AssertionError("unreachable: the last candidate returns or raises")

    def _one_template(self, model: str, templates: dict[str, str], warn) -> str:
        """The chat template all endpoints apply to ``model``; warn if it is llama-cpp-python's fallback."""
        known = sorted({t for t in templates.values() if t != UNKNOWN})
        if len(known) > 1:
            pairs = ", ".join(f"{e}: {t}" for e, t in templates.items())
            raise BackendError(
                f"backends.{self.cfg.name}: endpoints apply different chat templates to {model!r} ({pairs})"
            )
        if known == [FALLBACK_CHAT_TEMPLATE]:
            where = ", ".join(e for e, t in templates.items() if t == FALLBACK_CHAT_TEMPLATE)
            warn(
                f"{where} formats chats with the {FALLBACK_CHAT_TEMPLATE} template, llama-cpp-python's "
                f"fallback when the model file names none; unless {model!r} is a Llama 2 chat model, restart the "
                "server with --chat_format for it (gemma for Gemma)"
            )
        # one endpoint that cannot tell makes the record unknown: it cannot vouch for every call
        return known[0] if known and UNKNOWN not in templates.values() else UNKNOWN

    def _probe(self, endpoint: str, model: str, fmt: str) -> int | None:
        """One one-token chat completion in format ``fmt``; its prompt token count (if reported)."""
        payload = {
            "model": model,
            "messages": [{"role": "user", "content": _PROBE_PROMPT}],
            "temperature": 0.0,
            "max_tokens": 1,
            "seed": 0,
            **self._response_format(fmt),
        }
        count, _, _ = self.post(
            endpoint, "/chat/completions", payload, final=_mentions_response_format, read=_read_prompt_tokens
        )
        return count

    def _chat_template(self, endpoint: str, model: str, prompt_tokens: int | None) -> str:
        """The template whose rendering of the probe prompt has ``prompt_tokens`` tokens, or ``unknown``.

        Only llama-cpp-python's server tokenizes on request (``/extras/tokenize/count``
        beside ``/v1``); a missing route, or no single matching template, is ``unknown``.
        """
        if prompt_tokens is None or not endpoint.endswith("/v1"):
            return UNKNOWN
        root = endpoint.removesuffix("/v1")
        matches = []
        for name, (before, after) in CHAT_TEMPLATES.items():
            try:
                rendered = before + _PROBE_PROMPT + after
                body, _, _ = self.post(root, "/extras/tokenize/count", {"model": model, "input": rendered})
            except RequestRejected:
                return UNKNOWN
            if body.get("count") == prompt_tokens:
                matches.append(name)
        return matches[0] if len(matches) == 1 else UNKNOWN

    @staticmethod
    def _response_format(fmt: str, answers: tuple[str, ...] = YES_NO) -> dict:
        """The request's ``response_format`` entry for ``fmt`` and a task's ``answers`` (``text``: none)."""
        schema = dict(answer_schema(answers))
        if fmt == "json_object":
            return {"response_format": {"type": "json_object", "schema": schema}}
        if fmt == "json_schema":
            return {
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": "answer", "schema": schema, "strict": True},
                }
            }
        return {}

    def call(self, request: CallRequest, endpoint: str) -> CallResult:
        payload = {
            "model": request.model,
            "messages": [{"role": "user", "content": request.prompt}],
            "temperature": request.temperature,
            "top_p": request.top_p,
            "max_tokens": request.num_predict,
            "seed": request.seed,
            **self._response_format(self.response_format, request.answers),
        }
        (text, prompt_tokens, completion_tokens, stop), latency, attempts = self.post(
            endpoint, "/chat/completions", payload, read=_read_completion
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


def _read_prompt_tokens(body: dict) -> int | None:
    """``usage.prompt_tokens`` of a chat completion (``None`` if not reported), checked."""
    usage = reply_object(body, "usage", optional=True)
    return reply_count(usage, "prompt_tokens", "usage") if usage is not None else None


def _read_completion(body: dict) -> tuple[str, int | None, int | None, str | None]:
    """``(content, prompt_tokens, completion_tokens, finish_reason)`` of a chat completion, checked.

    A ``null`` content (a server that generated nothing) is the empty output, recorded as
    an invalid answer; content of any other type than a string is refused, not read as empty.

    Raises
    ------
    BadReply
        No ``choices[0].message``, a content that is not a string of Unicode text, a count
        that is not an integer from 0 to ``MAX_TOKEN_COUNT``, or a ``finish_reason`` that
        is not a short string.
    """
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        raise BadReply(
            "reply has no choices[0]" if choices is None or choices == [] else "reply field choices is not a list"
        )
    choice = choices[0]
    if not isinstance(choice, dict):
        raise BadReply("reply field choices[0] is not an object")
    message = reply_object(choice, "message", "choices[0]")
    text = reply_text(message, "content", "choices[0].message", null="")
    stop = reply_text(choice, "finish_reason", "choices[0]", optional=True, max_chars=MAX_REASON_CHARS)
    usage = reply_object(body, "usage", optional=True) or {}
    return text, reply_count(usage, "prompt_tokens", "usage"), reply_count(usage, "completion_tokens", "usage"), stop
