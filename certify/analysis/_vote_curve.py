"""The vote curve: k-vote accuracy against the number of votes, drawn from analyses.

:func:`curve_data` reads what one :class:`~certify.analysis.AnalysisReport` holds for the curve (the
K-call likelihood interval of every budget, the two-call projected interval, V_inf, the empirical
points, the plurality and pass@k intervals); :func:`vote_curve_figure` draws one panel per report
as a matplotlib figure made outside pyplot (:mod:`certify._plotting`). ``AnalysisReport.plot()``
returns it; ``certify report`` saves it as ``vote_curves.png`` and ``.pdf``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._extras import require
from .._objective import V_INF
from .._plotting import new_figure, style
from ._rows import target_rows

__all__ = ["curve_data", "vote_curve_figure"]


def curve_data(report: Any, title: str | None = None, truth: dict | None = None) -> dict:
    """The figure data of one report's vote curve (the ``curves`` entries of :func:`vote_curve_figure`).

    Parameters
    ----------
    report : AnalysisReport
        Its majority budgets are the curve's points; a budget of infinitely many votes is drawn
        at the right end, and a budget without an interval is left blank.
    title : str, optional
        The panel's title (default: the report's group, else its source).
    truth : dict, optional
        {votes: value} of the true curve where it is known (simulated ``choice`` runs).
    """
    finite = [b for b in report.budgets if b.votes is not V_INF]
    inf = next((b for b in report.budgets if b.votes is V_INF), None)

    def end(b, name):
        return None if b is None or getattr(b, name) is None else (getattr(b, name).lower, getattr(b, name).upper)

    # The forecast beyond the recorded calls (analyze(..., forecast=True)): model-based, drawn apart
    # from the certified band so that it never reads as part of it.
    ahead = {
        r.target.votes: r.forecast.accuracy
        for r in target_rows(report)
        if r.target.aggregate == "majority" and r.forecast is not None and r.forecast.accuracy is not None
    }
    fc = getattr(report, "forecast", None)
    more = "" if fc is None or not fc.pooled else f" and {len(fc.pooled)} more"
    model = None if fc is None or fc.family is None else f"{fc.family} family{more}, guard p = {fc.guard.p_value:.2f}"
    return {
        "title": title if title is not None else (report.group or report.source),
        "calls": report.max_calls,
        "votes": [b.votes for b in finite],
        "lower": [None if b.interval is None else b.interval.lower for b in finite],
        "upper": [None if b.interval is None else b.interval.upper for b in finite],
        "two_call_lower": [None if b.projected is None else b.projected.lower for b in finite],
        "two_call_upper": [None if b.projected is None else b.projected.upper for b in finite],
        V_INF: end(inf, "interval") or (None, None),
        "empirical": {b.votes: (b.empirical.value, b.empirical.se) for b in finite if b.empirical is not None},
        "truth": truth,
        "alpha": report.alpha,
        "forecast_lower": [ahead[b.votes].lower if b.votes in ahead else None for b in finite],
        "forecast_upper": [ahead[b.votes].upper if b.votes in ahead else None for b in finite],
        "forecast_inf": (ahead[V_INF].lower, ahead[V_INF].upper) if V_INF in ahead else None,
        "forecast_model": model,
        "aggregates": {
            a: [(b.votes, b.interval.lower, b.interval.upper) for b in report.aggregates if b.aggregate == a]
            for a in dict.fromkeys(b.aggregate for b in report.aggregates)
        },
    }


#: The forecast's colour: apart from every certified band and bar (blue, grey, orange, purple, green).
_FORECAST_COLOR = "tab:brown"


def _nan(values) -> np.ndarray:
    """Floats with None -> nan, so that a missing interval leaves a gap rather than a band."""
    return np.array([np.nan if v is None else float(v) for v in values], dtype=float)


def vote_curve_figure(curves) -> Any:
    """Each policy's vote accuracy against the number of votes (one panel per policy, log axis).

    Drawn per policy (Section 4.4 and the K-call likelihood intervals of
    :mod:`certify.likelihood`): the pointwise 1 - alpha interval of V_k for every
    budget k = 1, 3, ..., 101 from all K recorded calls (likelihood ratio) and from the first
    two calls (projected Wald region), the interval of V_inf at the right end, the empirical
    k-vote accuracies up to K (all calls, hypergeometric, the same data as the K-call
    interval, so the one-vote point sits inside that band's apex) and, for ``choice``-mode
    runs, the true curve mean_i P_n(q_i). Budgets without an interval are left blank; the
    edges of each band are drawn as lines so that a zero-width interval is still visible.

    Parameters
    ----------
    curves : sequence of dict
        Keys: ``title``; ``calls`` (K); ``votes`` (odd budgets); ``lower``/``upper`` (the K-call
        likelihood-ratio interval of each budget, None where there is none);
        ``two_call_lower``/``two_call_upper`` (the two-call projected interval); :data:`certify.V_INF`
        (the V_inf interval); ``empirical`` {votes: (value, se)} for budgets up to K; optional
        ``truth`` {votes: value, V_INF: value}; ``alpha``; optional ``forecast_lower``/``forecast_upper``
        (the model-based forecast interval of each budget beyond the calls, None elsewhere),
        ``forecast_inf`` (that of V_inf) and ``forecast_model`` (the family and its guard: drawn as a hatched
        band inside the certified one, labelled as not certified); optional ``aggregates``
        {"plurality" | "pass@k": [(votes, lower, upper)]}: the intervals of the plurality vote over
        the answers and of pass@k at a few budgets, drawn as bars beside the majority band.

    Returns
    -------
    matplotlib.figure.Figure
        Made outside pyplot (:mod:`certify._plotting`): a notebook shows it inline; ``savefig`` writes it.
    """
    with style("drawing the vote curve"):
        return _draw(curves)


def _draw(curves) -> Any:
    patches = require("matplotlib.patches", "drawing the vote curve")
    k = max(len(curves), 1)
    cols = min(3, k)
    rows = -(-k // cols)
    # one panel is drawn wider: the suptitle and a legend of two columns fit under it
    width = 4.8 * cols if k > 1 else 7.2
    fig = new_figure(
        "drawing the vote curve", figsize=(width, 3.8 * rows + (0.6 if k == 1 else 0)), layout="constrained"
    )
    axes = fig.subplots(rows, cols, squeeze=False)
    level = f"{100 * (1 - curves[0]['alpha']):g}%" if curves else "95%"
    handles: dict[str, object] = {}
    for ax, c in zip(axes.ravel(), curves):
        v = np.asarray(c["votes"], dtype=float)
        far = 2.0 * v[-1] if v.size else 3.0  # where V_inf is drawn: one step beyond the last budget on the log axis
        kcalls = c["calls"]
        bands = (
            (
                c["two_call_lower"],
                c["two_call_upper"],
                "0.55",
                0.25,
                f"{level} interval from the first 2 calls (projected Wald)",
            ),
            (c["lower"], c["upper"], "tab:blue", 0.3, f"{level} interval from all {kcalls} calls (likelihood ratio)"),
        )
        lows = []
        for lo, hi, color, alpha, label in bands:
            lo, hi = _nan(lo), _nan(hi)
            ok = np.isfinite(lo) & np.isfinite(hi)
            lows += list(lo[ok])
            ax.fill_between(v, lo, hi, where=ok, color=color, alpha=alpha, lw=0, interpolate=False)
            # Edges as lines: a zero-width band (e.g. calls that always agree) is still seen.
            ax.plot(v, lo, color=color, lw=1.0)
            (h,) = ax.plot(v, hi, color=color, lw=1.0)
            handles.setdefault(label, (patches.Patch(facecolor=color, alpha=alpha, edgecolor=color), h))
        flo, fhi = _nan(c.get("forecast_lower") or []), _nan(c.get("forecast_upper") or [])
        if flo.size and (fok := np.isfinite(flo) & np.isfinite(fhi)).any():
            ax.fill_between(
                v, flo, fhi, where=fok, facecolor="none", edgecolor=_FORECAST_COLOR, hatch="////", lw=0, zorder=3
            )
            ax.plot(v[fok], flo[fok], color=_FORECAST_COLOR, lw=1.0, ls="--", zorder=3)
            (h,) = ax.plot(v[fok], fhi[fok], color=_FORECAST_COLOR, lw=1.0, ls="--", zorder=3)
            label = f"{level} forecast beyond the calls ({c.get('forecast_model') or 'model-based'}; NOT certified)"
            handles.setdefault(label, (patches.Patch(facecolor="none", edgecolor=_FORECAST_COLOR, hatch="////"), h))
            if c.get("forecast_inf") is not None:
                a, b = (float(x) for x in c["forecast_inf"])
                ax.errorbar(
                    [far * 1.06],
                    [(a + b) / 2],
                    yerr=[[(b - a) / 2], [(b - a) / 2]],
                    fmt="none",
                    ecolor=_FORECAST_COLOR,
                    capsize=4,
                    lw=1.5,
                    ls="--",
                    zorder=3,
                )
        lo_inf, hi_inf = (np.nan if x is None else float(x) for x in c[V_INF])
        if np.isfinite(lo_inf) and np.isfinite(hi_inf):
            lows.append(lo_inf)
            h = ax.errorbar(
                [far],
                [(lo_inf + hi_inf) / 2],
                yerr=[[(hi_inf - lo_inf) / 2], [(hi_inf - lo_inf) / 2]],
                fmt="none",
                ecolor="tab:blue",
                capsize=5,
                lw=2,
            )
            handles.setdefault(f"{level} interval, infinitely many votes (all {kcalls} calls)", h)
        if c.get("truth"):
            tv = sorted((x, y) for x, y in c["truth"].items() if x is not V_INF)
            (h,) = ax.plot([t[0] for t in tv], [t[1] for t in tv], color="tab:green", lw=1.5, zorder=4)
            handles.setdefault("true k-vote accuracy (recorded latent q)", h)
            if V_INF in c["truth"]:
                ax.plot([far], [c["truth"][V_INF]], marker="_", ms=14, mew=2, color="tab:green", zorder=4)
        ev = sorted(c["empirical"].items())
        if ev:
            h = ax.errorbar(
                [e[0] for e in ev],
                [e[1][0] for e in ev],
                yerr=[1.96 * e[1][1] for e in ev],
                fmt="o",
                color="tab:red",
                ms=4,
                capsize=2,
                zorder=5,
            )
            handles.setdefault(f"empirical k-vote accuracy (all {kcalls} calls) \u00b1 1.96 SE", h)
        for name, shift, color in (("plurality", 0.93, "tab:orange"), ("pass@k", 1.07, "tab:purple")):
            bars = [b for b in c.get("aggregates", {}).get(name, ()) if b[0] is not V_INF]
            if bars:
                x = np.array([b[0] for b in bars], dtype=float) * shift  # side by side on the log axis
                lo, hi = np.array([b[1] for b in bars]), np.array([b[2] for b in bars])
                lows += list(lo)
                h = ax.errorbar(
                    x,
                    (lo + hi) / 2,
                    yerr=[(hi - lo) / 2, (hi - lo) / 2],
                    fmt="none",
                    ecolor=color,
                    capsize=3,
                    lw=1.5,
                    zorder=3,
                )
                what = "plurality vote of k answers" if name == "plurality" else "pass@k (any of k calls correct)"
                handles.setdefault(f"{level} interval, {what}", h)
        ax.axvline(kcalls, color="0.3", ls=":", lw=1)
        ax.text(kcalls, 0.02, f" {kcalls} calls recorded", transform=ax.get_xaxis_transform(), fontsize=7, color="0.3")
        ax.set_xscale("log")
        ticks = [t for t in (1, 3, 5, 9, 21, 51, 101) if v.size and t <= v[-1]]
        ax.set_xticks(ticks + [far])
        ax.set_xticklabels([str(t) for t in ticks] + [r"$\infty$"])
        ax.minorticks_off()
        ax.set_ylim(max(0.0, min(lows, default=0.0) - 0.05), 1.01)  # 1.01: an interval reaching 1 keeps its cap in view
        ax.set_title(c["title"], fontsize=9)
        ax.set_xlabel("number of votes k (majority of k calls; log scale)", fontsize=8)
        ax.set_ylabel("k-vote accuracy")
        ax.grid(alpha=0.3)
    for ax in axes.ravel()[k:]:
        ax.axis("off")
    labels = list(handles)
    fig.legend(
        list(handles.values()),
        labels,
        loc="outside lower center",
        ncol=min(3 if k > 1 else 2, max(len(labels), 1)),
        fontsize=7,
        frameon=False,
    )
    fig.suptitle(
        f"k-vote accuracy against the number of votes: pointwise {level} confidence intervals (asymptotic)\n"
        "from all recorded calls and from the first two calls;\nbeyond the recorded calls they cover every "
        "latent law the data allow",
        fontsize=9,
    )
    return fig
