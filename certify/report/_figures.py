"""The report's figures (matplotlib, Agg backend), each written as PNG and PDF.

* :func:`width_maps` -- paper Figure "Identified width after two labeled calls":
  U_1 - L_1 over (mu, rho) on the sharp scale [0, 1/8] (Theorem 4.2) and
  U_inf - L_inf on [0, 1] (Theorem 4.3, eq. (endpoint-map-main));
* :func:`votability_plane` -- Figure "Two-call votability plane": every policy's
  first-two-call estimate (mu-hat, rho-hat) with its projected Wald confidence region
  (Section 4.4) and the sign boundaries of the identified three-vote gain (Theorem 4.2),
  the parts of the plane named in words;
* :func:`gain_map` -- the identified least three-vote gain L_1 - mu at *known* moments
  (no data, no sampling uncertainty) with its zero contour rho = 1 - 1/(2 mu);
* :func:`mixture_plane` -- Figure "Randomized mixture policies" in the (mu, rho) plane of
  all-call moment estimates, panels sharing data-fitted axes;
* :func:`vote_curves` -- each policy's k-vote accuracy for k = 1, 3, ..., 101 and infinitely
  many votes: the K-call likelihood-ratio intervals, the two-call projected intervals
  (Section 4.4), the empirical points up to K and, for ``choice`` runs, the true curve.

Files are byte-for-byte reproducible: no software/date metadata, fixed fonts, and
written atomically.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from .._bounds import sharp_bound_arrays
from .._endpoint import endpoint_bounds
from .._extras import require
from .._files import write_atomically
from .._moments import nu_from_rho
from .._plotting import STYLE
from ..analysis import vote_curve_figure

__all__ = [
    "FIGURE_NAMES",
    "width_maps",
    "votability_plane",
    "gain_map",
    "mixture_plane",
    "vote_curves",
    "atomic_write",
    "region_outline",
]

FIGURE_NAMES = ("width_maps", "votability_plane", "gain_map", "mixture_plane", "vote_curves")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")


def _plt():
    matplotlib = require("matplotlib", "drawing the report's figures")
    matplotlib.use("Agg", force=True)
    plt = require("matplotlib.pyplot", "drawing the report's figures")

    plt.rcParams.update(STYLE)
    return plt


def atomic_write(path: Path, data: bytes | str) -> Path:
    """Write ``data`` to ``path`` atomically, creating the report's folders
    (:func:`certify._files.write_atomically`)."""
    return write_atomically(path, data, parents=True)


def _save(fig, out_dir: Path, stem: str) -> tuple[Path, Path]:
    plt = _plt()
    paths = []
    for ext, meta in (("png", {"Software": None}), ("pdf", {"Creator": None, "Producer": None, "CreationDate": None})):
        buf = io.BytesIO()
        fig.savefig(buf, format=ext, dpi=150, bbox_inches="tight", metadata=meta)
        paths.append(atomic_write(Path(out_dir) / f"{stem}.{ext}", buf.getvalue()))
    plt.close(fig)
    return paths[0], paths[1]


def _mu_rho_grid(points: int, lo: float = 0.0):
    mu = np.linspace(0.0, 1.0, points)[1:-1]
    rho = np.linspace(lo, 1.0, points)[:-1] if lo > 0 else np.linspace(0.0, 1.0, points)[:-1]
    m, r = np.meshgrid(mu, rho)
    return m, r


def _extent(m: np.ndarray, r: np.ndarray) -> tuple[float, float, float, float]:
    """imshow extent placing each cell centred on its grid point (regular grids)."""
    dm = (m[0, 1] - m[0, 0]) / 2
    dr = (r[1, 0] - r[0, 0]) / 2
    return (float(m[0, 0] - dm), float(m[0, -1] + dm), float(r[0, 0] - dr), float(r[-1, 0] + dr))


def _endpoint_width(m: np.ndarray, nu: np.ndarray) -> np.ndarray:
    out = np.empty(m.size)
    for i, (a, b) in enumerate(zip(m.ravel(), nu.ravel())):
        e = endpoint_bounds(mu=float(a), nu=float(b))
        out[i] = e.upper - e.lower
    return out.reshape(m.shape)


def width_maps(out_dir, *, points: int = 81) -> tuple[Path, Path]:
    """Identified widths U_1 - L_1 (three votes) and U_inf - L_inf over (mu, rho)."""
    plt = _plt()
    m, r = _mu_rho_grid(points)
    nu = nu_from_rho(m, r)
    b3 = sharp_bound_arrays(3, mu=m, nu=nu)
    w3 = b3.upper - b3.lower
    winf = _endpoint_width(m, nu)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), constrained_layout=True)
    for ax, w, vmax, title in (
        (axes[0], w3, 0.125, r"3 votes ($V_1$): $U_1 - L_1$ (scale $[0, 1/8]$)"),
        (axes[1], winf, 1.0, r"Infinitely many votes ($V_\infty$): $U_\infty - L_\infty$ (scale $[0, 1]$)"),
    ):
        im = ax.imshow(
            w,
            origin="lower",
            extent=_extent(m, r),
            aspect="auto",
            vmin=0.0,
            vmax=vmax,
            cmap="viridis",
            interpolation="nearest",
        )
        fig.colorbar(im, ax=ax, label="identified width")
        ax.set_xlabel(r"one-call accuracy $\mu$")
        ax.set_ylabel(r"same-example correlation $\rho$")
        ax.set_title(title)
    fig.suptitle("Identified width of k-vote accuracy at known moments (no data, no sampling uncertainty)")
    return _save(fig, out_dir, "width_maps")


def _help_boundary(mu):
    """rho = 1 - 1/(2 mu) (mu > 1/2): below it every law with these moments gains from three votes (Theorem 4.2)."""
    return 1 - 1 / (2 * mu)


def _hurt_boundary(mu):
    """rho = 1 - 1/(2 (1 - mu)) (mu < 1/2): below it every law loses from three votes (mirror of Theorem 4.2)."""
    return 1 - 1 / (2 * (1 - mu))


def _boundaries(ax, label: bool = True):
    """Draw both sign boundaries of the identified three-vote gain V_1 - V_0 (Theorem 4.2).

    At mu > 1/2 the least gain L_1 - mu is positive exactly below rho = 1 - 1/(2 mu); by the
    symmetry q -> 1 - q the largest gain U_1 - mu is negative at mu < 1/2 exactly below
    rho = 1 - 1/(2(1 - mu)). Between and above them the sign is not identified.
    """
    mu = np.linspace(0.5, 1.0, 200)
    ax.plot(
        mu,
        _help_boundary(mu),
        color="tab:blue",
        ls="--",
        lw=1.4,
        label=r"$\rho = 1 - 1/(2\mu)$: below it 3 votes help every law" if label else None,
    )
    mu = np.linspace(0.0, 0.5, 200)
    ax.plot(
        mu,
        _hurt_boundary(mu),
        color="tab:red",
        ls="--",
        lw=1.4,
        label=r"$\rho = 1 - 1/(2(1-\mu))$: below it 3 votes hurt every law" if label else None,
    )


def _to_rho(mu, nu):
    """rho = (nu - mu^2) / (mu (1 - mu)) (eq. (rho-main)); undefined (nan) at mu in {0, 1}."""
    mu, nu = np.asarray(mu, float), np.asarray(nu, float)
    den = mu * (1 - mu)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 1e-12, (nu - mu * mu) / np.where(den > 1e-12, den, 1.0), np.nan)


def region_outline(region, points: int = 241) -> np.ndarray:
    """The boundary of a feasible Wald region C_alpha (Section 4.4) in the (mu, rho) plane.

    Parameters
    ----------
    region : certify.stats.WaldRegion
        The two-call region of eq. (wald-region-main).
    points : int
        Boundary points (rays from the region's interior point, :meth:`WaldRegion.boundary`).

    Returns
    -------
    ndarray, shape (m, 2)
        (mu, rho) of the boundary, closed, points with undefined rho (mu in {0, 1}) dropped.
    """
    pts = region.boundary(np.linspace(0.0, 2 * np.pi, points))
    rho = _to_rho(pts[:, 0], pts[:, 1])
    ok = np.isfinite(rho)
    return np.column_stack([pts[ok, 0], np.clip(rho[ok], -1.0, 1.0)])


def votability_plane(out_dir, points, *, alpha: float | None = None) -> tuple[Path, Path]:
    """Policies in the (mu-hat, rho-hat) plane of the first two calls, with confidence regions (Section 4.4).

    Each policy is drawn at its two-call estimate (mu-hat, rho-hat) together with the outline of
    its feasible Wald region C_alpha (eq. (wald-region-main)) mapped to (mu, rho); the dashed
    curves are the sign boundaries of the identified three-vote gain V_1 - V_0 (Theorem 4.2,
    see :func:`_boundaries`), with the three parts of the plane named in words.

    Parameters
    ----------
    points : sequence of (dataset, policy, mu, rho) or (dataset, policy, mu, rho, outline)
        ``outline``: an (m, 2) array of (mu, rho) from :func:`region_outline`, or None.
    alpha : float, optional
        1 - level of the regions (for the title); required when outlines are given.
    """
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 6.0), constrained_layout=True)
    datasets = sorted({p[0] for p in points})
    policies = sorted({p[1] for p in points})
    cmap = plt.get_cmap("tab10")
    has_region = False
    for p in points:
        ds, pol, mu, rho = p[:4]
        color = cmap(policies.index(pol) % 10)
        outline = p[4] if len(p) > 4 else None
        if outline is not None and len(outline) > 2:
            has_region = True
            ax.fill(outline[:, 0], outline[:, 1], color=color, alpha=0.15, lw=0, zorder=2)
            ax.plot(outline[:, 0], outline[:, 1], color=color, lw=1.0, zorder=2)
        ax.scatter(
            mu,
            rho,
            color=color,
            marker=_MARKERS[datasets.index(ds) % len(_MARKERS)],
            s=55,
            edgecolor="black",
            linewidth=0.5,
            zorder=3,
        )
    _boundaries(ax)
    # Name the parts of the plane in words, in data coordinates just beside the curves they refer to
    # (below the blue curve, below the red curve, above the blue curve), under the data (zorder).
    box = {"boxstyle": "round,pad=0.25", "fc": "white", "ec": "0.7", "alpha": 0.85}
    ax.text(
        0.98,
        0.0,
        "3 votes help\n(every law: $V_1 > V_0$)",
        ha="right",
        va="bottom",
        color="tab:blue",
        fontsize=8,
        bbox=box,
        zorder=1.5,
    )
    ax.text(
        0.02,
        0.0,
        "3 votes hurt\n(every law: $V_1 < V_0$)",
        ha="left",
        va="bottom",
        color="tab:red",
        fontsize=8,
        bbox=box,
        zorder=1.5,
    )
    ax.text(
        0.98,
        0.56,
        "3 votes may help or hurt\n(sign of $V_1 - V_0$ not identified)",
        ha="right",
        va="bottom",
        color="0.25",
        fontsize=8,
        bbox=box,
        zorder=1.5,
    )
    level = "95%" if alpha is None else f"{100 * (1 - alpha):g}%"
    handles = [plt.Line2D([], [], color=cmap(i % 10), marker="o", ls="", label=p) for i, p in enumerate(policies)]
    if datasets != [""]:
        handles += [
            plt.Line2D([], [], color="grey", marker=_MARKERS[i % len(_MARKERS)], ls="", label=f"dataset: {d}")
            for i, d in enumerate(datasets)
        ]
    if has_region:
        handles.append(
            plt.matplotlib.patches.Patch(
                facecolor="0.8", edgecolor="0.3", label=f"{level} Wald region (first two calls)"
            )
        )
    handles += ax.get_legend_handles_labels()[0]
    fig.legend(handles=handles, loc="outside lower center", ncol=2, frameon=False, fontsize=7)
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel(r"$\hat\mu$: one-call accuracy (estimate from the first two calls)")
    ax.set_ylabel(r"$\hat\rho$: same-example correlation (first two calls)")
    title = "Two-call votability plane: estimates from the first two calls"
    if has_region:
        title += f"\nwith their {level} confidence regions (projected Wald, Section 4.4)"
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    return _save(fig, out_dir, "votability_plane")


def gain_map(out_dir, *, points: int = 121) -> tuple[Path, Path]:
    """Identified least three-vote gain L_1 - mu over known (mu, rho) (Theorem 4.2).

    No data enter this figure: it is the sharp lower bound of V_1 - V_0 over every latent law
    with the given moments, i.e. what is certified when the moments are known exactly (no
    sampling uncertainty). Its zero contour is rho = 1 - 1/(2 mu).
    """
    plt = _plt()
    m, r = _mu_rho_grid(points)
    gain = sharp_bound_arrays(3, mu=m, nu=nu_from_rho(m, r)).lower - m
    lim = float(np.nanmax(np.abs(gain)))
    fig, ax = plt.subplots(figsize=(6.4, 4.8), constrained_layout=True)
    im = ax.imshow(
        gain,
        origin="lower",
        extent=_extent(m, r),
        aspect="auto",
        cmap="RdBu_r",
        vmin=-lim,
        vmax=lim,
        interpolation="nearest",
    )
    fig.colorbar(im, ax=ax, label=r"$L_1 - \mu$: least 3-vote gain over 1 vote")
    ax.contour(m, r, gain, levels=[0.0], colors="black", linestyles="--", linewidths=1.8)
    ax.plot([], [], color="black", ls="--", label=r"$L_1 = \mu$, i.e. $\rho = 1 - 1/(2\mu)$")
    leg = ax.legend(loc="upper left")
    leg.get_frame().set_alpha(0.8)
    ax.text(
        0.97,
        0.03,
        "3 votes help\nevery law",
        transform=ax.transAxes,
        ha="right",
        va="bottom",
        fontsize=8,
        bbox={"boxstyle": "round,pad=0.25", "fc": "white", "ec": "0.7", "alpha": 0.85},
    )
    ax.set_xlabel(r"one-call accuracy $\mu$ (known)")
    ax.set_ylabel(r"same-example correlation $\rho$ (known)")
    ax.set_title(
        "Identified least 3-vote gain at known moments\n"
        "(sharp bound over all laws with these moments; no data, no sampling uncertainty)",
        fontsize=10,
    )
    return _save(fig, out_dir, "gain_map")


def _fitted_limits(values, pad: float = 0.08, span: float = 0.05, lo: float = -0.05, hi: float = 1.05):
    """A data-fitted axis range: the values' range padded by ``pad`` of it, at least ``span`` wide, inside [lo, hi]."""
    v = np.asarray([x for x in values if x is not None and np.isfinite(x)], float)
    if not v.size:
        return lo, hi
    a, b = float(v.min()), float(v.max())
    if b - a < span:
        mid = (a + b) / 2
        a, b = mid - span / 2, mid + span / 2
    d = pad * (b - a)
    return max(lo, a - d), min(hi, b + d)


#: Hollow markers of the selected mixtures, drawn at growing sizes so that coinciding ones stay visible.
_BEST_MARKERS = (("D", 70), ("s", 120), ("^", 170), ("v", 220), ("p", 270), ("h", 320))


def mixture_plane(out_dir, searches, base) -> tuple[Path, Path]:
    """Mixture-grid policies (grey), base policies (coloured) and the selected mixtures, one panel per data set.

    Paper Section 6 / Appendix "Randomized mixture policies". Every point uses the moments of
    *all* recorded calls (the U-statistics of :func:`per_example_mixture_moments`), so base
    policies appear here at their all-call estimates, not at the first-two-call estimates of
    :func:`votability_plane`; the axis labels say so. The panels share data-fitted axis
    ranges; the selected mixtures are hollow markers of distinct shapes and sizes so that
    coinciding points remain visible, and a single legend sits below the panels.

    Parameters
    ----------
    searches : sequence of MixtureSearch
    base : dict
        dataset -> sequence of Mixture (the base policies as unit mixtures).
    """
    plt = _plt()
    k = max(len(searches), 1)
    fig, axes = plt.subplots(
        1, k, figsize=(4.6 * k + 0.6, 4.4), constrained_layout=True, squeeze=False, sharex=True, sharey=True
    )
    cmap = plt.get_cmap("tab10")
    mus, rhos = [], []
    for s in searches:
        pts = [*s.grid, *base.get(s.dataset, ()), *(m for _, _, m in s.best)]
        mus += [p.mu for p in pts]
        rhos += [p.rho for p in pts]
    xlim = _fitted_limits(mus, lo=0.0, hi=1.0)
    ylim = _fitted_limits(rhos)
    names = sorted({b.label for bs in base.values() for b in bs})
    handles: dict[str, object] = {}
    for ax, s in zip(axes[0], searches):
        h = ax.scatter([g.mu for g in s.grid], [g.rho for g in s.grid], s=6, color="0.6", alpha=0.5, zorder=1)
        handles.setdefault(f"mixture grid (step {s.step:g})", h)
        for b in base.get(s.dataset, ()):
            h = ax.scatter(
                b.mu, b.rho, s=50, color=cmap(names.index(b.label) % 10), edgecolor="black", linewidth=0.5, zorder=3
            )
            handles.setdefault(f"policy {b.label}", h)
        for j, (kind, crit, m) in enumerate(s.best):
            marker, size = _BEST_MARKERS[j % len(_BEST_MARKERS)]
            h = ax.scatter(
                m.mu,
                m.rho,
                s=size,
                marker=marker,
                facecolor="none",
                edgecolor=cmap((j + 4) % 10),
                linewidth=1.4,
                zorder=4,
            )
            handles.setdefault(
                f"best {kind} by 5-vote {crit}" if s.votes == 5 else f"best {kind} by {s.votes}-vote {crit}", h
            )
        # The sign boundaries of the three-vote gain, drawn only where they enter the plotted window.
        for f, lo_mu, hi_mu, color, text in (
            (_help_boundary, 0.5, 1.0, "tab:blue", r"$\rho = 1 - 1/(2\mu)$: below it 3 votes help every law"),
            (_hurt_boundary, 0.0, 0.5, "tab:red", r"$\rho = 1 - 1/(2(1-\mu))$: below it 3 votes hurt every law"),
        ):
            mu = np.linspace(max(lo_mu, xlim[0]), min(hi_mu, xlim[1]), 200)
            if mu.size and mu[0] < mu[-1]:
                rho = f(mu)
                if np.any((rho >= ylim[0]) & (rho <= ylim[1])):
                    (h,) = ax.plot(mu, rho, color=color, ls="--", lw=1.3, zorder=2)
                    handles.setdefault(text, h)
        ax.set_title(f"{s.dataset}", fontsize=10)
        ax.set_xlabel(r"$\hat\mu$ (one-call accuracy, all recorded calls)", fontsize=9)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(r"$\hat\rho$ (same-example correlation, all calls)", fontsize=9)
    axes[0][0].set_xlim(*xlim)
    axes[0][0].set_ylim(*ylim)
    # The selected mixtures' markers are large on the plot (so nested ones stay visible);
    # in the legend they are scaled down so that neighbouring entries do not overlap.
    fig.legend(
        list(handles.values()),
        list(handles),
        loc="outside lower center",
        ncol=2 if k == 1 else 3,
        fontsize=7,
        frameon=False,
        markerscale=0.6,
        labelspacing=0.9,
    )
    fig.suptitle("Randomized mixture policies: moment estimates from all recorded calls", fontsize=10)
    return _save(fig, out_dir, "mixture_plane")


def vote_curves(out_dir, curves) -> tuple[Path, Path]:
    """The vote-curve figure (:func:`certify.analysis.vote_curve_figure`) written as PNG and PDF."""
    return _save(vote_curve_figure(curves), out_dir, "vote_curves")
