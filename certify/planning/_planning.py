"""Planning a study from pilot data: how many examples and calls certify that k votes beat one.

From pilot data (cells of K_i calls with S_i correct), two latent laws are taken as
scenarios for the truth:

``npmle``
    pi-hat, the nonparametric maximum-likelihood law of the pilot (eq. (L3) of
    :mod:`certify.likelihood`): the best single guess.
``least-favourable``
    the law of the pilot's likelihood set {pi : l(pi) >= l(pi-hat) - c} at which the
    gain E[V_k - V_1] is smallest (the extremal law of the lower end of its
    likelihood-ratio interval, eq. (L9)): the most pessimistic truth the pilot supports.

For each scenario and each design (N examples, K calls per example) the study is
simulated ``reps`` times; each simulated study gets the same likelihood-ratio intervals
:func:`certify.analysis.analyze` reports, and the plan records the fraction of studies whose gain
interval lies above 0 (the probability of certifying that k votes beat one call), with its
Monte Carlo standard error sqrt(p (1 - p) / reps) <= 1 / (2 sqrt(reps)), and the mean width of
the V_k interval over ``width_reps`` of the studies (spread evenly over the ``reps``; all of
them when ``width_reps >= reps``), with its Monte Carlo standard error s / sqrt(width_reps),
s the widths' sample standard deviation. The probability is the decision a study is planned
for and needs every study (its standard error is largest at 1/2); a width varies little from
one study to the next (s is a few per cent of the mean in the designs of
``benchmarks/bench_plan.py``), so a quarter of the studies give its mean to a fraction of a
percentage point, and the V_k interval (both ends, and its small-count threshold where that
applies) is about half of a study's work. These are simulation estimates under the
conditional-i.i.d. model, not guarantees; the pilot's own uncertainty enters only
through the two scenarios.

**Simulating counts, not examples.** A study's likelihood depends on its data only through
the K + 1 cell counts n_S (eq. (L1) of :mod:`certify.likelihood`). Under a scenario law pi
the examples are i.i.d. with P(S = s) = p_s(pi) = E_pi[Bin(s; K, Q)] (eq. (L2)), so the counts
are one multinomial draw (n_0, ..., n_K) ~ Mult(N, p(pi)): the same law as drawing q_i ~ pi and
S_i ~ Bin(K, q_i) example by example, at a cost independent of N.

**Cost.** The V_k interval is solved only in the ``width_reps`` studies that report a width
(above); every study decides its gain. The studies of one design are solved in chunks of CHUNK
studies; within a chunk each study's solvers start from the previous study's NPMLE and extremal laws
(:class:`certify.likelihood.WarmStarts`), a study whose counts repeat an earlier one of the
chunk is not solved again, and chunks run on ``workers`` processes. Of the gain's interval only
the lower end matters (whether it lies above 0), and it is not solved at all where a witness
settles it (:func:`certify.likelihood.witness_below`): a law of the study's likelihood set whose
gain is below 0 proves the end below 0. The candidates are the scenario law itself (the
simulated truth, in the set in about 1 - alpha of the studies) and the last such law of the
chunk, each also mixed with the study's pi-hat; the decision is the one the solved end gives
(the test compares them study by study). Otherwise only the lower end is solved, and after a
small-count threshold (which needs both ends at the chi-square level) only it again. Every chunk
draws from its own stream, spawned from ``seed`` by (design, chunk), so the plan does not
depend on the number of workers.
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

import numpy as np

from .._bernstein import bernstein_basis
from .._errors import CertifyError, InputError
from .._objective import vote_gain
from .._records import Record
from .._validation import check_alpha
from ..likelihood import CellCounts, WarmStarts, likelihood_bound, likelihood_intervals, npmle, witness_below

__all__ = ["DEFAULT_PLAN_REPS", "DEFAULT_WIDTH_REPS", "PLAN_SCHEMA_VERSION", "PlanRow", "StudyPlan", "plan_study"]

PLAN_SCHEMA_VERSION = "3"

#: Scenario names, in the order they are reported.
SCENARIOS = ("npmle", "least-favourable")
#: Simulated studies per default design: the Monte Carlo standard error of a probability is
#: then at most 1 / (2 sqrt(400)) = 0.025.
DEFAULT_PLAN_REPS = 400
#: Studies per default design whose V_k interval is solved for the mean width (module docstring):
#: with widths spread by a few per cent of their mean, 100 give that mean to a few tenths of a
#: per cent of itself, while the probability needs all DEFAULT_PLAN_REPS.
DEFAULT_WIDTH_REPS = 100
#: Studies per chunk (one task of a worker, one step of the progress report). Within a chunk
#: each study starts from the previous one's solutions, so a chunk pays one cold start; 25
#: keeps that to 4 % of the studies while leaving tens of chunks per design to balance two workers.
CHUNK = 25


@dataclass(frozen=True)
class PlanRow(Record):
    """One design under one scenario.

    Attributes
    ----------
    scenario : str
        ``"npmle"`` or ``"least-favourable"``.
    examples, calls : int
        N and K of the simulated study.
    mean_width : float
        Mean width of the 1 - alpha interval of V_k over ``width_reps`` of the replicates.
    se_width : float
        Monte Carlo standard error of ``mean_width``.
    p_certified : float
        Fraction of replicates whose interval of V_k - V_1 lies above 0.
    se_certified : float
        Monte Carlo standard error of ``p_certified``.
    reps : int
        Simulated studies of the design.
    width_reps : int
        Those of them whose V_k interval was solved (module docstring).
    """

    scenario: str
    examples: int
    calls: int
    mean_width: float
    se_width: float
    p_certified: float
    se_certified: float
    reps: int
    width_reps: int


@dataclass(frozen=True)
class StudyPlan:
    """Result of :func:`plan_study` (``to_dict``/``from_dict``; ``schema_version``).

    Attributes
    ----------
    votes : int
        The budget k whose gain over one call is to be certified.
    alpha : float
    pilot_examples : int
    pilot_calls : int
        The pilot's largest calls per example: the moments it identifies (see
        :meth:`beyond_pilot`).
    scenarios : dict
        ``{name: {"atoms": [...], "weights": [...], "gain": E[V_k - V_1]}}``.
    rows : tuple of PlanRow
    seed : int
    """

    votes: int
    alpha: float
    pilot_examples: int
    pilot_calls: int
    scenarios: dict
    rows: tuple[PlanRow, ...]
    seed: int
    schema_version: str = PLAN_SCHEMA_VERSION

    def to_dict(self) -> dict:
        return {
            "schema_version": self.schema_version,
            "votes": self.votes,
            "alpha": self.alpha,
            "pilot_examples": self.pilot_examples,
            "pilot_calls": self.pilot_calls,
            "scenarios": self.scenarios,
            "rows": [{**r.to_dict(), "beyond_pilot": r.calls > self.pilot_calls} for r in self.rows],
            "seed": self.seed,
        }

    def beyond_pilot(self) -> tuple[int, ...]:
        """The designs' calls K beyond the pilot's: their studies need moments of the latent law
        the pilot does not identify, which come from the scenario law as solved (one choice
        among the laws the pilot supports equally), so those rows rest on that choice."""
        return tuple(sorted({r.calls for r in self.rows if r.calls > self.pilot_calls}))

    @classmethod
    def from_dict(cls, d: dict) -> StudyPlan:
        if str(d.get("schema_version")) != PLAN_SCHEMA_VERSION:
            raise InputError(f"schema_version={d.get('schema_version')!r}: this version reads {PLAN_SCHEMA_VERSION!r}")
        return cls(
            int(d["votes"]),
            float(d["alpha"]),
            int(d["pilot_examples"]),
            int(d["pilot_calls"]),
            dict(d["scenarios"]),
            tuple(PlanRow.from_dict(r) for r in d["rows"]),
            int(d["seed"]),
        )


def _positive_ints(values, what: str, least: int) -> tuple[int, ...]:
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < least:
            raise InputError(f"{what}={v!r} must be an integer >= {least}")
        out.append(int(v))
    if not out:
        raise InputError(f"give at least one value of {what}")
    return tuple(out)


def cell_probabilities(atoms: np.ndarray, weights: np.ndarray, calls: int) -> np.ndarray:
    """p_s = sum_j w_j Bin(s; K, a_j), s = 0..K: the law of one example's count of correct calls (eq. (L2))."""
    p = bernstein_basis(calls, np.asarray(atoms, dtype=float)) @ np.asarray(
        weights, dtype=float
    )  # Bin(s; K, a) is the basis
    return p / p.sum()  # sums to 1 up to rounding; the multinomial needs it exactly


def simulate_counts(p: np.ndarray, examples: int, studies: int, rng: np.random.Generator) -> np.ndarray:
    """Cell counts of ``studies`` simulated studies of ``examples`` examples, shape (studies, K + 1).

    One multinomial draw per study (module docstring): the law of the counts of N i.i.d.
    examples with P(S = s) = p_s.
    """
    return rng.multinomial(examples, p, size=studies)


def _cells(counts: np.ndarray) -> CellCounts:
    """The non-empty cells S = 0..K of one study's counts."""
    s = np.flatnonzero(counts)
    return CellCounts(np.full(len(s), len(counts) - 1), s, counts[s])


def width_studies(first: int, studies: int, reps: int, width_reps: int) -> np.ndarray:
    """Which of the studies first .. first + studies - 1 of a design get their V_k interval solved.

    Study i (0 <= i < reps) does when floor((i + 1) m / reps) > floor(i m / reps), m =
    min(width_reps, reps): exactly m of the reps, spread evenly, chosen before any study is drawn
    (so the mean width is an unbiased estimate of the mean over all studies).
    """
    m = min(int(width_reps), int(reps))
    i = np.arange(first, first + studies)
    return (i + 1) * m // reps > i * m // reps


def _run_chunk(task: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Widths of the V_k interval (of the studies that get one) and whether the gain was
    certified (of every study), for one chunk of studies.

    A module-level function of plain arguments: a worker process runs it from a pickled task.
    """
    p, examples, studies, (votes, gain), alpha, seed, truth, with_width = task
    counts = simulate_counts(p, examples, studies, np.random.default_rng(seed))
    warm = WarmStarts()  # one per chunk: the studies of one design look alike
    # a study is its K + 1 counts: one that repeats an earlier study of the chunk (common with
    # few calls) has the same intervals, and is solved once, at its first occurrence; its width
    # is solved there when any of its occurrences is chosen for one
    _, first, which = np.unique(counts, axis=0, return_index=True, return_inverse=True)
    which = which.reshape(-1)
    wanted = np.zeros(len(first), dtype=bool)
    np.logical_or.at(wanted, which, with_width)
    certified, width = np.zeros(len(first), dtype=bool), np.full(len(first), np.nan)
    # laws that may prove the gain's lower end below 0 (module docstring): the scenario law
    # and the last law of the chunk that did
    witnesses = [truth]
    for u in np.argsort(first):  # in the order the studies were drawn: each warm-starts the next
        cells = _cells(counts[first[u]])
        reference = warm.npmle(cells)
        # certified iff the gain's interval lies above 0: only its lower end is needed, and
        # not even that where a law of the likelihood set has a gain below 0
        below = witness_below(cells, gain, 0.0, witnesses + [reference], alpha=alpha, reference=reference)
        if below is None:
            lower = likelihood_bound(cells, gain, "lower", alpha=alpha, reference=reference, warm=warm)
            if lower.value <= 0:
                below = lower.law()
        if below is not None:
            witnesses = [below, truth]
        certified[u] = below is None
        if wanted[u]:
            (iv_v,) = likelihood_intervals(cells, [votes], alpha=alpha, reference=reference, warm=warm)
            width[u] = iv_v.width
    return width[which[with_width]], certified[which]


#: Signals that stop a plan: Ctrl-C, and SIGTERM (`certify plan` makes it a KeyboardInterrupt too).
_STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM") if hasattr(signal, name))
#: Seconds between the parent's checks for such a signal while the workers simulate.
_SIGNAL_POLL = 0.2
#: Linux's prctl option that sends the calling process a signal when its parent exits.
_PR_SET_PDEATHSIG = 1
#: Seconds between a worker's checks that its parent still runs, where prctl is not available.
_PARENT_POLL = 1.0


def _worker_start(owner: int) -> None:
    """Set up a worker process of :func:`plan_study` (process ``owner``): it ends with its parent,
    and leaves Ctrl-C to the owner.

    A worker killed by any means leaves the owner an error (the pool breaks); the owner
    killed by any means (SIGKILL included) must not leave workers waiting for tasks forever.
    On Linux the kernel kills the worker when its parent exits (``PR_SET_PDEATHSIG``);
    elsewhere a thread checks every second that the parent is still there. Ctrl-C reaches
    every process of the terminal's foreground group: the workers ignore it, and the owner
    stops them (:func:`_stop_workers`) and reports the interrupt once. SIGTERM gets its
    default action back (a forked worker inherits the owner's handlers): a worker ends on it
    without a word, and the owner reports the broken pool.
    """
    parent = os.getppid()  # the owner, or the start method's server process that forked this one
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    watched = False
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            watched = ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent or not _running(owner):  # gone before the watch began
        os._exit(1)
    if not watched:
        threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        return True
    return True


def _exit_with_parent(parent: int) -> None:
    """End this worker once its parent has exited (its parent process id changes)."""
    while os.getppid() == parent:
        time.sleep(_PARENT_POLL)
    os._exit(1)


class _DefaultAction(BaseException):
    """A noted signal whose disposition was the default action (ending the process): raised to
    stop the workers first (:func:`_signals_deferred`)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def _signals_deferred():
    """While the worker pool runs, note SIGINT and SIGTERM instead of acting on them at once.

    Python raises KeyboardInterrupt (and runs any handler) between two bytecodes, anywhere:
    inside the executor's ``submit`` it can leave a queue's lock held, and the executor's
    thread then waits for that lock forever, and so does the parent that waits for the thread.
    Yields ``act()``, called where the parent waits for results: it does, there, what the
    replaced handler would have done with each noted signal (``certify plan``'s raise
    KeyboardInterrupt), and for a signal whose default action ends the process, ends it once
    the caller has stopped the workers. Ignored signals stay ignored; outside the main thread,
    where Python runs no handler, nothing changes. A forked worker starts with these handlers,
    so a signal that reaches it before :func:`_worker_start` is only noted there.
    """
    received: list[int] = []
    previous = {}
    try:
        for signum in _STOP_SIGNALS:
            if signal.getsignal(signum) not in (signal.SIG_IGN, None):  # None: a handler not set from Python
                previous[signum] = signal.signal(signum, lambda number, frame: received.append(number))
    except ValueError:  # not the main thread
        pass

    def act() -> None:
        while received:
            signum = received.pop(0)
            handler = previous[signum]
            if not callable(handler):
                raise _DefaultAction(signum)
            handler(signum, None)

    def restore() -> None:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        previous.clear()

    try:
        yield act
    except _DefaultAction as stop:
        restore()
        signal.raise_signal(stop.signum)  # the default action: this process ends here
        raise KeyboardInterrupt from None  # (were it to survive)
    finally:
        restore()


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """Stop the worker processes at once (SIGKILL: a worker holds nothing to clean up, and one
    just forked may not handle SIGTERM yet), cancel the tasks not started and wait for the end."""
    kill = getattr(pool, "kill_workers", None)  # Python 3.14
    if kill is not None:
        kill()
        return
    processes = list((pool._processes or {}).values())  # the executor's workers (no public list before 3.14)
    for process in processes:
        process.kill()
    # the executor's thread sees the workers end, fails what is left and exits; waiting for it
    # here keeps it from racing the interpreter's exit (Python 3.11 then reports a closed pipe)
    pool.shutdown(wait=True, cancel_futures=True)
    for process in processes:
        process.join()


def plan_study(
    pilot,
    votes: int,
    *,
    alpha: float = 0.05,
    examples=(200, 500, 1000, 2000),
    calls=(2, 3, 5, 10),
    reps: int = DEFAULT_PLAN_REPS,
    width_reps: int = DEFAULT_WIDTH_REPS,
    seed: int = 0,
    workers: int = 1,
    progress=None,
) -> StudyPlan:
    """Simulated width and probability of certifying a gain, per design (module docstring).

    Parameters
    ----------
    pilot : CellCounts or CallBits
        The pilot data.
    votes : int
        Budget k (>= 2) whose gain V_k - V_1 is to be certified.
    alpha : float
        1 - confidence level of the simulated studies' intervals.
    examples, calls : sequence of int
        Designs: every pair (N, K), N >= 2, K >= 2.
    reps : int
        Simulated studies per design and scenario (>= 10); the Monte Carlo standard error of
        each probability is at most 1 / (2 sqrt(reps)).
    width_reps : int
        Of those, the studies whose V_k interval is solved for the mean width (>= 2; all of them
        when >= reps), spread evenly (:func:`width_studies`).
    seed : int
        Seed of NumPy's PCG64: the plan is reproducible, whatever ``workers``.
    workers : int
        Processes that simulate (>= 1); 1 runs in this process.
    progress : callable, optional
        Called with (studies done, studies in all) after each chunk of studies.

    Returns
    -------
    StudyPlan
    """
    if isinstance(votes, bool) or not isinstance(votes, (int, np.integer)) or votes < 2:
        raise InputError(f"votes={votes!r} must be an integer >= 2 (the budget whose gain over one call is planned)")
    alpha = check_alpha(alpha)
    examples = _positive_ints(examples, "examples", 2)
    calls = _positive_ints(calls, "calls", 2)
    (reps,) = _positive_ints([reps], "reps", 10)
    (width_reps,) = _positive_ints([width_reps], "width_reps", 2)
    (workers,) = _positive_ints([workers], "workers", 1)
    cells = pilot if isinstance(pilot, CellCounts) else CellCounts.from_bits(pilot)
    gain = vote_gain(votes)
    reference = npmle(cells)
    worst = likelihood_bound(cells, gain, "lower", alpha=alpha, reference=reference)
    laws, scenarios = {}, {}
    for name, law in (("npmle", reference), ("least-favourable", worst)):
        atoms, weights = np.asarray(law.atoms, dtype=float), np.asarray(law.weights, dtype=float)
        laws[name] = (atoms, weights)
        scenarios[name] = {
            "atoms": atoms.tolist(),
            "weights": weights.tolist(),
            "gain": float(np.dot(weights, gain.evaluate(atoms))),
        }
    designs = [(name, n, k) for name in SCENARIOS for n in examples for k in calls]
    owner, tasks = [], []  # each chunk's stream is spawned from (seed, design, chunk)
    for d, (name, n, k) in enumerate(designs):
        p = cell_probabilities(*laws[name], k)
        for c, start in enumerate(range(0, reps, CHUNK)):
            owner.append(d)
            studies = min(CHUNK, reps - start)
            tasks.append(
                (
                    p,
                    n,
                    studies,
                    [votes, gain],
                    float(alpha),
                    np.random.SeedSequence(seed, spawn_key=(d, c)),
                    laws[name],
                    width_studies(start, studies, reps, width_reps),
                )
            )
    out: list = [None] * len(tasks)
    done, total = 0, len(designs) * reps

    def record(i: int, chunk: tuple[np.ndarray, np.ndarray]) -> None:
        nonlocal done
        out[i] = chunk
        done += len(chunk[1])
        if progress is not None:
            progress(done, total)

    if workers == 1:
        for i, task in enumerate(tasks):
            record(i, _run_chunk(task))
    else:
        with _signals_deferred() as act_on_signals:
            pool = ProcessPoolExecutor(max_workers=workers, initializer=_worker_start, initargs=(os.getpid(),))
            try:
                futures = {pool.submit(_run_chunk, task): i for i, task in enumerate(tasks)}
                pending = set(futures)
                while pending:
                    finished, pending = wait(pending, timeout=_SIGNAL_POLL, return_when=FIRST_COMPLETED)
                    for fut in finished:
                        record(futures[fut], fut.result())
                    act_on_signals()  # here, outside the executor's locks, a signal may stop the plan
                pool.shutdown()
                act_on_signals()  # one that came with the last results is not lost
            except BrokenProcessPool:  # from submit or a result
                _stop_workers(pool)
                raise CertifyError(
                    "a worker process of the plan ended unexpectedly (killed, or out of memory); "
                    "run again, with fewer --workers if memory is short"
                ) from None
            except BaseException:
                # Ctrl-C, SIGTERM (`certify plan` makes it a KeyboardInterrupt) or a failed chunk:
                # the workers stop now, not after their chunks, and never outlive this process
                _stop_workers(pool)
                raise
    rows = []
    for d, (name, n, k) in enumerate(designs):
        mine = [out[i] for i in range(len(tasks)) if owner[i] == d]  # in task order: the sums are reproducible
        widths = np.concatenate([ch[0] for ch in mine])
        p_hat = float(np.concatenate([ch[1] for ch in mine]).mean())
        rows.append(
            PlanRow(
                name,
                n,
                k,
                float(widths.mean()),
                float(widths.std(ddof=1) / math.sqrt(len(widths))),
                p_hat,
                math.sqrt(p_hat * (1 - p_hat) / reps),
                reps,
                len(widths),
            )
        )
    return StudyPlan(int(votes), float(alpha), cells.n, cells.max_calls, scenarios, tuple(rows), int(seed))
