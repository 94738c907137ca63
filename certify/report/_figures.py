"""The report's figures (matplotlib, Agg backend), each written as PNG and PDF.

* :func:`width_maps` -- paper Figure "Identified width after two labeled calls":
  U_1 - L_1 over (mu, rho) on the sharp scale [0, 1/8] (Theorem 4.2) and
  U_inf - L_inf on [0, 1] (Theorem 4.3, eq. (endpoint-map-main));
* :func:`votability_plane` -- Figure "Two-call votability plane": every policy's
  (mu-hat, rho-hat) and the boundary rho = 1 - 1/(2 mu) of certified three-vote gain;
* :func:`gain_map` -- Figure "Certified three-vote gain": L_1 - mu with its zero contour;
* :func:`mixture_plane` -- Figure "Randomized mixture policies in the two-call votability plane";
* :func:`vote_curves` -- each policy's vote accuracy against the budget: the sharp
  band [L_n, U_n] at (mu-hat, nu-hat) (Theorem 4.1), the projected 95% intervals
  (Section 4.4), the empirical points and, for ``choice`` runs, the true V_n.

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

__all__ = ["FIGURE_NAMES", "width_maps", "votability_plane", "gain_map", "mixture_plane", "vote_curves", "atomic_write"]

FIGURE_NAMES = ("width_maps", "votability_plane", "gain_map", "mixture_plane", "vote_curves")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")


def _plt():
    matplotlib = require("matplotlib", "drawing the report's figures")
    matplotlib.use("Agg", force=True)
    plt = require("matplotlib.pyplot", "drawing the report's figures")

    plt.rcParams.update({"font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10, "legend.fontsize": 8,
                         "svg.hashsalt": "certify", "pdf.compression": 6})
    return plt


def atomic_write(path: Path, data: bytes | str) -> Path:
    """Write ``data`` to ``path`` atomically, creating the report's folders (:func:`certify._files.write_atomically`)."""
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
    for ax, w, vmax, title in ((axes[0], w3, 0.125, r"Three votes: $U_1 - L_1$ (scale $[0, 1/8]$)"),
                               (axes[1], winf, 1.0, r"Endpoint: $U_\infty - L_\infty$ (scale $[0, 1]$)")):
        im = ax.imshow(w, origin="lower", extent=_extent(m, r), aspect="auto", vmin=0.0, vmax=vmax, cmap="viridis",
                       interpolation="nearest")
        fig.colorbar(im, ax=ax, label="identified width")
        ax.set_xlabel(r"one-call accuracy $\mu$")
        ax.set_ylabel(r"same-example correlation $\rho$")
        ax.set_title(title)
    fig.suptitle("Identified width after two labeled calls")
    return _save(fig, out_dir, "width_maps")


def _boundary(ax, label: bool = True):
    mu = np.linspace(0.5, 1.0, 200)
    ax.plot(mu, 1 - 1 / (2 * mu), "k--", lw=1.2, label=r"$\rho = 1 - 1/(2\mu)$ (certified 3-vote gain below)" if label else None)


def votability_plane(out_dir, points) -> tuple[Path, Path]:
    """Policies in the (mu-hat, rho-hat) plane with the improvement boundary (Theorem 4.2).

    Parameters
    ----------
    points : sequence of (dataset, policy, mu, rho)
    """
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.8), constrained_layout=True)
    datasets = sorted({p[0] for p in points})
    policies = sorted({p[1] for p in points})
    cmap = plt.get_cmap("tab10")
    for ds, pol, mu, rho in points:
        ax.scatter(mu, rho, color=cmap(policies.index(pol) % 10), marker=_MARKERS[datasets.index(ds) % len(_MARKERS)],
                   s=55, edgecolor="black", linewidth=0.5, zorder=3)
    _boundary(ax)
    handles = [plt.Line2D([], [], color=cmap(i % 10), marker="o", ls="", label=p) for i, p in enumerate(policies)]
    handles += [plt.Line2D([], [], color="grey", marker=_MARKERS[i % len(_MARKERS)], ls="", label=f"dataset: {d}")
                for i, d in enumerate(datasets)]
    handles.append(plt.Line2D([], [], color="black", ls="--", label=r"$\rho = 1 - 1/(2\mu)$"))
    ax.legend(handles=handles, loc="best", frameon=True)
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel(r"$\hat\mu$ (one-call accuracy, first two calls)")
    ax.set_ylabel(r"$\hat\rho$ (same-example correlation)")
    ax.set_title("Two-call votability plane")
    ax.grid(alpha=0.3)
    return _save(fig, out_dir, "votability_plane")


def gain_map(out_dir, *, points: int = 121) -> tuple[Path, Path]:
    """Certified three-vote gain L_1 - mu over (mu, rho) with its zero contour (Theorem 4.2)."""
    plt = _plt()
    m, r = _mu_rho_grid(points)
    gain = sharp_bound_arrays(3, mu=m, nu=nu_from_rho(m, r)).lower - m
    lim = float(np.nanmax(np.abs(gain)))
    fig, ax = plt.subplots(figsize=(6.4, 4.8), constrained_layout=True)
    im = ax.imshow(gain, origin="lower", extent=_extent(m, r), aspect="auto", cmap="RdBu_r", vmin=-lim, vmax=lim,
                   interpolation="nearest")
    fig.colorbar(im, ax=ax, label=r"$L_1 - \mu$ (certified three-vote gain)")
    ax.contour(m, r, gain, levels=[0.0], colors="black", linestyles="--", linewidths=1.8)
    ax.plot([], [], color="black", ls="--", label=r"zero contour $\rho = 1 - 1/(2\mu)$")
    leg = ax.legend(loc="upper left")
    leg.get_frame().set_alpha(0.8)
    ax.set_xlabel(r"one-call accuracy $\mu$")
    ax.set_ylabel(r"same-example correlation $\rho$")
    ax.set_title("Certified three-vote gain")
    return _save(fig, out_dir, "gain_map")


def mixture_plane(out_dir, searches, base) -> tuple[Path, Path]:
    """Mixture-grid policies (grey) and base policies (coloured) in the (mu, rho) plane, one panel per data set.

    Parameters
    ----------
    searches : sequence of MixtureSearch
    base : dict
        dataset -> sequence of Mixture (the base policies as unit mixtures).
    """
    plt = _plt()
    k = max(len(searches), 1)
    fig, axes = plt.subplots(1, k, figsize=(5.2 * k, 4.4), constrained_layout=True, squeeze=False)
    cmap = plt.get_cmap("tab10")
    for ax, s in zip(axes[0], searches):
        mu = [g.mu for g in s.grid]
        rho = [g.rho for g in s.grid]
        ax.scatter(mu, rho, s=6, color="0.65", alpha=0.6, label="mixture grid", zorder=1)
        for i, b in enumerate(base.get(s.dataset, ())):
            ax.scatter(b.mu, b.rho, s=60, color=cmap(i % 10), edgecolor="black", linewidth=0.5, label=b.label, zorder=3)
        for j, (kind, crit, m) in enumerate(s.best):
            ax.scatter(m.mu, m.rho, s=90, marker="*", color=cmap((j + 5) % 10), edgecolor="black", linewidth=0.5,
                       label=f"best {kind} by {crit}", zorder=4)
        _boundary(ax, label=False)
        ax.plot([], [], "k--", label=r"$\rho = 1 - 1/(2\mu)$")
        ax.set_title(f"{s.dataset}: mixtures (step {s.step:g})")
        ax.set_xlabel(r"$\hat\mu$")
        ax.set_ylabel(r"$\hat\rho$")
        lo = min(mu + [b.mu for b in base.get(s.dataset, ())] + [0.5])
        ax.set_xlim(max(0.0, lo - 0.05), 1.0)
        ax.set_ylim(-0.05, 1.05)
        ax.grid(alpha=0.3)
        ax.legend(loc="best", fontsize=7)
    fig.suptitle("Randomized mixture policies in the two-call votability plane")
    return _save(fig, out_dir, "mixture_plane")


def vote_curves(out_dir, curves) -> tuple[Path, Path]:
    """Each policy's vote accuracy against the number of votes (one panel per policy, log axis).

    Parameters
    ----------
    curves : sequence of dict
        Keys: ``title``; ``calls`` (K); ``votes`` (odd budgets); ``lower``/``upper`` (the K-call
        likelihood-ratio interval of each budget); ``two_call_lower``/``two_call_upper`` (the
        two-call projected interval); ``inf`` (the V_inf interval); ``empirical`` {votes: (value,
        se)} for budgets up to K; optional ``truth`` {votes: value, "inf": value}; ``alpha``.
    """
    plt = _plt()
    k = max(len(curves), 1)
    cols = min(3, k)
    rows = -(-k // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.8 * cols, 3.8 * rows), constrained_layout=True, squeeze=False)
    level = f"{100 * (1 - curves[0]['alpha']):g}%" if curves else "95%"
    far = None
    for ax, c in zip(axes.ravel(), curves):
        v = np.asarray(c["votes"], dtype=float)
        far = 2.0 * v[-1]  # where V_inf is drawn: one step beyond the last budget on the log axis
        ax.fill_between(v, c["two_call_lower"], c["two_call_upper"], color="0.6", alpha=0.25, lw=0,
                        label=f"two-call {level} (projected Wald)")
        ax.fill_between(v, c["lower"], c["upper"], color="tab:blue", alpha=0.35, lw=0,
                        label=f"all-K-call {level} (likelihood ratio)")
        lo_inf, hi_inf = c["inf"]
        ax.errorbar([far], [(lo_inf + hi_inf) / 2], yerr=[[(hi_inf - lo_inf) / 2], [(hi_inf - lo_inf) / 2]], fmt="none",
                    ecolor="tab:blue", capsize=4, lw=2)
        if c.get("truth"):
            tv = sorted((x, y) for x, y in c["truth"].items() if x != "inf")
            ax.plot([t[0] for t in tv], [t[1] for t in tv], color="tab:green", lw=1.3, label="true curve (latent q)")
            if "inf" in c["truth"]:
                ax.plot([far], [c["truth"]["inf"]], marker="_", ms=12, color="tab:green")
        ev = sorted(c["empirical"].items())
        if ev:
            ax.errorbar([e[0] for e in ev], [e[1][0] for e in ev], yerr=[1.96 * e[1][1] for e in ev], fmt="o", color="tab:red",
                        ms=4, capsize=2, label="empirical (all K calls) +- 1.96 se")
        ax.axvline(c["calls"], color="0.3", ls=":", lw=1)
        ax.text(c["calls"], 0.02, f" K = {c['calls']} calls recorded", transform=ax.get_xaxis_transform(), fontsize=7,
                color="0.3")
        ax.set_xscale("log")
        ticks = [t for t in (1, 3, 5, 9, 21, 51, 101) if t <= v[-1]]
        ax.set_xticks(ticks + [far])
        ax.set_xticklabels([str(t) for t in ticks] + ["inf"])
        ax.minorticks_off()
        ax.set_ylim(max(0.0, min(min(c["lower"]), min(c["two_call_lower"]), lo_inf) - 0.05), 1.0)
        ax.set_title(c["title"], fontsize=9)
        ax.set_xlabel("votes k (majority of k calls; log scale)")
        ax.set_ylabel("k-vote accuracy")
        ax.grid(alpha=0.3)
    for ax in axes.ravel()[k:]:
        ax.axis("off")
    handles, labels = axes.ravel()[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=min(4, len(labels)), fontsize=7, frameon=False)
    fig.suptitle(f"k-vote accuracy: {level} confidence bands (asymptotic) from all recorded calls and from two calls;\n"
                 "identified up to K votes, beyond K they hold every latent law the calls allow", fontsize=9)
    return _save(fig, out_dir, "vote_curves")
