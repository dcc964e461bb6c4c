"""Finite-width two-layer linear network (Xu & Ziyin, *Three mechanisms of feature learning in a
linear network*): alignment, disalignment and rescaling, the NTK, and the scaling phases of §4."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from dash import html

from solvers import finite_width as fw

from .. import components
from .. import figures as fig
from ..state import Field, StateSpec
from ..view import Panel, Preset, Rendered, View, trajectory_tables

#: hard caps that keep one request cheap whatever it asks for
MAX_WIDTH = 1000
MAX_DESCENT_STEPS = 2_000
DESCENT_WORK = 1_500_000  # steps × d × d₀ per request (fewer steps for wide inputs)
MIN_DESCENT_CAP = 300
CHECK_STEPS = 60  # a run is at least this long, to reveal an unstable step size
DESCENT_RECORDS = 200  # recorded gradient-descent states (the markers are thinned further)
CURVE_POINTS = 400
FRAMES = 120
SHOWN_NEURONS = 40  # neurons drawn in the (u_i, h_i) plane
EXPORT_NEURONS = 100  # neurons kept in the result (plots and downloads)
PATH_POINTS = 120  # points per neuron path in the plane
HYPERBOLA_POINTS = 64

INITS = ("gaussian", "parallel", "near_parallel")
GAMMA_RULES = ("mf", "ntk", "free")

SPEC = StateSpec(
    (
        Field(
            "d",
            "width d",
            "int",
            MAX_WIDTH,
            1,
            MAX_WIDTH,
            step=1,
            help=f"Number of hidden neurons (at most {MAX_WIDTH})",
        ),
        Field(
            "d0",
            "input size d₀",
            "int",
            1,
            1,
            5,
            step=1,
            help="x = ‖x‖ (1, …, 1)/√d₀; only the component of W along x ever moves",
        ),
        Field("x_norm", "input norm ρ = ‖x‖", "float", 1.0, 0.1, 10.0, log=True),
        Field("y", "target y", "float", 2.0, -10.0, 10.0, step=0.1),
        Field(
            "gamma_rule",
            "output scale γ",
            "choice",
            "mf",
            choices=GAMMA_RULES,
            choice_labels=("1/d (mean field)", "1/√d (NTK)", "slider"),
            help="γ = 1/d or 1/√d follows the width; 'slider' uses the value below",
        ),
        Field("gamma", "γ (when 'slider')", "float", 0.01, 1e-4, 10.0, log=True),
        Field(
            "init",
            "initialisation",
            "choice",
            "gaussian",
            choices=INITS,
            choice_labels=("Gaussian", "parallel", "near-parallel"),
            help="Gaussian: independent N(0, σ²) layers; parallel: u = σ_u g, W = σ_w g x̂ᵀ; "
            "near-parallel adds noise·σ_w·N(0, 1) to W",
        ),
        Field("sigma_u", "σ_u (second layer)", "float", 1.0, 1e-3, 10.0, log=True),
        Field("sigma_w", "σ_w (first layer)", "float", 1.0, 1e-3, 10.0, log=True),
        Field(
            "noise",
            "near-parallel noise",
            "float",
            0.1,
            0.0,
            1.0,
            step=0.01,
            help="Relative size of the random part of W (near-parallel only)",
        ),
        Field("seed", "random seed", "int", 0, 0, 999, step=1),
        Field(
            "eta_ratio",
            "learning-rate ratio η_u/η_w",
            "float",
            1.0,
            0.01,
            100.0,
            log=True,
            help="η_u η_w = 1: η_u = √ratio, η_w = 1/√ratio",
        ),
        Field(
            "horizon",
            "time horizon (× t_c)",
            "float",
            3.0,
            0.1,
            1000.0,
            log=True,
            help="In units of the time scale t_c of the solution (their eq. 10)",
        ),
        Field("log_time", "logarithmic time axis", "bool", False),
        Field("descent", "show gradient descent", "bool", True),
        Field(
            "lr",
            "gradient-descent step size (× t_c)",
            "float",
            0.01,
            1e-3,
            10.0,
            log=True,
            help=f"lr = value·t_c; at most {MAX_DESCENT_STEPS:,} steps (fewer when d·d₀ is large)",
        ),
        # The scaling rule of §4: exponents of κ → ∞ (rendering only, not part of the cache key).
        Field("c_d", "c_d  (d ∝ κ^c_d)", "float", 1.0, -2.0, 3.0, step=0.25, physics=False),
        Field("c_gamma", "c_γ  (γ ∝ κ^c_γ)", "float", -1.0, -3.0, 3.0, step=0.25, physics=False),
        Field("c_u", "c_u  (σ_u² ∝ κ^c_u)", "float", 0.0, -3.0, 3.0, step=0.25, physics=False),
        Field("c_w", "c_w  (σ_w² ∝ κ^c_w)", "float", 0.0, -3.0, 3.0, step=0.25, physics=False),
        Field("c_eta_u", "c_ηu  (η_u ∝ κ^c_ηu)", "float", 1.0, -3.0, 3.0, step=0.25, physics=False),
        Field("c_eta_w", "c_ηw  (η_w ∝ κ^c_ηw)", "float", 1.0, -3.0, 3.0, step=0.25, physics=False),
        Field(
            "zero_output", "zero initial output (Chizat's lazy init)", "bool", False, physics=False
        ),
        Field("independent", "independent layers at init", "bool", True, physics=False),
    )
)

GROUPS = (
    ("Network and data", ("d", "d0", "x_norm", "y", "gamma_rule", "gamma")),
    ("Initialisation", ("init", "sigma_u", "sigma_w", "noise", "seed")),
    (
        "Learning rates, time, gradient descent",
        ("eta_ratio", "horizon", "log_time", "descent", "lr"),
    ),
    (
        "Scaling phase (§4, table below)",
        ("c_d", "c_gamma", "c_u", "c_w", "c_eta_u", "c_eta_w", "zero_output", "independent"),
    ),
)

FIG1 = {
    "d": 1000,
    "d0": 1,
    "x_norm": 1.0,
    "y": 2.0,
    "init": "gaussian",
    "sigma_u": 1.0,
    "sigma_w": 1.0,
    "seed": 0,
    "eta_ratio": 1.0,
    "horizon": 3.0,
    "log_time": False,
}
NTK_EXPONENTS = {
    "c_d": 1.0,
    "c_gamma": -0.5,
    "c_u": 0.0,
    "c_w": 0.0,
    "c_eta_u": 0.0,
    "c_eta_w": 0.0,
}
MF_EXPONENTS = {"c_d": 1.0, "c_gamma": -1.0, "c_u": 0.0, "c_w": 0.0, "c_eta_u": 1.0, "c_eta_w": 1.0}
PRESETS = (
    Preset(
        "Fig. 1 — alignment, kernel phase (γ = 1/√d)",
        "N(0, 1) layers, d = 1000, x = 1: ζ grows only by O(1/√d) and the NTK barely moves.",
        {**FIG1, **NTK_EXPONENTS, "gamma_rule": "ntk"},
    ),
    Preset(
        "Fig. 1 — alignment, feature-learning phase (γ = 1/d)",
        "Same layers with γ = 1/d: α₊ ≈ 4, ζ climbs from ≈ 0 to ≈ 0.9, the NTK changes by O(1).",
        {**FIG1, **MF_EXPONENTS, "gamma_rule": "mf"},
    ),
    Preset(
        "Fig. 1 — disalignment (near-parallel, large output)",
        "ζ(0) ≈ 1 and f(0) ≈ 30 ≫ y = 2: α₊ < 1, the layers turn apart (ζ falls to ≈ 0.5).",
        {**FIG1, **NTK_EXPONENTS, "gamma_rule": "ntk", "init": "near_parallel", "noise": 0.1},
    ),
    Preset(
        "Rescaling (parallel layers)",
        "u ∥ W x: ζ stays 1; the output 30 → 2 only by shrinking ‖u‖ = ‖W‖ from 31 to 8.",
        {**FIG1, **NTK_EXPONENTS, "gamma_rule": "ntk", "init": "parallel"},
    ),
    Preset(
        "NTK moves by O(1): small initialisation",
        "σ = 0.05, γ = 1/√d: the kernel term of t_c is tiny, the NTK grows 25× and ζ → 1.",
        {**FIG1, **NTK_EXPONENTS, "gamma_rule": "ntk", "sigma_u": 0.05, "sigma_w": 0.05},
    ),
    Preset(
        "NTK frozen: large initialisation",
        "σ = 10, γ = 1/d: the initialisation term dominates t_c; the NTK changes by 0.2 %.",
        {**FIG1, **MF_EXPONENTS, "gamma_rule": "mf", "sigma_u": 10.0, "sigma_w": 10.0},
    ),
)

PANELS = (
    Panel(
        "zeta",
        "Layer alignment ζ(t)",
        r"$\zeta = \dfrac{u^\top W\hat x}{\|u\|\,\|W\hat x\|}$ (their eq. 14) is monotone in "
        r"time: it increases iff $\alpha_+ > 1$ (alignment), decreases iff $\alpha_+ < 1$ "
        r"(disalignment) and stays at $\pm1$ for parallel layers.",
    ),
    Panel(
        "norms",
        "Rescaling: ‖u‖ and ‖W‖",
        r"Both norms grow while the layers align and shrink while they disalign (their §3.3). "
        r"For parallel layers this rescaling is the only thing that happens. $\|W\|$ is the "
        r"Frobenius norm (for $d_0 > 1$ it includes the part orthogonal to $x$, which never "
        r"moves).",
    ),
    Panel(
        "ntk",
        "NTK K(x, x; t)",
        r"$K = \gamma^2(\eta_u\|Wx\|^2 + \eta_w\|u\|^2\|x\|^2)$, so that "
        r"$\dot f = -2K(f - y)$ (their eq. 13 with the learning rates in the right places).",
    ),
    Panel(
        "kernel_change",
        "How far the NTK moves",
        r"Relative change $|K(t) - K(0)|/K(0)$ on a log scale: $O(1)$ in the feature-learning "
        r"phase, vanishing with $d$ in the kernel phase. For $d_0 > 1$ the dashed curve is the "
        r"kernel distance $S(0, t)$ of $M = \gamma^2(\eta_u W^\top W + \eta_w\|u\|^2 I)$.",
    ),
    Panel("loss", "Loss", r"$\mathcal{L} = (f(x) - y)^2$ (no ½), log scale."),
    Panel(
        "neurons",
        "Every neuron on its conserved hyperbola",
        r"Each neuron moves in its $(u_i, h_i = w_i\cdot x)$ plane on the hyperbola "
        r"$\eta_u h_i^2 - \eta_w\rho^2 u_i^2 = 4\rho^2 p_i q_i = \text{const}$ (dotted; the "
        r"branch it lives on). All neurons move in lock-step: $p_i \to p_i\sqrt{A(t)}$, "
        r"$q_i \to q_i/\sqrt{A(t)}$. Dashed lines: the asymptotes $p = 0$ and $q = 0$ "
        rf"(parallel layers sit on $q = 0$). At most {SHOWN_NEURONS} neurons are drawn, for "
        r"readability; the orange dot follows the one that moves most.",
        height=440,
        wide=True,
    ),
    Panel(
        "phase",
        "Scaling phases (§4, Table 1)",
        r"All hyperparameters scale as powers of $\kappa\to\infty$. With "
        r"$m = \max(2c_\gamma + c_{\eta_u} + c_{\eta_w},\ 2c_\gamma + c_d + "
        r"\max(c_{\eta_w} + c_u, c_{\eta_u} + c_w))$ (their eq. 18): $m < 0$ is *frozen* "
        r"($t_c \to \infty$), $m > 0$ *unstable* ($t_c \to 0$); at $m = 0$ the model is in the "
        r"*kernel* phase iff $P/Q \to 1$ and the initialisation term strictly dominates, else it "
        r"learns *features*. $P/Q \to 1$ holds for $c_d > 0$ with independent layers, for a zero "
        r"initial output, or when $c_u + c_{\eta_w} \ne c_w + c_{\eta_u}$. Left: your exponents "
        r"(sidebar); right: Table 1's scalings at your $c_\eta$ and in the paper's four blocks "
        r"($c_\eta^*$ stabilises; $^+$ gives feature learning, $^-$ the kernel phase; "
        r"“learning” is the paper's word for feature learning).",
        height=330,
        wide=True,
    ),
)

INTRO = (
    r"A two-layer linear network $f(x) = \gamma\sum_{i=1}^d u_i\, w_i^\top x$ of any width, "
    r"trained by gradient flow on one data point (any data on a line reduce to it) with loss "
    r"$(f(x) - y)^2$ and learning rates $\eta_u\eta_w = 1$. In the basis "
    r"$p_i = (\sqrt{\eta_u}h_i + \sqrt{\eta_w}\rho u_i)/2\rho$, "
    r"$q_i = (\sqrt{\eta_u}h_i - \sqrt{\eta_w}\rho u_i)/2\rho$ ($h_i = w_i^\top x$, "
    r"$\rho = \|x\|$) the exact solution is $p_i(t) = p_i(0)\sqrt{A(t)}$, "
    r"$q_i(t) = q_i(0)/\sqrt{A(t)}$, where one scalar $A$ runs from 1 to $\alpha_+$ on the time "
    r"scale $t_c$:"
    "\n\n"
    r"$$t_c^{-2} = \underbrace{\eta_u\eta_w\gamma^2\rho^2y^2}_{\text{feature learning}} + "
    r"\underbrace{4\rho^4(\gamma^2d)^2PQ}_{\text{kernel}},\qquad "
    r"P = \overline{p_i(0)^2},\ Q = \overline{q_i(0)^2},\ \alpha_+\alpha_- = Q/P.$$"
    "\n\n"
    r"$\alpha_+ > 1$: the layers **align**; $\alpha_+ < 1$: they **disalign**; parallel layers "
    r"only **rescale**. Curves are exact; open circles are a real gradient-descent run. Time "
    r"horizon and step size are in units of $t_c$, so a change of $\gamma$ or $d$ keeps the "
    r"learning curve in view (a small initialisation needs longer: about "
    r"$t_c\ln\alpha_+/4$ to escape). "
    f"Downloads hold every time point and the first {EXPORT_NEURONS} neurons."
)

MECHANISMS = {
    "alignment": "alignment — α₊ > 1: p grows and q shrinks, so u and W x turn towards each "
    "other (ζ increases) and the output grows with little change of norm.",
    "disalignment": "disalignment — α₊ < 1: u and W x turn apart (ζ decreases), the way to "
    "shrink an output that starts too large without shrinking the weights.",
    "rescaling": "rescaling — u ∥ W x (ζ = ±1 throughout): only the sizes ‖u‖ and ‖W‖ change, "
    "no feature is learned.",
    "none": "none — α₊ = 1: the network already fits y; nothing moves.",
}

#: Xu & Ziyin Table 1: c_η* (stable) and the (c_η, c_γ) pairs of the feature-learning (+) and
#: kernel (−) blocks, per named scaling of :data:`solvers.finite_width.SCALINGS`.
TABLE_1 = {
    "NTK": {"star": 0.0, "plus": (1.0, -1.0), "minus": (0.0, -0.5)},
    "MF": {"star": 1.0, "plus": (1.0, -1.0), "minus": (0.0, -0.5)},
    "Xavier": {"star": 0.0, "plus": (0.0, 0.0), "minus": (-2.0, 1.0)},
    "Kaiming": {"star": -1.0, "plus": (1.0, -1.0), "minus": (-1.0, 0.0)},
    "lazy": {"star": -2.0, "plus": (0.0, 0.0), "minus": (-2.0, 1.0)},
}
#: Table 1's own words (its "learning" is the feature-learning phase)
SHORT = {
    "kernel": "kernel",
    "feature learning": "learning",
    "frozen": "frozen",
    "unstable": "unstable",
}
PHASE_COLORS = {
    "kernel": "#dbe7f3",
    "feature learning": "#fde2d4",
    "frozen": "#e9ecef",
    "unstable": "#f6c6c6",
}


# -- computing --------------------------------------------------------------------------------


def gamma_of(values: Mapping[str, Any]) -> float:
    d = values["d"]
    if values["gamma_rule"] == "mf":
        return 1.0 / d
    if values["gamma_rule"] == "ntk":
        return 1.0 / math.sqrt(d)
    return values["gamma"]


def etas(values: Mapping[str, Any]) -> tuple[float, float]:
    eta_u = math.sqrt(values["eta_ratio"])
    return eta_u, 1.0 / eta_u


def data_point(values: Mapping[str, Any]) -> np.ndarray:
    d0 = values["d0"]
    return np.full(d0, values["x_norm"] / math.sqrt(d0))


def initial_layers(values: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    d, x, seed = values["d"], data_point(values), values["seed"]
    sigma_u, sigma_w = values["sigma_u"], values["sigma_w"]
    if values["init"] == "parallel":
        return fw.parallel_init(d, x, sigma_u, sigma_w, seed)
    if values["init"] == "near_parallel":
        return fw.near_parallel_init(d, x, sigma_u, sigma_w, seed, noise=values["noise"])
    return fw.gaussian_init(d, values["d0"], sigma_u, sigma_w, seed)


def _arrays(path: fw.FiniteWidthTrajectory, w_norm: np.ndarray | None = None) -> dict:
    keep = min(path.u.shape[1], EXPORT_NEURONS)
    return {
        "t": path.t,
        "u": path.u[:, :keep],
        "hidden": path.hidden[:, :keep],
        "output": path.output,
        "loss": path.loss,
        "zeta": path.zeta,
        "u_norm": path.u_norm,
        "w_norm": path.w_norm if w_norm is None else w_norm,
        "ntk": path.ntk,
        "ntk_change": path.ntk_change,
        "kernel_distance": path.kernel_distance,
    }


def exact_w_norm(path: fw.FiniteWidthTrajectory) -> np.ndarray:
    """‖W(t)‖_F of the exact flow without forming W (T × d × d₀): only the component along x
    moves, W = W₀ + Δh x̂ᵀ/ρ, so ‖W‖² = ‖W₀‖² + (2Δh·h₀ + ‖Δh‖²)/ρ²."""
    h0 = path.W0 @ path.x  # at t = 0 (the first time point may be later, on a log axis)
    change = path.hidden - h0
    squared = (
        float(np.sum(path.W0**2)) + (2 * change @ h0 + np.sum(change**2, axis=1)) / path.rho**2
    )
    return np.sqrt(np.maximum(squared, 0.0))


def _time_unit(start: fw.FiniteWidthTrajectory) -> tuple[float, str | None]:
    """t_c, or a stand-in (with a note) where t_c is infinite (y = 0 and P·Q = 0)."""
    if math.isfinite(start.t_c) and start.t_c > 0:
        return float(start.t_c), None
    kernel = float(start.ntk[0])
    if kernel > 0 and math.isfinite(1 / (2 * kernel)):
        return 1 / (2 * kernel), (
            "t_c is infinite here (y = 0 and P·Q = 0): times are in units "
            "of 1/(2K(0)) instead, and A(t) approaches α₊ only algebraically."
        )
    return (
        1.0,
        "Nothing can move from this initialisation (the NTK is zero): times are in plain units.",
    )


def compute(values: Mapping[str, Any]) -> dict:
    u0, W0 = initial_layers(values)
    x, y, gamma = data_point(values), values["y"], gamma_of(values)
    eta_u, eta_w = etas(values)
    start = fw.exact(u0, W0, x, y, [0.0], gamma=gamma, eta_u=eta_u, eta_w=eta_w)
    unit, unit_note = _time_unit(start)
    t = fig.plot_times(values["horizon"] * unit, values["log_time"], CURVE_POINTS)
    if values["log_time"]:  # t = 0 too: every change (W, K, S) is measured from the start
        t = np.concatenate([[0.0], t])
    path = fw.exact(u0, W0, x, y, t, gamma=gamma, eta_u=eta_u, eta_w=eta_w)
    result = {
        "exact": _arrays(path, exact_w_norm(path)),
        "gamma": gamma,
        "eta": (eta_u, eta_w),
        "rho": float(np.linalg.norm(x)),
        "unit": unit,
        "unit_note": unit_note,
        "t_c": path.t_c,
        "alpha_plus": path.alpha_plus,
        "alpha_minus": path.alpha_minus,
        "P": path.P,
        "Q": path.Q,
        "mechanism": path.mechanism,
        "descent": None,
        "descent_note": None,
        "lr": values["lr"] * unit,
    }
    if values["descent"]:
        result["descent"], result["descent_note"] = _descent(values, u0, W0, x, result)
    return result


def descent_cap(values: Mapping[str, Any]) -> int:
    """Most gradient-descent steps one request may run (each step costs O(d·d₀))."""
    work = DESCENT_WORK // (values["d"] * values["d0"])
    return int(min(MAX_DESCENT_STEPS, max(MIN_DESCENT_CAP, work)))


def _descent(values, u0, W0, x, result) -> tuple[dict, str | None]:
    """A gradient-descent run over the horizon (at least CHECK_STEPS steps, so that a step size
    too large to be stable shows up even when one step already passes the horizon)."""
    eta_u, eta_w = result["eta"]
    wanted = math.ceil(values["horizon"] / values["lr"] - 1e-9)
    cap, note = descent_cap(values), None
    if wanted > cap:
        note = (
            f"Gradient descent is limited to {cap:,} steps here (d = {values['d']}, "
            f"d₀ = {values['d0']}): with step size {values['lr']:g} t_c it reaches "
            f"t = {cap * values['lr']:.3g} t_c, not the horizon of {values['horizon']:g} t_c."
        )
    steps = min(max(wanted, CHECK_STEPS), cap)
    run = fw.gradient_descent(
        u0,
        W0,
        x,
        values["y"],
        result["lr"],
        steps,
        gamma=result["gamma"],
        eta_u=eta_u,
        eta_w=eta_w,
        every=max(1, steps // DESCENT_RECORDS),
    )
    arrays = _arrays(run)
    inside = run.t <= values["horizon"] * result["unit"] * (1 + 1e-9)
    arrays = {name: column[inside] for name, column in arrays.items()}
    return arrays | {"diverged_at": run.diverged_at, "steps": min(wanted, steps)}, note


# -- figures ----------------------------------------------------------------------------------


def _paths_with_gaps(values: np.ndarray) -> np.ndarray:
    """(T, n) paths → one flat array with a NaN after each path (one trace draws them all)."""
    columns = np.asarray(values, dtype=float).T
    return np.concatenate([columns, np.full((columns.shape[0], 1), np.nan)], axis=1).ravel()


def _hyperbolas(
    p0: np.ndarray,
    q0: np.ndarray,
    eta_u: float,
    eta_w: float,
    rho: float,
    u_max: float,
    h_max: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The branch p q = p₀q₀ (p = p₀s, q = q₀/s, s > 0) of every neuron inside the box."""
    reach = 0.5 * (math.sqrt(eta_u) * h_max / rho + math.sqrt(eta_w) * u_max)  # max |p|, |q|
    abs_p, abs_q = np.abs(p0), np.abs(q0)
    with np.errstate(divide="ignore"):
        low = np.where(abs_q > 0, abs_q / reach, 1e-6 * np.where(abs_p > 0, reach / abs_p, 1.0))
        high = np.where(abs_p > 0, reach / abs_p, 1e6 * np.where(abs_q > 0, abs_q / reach, 1.0))
    low, high = np.minimum(low, 1.0), np.maximum(high, 1.0)
    fraction = np.linspace(0.0, 1.0, HYPERBOLA_POINTS)
    s = np.exp(np.log(low)[:, None] + fraction[None, :] * np.log(high / low)[:, None])
    p, q = p0[:, None] * s, q0[:, None] / s
    u = (p - q) / math.sqrt(eta_w)
    h = rho * (p + q) / math.sqrt(eta_u)
    outside = (np.abs(u) > 1.02 * u_max) | (np.abs(h) > 1.02 * h_max)
    u, h = np.where(outside, np.nan, u), np.where(outside, np.nan, h)
    return _paths_with_gaps(u.T), _paths_with_gaps(h.T)


def _neuron_figure(values: Mapping[str, Any], result: dict, frames_index: np.ndarray):
    exact, descent = result["exact"], result["descent"]
    eta_u, eta_w = result["eta"]
    rho = result["rho"]
    shown = min(values["d"], SHOWN_NEURONS)
    u, h = exact["u"][:, :shown], exact["hidden"][:, :shown]
    u_max = 1.1 * max(float(np.max(np.abs(u))), 1e-12)
    h_max = 1.1 * max(float(np.max(np.abs(h))), 1e-12)
    p0 = (math.sqrt(eta_u) * h[0] + math.sqrt(eta_w) * rho * u[0]) / (2 * rho)
    q0 = (math.sqrt(eta_u) * h[0] - math.sqrt(eta_w) * rho * u[0]) / (2 * rho)
    hyper_u, hyper_h = _hyperbolas(p0, q0, eta_u, eta_w, rho, u_max, h_max)
    # asymptotes p = 0 (√η_u h = −√η_w ρ u) and q = 0 (√η_u h = √η_w ρ u)
    slope = math.sqrt(eta_w) * rho / math.sqrt(eta_u)
    edge = min(u_max, h_max / slope)
    asymptotes = np.array([-edge, edge, np.nan, -edge, edge])
    asymptote_h = np.array([-slope * edge, slope * edge, np.nan, slope * edge, -slope * edge])
    keep = fig.thin(len(exact["t"]), PATH_POINTS)
    data = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": asymptotes,
            "y": asymptote_h,
            "name": "asymptotes p = 0, q = 0",
            "hoverinfo": "skip",
            "line": {"color": fig.COLORS["kernel"], "width": 1, "dash": "dash"},
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": hyper_u,
            "y": hyper_h,
            "name": "conserved hyperbolas",
            "hoverinfo": "skip",
            "line": {"color": "#9aa5b1", "width": 1, "dash": "dot"},
        },
        fig.exact_trace(
            _paths_with_gaps(u[keep]), _paths_with_gaps(h[keep]), "exact paths", width=1.8
        )
        | {"hovertemplate": "u = %{x:.4g}, h = %{y:.4g}<extra></extra>"},
        {
            "type": "scatter",
            "mode": "markers",
            "x": u[0],
            "y": h[0],
            "name": "start",
            "marker": {"symbol": "diamond", "size": 5, "color": fig.COLORS["start"]},
            "hovertemplate": "start: u = %{x:.4g}, h = %{y:.4g}<extra></extra>",
        },
    ]
    if descent is not None:
        marks = fig.thin(len(descent["t"]), 15)
        du, dh = descent["u"][marks, :shown].T.ravel(), descent["hidden"][marks, :shown].T.ravel()
        trace = fig.descent_trace(du, dh, limit=du.size)
        trace["marker"] = trace["marker"] | {"size": 5}
        trace["hovertemplate"] = "u = %{x:.4g}, h = %{y:.4g}<extra>gradient descent</extra>"
        data.append(trace)
    moved = np.abs(u[-1] - u[0]) / u_max + np.abs(h[-1] - h[0]) / h_max
    follow = int(np.argmax(moved))
    data.append(fig.cursor_point(float(u[0, follow]), float(h[0, follow])))
    title = (
        f"{values['d']} neuron{'s' if values['d'] > 1 else ''}"
        if shown == values["d"]
        else f"first {shown} of {values['d']} neurons"
    )
    figure = fig.figure(
        data,
        x_title="u_i  (second layer)",
        y_title="h_i = w_i · x  (hidden)",
        height=440,
        title=title,
        xaxis=fig.axis("u_i  (second layer)", range=[-u_max, u_max]),
        yaxis=fig.axis("h_i = w_i · x  (hidden)", range=[-h_max, h_max]),
    )
    figure["layout"]["legend"] = {
        "orientation": "v",
        "x": 1.02,
        "y": 1,
        "xanchor": "left",
        "font": {"size": 11},
    }
    figure["layout"]["margin"]["r"] = 200
    cursor = {"x": fig.rounded(u[frames_index, follow]), "y": fig.rounded(h[frames_index, follow])}
    return figure, cursor


def _fmt(value: float) -> str:
    value = float(value)
    if value == 0:
        return "0"
    if value.is_integer():
        return f"{value:.0f}".replace("-", "−")
    for denominator in (2, 4, 3):
        if abs(value * denominator - round(value * denominator)) < 1e-9:
            return f"{round(value * denominator)}/{denominator}".replace("-", "−")
    return f"{value:.3g}".replace("-", "−")


def phase_table(values: Mapping[str, Any]) -> dict[str, Any]:
    """The §4 rule for the user's exponents and for Table 1's named scalings (pure data)."""
    mine = {name: values[name] for name in ("c_d", "c_gamma", "c_u", "c_w", "c_eta_u", "c_eta_w")}
    flags = {"zero_output_init": values["zero_output"], "independent_init": values["independent"]}
    terms = fw.phase_terms(*mine.values(), **flags)
    rows = []
    for name, exponents in fw.SCALINGS.items():
        lazy = {"zero_output_init": name == "lazy"}
        base = (exponents["c_d"], exponents["c_gamma"], exponents["c_u"], exponents["c_w"])
        table = TABLE_1[name]

        def at(c_eta: float, c_gamma: float | None = None, *, _base=base, _lazy=lazy) -> str:
            gamma = _base[1] if c_gamma is None else c_gamma
            return fw.phase(_base[0], gamma, _base[2], _base[3], c_eta, c_eta, **_lazy)

        rows.append(
            {
                "scaling": name,
                "exponents": base,
                "yours": fw.phase(*base, values["c_eta_u"], values["c_eta_w"], **lazy),
                "table": [
                    (0.0, None, at(0.0)),
                    (table["star"], None, at(table["star"])),
                    (*table["plus"], at(*table["plus"])),
                    (*table["minus"], at(*table["minus"])),
                ],
            }
        )
    return {"terms": terms, "phase": fw.phase(*mine.values(), **flags), "rows": rows}


def _phase_figure(values: Mapping[str, Any], table: dict) -> dict:
    terms = table["terms"]
    mine = [
        ("feature term 2c_γ + c_ηu + c_ηw", _fmt(terms.feature_term)),
        ("kernel term 2c_γ + c_d + max(c_ηw + c_u, c_ηu + c_w)", _fmt(terms.kernel_term)),
        ("m = max of the two", _fmt(terms.m)),
        ("P/Q → 1 ?", "yes" if terms.p_over_q_to_one else "no"),
        ("phase", table["phase"]),
    ]
    header = {
        "fill": {"color": "#f0f3f6"},
        "line": {"color": "#dde3ea"},
        "height": 30,
        "font": {"size": 12, "color": "#22313f"},
        "align": "center",
    }
    cells = {"line": {"color": "#dde3ea"}, "height": 26, "font": {"size": 12, "color": "#22313f"}}
    your_fill = ["white"] * (len(mine) - 1) + [PHASE_COLORS[table["phase"]]]
    your_trace = {
        "type": "table",
        "name": "your exponents",
        "domain": {"x": [0, 0.28], "y": [0, 1]},
        "columnwidth": [3, 1.3],
        "header": header | {"values": ["<b>your exponents</b>", "<b>value</b>"]},
        "cells": cells
        | {
            "values": [[r[0] for r in mine], [r[1] for r in mine]],
            "fill": {"color": [["white"] * len(mine), your_fill]},
            "align": ["left", "center"],
        },
    }
    c_eta = (
        _fmt(values["c_eta_u"])
        if values["c_eta_u"] == values["c_eta_w"]
        else f"{_fmt(values['c_eta_u'])}, {_fmt(values['c_eta_w'])}"
    )
    columns = [[row["scaling"] for row in table["rows"]]]
    for position in range(4):
        columns.append([_fmt(row["exponents"][position]) for row in table["rows"]])
    columns.append([f"<b>{SHORT[row['yours']]}</b>" for row in table["rows"]])
    for block in range(4):
        column = []
        for row in table["rows"]:
            eta, gamma, phase = row["table"][block]
            setting = f"c_η={_fmt(eta)}" + ("" if gamma is None else f", c_γ={_fmt(gamma)}")
            column.append(f"{SHORT[phase]}<br><span style='font-size:10px'>{setting}</span>")
        columns.append(column)
    phases = (
        [None] * 5
        + [[row["yours"] for row in table["rows"]]]
        + [[row["table"][block][2] for row in table["rows"]] for block in range(4)]
    )
    fills = [
        ["white"] * len(table["rows"]) if column is None else [PHASE_COLORS[p] for p in column]
        for column in phases
    ]
    named_trace = {
        "type": "table",
        "name": "Table 1",
        "domain": {"x": [0.3, 1], "y": [0, 1]},
        "columnwidth": [1.1, 0.55, 0.55, 0.55, 0.55, 1.3, 1.3, 1.3, 1.5, 1.5],
        "header": header
        | {
            "values": [
                "<b>scaling</b>",
                "c_d",
                "c_γ",
                "c_u",
                "c_w",
                f"<b>your c_η = {c_eta}</b>",
                "c_η = 0",
                "c_η*",
                "c_η⁺, c_γ⁺",
                "c_η⁻, c_γ⁻",
            ]
        },
        "cells": cells
        | {"values": columns, "fill": {"color": fills}, "height": 36, "align": "center"},
    }
    return {
        "data": [your_trace, named_trace],
        "layout": {
            "font": fig.FONT,
            "height": 330,
            "margin": {"l": 4, "r": 4, "t": 8, "b": 4},
            "paper_bgcolor": "white",
            "uirevision": "keep",
        },
    }


def render(values: Mapping[str, Any], result: dict) -> Rendered:
    exact, descent = result["exact"], result["descent"]
    t = exact["t"]
    log_time = values["log_time"]
    # On a log axis t = 0 (kept in the result: the reference of every change) is not drawn.
    drawn = np.flatnonzero(t > 0) if log_time else np.arange(len(t))
    frames_index = drawn[fig.thin(len(drawn), FRAMES)]
    messages = [note for note in (result["unit_note"], result["descent_note"]) if note]
    if descent is not None and descent["diverged_at"] is not None:
        step = descent["diverged_at"]
        where = "" if step <= descent["steps"] else ", just beyond the horizon"
        messages.append(
            f"Gradient descent diverged at step {step} (t = {step * values['lr']:.3g} t_c{where}): "
            f"step size {values['lr']:g} t_c = {result['lr']:.3g} is too large here; its markers "
            "stop there."
        )

    unfinished = _unfinished(values, result)
    if unfinished:
        messages.append(unfinished)

    time_x = t[frames_index]  # shapes sit in data units, log axis or not
    cursor = [fig.cursor_line(float(time_x[0]))]
    descent_keep = (descent["t"] > 0 if log_time else slice(None)) if descent is not None else None

    def over_time(
        series: list[tuple[str, str, str, str | None]],
        y_title: str,
        log_y: bool = False,
        floor_ratio: float = 1e-28,
    ) -> dict:
        # A log axis cannot show 0: clip far below the largest value.
        top = max(float(np.max(exact[key][drawn])) for key, *_ in series) if log_y else 0.0
        floor = max(floor_ratio * top, 1e-300) if log_y else -np.inf
        data = []
        for key, name, colour, dash in series:
            data.append(
                fig.exact_trace(
                    t[drawn], np.maximum(exact[key][drawn], floor), name, colour, dash=dash
                )
            )
        if descent is not None:
            for index, (key, *_rest) in enumerate(series):
                data.append(
                    fig.descent_trace(
                        descent["t"][descent_keep],
                        np.maximum(descent[key][descent_keep], floor),
                        group="gradient descent",
                        show_legend=index == 0,
                    )
                )
        figure = fig.figure(data, y_title=y_title, log_x=log_time, log_y=log_y, shapes=cursor)
        if log_y:  # room for tick labels like 10⁻¹²
            figure["layout"]["margin"]["l"] = 80
        return figure

    exact_color, second = fig.COLORS["exact"], fig.COLORS["feature"]
    change = [("ntk_change", "|K(t) − K(0)|/K(0)", exact_color, None)]
    if values["d0"] > 1:
        change.append(("kernel_distance", "S(0, t) of M", second, "dash"))
    neurons, neuron_cursor = _neuron_figure(values, result, frames_index)
    table = phase_table(values)
    figures = {
        "zeta": over_time([("zeta", "ζ exact", exact_color, None)], "ζ"),
        "norms": over_time(
            [("u_norm", "‖u‖", exact_color, None), ("w_norm", "‖W‖", second, None)], "norm"
        ),
        "ntk": over_time([("ntk", "K(x, x; t)", exact_color, None)], "K(x, x; t)"),
        "kernel_change": over_time(change, "relative change", log_y=True, floor_ratio=1e-8),
        "loss": over_time([("loss", "loss", exact_color, None)], "loss", log_y=True),
        "neurons": neurons,
        "phase": _phase_figure(values, table),
    }
    time_panels = ("zeta", "norms", "ntk", "kernel_change", "loss")
    frames = {
        "t": fig.rounded(t[frames_index]),
        "order": [p.graph for p in PANELS],
        "cursor": {"neurons": neuron_cursor},
        "lines": {name: fig.rounded(time_x) for name in time_panels},
    }
    return Rendered(
        figures=figures, summary=_summary(values, result, table), messages=messages, frames=frames
    )


def _unfinished(values: Mapping[str, Any], result: dict) -> str | None:
    """A hint when the horizon ends before learning does (small initialisations, P → 0)."""
    loss = result["exact"]["loss"]
    if not loss[0] > 0 or loss[-1] <= 1e-3 * loss[0] or result["unit_note"]:
        return None
    left = f"the loss is still {100 * loss[-1] / loss[0]:.3g} % of its initial value"
    alpha = result["alpha_plus"]
    if not math.isfinite(alpha) or alpha <= 0:
        return (
            f"At the horizon {left}: with P = 0 the flow heads for the saddle at the origin "
            "and never fits y."
        )
    needed = 2 + abs(math.log(alpha)) / 4
    if values["horizon"] >= needed:
        return None
    return (
        f"At the horizon {left}. Learning takes about (2 + |ln α₊|/4) t_c ≈ {needed:.3g} t_c "
        "here — the time to leave a small initialisation grows like ln α₊ — so raise the "
        "time horizon to see it finish."
    )


def _number(value: float) -> str:
    return "∞" if math.isinf(value) else f"{value:.4g}"


def _summary(values: Mapping[str, Any], result: dict, table: dict) -> html.Dl:
    exact = result["exact"]
    eta_u, eta_w = result["eta"]
    change = float(exact["ntk_change"][-1])
    kernel_word = (
        "kernel-like: the NTK barely moves"
        if change < 0.01
        else "the NTK changes by O(1): features are learned"
        if change > 0.1
        else "the NTK moves a little"
    )
    items = [
        ("mechanism", MECHANISMS[result["mechanism"]]),
        ("t_c", f"{_number(result['t_c'])}  (time unit of the horizon and step size)"),
        (
            "α₊, α₋",
            f"{_number(result['alpha_plus'])}, {_number(result['alpha_minus'])}  "
            "(A(t) runs from 1 to α₊; α₊α₋ = Q/P)",
        ),
        ("P, Q", f"{_number(result['P'])}, {_number(result['Q'])}"),
        ("γ, η_u, η_w", f"{result['gamma']:.4g}, {eta_u:.4g}, {eta_w:.4g}"),
        (
            "output f(x)",
            f"{exact['output'][0]:.4g} → {exact['output'][-1]:.4g}  (target {values['y']:g})",
        ),
        ("ζ", f"{exact['zeta'][0]:.4f} → {exact['zeta'][-1]:.4f}"),
        (
            "NTK K(x, x)",
            f"{exact['ntk'][0]:.4g} → {exact['ntk'][-1]:.4g}, relative change "
            f"{change:.3g} — {kernel_word}",
        ),
        ("scaling phase", f"{table['phase']} (for the exponents in the sidebar, §4)"),
    ]
    return components.facts(items)


def export(values: Mapping[str, Any], result: dict) -> dict[str, dict[str, np.ndarray]]:
    columns = (
        "t",
        "u",
        "hidden",
        "output",
        "loss",
        "zeta",
        "u_norm",
        "w_norm",
        "ntk",
        "ntk_change",
        "kernel_distance",
    )
    return trajectory_tables(
        columns, {"exact": result["exact"], "gradient descent": result["descent"]}
    )


VIEW = View(
    key="finite-width",
    path="/finite-width",
    title="Finite width: three mechanisms of feature learning",
    nav_title="Finite width",
    summary=(
        "A two-layer linear network of any width, solved exactly: watch the layers align, "
        "disalign or just rescale, see the NTK move by O(1) or stay frozen, and find the "
        "scaling phase of NTK, mean-field, Xavier and Kaiming initialisations."
    ),
    intro=INTRO,
    spec=SPEC,
    panels=PANELS,
    presets=PRESETS,
    compute=compute,
    render=render,
    export=export,
    groups=GROUPS,
)
