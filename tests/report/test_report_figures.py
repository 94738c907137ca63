"""The report's figures, inspected as matplotlib objects: what each title says, confidence regions,
the words on each side of the votability boundary (checked against the sharp bounds), shared
data-fitted mixture axes, and the vote-curve bands (gaps where no interval exists, zero-width
bands still drawn, empirical points only up to K, the true curve when known).
"""

from __future__ import annotations

import numpy as np
import pytest

from certify import V_INF
from certify._bounds import sharp_bound_arrays
from certify._moments import nu_from_rho

from report_helpers import K, write_store

pytest.importorskip("matplotlib")


@pytest.fixture
def captured(monkeypatch):
    """Replace ``_save`` so that each figure is kept (as a matplotlib Figure) instead of written."""
    from certify.report import _figures as figs

    figures = {}

    def keep(fig, out_dir, stem):
        figures[stem] = fig
        return stem, stem

    monkeypatch.setattr(figs, "_save", keep)
    yield figures
    import matplotlib.pyplot as plt

    for f in figures.values():
        plt.close(f)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    from certify.report._build import analyze_store

    d = tmp_path_factory.mktemp("figs")
    bits = write_store(d / "calls.csv")
    return bits, analyze_store(d / "calls.csv", step=0.5, forecast=False)  # the band: test_vote_curve_report.py


def _texts(fig) -> list[str]:
    out = [t.get_text() for t in fig.texts]
    if fig._suptitle is not None:
        out.append(fig._suptitle.get_text())
    for ax in fig.axes:
        out += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel(), *(t.get_text() for t in ax.texts)]
    for leg in fig.legends + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]:
        out += [t.get_text() for t in leg.get_texts()]
    return out


def test_region_outline_is_the_wald_region_boundary(results):
    from certify.report import region_outline
    from certify.stats import wald_region

    _, res = results
    for g, rep in res["reports"].items():
        region = wald_region(rep.two_call, rep.alpha)
        out = region_outline(region)
        assert out.shape[1] == 2 and len(out) > 50
        mu, rho = out[:, 0], out[:, 1]
        nu = rho * mu * (1 - mu) + mu * mu  # invert rho = (nu - mu^2) / (mu (1 - mu))
        q = region.quad(mu, nu)
        # every point is on the boundary of C_alpha: on the ellipse or on the edge of F (rho in {0, 1})
        on_ellipse = np.isclose(q, 1.0, atol=1e-6)
        on_f = (np.abs(rho) < 1e-6) | (np.abs(rho - 1) < 1e-6)
        assert np.all(on_ellipse | on_f) and np.all(q <= 1 + 1e-6), g
        # the point estimate (inside F) lies inside the outline
        from matplotlib.path import Path

        if 0 < rep.two_call.rho < 1:
            assert Path(out).contains_point((rep.two_call.mu, rep.two_call.rho)), g


def test_votability_plane_shows_regions_and_names_the_sides_correctly(results, captured):
    from certify.report._build import _figures

    _, res = results
    _figures(res, None)
    fig = captured["votability_plane"]
    ax = fig.axes[0]
    texts = " | ".join(_texts(fig))
    assert "first two calls" in ax.get_xlabel() and "first two calls" in ax.get_title()
    assert "95% confidence regions" in ax.get_title() and "95% Wald region (first two calls)" in texts
    # one filled region per policy
    assert len([p for p in ax.patches]) == len(res["reports"])
    # each side label sits where the sharp bounds of V_1 - V_0 (Theorem 4.2) have the named sign
    seen = set()
    for t in ax.texts:
        mu, rho = t.get_position()
        b = sharp_bound_arrays(3, mu=np.array(mu), nu=nu_from_rho(np.array(mu), np.array(rho)))
        lo, hi = float(b.lower) - mu, float(b.upper) - mu
        words = t.get_text()
        if words.startswith("3 votes help"):
            assert lo > 0
        elif words.startswith("3 votes hurt"):
            assert hi < 0
        elif words.startswith("3 votes may help or hurt"):
            assert lo < 0 < hi
        else:
            continue
        seen.add(words.split("\n")[0])
    assert seen == {"3 votes help", "3 votes hurt", "3 votes may help or hurt"}
    # the boundary curves are labelled in words, not only by their formula
    assert "below it 3 votes help every law" in texts and "below it 3 votes hurt every law" in texts


def test_gain_map_title_says_known_moments(captured):
    from certify.report import gain_map

    gain_map(None, points=21)
    title = captured["gain_map"].axes[0].get_title()
    assert not title.startswith("Certified") and "known moments" in title and "no sampling uncertainty" in title


def test_mixture_plane_shares_data_fitted_axes(results, captured):
    from certify.report import mixture_plane

    _, res = results
    searches = res["searches"] * 2  # two panels (the same data set twice) must share their ranges
    mixture_plane(None, searches, res["base"])
    fig = captured["mixture_plane"]
    axes = [ax for ax in fig.axes]
    assert len(axes) == 2 and axes[0].get_xlim() == axes[1].get_xlim() and axes[0].get_ylim() == axes[1].get_ylim()
    pts = [m for s in searches for m in (*s.grid, *(b for _, _, b in s.best))] + list(res["base"]["ds"])
    mus, rhos = [p.mu for p in pts], [p.rho for p in pts]
    (x0, x1), (y0, y1) = axes[0].get_xlim(), axes[0].get_ylim()
    assert x0 <= min(mus) and max(mus) <= x1 and y0 <= min(rhos) and max(rhos) <= y1
    # fitted: the window is no more than ~20% wider than the data (plus the minimum span)
    assert x1 - x0 <= max(1.2 * (max(mus) - min(mus)), 0.06) + 1e-9
    assert "all recorded calls" in axes[0].get_xlabel() and "all calls" in axes[0].get_ylabel()
    # one legend for the figure, outside the panels
    assert fig.legends and all(ax.get_legend() is None for ax in axes)
    # selected mixtures are hollow markers of distinct shapes, so coinciding points stay visible
    hollow = [c for c in axes[0].collections if len(c.get_facecolor()) == 0 or c.get_facecolor()[0][3] == 0]
    assert len(hollow) == len(searches[0].best)


def _curve(**kw):
    votes = [1, 3, 5, 7, 9, 11, 15, 21, 31, 51, 101]
    c = {"title": "ds/p", "calls": 5, "votes": votes, "lower": [0.5] * 11, "upper": [0.7] * 11,
         "two_call_lower": [0.4] * 11, "two_call_upper": [0.8] * 11, V_INF: (0.3, 0.9),
         "empirical": {1: (0.6, 0.01), 3: (0.62, 0.01), 5: (0.63, 0.01)}, "truth": None, "alpha": 0.05}
    c.update(kw)
    return c


def test_vote_curves_gaps_zero_width_truth_and_labels(captured):
    from certify.report import vote_curves

    lower = [0.5] * 11
    upper = [0.7] * 11
    lower[4] = upper[4] = None  # no interval at 9 votes: no band there
    flat = [0.6] * 11  # a zero-width band
    truth = {v: 0.6 + 0.001 * i for i, v in enumerate([1, 3, 5, 7, 9, 11, 15, 21, 31, 51, 101])}
    truth[V_INF] = 0.61
    vote_curves(None, [_curve(lower=lower, upper=upper, truth=truth), _curve(title="flat", lower=flat, upper=flat)])
    fig = captured["vote_curves"]
    ax, ax_flat = fig.axes[:2]
    assert ax.get_xscale() == "log"
    labels = " | ".join(_texts(fig))
    assert "first 2 calls" in labels and "all 5 calls" in labels and "infinitely many votes" in labels
    assert "true k-vote accuracy" in labels and "95%" in fig._suptitle.get_text()
    assert "number of votes" in ax.get_xlabel()
    # the K-call band (blue) covers no x in the gap around 9 votes
    import matplotlib.colors as mcolors

    blue = mcolors.to_rgba("tab:blue")[:3]
    bands = [c for c in ax.collections if type(c).__name__ in ("PolyCollection", "FillBetweenPolyCollection")
             and np.allclose(c.get_facecolor()[0][:3], blue)]
    assert bands
    xs = np.concatenate([p.vertices[:, 0] for c in bands for p in c.get_paths()])
    assert not np.any((xs > 7) & (xs < 11))
    # the zero-width band is still drawn, as lines at its value
    lines = [ln for ln in ax_flat.lines if np.allclose(np.asarray(ln.get_ydata(), float), 0.6)]
    assert lines
    # empirical points only up to K; the true curve spans the budgets
    truth_line = next(ln for ln in ax.lines if ln.get_color() == "tab:green" and len(ln.get_xdata()) > 1)
    assert list(truth_line.get_xdata()) == [1, 3, 5, 7, 9, 11, 15, 21, 31, 51, 101]


def test_vote_curve_one_vote_point_sits_in_the_k_call_band(results):
    """The one-vote empirical point and the K-call band's apex use the same calls (all K)."""
    from certify.report._build import _curves

    bits, res = results
    for c in _curves(res):
        pol = c["title"].split("/")[1]
        one = c["empirical"][1][0]
        assert one == pytest.approx(bits[pol].mean())
        assert c["lower"][0] - 1e-9 <= one <= c["upper"][0] + 1e-9
        assert max(c["empirical"]) <= K


def test_vote_curves_draw_plurality_and_pass_at_k_beside_the_majority(captured):
    """Each aggregate's intervals are bars at its budgets (shifted apart on the log axis), in the legend."""
    from certify.report import vote_curves

    aggregates = {"plurality": [(3, 0.55, 0.75), (21, 0.4, 0.95)], "pass@k": [(3, 0.7, 0.8), (21, 0.72, 1.0)]}
    vote_curves(None, [_curve(aggregates=aggregates)])
    fig = captured["vote_curves"]
    labels = " | ".join(_texts(fig))
    assert "plurality vote of k answers" in labels and "pass@k" in labels
    ax = fig.axes[0]
    segments = {}
    for c in ax.collections:
        if type(c).__name__ == "LineCollection":
            for seg in c.get_segments():
                if len(seg) == 2 and seg[0][0] == seg[1][0]:
                    segments.setdefault(round(float(seg[0][0]), 4), set()).add((round(float(seg[0][1]), 4),
                                                                                round(float(seg[1][1]), 4)))
    # plurality just left of 3 and 21, pass@k just right: each bar spans its interval exactly
    assert (0.55, 0.75) in segments[round(3 * 0.93, 4)] and (0.4, 0.95) in segments[round(21 * 0.93, 4)]
    assert (0.7, 0.8) in segments[round(3 * 1.07, 4)] and (0.72, 1.0) in segments[round(21 * 1.07, 4)]
