"""``write_report``: from a run store to a directory with the paper's tables, figures and certificates.

Layout of ``out_dir``::

    report.md                 tables inline, figures linked
    report.json               every result as plain dicts
    tables/NAME.{md,csv,tex}  one set per table
    figures/NAME.{png,pdf}
    certificates/*.json       exact certificates (Theorem 4.1) of every interval endpoint
    certificates/index.json   which certificate backs which number

Everything is a deterministic function of the store: analyses are exact or use
fixed seeds, no timestamps are written (certificate provenance carries
``seconds = 0`` and an empty ``created``, which the checker ignores).

The report is written all or nothing (:func:`certify._files.new_folder`,
:func:`certify._files.publish_folder`): every file goes into a hidden folder beside
``out_dir``, which is renamed onto it at the end. ``out_dir`` must be missing, empty, or an
earlier report (its ``report.json`` is a certify report and it holds nothing but the files a
report is made of), checked before the analysis and again at the rename; an earlier report
is replaced whole, so its files never sit beside another data set's. A failure on the way
leaves ``out_dir`` as it was and no partial files.

Certificate files are named by :func:`certify.certificates.certificate_file_name`: the group
reduced to letters and digits and a short hash of its exact name, so that two groups
(``d/gpt 4`` and ``d/gpt_4``) never share a file.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path

import numpy as np

from .._errors import InputError
from .._extras import require
from .._files import check_folder_writable, check_output, check_replaceable, discard_folder, new_folder, publish_folder
from .._json import schema_id, to_json
from .._majority import majority_index, majority_polynomial
from .._objective import V_INF, budget_json
from ..analysis import analyze, curve_data, two_call_view
from ..certificates import certificate_file_name, certify_bound
from ..certificates import dump as dump_certificate
from ..readers import read_groups
from ..stats import (
    EmptyRegionError,
    Mixture,
    MixtureOptimum,
    MixtureSearch,
    NegativeMovement,
    Overtaking,
    find_negative_movements,
    find_overtaking,
    mixture_data,
    optimize_mixture,
    search_mixtures,
    unit_mixture,
    wald_region,
)
from . import _figures as figs
from . import _tables as tabs
from ._table_format import LATEX_PREAMBLE

__all__ = [
    "REPORT_JSON_SCHEMA_VERSION",
    "ReportResult",
    "analyze_store",
    "check_report_folder",
    "report_json",
    "true_vote_accuracy",
    "write_report",
]

#: Budgets of the vote-accuracy curve (log-spaced beyond the usual K); V_inf is added to the analysis.
_CURVE_VOTES = (1, 3, 5, 7, 9, 11, 15, 21, 31, 51, 101)
#: Budgets of the plurality vote and pass@k in the report (the verdict tables' columns): each
#: budget beyond the recorded calls costs likelihood solves, so a few, not the whole curve.
_AGGREGATE_VOTES = (3, 5, 9, 21)

#: Layout version of ``report.json`` (schema ``certify/schemas/report-v2.json``).
REPORT_JSON_SCHEMA_VERSION = "2"

#: The flag that names the report's folder, for messages (``certify experiment report`` and ``certify demo``).
_OUT_OPTION = "--out"
#: Bytes of an earlier report's ``report.json`` read to recognize it (its first field is ``"$schema"``).
_SCHEMA_PREFIX_BYTES = 256
#: Largest earlier ``certificates/index.json`` read for the names of its certificates; a larger
#: one is not certify's, and the certificates beside it count as files certify did not write.
_MAX_INDEX_BYTES = 64 << 20


@dataclass(frozen=True)
class ReportResult:
    """What :func:`write_report` wrote.

    Attributes
    ----------
    out_dir, report_path : str
    tables : tuple of str
        Table names (files ``tables/NAME.{md,csv,tex}``).
    figures : tuple of str
        Figure files relative to ``out_dir``.
    certificates : int
        Certificate files written.
    summary : tuple of dict
        One row per policy: group, mu, rho, the projected 95% three-vote interval,
        the empirical three-vote accuracy and the improvement verdict.
    """

    out_dir: str
    report_path: str
    tables: tuple[str, ...]
    figures: tuple[str, ...]
    certificates: int
    summary: tuple[dict, ...]

    def to_dict(self) -> dict:
        return {
            "out_dir": self.out_dir,
            "report_path": self.report_path,
            "tables": list(self.tables),
            "figures": list(self.figures),
            "certificates": self.certificates,
            "summary": list(self.summary),
        }


def true_vote_accuracy(store_path, votes=_CURVE_VOTES) -> dict:
    """The run's true V for each ``dataset/policy`` of a ``choice``-mode store: mean_i P_n(q_i) (eq. (main-vn)).

    Returns an empty dict when the store recorded no latent q_i (``generate`` mode, other files).
    """
    p = Path(store_path)
    if p.suffix.lower() not in (".sqlite", ".sqlite3", ".db"):
        return {}
    from ..experiment import RunStore

    with RunStore(p) as store:
        rows = store.query("SELECT dataset, policy, q FROM latent ORDER BY dataset, policy, example_id")
    qs: dict[str, list[float]] = {}
    for ds, pol, q in rows:
        qs.setdefault(f"{ds}/{pol}", []).append(q)
    out = {}
    for g, q in qs.items():
        arr = np.asarray(q, dtype=float)
        out[g] = {v: float(np.mean(majority_polynomial(majority_index(v), arr))) for v in votes}
        # V_inf(q) = 1{q > 1/2} + 1{q = 1/2} / 2 (the limit of P_n, eq. (L12) of the likelihood module)
        out[g][V_INF] = float(np.mean((arr > 0.5) + 0.5 * (arr == 0.5)))
    return out


def _top_votes(k: int) -> int:
    return 5 if k >= 5 else (3 if k >= 3 else 1)


def analyze_store(
    store_path, *, alpha: float = 0.05, step: float = 0.05, progress: bool = False, forecast: bool = True
) -> dict:
    """Every analysis behind the report (see the module docstring), as result objects.

    A file without groups is analysed as one group named by the file (``calls.csv``). With
    ``forecast`` (the default) each curve analysis also forecasts the budgets beyond the recorded
    calls from the best parametric family the data do not reject (``analyze(..., forecast=True)``;
    model-based, not certified): the hatched band of the vote-curve figure and the forecast
    columns of the "what more calls can add" table.

    Returns
    -------
    dict
        ``reports`` {group: AnalysisReport} (the two-call view of the curve analysis, budgets 3, 5, V_inf),
        ``truth`` {group: {votes: V}}, ``searches``,
        ``optima`` [(dataset, MixtureOptimum)], ``base`` {dataset: [Mixture]},
        ``overtaking``, ``negative``, and ``curves`` {group: AnalysisReport}: the K-call
        likelihood-ratio intervals (all recorded calls) of every budget of the vote curve,
        V_inf and the gains V_k - V_1.
    """
    from ..experiment import RunStore  # the readers read a run store through the experiment's CallTable

    groups = read_groups(store_path, open_store=RunStore)
    # A file without groups is one group with an empty name: every table, title and certificate
    # of the report names it by its file instead, as the reader of the report knows it.
    items = [(g or Path(store_path).name, bits) for g, bits in groups.items()]
    bar = None
    if progress:
        tqdm = require("tqdm", "the analysis progress bar").tqdm
        bar = tqdm(total=len(items), unit="policy", desc="analysis", dynamic_ncols=True)
    reports, curves = {}, {}
    for g, bits in items:
        if bits.calls < 3:
            raise InputError(f"{g}: {bits.calls} calls per example; the report needs K >= 3")
        # One analysis per group: what every recorded call certifies, the K-call likelihood curve
        # (with the plurality vote over the recorded answers and pass@k beside the bit majority) ...
        aggregates = ("plurality", "pass@k") if bits.has_answers else ("pass@k",)
        curves[g] = analyze(
            bits,
            votes=(*_CURVE_VOTES, V_INF),
            alpha=alpha,
            method="likelihood",
            aggregates=aggregates,
            aggregate_votes=_AGGREGATE_VOTES,
            forecast=forecast,
        )
        # ... which also holds the paper's two-call projected intervals of every budget (Section 6):
        # the report reproduces the paper from them, without analysing the group a second time.
        reports[g] = two_call_view(curves[g], bits, (3, 5, V_INF))
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    by_ds: dict[str, dict] = {}
    for g, bits in items:
        ds, _, pol = g.partition("/")
        by_ds.setdefault(ds, {})[pol or ds] = bits
    searches: list[MixtureSearch] = []
    optima: list[tuple[str, MixtureOptimum]] = []
    base: dict[str, list[Mixture]] = {}
    overtaking: list[Overtaking] = []
    negative: list[NegativeMovement] = []
    for ds, pols in by_ds.items():
        data = mixture_data(pols, ds)
        top = _top_votes(data.calls)
        budgets = tuple(v for v in (1, 3, 5) if v <= data.calls)
        base[ds] = [unit_mixture(data, name, budgets[1:]) for name in data.names]
        policies = list(base[ds])
        if len(data.names) >= 2:
            s = search_mixtures(data, step=step, votes=top, sizes=tuple(k for k in (2, 3) if k <= len(data.names)))
            searches.append(s)
            optima.append((ds, optimize_mixture(data, votes=top, objective="certified")))
            seen = {p.label for p in policies}
            for _, _, m in s.best:
                if m.label not in seen:
                    seen.add(m.label)
                    policies.append(m)
        overtaking += find_overtaking(data, policies, budgets, alpha)
        negative += find_negative_movements(data, base[ds], budgets, alpha)
    return {
        "reports": reports,
        "truth": true_vote_accuracy(store_path),
        "searches": searches,
        "optima": optima,
        "base": base,
        "overtaking": tuple(overtaking),
        "negative": tuple(negative),
        "curves": curves,
    }


def _clamped(mu, nu) -> tuple[Fraction, Fraction]:
    """(mu, nu) as exact rationals moved into the moment space mu^2 <= nu <= mu, mu in [0, 1].

    A point estimate beyond the boundary (rho-hat < 0: sampling noise when the calls are
    nearly independent) is certified at its projection, nu = mu^2 exactly, where the only law
    is all mass at mu. The clamp is exact: mu * mu in floating point may round below the exact
    square, a point outside the moment space that has no law at all.
    """
    mu = min(max(Fraction(float(mu)), Fraction(0)), Fraction(1))
    nu = min(max(Fraction(float(nu)), mu * mu), mu)
    return mu, nu


def _certificate(objective, side, mu, nu, path: Path):
    cert = certify_bound(objective, side, mu=mu, nu=nu)
    # Deterministic files: drop wall time and creation time (not part of the mathematics).
    cert = replace(cert, provenance=replace(cert.provenance, seconds=0.0, created=""))
    dump_certificate(cert, path)
    return cert


def _file_name(group: str, what: str, side: str, owner: dict, key: tuple) -> str:
    """A certificate's file name (module docstring); two certificates that would share one are an error."""
    name = certificate_file_name(group, what, side)
    if name in owner:
        raise InputError(
            f"the certificates of {owner[name]!r} and {key!r} would share the file {name!r} "
            "(their groups' hashes agree); rename one group"
        )
    owner[name] = key
    return name


def _certificates(results: dict, out: Path) -> list[dict]:
    out.mkdir(parents=True, exist_ok=True)
    index: list[dict] = []
    owner: dict[str, tuple] = {}
    for g, rep in results["reports"].items():
        for b in rep.budgets:
            if b.votes is V_INF:
                continue  # V_inf is a threshold functional: Theorem 4.3 closed form, no dual certificate
            jobs = [
                ("projected", "lower", b.projected.lower_at, b.projected.lower),
                ("projected", "upper", b.projected.upper_at, b.projected.upper),
                ("point", "lower", (rep.two_call.mu, rep.two_call.nu), b.sharp_lower),
                ("point", "upper", (rep.two_call.mu, rep.two_call.nu), b.sharp_upper),
            ]
            for kind, side, at, reported in jobs:
                name = _file_name(g, f"V{b.votes}_{kind}", side, owner, (g, b.votes, kind, side))
                mu, nu = _clamped(*at)
                cert = _certificate(b.votes, side, mu, nu, out / name)
                index.append(
                    {
                        "file": name,
                        "group": g,
                        "votes": b.votes,
                        "interval": kind,
                        "side": side,
                        "mu": float(mu),
                        "nu": float(nu),
                        "reported": reported,
                        "certified": float(cert.value),
                    }
                )
    for ds, opt in results["optima"]:
        name = _file_name(ds, f"mixture_optimum_V{opt.votes}", "lower", owner, (ds, opt.votes, "mixture optimum"))
        cert = replace(opt.certificate, provenance=replace(opt.certificate.provenance, seconds=0.0, created=""))
        dump_certificate(cert, out / name)
        index.append(
            {
                "file": name,
                "group": f"{ds}/{opt.mixture.label}",
                "votes": opt.votes,
                "interval": "point",
                "side": "lower",
                "mu": opt.mixture.mu,
                "nu": opt.mixture.nu,
                "reported": opt.lower,
                "certified": float(cert.value),
            }
        )
    figs.atomic_write(out / "index.json", json.dumps(index, indent=1, sort_keys=True) + "\n")
    return index


def _curves(results: dict) -> list[dict]:
    """Figure data of each policy's vote curve: K-call and two-call bands, empirical points, truth."""
    return [curve_data(rep, title=g, truth=results["truth"].get(g)) for g, rep in results["curves"].items()]


def _outline(rep):
    """(mu, rho) outline of a policy's two-call Wald region (Section 4.4), the one its projected intervals use."""
    try:
        region = wald_region(rep.two_call, rep.alpha, singular=rep.region.get("singular", "floor"))
    except EmptyRegionError:
        return None  # the data reject the model: no region to draw, the point alone is shown
    return figs.region_outline(region)


def _figures(results: dict, out: Path) -> list[Path]:
    points = []
    alpha = None
    for g, rep in results["reports"].items():
        ds, _, pol = g.partition("/")
        alpha = rep.alpha
        points.append((ds, pol or ds, rep.two_call.mu, rep.two_call.rho, _outline(rep)))
    paths: list[Path] = []
    paths += figs.width_maps(out)
    paths += figs.votability_plane(out, points, alpha=alpha)
    paths += figs.gain_map(out)
    if results["searches"]:
        paths += figs.mixture_plane(out, results["searches"], results["base"])
    paths += figs.vote_curves(out, _curves(results))
    return paths


def _tables(results: dict) -> list:
    reports = results["reports"]
    likely = tabs.forecast_table(results["curves"])  # None under --no-forecast
    out = [
        tabs.more_calls_table(results["curves"]),
        *([] if likely is None else [likely]),
        tabs.policy_table(reports),
        tabs.policy_interval_table(reports, results["truth"]),
        tabs.se_range_table(reports),
        tabs.completion_error_table(reports),
    ]
    if results["searches"]:
        out += [
            tabs.mixture_table(results["searches"], "gain"),
            tabs.mixture_table(results["searches"], "accuracy"),
            tabs.optimum_table(results["optima"]),
        ]
    out += [tabs.overtaking_table(results["overtaking"], limit=20), tabs.negative_table(results["negative"])]
    return out


def _gain_of(rep, aggregate: str, votes: int) -> dict | None:
    """The verdict of one aggregate at one budget as {lower, upper, status}; None without one."""
    v = next((v for v in rep.verdicts if v.aggregate == aggregate and v.votes == votes), None)
    return None if v is None else {"lower": v.gain.lower, "upper": v.gain.upper, "status": v.status}


def _summary(results: dict) -> list[dict]:
    """One row per policy from every recorded call: the K-call 3-vote interval and the verdict on its gain."""
    rows = []
    for g, rep in results["curves"].items():
        b3 = next(b for b in rep.budgets if b.votes == 3)
        v3 = next((v for v in rep.verdicts if v.votes == 3 and v.aggregate == "majority"), None)
        one = next((b for b in rep.budgets if b.votes == 1), None)
        mu = rep.all_calls.mu if rep.all_calls is not None else rep.two_call.mu
        rows.append(
            {
                "group": g,
                "mu": mu,
                "rho": rep.all_calls.rho if rep.all_calls is not None else rep.two_call.rho,
                "one_vote": None if one is None or one.empirical is None else one.empirical.value,
                "v3_lower": b3.interval.lower,
                "v3_upper": b3.interval.upper,
                "calls": rep.max_calls,
                "v3_empirical": None if b3.empirical is None else b3.empirical.value,
                "verdict": None if v3 is None else v3.status,
                "gain_lower": None if v3 is None else v3.gain.lower,
                "gain_upper": None if v3 is None else v3.gain.upper,
                # the same 3 calls used otherwise: their plurality vote over answers, and any of them correct
                **{f"{a}_3": _gain_of(rep, a, 3) for a in ("plurality", "pass@k")},
            }
        )
    return rows


def _forecast_lines(rep) -> list[str]:
    """The family forecast beyond the recorded calls beside the certain interval, or why there is none."""
    fc = rep.forecast
    if fc is None:
        return []
    if fc.family is None:
        tried = ", ".join(f"{g.family} (p = {g.p_value:.3f})" for g in fc.rejected)
        return [f"No forecast beyond the recorded calls: the data reject every family ({tried}).", ""]
    ahead = [
        (r.target, r.interval, r.forecast.accuracy)
        for r in rep.rows()
        if r.target.aggregate in ("majority", "pass@k") and r.forecast is not None and r.forecast.accuracy is not None
    ]
    shown = "; ".join(
        f"{t.aggregate} of {budget_json(t.votes)} calls: certain [{iv.lower:.3f}, {iv.upper:.3f}], "
        f"forecast {fc.estimate:.3f} [{fc.lower:.3f}, {fc.upper:.3f}]"
        for t, iv, fc in ahead
        if iv is not None and iv.lower is not None and iv.upper is not None
    )
    return [
        f"Beyond the recorded calls, what is certain ({100 * (1 - rep.alpha):g}%, every latent law the calls "
        f"allow) beside what is likely under the {fc.family} family of the latent law, fitted to every call "
        f"and not rejected by the data (goodness-of-fit p = {fc.guard.p_value:.2f}; the union of the parametric "
        f"bootstrap percentile intervals of {', '.join([fc.family, *(g.family for g in fc.pooled)])}, every "
        f"family within {fc.pool:g} BIC units not rejected, B = {fc.bootstrap} each; model-based, **not "
        f"certified**): {shown}.",
        "",
    ]


def _markdown(store_path, results: dict, tables: list, figures: list[Path], index: list[dict], out: Path) -> str:
    name = Path(store_path).name
    alpha = next(iter(results["reports"].values())).alpha
    lines = [
        f"# certify report: `{name}`",
        "",
        "Certified k-vote accuracy (the accuracy of the majority of k calls) against one call, reproduced from "
        "the recorded correctness bits. Budgets are numbers of votes; where the paper is cited its index "
        "follows in parentheses: 1 vote = V_0, 3 votes = V_1, 5 votes = V_2, 2n+1 votes = V_n, infinitely many "
        "votes = V_inf. Two kinds of intervals appear, each labelled with the calls it uses: the paper's "
        f"two-call intervals (Section 4.4: the {100 * (1 - alpha):g}% Wald region of the first two calls, "
        "projected through the sharp bounds of Theorem 4.1) and the K-call likelihood-ratio intervals from every "
        f"recorded call (alpha = {alpha:g}, asymptotic).",
        "",
        "LaTeX tables (`tables/*.tex`) compile inside a document whose preamble contains "
        + ", ".join(f"`{line}`" for line in LATEX_PREAMBLE.splitlines())
        + ".",
        "",
    ]
    lines += [
        "## Verdicts",
        "",
        "Per policy, the gain over one call of each way to use k calls, as a "
        f"{100 * (1 - alpha):g}% interval in percentage points from every recorded call: **better** or "
        "**worse** when the interval excludes 0 (certified at that level), otherwise undecided. *majority*: "
        "the majority of k correctness bits (the paper's V_k); *plurality*: the most frequent of k answers "
        "(self-consistency; beyond the recorded calls bounded by V_k and U_k, `proofs/plurality_bounds.py`); "
        "*pass@k*: at least one of k calls correct (best-of-k with a perfect verifier).",
        "",
    ]
    for g, rep in results["curves"].items():
        lines += [
            f"`{g}` ({rep.n} examples, {rep.max_calls} calls per example):",
            "",
            tabs.verdict_table(rep, _AGGREGATE_VOTES),
            "",
        ]
        modelled = [a for a in rep.aggregates if a.model is not None]
        if modelled and modelled[0].model.rejected:
            # the recorded answers reject the model: its numbers are no forecast, only the check is said
            lines += [f"No plurality forecast beyond the recorded calls: {modelled[0].model.check}.", ""]
        elif modelled:
            # the answer model's accuracy (not a gain, not a verdict): what the wrong answers suggest
            shown = "; ".join(
                f"{budget_json(a.votes)} calls {iv.estimate:.3f} [{iv.lower:.3f}, {iv.upper:.3f}]"
                for a, iv in ((a, a.model.interval) for a in modelled)
            )
            lines += [
                f"Plurality accuracy beyond the recorded calls from the answer model (model-based, **not "
                f"certified**; each call correct, the example's strongest wrong answer, or one of L equally "
                f"likely other answers): {shown}. Check: {modelled[0].model.check}.",
                "",
            ]
        lines += _forecast_lines(rep)
    for t in tables:
        lines += [
            f"## {t.title}",
            "",
            t.caption,
            "",
            t.to_markdown(),
            f"Files: [CSV](tables/{t.name}.csv), [LaTeX](tables/{t.name}.tex), [Markdown](tables/{t.name}.md)",
            "",
        ]
    lines += ["## Figures", ""]
    for p in figures:
        if p.suffix == ".png":
            rel = p.relative_to(out).as_posix()
            lines += [f"![{p.stem}]({rel}) ([PDF]({rel[:-4]}.pdf))", ""]
    lines += [
        "## Certificates",
        "",
        f"{len(index)} exact certificates (Theorem 4.1 duals, checked by `certify verify`) back every finite-budget "
        "two-call interval endpoint (3 and 5 votes): the projected endpoints at the (mu, nu) where they are "
        "attained and the sharp interval at the two-call point estimate. "
        "See [certificates/index.json](certificates/index.json).",
        "",
    ]
    return "\n".join(lines)


def _head(path: Path, limit: int) -> bytes | None:
    """Up to ``limit`` + 1 bytes of a regular file, None for anything else (a link, a pipe, nothing).

    Opened without following a link and without blocking, so that a named pipe planted in
    the folder cannot stall the check.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        return fh.read(limit + 1) if stat.S_ISREG(os.fstat(fd).st_mode) else None


def _earlier_report(out: Path) -> set[str]:
    """The files of an earlier report in ``out`` (relative names), the only ones a new report may replace.

    Empty when ``out`` holds no certify report (no ``report.json`` whose ``"$schema"`` is the
    report's): a folder that is not a report is never replaced. The names are those a report
    writes: ``report.md``, ``report.json``, every table and figure file, and the certificates
    that its ``certificates/index.json`` lists (plain names only).
    """
    prefix = ('{\n "$schema": ' + json.dumps(schema_id("report", REPORT_JSON_SCHEMA_VERSION))).encode()
    head = _head(out / "report.json", _SCHEMA_PREFIX_BYTES)
    if head is None or not head.startswith(prefix):
        return set()
    names = {"report.md", "report.json", "certificates/index.json"}
    names |= {f"tables/{t}.{ext}" for t in tabs.TABLE_NAMES for ext in ("md", "csv", "tex")}
    names |= {f"figures/{f}.{ext}" for f in figs.FIGURE_NAMES for ext in ("png", "pdf")}
    raw = _head(out / "certificates" / "index.json", _MAX_INDEX_BYTES)
    try:
        entries = json.loads(raw) if raw is not None and len(raw) <= _MAX_INDEX_BYTES else []
    except (ValueError, RecursionError):
        entries = []
    for entry in entries if isinstance(entries, list) else []:
        file = entry.get("file") if isinstance(entry, dict) else None
        if (
            isinstance(file, str)
            and file.endswith(".json")
            and "/" not in file
            and "\\" not in file
            and not file.startswith(".")
            and file.isprintable()
        ):
            names.add(f"certificates/{file}")
    return names


def check_report_folder(out_dir) -> Path:
    """Refuse a report folder before any work: it must be missing, empty or an earlier report (module docstring).

    Raises
    ------
    OutputError
        An empty name, a file or a link where the folder belongs, a missing parent folder, a
        place that takes no new folder, or a non-empty folder that is not an earlier report
        (naming the files certify did not write there).
    """
    out = check_output(out_dir, option=_OUT_OPTION, folder=True)
    check_replaceable(out, option=_OUT_OPTION, force=True, previous=_earlier_report(out))
    check_folder_writable(out, option=_OUT_OPTION)
    return out


def write_report(
    store_path,
    out_dir,
    *,
    alpha: float = 0.05,
    step: float = 0.05,
    progress: bool = False,
    forecast: bool = True,
    results: dict | None = None,
) -> ReportResult:
    """Write the full report of a run store (module docstring).

    Parameters
    ----------
    store_path : str or Path
        A certify run store (``.sqlite``) or any file :func:`certify.readers.read_groups` reads.
    out_dir : str or Path
        Missing, empty or an earlier report (replaced whole); checked before the analysis.
    alpha : float
        1 - confidence level of the projected intervals and paired comparisons.
    step : float
        Mixture weight-grid step.
    progress : bool
        Progress bar for the per-policy analyses.
    forecast : bool
        Forecast the budgets beyond the recorded calls (:func:`analyze_store`; model-based).
    results : dict, optional
        Output of :func:`analyze_store` to reuse.

    Returns
    -------
    ReportResult

    Raises
    ------
    OutputError
        ``out_dir`` cannot take the report (:func:`check_report_folder`), or the writing
        failed; ``out_dir`` is then as it was and nothing is left behind.
    """
    out = check_report_folder(out_dir)
    results = (
        results
        if results is not None
        else analyze_store(store_path, alpha=alpha, step=step, progress=progress, forecast=forecast)
    )
    new = new_folder(out, option=_OUT_OPTION)
    try:
        tables = _tables(results)
        for t in tables:
            for ext, text in (("md", t.to_markdown()), ("csv", t.to_csv()), ("tex", t.to_latex())):
                figs.atomic_write(new / "tables" / f"{t.name}.{ext}", text)
        figures = _figures(results, new / "figures")
        index = _certificates(results, new / "certificates")
        figs.atomic_write(new / "report.json", report_json(store_path, results))
        figs.atomic_write(new / "report.md", _markdown(store_path, results, tables, figures, index, new))
        files = tuple(p.relative_to(new).as_posix() for p in figures)
    except BaseException:
        discard_folder(new)
        raise
    # checked again at the rename: an earlier report is replaced whole, anything else that appeared is kept
    publish_folder(new, out, option=_OUT_OPTION, force=True, previous=_earlier_report(out))
    return ReportResult(
        str(out), str(out / "report.md"), tuple(t.name for t in tables), files, len(index), tuple(_summary(results))
    )


def report_json(store_path, results: dict) -> str:
    """The text of ``report.json``: every result of :func:`analyze_store` as strict JSON.

    Its layout is ``certify/schemas/report-v<REPORT_JSON_SCHEMA_VERSION>.json``
    (named by its ``"$schema"`` field); numbers that are undefined or infinite are
    ``null`` (:func:`certify._json.json_ready`). Keys are sorted so that the
    file is a deterministic function of the store.
    """
    doc = {
        "$schema": schema_id("report", REPORT_JSON_SCHEMA_VERSION),
        "schema_version": REPORT_JSON_SCHEMA_VERSION,
        "store": Path(store_path).name,
        "reports": {g: r.to_dict() for g, r in results["reports"].items()},
        "vote_curves": {g: r.to_dict() for g, r in results["curves"].items()},
        "truth": {g: {str(budget_json(k)): v for k, v in t.items()} for g, t in results["truth"].items()},
        "mixtures": [s.to_dict() for s in results["searches"]],
        "optima": [{"dataset": ds, **o.to_dict()} for ds, o in results["optima"]],
        "overtaking": [o.to_dict() for o in results["overtaking"]],
        "negative": [m.to_dict() for m in results["negative"]],
    }
    return to_json(doc, indent=1, sort_keys=True) + "\n"
