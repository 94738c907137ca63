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
from dataclasses import dataclass

import numpy as np

from .._extras import require
from ._backends import Backend, CallRequest, CallResult, Latent, check_requirements, make_backend
from ._config import ExperimentConfig, PolicyConfig
from ._datasets import Example, draw_examples
from ._errors import BackendError
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


def _plan(cfg: ExperimentConfig, store: RunStore, draws: dict[str, list[Example]]):
    """Pending jobs grouped by (backend name, endpoints), plus the count already done."""
    groups: dict[tuple, list[_Job]] = {}
    skipped = 0
    for ds in cfg.datasets:
        task = TASKS[ds.task]
        done = {p.name: store.completed(ds.name, p.name) for p in cfg.policies}
        # A recorded p_yes gives the whole law of a Yes/No task only; an example of a task
        # with more answers is read again on resume (its logits do not depend on what ran before).
        known = {p.name: store.latents(ds.name, p.name) if task.answers == YES_NO else {} for p in cfg.policies}
        for example in draws[ds.name]:
            prompt = build_prompt(task, example.fields)
            for p in cfg.policies:
                key = (p.backend, p.endpoints)
                for r in range(cfg.repeats):
                    if (example.example_id, r) in done[p.name]:
                        skipped += 1
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
                    groups.setdefault(key, []).append(_Job(ds.name, p, example, r, req))
    return groups, skipped


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
        latent = LatentRecord(job.dataset, job.policy.name, job.example.example_id,
                              *_latent_columns(lat, job.request.answers, job.example.label), lat.prompt_tokens)
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


def _worker(backend: Backend, endpoint: str, jobs: queue.Queue, out: queue.Queue, stop: threading.Event):
    while not stop.is_set():
        try:
            job = jobs.get_nowait()
        except queue.Empty:
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


def _drive(backend: Backend, jobs: list[_Job], store: RunStore, progress: _Progress, stop: threading.Event, counts: dict):
    """Run ``jobs`` on ``backend``'s worker slots, saving results batch by batch."""
    todo: queue.Queue = queue.Queue()
    for job in jobs:
        todo.put(job)
    results: queue.Queue = queue.Queue()
    workers = [
        threading.Thread(target=_worker, args=(backend, ep, todo, results, stop), daemon=True)
        for ep in backend.slots()
    ]
    for w in workers:
        w.start()
    error: BaseException | None = None
    remaining = len(jobs)
    try:
        while remaining and error is None:
            try:
                batch = [results.get(timeout=0.2)]
            except queue.Empty:
                if not any(w.is_alive() for w in workers) and results.empty():
                    break
                continue
            error = _record_batch(batch, results, store, progress, counts)
            remaining -= len(batch)
    finally:
        # Error or Ctrl-C: no new calls start; the calls in flight finish (bounded wait)
        # and are recorded too, and no worker is left inside the model when it is freed.
        stop.set()
        deadline = time.monotonic() + _DRAIN_SECONDS
        for w in workers:
            w.join(max(0.0, deadline - time.monotonic()))
        if not results.empty():
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


def run_experiment(cfg: ExperimentConfig, progress: bool = True, stop: threading.Event | None = None,
                   warn=_warn_on_stderr) -> RunSummary:
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
            store.bind_draw(ds.name, ds.task, ds.draw_file, file_sha256(ds.draw_file),
                            [(e.example_id, e.label) for e in examples])
            draws[ds.name] = examples
        groups, skipped = _plan(cfg, store, draws)
        counts = {"recorded": 0, "invalid": 0}
        backends = {}
        try:
            # Check every backend before the first call: a long run must not fail late on a typo.
            for (name, endpoints), jobs in groups.items():
                backend = make_backend(cfg.backend(name), endpoints, stop)
                backends[(name, endpoints)] = backend
                models = {j.policy.model for j in jobs}
                backend.check(models)
                # Settled once per run and group, before any call, so all its calls agree.
                policies = {j.policy.name: j.policy.model for j in jobs}
                facts = backend.negotiate(models, store.serving(sorted(policies)), warn)
                for name, model in sorted(policies.items()):
                    if model in facts:
                        store.bind_serving(name, facts[model])
            bar = _Progress(sum(len(j) for j in groups.values()), progress)
            try:
                for key, jobs in groups.items():
                    _drive(backends[key], jobs, store, bar, stop, counts)
            finally:
                bar.close()
        finally:
            for backend in backends.values():
                backend.close()
    return RunSummary(counts["recorded"], skipped, counts["invalid"], time.perf_counter() - start)
