"""``certify demo``: from nothing to a certified, illustrated report on a real model, offline.

Stages (each timed): the experiment (``examples/embedded.toml``: built-in
tasks, Gemma 3 270M embedded, ``choice`` mode, K = 5, three temperatures; resumable
through its SQLite store), the analysis (paper Section 4.4 projected regions,
Theorems 4.1-4.3, mixtures, overtaking) and the report (:func:`write_report`).
"""

from __future__ import annotations

import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .._errors import InputError
from .._numbers import pp_interval
from ..analysis import Verdict
from ._build import analyze_store, write_report

__all__ = ["DemoResult", "default_config_path", "run_demo", "summary_lines"]

_PACKAGED = Path(__file__).resolve().parent.parent / "data" / "embedded.toml"


def default_config_path() -> Path:
    """The demo config: ``examples/embedded.toml`` of a source checkout, else the packaged copy."""
    repo = Path(__file__).resolve().parents[2] / "examples" / "embedded.toml"
    return repo if repo.is_file() else _PACKAGED


@dataclass(frozen=True)
class DemoResult:
    """What :func:`run_demo` did.

    Attributes
    ----------
    config, store, report_path : str
    recorded, skipped : int
        Calls made now / found in the store (a resumed run skips them).
    seconds : dict
        Wall time of the stages ``experiment``, ``analysis``, ``report``, ``total``.
    summary : tuple of dict
        :attr:`ReportResult.summary`.
    """

    config: str
    store: str
    report_path: str
    recorded: int
    skipped: int
    seconds: dict
    summary: tuple[dict, ...]

    def to_dict(self) -> dict:
        return {
            "config": self.config,
            "store": self.store,
            "report_path": self.report_path,
            "recorded": self.recorded,
            "skipped": self.skipped,
            "seconds": dict(self.seconds),
            "summary": list(self.summary),
        }


def _load(config: Path, store: str | None):
    from ..experiment import ExperimentConfig

    try:
        doc = tomllib.loads(config.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"config {str(config)!r}: cannot read ({exc.strerror or exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"config {str(config)!r}: not valid TOML ({exc})") from None
    if store is not None:
        if not isinstance(doc.get("experiment"), dict):
            raise InputError(f"config {str(config)!r}: missing [experiment] table")
        doc["experiment"]["store"] = str(store)
    return ExperimentConfig.from_dict(doc)


def run_demo(
    config=None, out=None, store=None, *, progress: bool = True, alpha: float = 0.05, step: float = 0.05
) -> DemoResult:
    """Run the demo experiment (resuming its store), analyse it and write the report.

    Parameters
    ----------
    config : str or Path, optional
        Experiment TOML (default :func:`default_config_path`).
    out : str or Path, optional
        Report directory (default ``<store dir>/<store stem>_report``).
    store : str or Path, optional
        Overrides the config's store path (its draw files go next to it).
    progress : bool
        Progress bars (calls, then policies).

    Returns
    -------
    DemoResult
    """
    from ..experiment import run_experiment

    cfg_path = Path(config) if config is not None else default_config_path()
    cfg = _load(cfg_path, store)
    t0 = time.perf_counter()
    run = run_experiment(cfg, progress=progress)
    t1 = time.perf_counter()
    results = analyze_store(cfg.store, alpha=alpha, step=step, progress=progress)
    t2 = time.perf_counter()
    out_dir = Path(out) if out is not None else Path(cfg.store).parent / f"{Path(cfg.store).stem}_report"
    rep = write_report(cfg.store, out_dir, alpha=alpha, step=step, results=results)
    t3 = time.perf_counter()
    seconds = {"experiment": t1 - t0, "analysis": t2 - t1, "report": t3 - t2, "total": t3 - t0}
    return DemoResult(str(cfg_path), str(cfg.store), rep.report_path, run.recorded, run.skipped, seconds, rep.summary)


def _gain_cell(gain: dict | None) -> str:
    """``[+0.83, +3.44] better`` (pp, rounded outward), or ``-``."""
    if gain is None:
        return "-"
    return f"{pp_interval(gain['lower'], gain['upper'])} {Verdict.WORDS[gain['status']]}"


def summary_lines(result: DemoResult) -> list[str]:
    """A short fixed-width summary table (one line per policy, from every recorded call) plus the report path.

    The same 3 calls used three ways, each as its gain over one call: the majority of the
    correctness bits, the plurality vote over the answers, and pass@3 (any of them correct).
    """
    lines = [
        f"{'dataset/policy':<28} {'mu-hat':>7} {'3 votes: 95% interval':>21} "
        f"{'majority of 3 (pp)':>28} {'plurality of 3 (pp)':>28} {'pass@3 (pp)':>28}"
    ]
    for r in result.summary:
        iv = f"[{r['v3_lower']:.3f}, {r['v3_upper']:.3f}]"
        majority = (
            None
            if r.get("gain_lower") is None
            else {"lower": r["gain_lower"], "upper": r["gain_upper"], "status": r["verdict"]}
        )
        lines.append(
            f"{r['group']:<28} {r['mu']:>7.3f} {iv:>21} {_gain_cell(majority):>28} "
            f"{_gain_cell(r.get('plurality_3')):>28} {_gain_cell(r.get('pass@k_3')):>28}"
        )
    s = result.seconds
    lines.append(
        f"calls: {result.recorded} recorded now, {result.skipped} already in {result.store}; "
        f"time: experiment {s['experiment']:.1f} s, analysis {s['analysis']:.1f} s, report {s['report']:.1f} s"
    )
    lines.append(f"report: {result.report_path}")
    return lines
