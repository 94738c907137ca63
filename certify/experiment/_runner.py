"""Running an experiment: plan the missing calls, drive the backends, record every result.

Work is ordered example-major (example, then policy, then repeat) so that the
embedded ``choice`` backend reads each prompt once for all policies of a model.
Worker threads make calls; only the main thread writes the store, in one
transaction per batch of finished calls, so a kill at any instant loses at most
calls that were not yet recorded, and re-running makes exactly those.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from .._extras import require
from ._backends import Backend, CallRequest, CallResult, Latent, check_requirements, make_backend
from ._config import ExperimentConfig, PolicyConfig
from ._datasets import Example, draw_examples
from ._errors import BackendError, StoreError
from ._io import file_sha256
from ._protocol import TASKS, YES_NO, build_prompt, call_seed, parse_answer
from ._store import CallRecord, LatentRecord, RunStore, writer_lock

__all__ = ["RunSummary", "run_experiment"]

# How long a stopping run waits for calls already in flight, so their results are kept.
_DRAIN_SECONDS = 10.0


@dataclass(frozen=True)
class _Job:
    dataset: str
    policy: PolicyConfig
    example: Example
    repeat: int
    request: CallRequest


@dataclass(frozen=True)
class RunSummary:
    """What one invocation of :func:`run_experiment` did.

    Attributes
    ----------
    recorded : int
        Calls made and recorded by this run (not rows another writer had already added).
    skipped : int
        Calls already in the store (from an earlier run).
    invalid : int
        Recorded calls whose output held none of the task's answers.
    seconds : float
        Wall time.
    """

    recorded: int
    skipped: int
    invalid: int
    seconds: float

    def to_dict(self) -> dict:
        """Plain-dict form."""
        return {"recorded": self.recorded, "skipped": self.skipped, "invalid": self.invalid, "seconds": self.seconds}


#: Calls whose recorded state is read from the store at once while the pending calls are
#: generated: the examples of one chunk are asked for in one query per policy, so memory
#: holds the calls of a chunk, never the whole plan (10**6 examples x 1000 repeats).
_PLAN_CHUNK_CALLS = 1 << 16
#: Example ids per store query (SQLite allows 32766 parameters per statement).
_PLAN_MAX_EXAMPLES = 512


def _groups(cfg: ExperimentConfig) -> dict[tuple, list[PolicyConfig]]:
    """The policies by (backend name, endpoints): each group is driven by one backend."""
    groups: dict[tuple, list[PolicyConfig]] = {}
    for p in cfg.policies:
        groups.setdefault((p.backend, p.endpoints), []).append(p)
    return groups


def _count_done(cfg: ExperimentConfig, store: RunStore, policies: list[PolicyConfig]) -> int:
    """Calls of ``policies`` the store already holds (counted in SQL: nothing is loaded)."""
    return sum(store.count_completed(ds.name, p.name, cfg.repeats) for ds in cfg.datasets for p in policies)


def _pending(
    cfg: ExperimentConfig, store: RunStore, draws: dict[str, list[Example]], policies: list[PolicyConfig]
) -> Iterator[_Job]:
    """The calls of ``policies`` the store lacks, generated lazily, example by example.

    Ordered example-major (example, then policy, then repeat), so that the embedded
    ``choice`` backend reads each prompt once for all policies of a model. The store is
    read a chunk of examples at a time: memory holds one chunk's recorded calls, however
    many examples and repeats the config asks for.
    """
    per_example = max(1, len(policies) * cfg.repeats)
    size = max(1, min(_PLAN_MAX_EXAMPLES, _PLAN_CHUNK_CALLS // per_example))
    for ds in cfg.datasets:
        task = TASKS[ds.task]
        examples = draws[ds.name]
        for start in range(0, len(examples), size):
            chunk = examples[start : start + size]
            ids = [e.example_id for e in chunk]
            done = {p.name: store.completed(ds.name, p.name, ids) for p in policies}
            # A recorded p_yes gives the whole law of a Yes/No task only; an example of a task
            # with more answers is read again on resume (its logits do not depend on what ran before).
            known = {p.name: store.latents(ds.name, p.name, ids) if task.answers == YES_NO else {} for p in policies}
            for example in chunk:
                prompt = build_prompt(task, example.fields)
                for p in policies:
                    for r in range(cfg.repeats):
                        if (example.example_id, r) in done[p.name]:
                            continue
                        req = CallRequest(
                            model=p.model,
                            prompt=prompt,
                            seed=call_seed(p.seed_base, p.name, example.example_id, r),
                            temperature=float(p.temperature),
                            top_p=float(p.top_p),
                            num_predict=p.num_predict,
                            answers=task.answers,
                            known_p_yes=known[p.name].get(example.example_id),
                        )
                        yield _Job(ds.name, p, example, r, req)


def _records(job: _Job, result: CallResult) -> tuple[CallRecord, LatentRecord | None]:
    parsed = parse_answer(result.raw_output, job.request.answers)
    call = CallRecord(
        dataset=job.dataset,
        policy=job.policy.name,
        example_id=job.example.example_id,
        repeat=job.repeat,
        seed=job.request.seed,
        raw_output=result.raw_output,
        answer=parsed.answer,
        parse=parsed.method,
        valid=parsed.valid,
        correct=parsed.answer == job.example.label,
        latency_s=result.latency_s,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        stop_reason=result.stop_reason,
        endpoint=result.endpoint,
        attempts=result.attempts,
        finished_at=time.time(),
    )
    lat = result.latent
    latent = None
    if lat is not None:
        latent = LatentRecord(
            job.dataset,
            job.policy.name,
            job.example.example_id,
            *_latent_columns(lat, job.request.answers, job.example.label),
            lat.prompt_tokens,
        )
    return call, latent


def _latent_columns(lat: Latent, answers: tuple[str, ...], label: str) -> tuple[float, float, float, float]:
    """``(p_yes, q, logit_yes, logit_no)`` of the store's ``latent`` table.

    A Yes/No task stores its law as is: p_yes, and q = p_yes or 1 - p_yes by the
    label. A task with more answers stores the law of a right call against a wrong
    one: p_yes = q = the probability of the label, logit_yes = the label's logit and
    logit_no = the log-sum-exp of the other answers' logits (so that
    ``sigmoid(logit_yes - logit_no)`` is the untempered probability of the label).
    """
    if answers == YES_NO:
        p_yes = lat.probabilities[0]
        return p_yes, p_yes if label == YES_NO[0] else 1.0 - p_yes, lat.logits[0], lat.logits[1]
    k = answers.index(label)
    q = lat.probabilities[k]
    others = np.array([v for i, v in enumerate(lat.logits) if i != k])
    top = others.max()
    return q, q, lat.logits[k], float(top + np.log(np.exp(others - top).sum()))


def _worker(
    backend: Backend, endpoint: str, jobs: queue.Queue, out: queue.Queue, halt: threading.Event, stop: threading.Event
):
    """Make the calls of ``jobs`` until a ``None`` end mark, an error, ``halt`` (the drive) or ``stop`` (the run)."""
    while not (halt.is_set() or stop.is_set()):
        try:
            job = jobs.get(timeout=0.1)
        except queue.Empty:
            continue  # the main thread is still generating calls
        if job is None:
            return
        try:
            out.put((job, backend.call(job.request, endpoint)))
        except BackendError as exc:
            out.put((job, exc))
            return
        except Exception as exc:  # a bug or library failure must still stop the run cleanly
            out.put((job, BackendError(f"{endpoint}: {type(exc).__name__}: {' '.join(str(exc).split())[:200]}")))
            return


class _Progress:
    """A tqdm bar on stderr (rate and ETA), or nothing."""

    def __init__(self, total: int, enabled: bool):
        self.bar = None
        if enabled and total:
            tqdm = require("tqdm", "the progress bar").tqdm
            self.bar = tqdm(total=total, unit="call", file=sys.stderr, dynamic_ncols=True, smoothing=0.05)

    def update(self, n: int, invalid: int) -> None:
        if self.bar is not None:
            self.bar.update(n)
            self.bar.set_postfix(invalid=invalid, refresh=False)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _drive(
    backend: Backend, jobs: Iterator[_Job], store: RunStore, progress: _Progress, stop: threading.Event, counts: dict
):
    """Run ``jobs`` on ``backend``'s worker slots, saving results batch by batch.

    The main thread hands the workers at most two calls per slot ahead of what it has
    recorded, taking them from ``jobs`` as it goes: the plan is never held whole. ``stop``
    is the run's: set from outside, it stops this drive; set here when the drive ends on an
    error or an interrupt, so that the run stops (a backend's retry waits end at once).
    """
    todo: queue.Queue = queue.Queue()
    results: queue.Queue = queue.Queue()
    halt = threading.Event()  # this drive is over: its workers return
    slots = backend.slots()
    workers = [
        threading.Thread(target=_worker, args=(backend, ep, todo, results, halt, stop), daemon=True) for ep in slots
    ]
    for w in workers:
        w.start()
    error: BaseException | None = None
    ahead = 2 * len(slots)
    waiting = 0  # calls handed to the workers and not yet recorded
    exhausted = finished = store_failed = False
    try:
        while error is None and not stop.is_set():
            while not exhausted and waiting < ahead:
                job = next(jobs, None)
                if job is None:
                    exhausted = True
                    for _ in workers:
                        todo.put(None)  # one end mark per worker
                else:
                    todo.put(job)
                    waiting += 1
            if exhausted and not waiting:
                break
            try:
                batch = [results.get(timeout=0.2)]
            except queue.Empty:
                if not any(w.is_alive() for w in workers) and results.empty():
                    break
                continue
            try:
                error = _record_batch(batch, results, store, progress, counts)
            except StoreError:
                store_failed = True  # no second attempt on a store that refused a write
                raise
            waiting -= len(batch)
        finished = error is None and not stop.is_set()
    finally:
        # Error or Ctrl-C: no new calls start; the calls in flight finish (bounded wait)
        # and are recorded too, and no worker is left inside the model when it is freed.
        if not finished:
            stop.set()
        halt.set()
        deadline = time.monotonic() + _DRAIN_SECONDS
        for w in workers:
            w.join(max(0.0, deadline - time.monotonic()))
        if not store_failed and not results.empty():
            _record_batch([], results, store, progress, counts)
    if error is not None:
        raise error


def _record_batch(batch: list, results: queue.Queue, store: RunStore, progress: _Progress, counts: dict):
    """Save ``batch`` plus whatever else is queued, in one transaction; return the first error seen."""
    while True:
        try:
            batch.append(results.get_nowait())
        except queue.Empty:
            break
    error = None
    calls, latents = [], []
    for job, res in batch:
        if isinstance(res, BaseException):
            error = error or res
            continue
        call, latent = _records(job, res)
        calls.append(call)
        if latent is not None:
            latents.append(latent)
    if calls:
        added = store.save(calls, latents)
        counts["recorded"] += len(added)
        counts["invalid"] += sum(not c.valid for c in added)
        progress.update(len(calls), counts["invalid"])
    return error


def _warn_on_stderr(message: str) -> None:
    print(f"certify experiment: warning: {message}", file=sys.stderr)


def run_experiment(
    cfg: ExperimentConfig, progress: bool = True, stop: threading.Event | None = None, warn=_warn_on_stderr
) -> RunSummary:
    """Make every call of ``cfg`` that its store does not hold yet.

    One run at a time per store: the run holds the store's writer lock
    (:func:`~certify.experiment._store.writer_lock`) from start to end.

    Parameters
    ----------
    cfg : ExperimentConfig
        The validated experiment.
    progress : bool
        Show a progress bar with rate and ETA on stderr.
    stop : threading.Event, optional
        Set it (from another thread) to stop the run after the calls in flight.
    warn : callable
        ``warn(message)`` reports a one-line warning (default: one line on stderr).

    Returns
    -------
    RunSummary

    Raises
    ------
    BackendError
        A backend stayed unusable after its retries; every call finished before
        that is recorded, and re-running resumes from there.
    StoreInUseError
        Another process is running on the store.
    StoreError, InputError, DatasetError
        The store, config or data cannot be used.
    """
    start = time.perf_counter()
    stop = stop or threading.Event()
    for name in sorted({p.backend for p in cfg.policies}):
        check_requirements(cfg.backend(name))  # before the store is created: nothing left behind
    with writer_lock(cfg.store), RunStore(cfg.store, create=True) as store:
        store.bind_experiment(cfg.name, cfg.to_dict())
        for p in cfg.policies:
            store.bind_policy(p.name, cfg.policy_identity(p))
        draws = {}
        for ds in cfg.datasets:
            examples = draw_examples(ds)
            store.bind_draw(
                ds.name, ds.task, ds.draw_file, file_sha256(ds.draw_file), [(e.example_id, e.label) for e in examples]
            )
            draws[ds.name] = examples
        # Counted in SQL and generated lazily (_pending): the plan is never held whole.
        n_examples = sum(len(draws[ds.name]) for ds in cfg.datasets)
        done = {key: _count_done(cfg, store, policies) for key, policies in _groups(cfg).items()}
        groups = {
            key: policies
            for key, policies in _groups(cfg).items()
            if done[key] < n_examples * len(policies) * cfg.repeats
        }
        skipped = sum(done.values())
        counts = {"recorded": 0, "invalid": 0}
        backends = {}
        try:
            # Check every backend before the first call: a long run must not fail late on a typo.
            for (name, endpoints), policies in groups.items():
                backend = make_backend(cfg.backend(name), endpoints, stop)
                backends[(name, endpoints)] = backend
                models = {p.model for p in policies}
                backend.check(models)
                # Settled once per run and group, before any call, so all its calls agree.
                facts = backend.negotiate(models, store.serving(sorted(p.name for p in policies)), warn)
                for p in sorted(policies, key=lambda p: p.name):
                    if p.model in facts:
                        store.bind_serving(p.name, facts[p.model])
            bar = _Progress(n_examples * len(cfg.policies) * cfg.repeats - skipped, progress)
            try:
                for key, policies in groups.items():
                    _drive(backends[key], _pending(cfg, store, draws, policies), store, bar, stop, counts)
            finally:
                bar.close()
        finally:
            for backend in backends.values():
                backend.close()
    return RunSummary(counts["recorded"], skipped, counts["invalid"], time.perf_counter() - start)
