"""Model backends: one module per kind, a common request/result shape, and a factory.

A backend turns a :class:`CallRequest` (prompt, seed, decoding options) into a
:class:`CallResult` (raw text, token counts, stop reason, latency). HTTP backends
are thread-safe and are driven by ``concurrency`` workers per endpoint; the
embedded backend runs one model in process and is driven by one worker.
"""

from __future__ import annotations

import abc
import threading
from dataclasses import dataclass

from ..._extras import require
from .._config import BackendConfig
from .._protocol import YES_NO

__all__ = ["Backend", "CallRequest", "CallResult", "Latent", "REQUIREMENTS", "check_requirements", "make_backend"]


@dataclass(frozen=True)
class CallRequest:
    """One call to make.

    Parameters
    ----------
    model : str
        Model tag / id / GGUF.
    prompt : str
        The protocol prompt (the backend applies the model's chat template).
    seed : int
        Per-call decoding seed.
    temperature, top_p : float
        Decoding options.
    num_predict : int
        Maximum generated tokens.
    answers : tuple of str
        The answers the task's schema allows (default: Yes/No).
    known_p_yes : float or None
        Choice mode, a Yes/No task: the example's ``p_yes`` already recorded in the
        store, reused on resume so that a resumed run draws exactly what an
        uninterrupted one would.
    """

    model: str
    prompt: str
    seed: int
    temperature: float
    top_p: float
    num_predict: int
    answers: tuple[str, ...] = YES_NO
    known_p_yes: float | None = None


@dataclass(frozen=True)
class Latent:
    """Choice mode: the answer law of one example under one policy.

    Attributes
    ----------
    probabilities : tuple of float
        Probability that one call gives each answer, in the request's answer order.
    logits : tuple of float
        Next-token logits of the answers' tokens, in the same order.
    prompt_tokens : int
        Tokens in the prompt pass.
    """

    probabilities: tuple[float, ...]
    logits: tuple[float, ...]
    prompt_tokens: int


@dataclass(frozen=True)
class CallResult:
    """What a backend returned for one call (before parsing)."""

    raw_output: str
    latency_s: float
    prompt_tokens: int | None
    completion_tokens: int | None
    stop_reason: str | None
    endpoint: str
    attempts: int = 1
    latent: Latent | None = None


class Backend(abc.ABC):
    """Base class: subclasses implement :meth:`check` and :meth:`call`.

    Parameters
    ----------
    cfg : BackendConfig
        The backend table.
    endpoints : tuple of str
        The policy's endpoints; empty means the backend's own (or its kind's default).
    stop : threading.Event
        Set when the run is stopping; retry waits end early.
    """

    def __init__(self, cfg: BackendConfig, endpoints: tuple[str, ...], stop: threading.Event):
        self.cfg = cfg
        chosen = tuple(endpoints) or cfg.endpoints or (cfg.default_endpoint,)
        self.endpoints = tuple(e.rstrip("/") for e in chosen)
        self.stop = stop

    def slots(self) -> list[str]:
        """One endpoint per worker: each endpoint gets ``concurrency`` workers."""
        return [e for e in self.endpoints for _ in range(self.cfg.concurrency)]

    @abc.abstractmethod
    def check(self, models: set[str]) -> None:
        """Fail fast with a one-line :class:`BackendError` if an endpoint or model is unusable."""

    def negotiate(self, models: set[str], recorded: dict, warn) -> dict:
        """Settle, once per run, what the calls depend on but the config may leave open.

        Called after :meth:`check` and before the first call. The base backend has
        nothing to settle.

        Parameters
        ----------
        models : set of str
            The models the run will call.
        recorded : dict
            What the store recorded for this backend's policies in earlier runs
            (empty for a new store); a resumed run keeps it.
        warn : callable
            ``warn(message)`` reports a one-line warning.

        Returns
        -------
        dict
            By model: what to record in the store for the policies of that model
            (empty: nothing to record).
        """
        return {}

    @abc.abstractmethod
    def call(self, request: CallRequest, endpoint: str) -> CallResult:
        """Make one call on ``endpoint``; raise :class:`BackendError` once retries are spent."""

    def close(self) -> None:  # noqa: B027  # a no-op default, not abstract: a backend holding nothing keeps it
        """Release connections or the model."""


#: The optional packages each kind of backend needs: (import name, what needs it).
REQUIREMENTS = {
    "ollama": (("httpx", "the ollama backend"),),
    "openai": (("httpx", "the openai backend"),),
    "embedded": (("llama_cpp", "the embedded backend"),),
}


def check_requirements(cfg: BackendConfig) -> None:
    """Stop with one line naming the missing package and its extra (:func:`certify._extras.require`).

    Called for every backend of a run before its store is opened or created, so that a
    missing extra never leaves a new store behind.
    """
    for module, what in REQUIREMENTS.get(cfg.kind, ()):
        require(module, what)


def make_backend(cfg: BackendConfig, endpoints: tuple[str, ...], stop: threading.Event) -> Backend:
    """The backend of kind ``cfg.kind`` (imported lazily: each kind has its own dependencies)."""
    check_requirements(cfg)
    cls: type[Backend]
    if cfg.kind == "ollama":
        from ._ollama import OllamaBackend as cls
    elif cfg.kind == "openai":
        from ._openai import OpenAIBackend as cls
    else:
        from ._embedded import EmbeddedBackend as cls
    return cls(cfg, endpoints, stop)
