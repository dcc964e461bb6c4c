"""Kernel–target alignment under optimal feature evolution (Shan & Bordelon, *Rapid feature
evolution accelerates learning in neural networks*, §4 and Fig. 2)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from dash import html

from solvers import feature_evolution as fe

from .. import components
from .. import figures as fig
from ..state import Field, StateSpec
from ..view import Panel, Preset, Rendered, View, trajectory_tables

#: hard caps that keep one request cheap whatever it asks for
MAX_SAMPLES = 300
CURVE_POINTS = 400
FRAMES = 120
SWEEP_POINTS = 30  #: γ values of the threshold sweep (Fig. 2C–D)
SWEEP_RANGE = (1e-3, 1e3)
#: gradient descent costs ~P³ per step (it updates the P×P kernel): its steps are capped so that
#: steps · (P³ + overhead) stays below this (~10 ms), and never exceed MAX_DESCENT_STEPS
DESCENT_WORK = 1e8
DESCENT_OVERHEAD = 250_000  #: the per-step Python/numpy overhead, in units of P³
MIN_DESCENT_STEPS = 20
MAX_DESCENT_STEPS = 2_000
#: the run stores K (P×P floats) at every recorded step: at most this many bytes of them
DESCENT_STORE_BYTES = 4_000_000
DESCENT_RECORDS = (8, 100)  #: fewest and most recorded steps

SPEC = StateSpec(
    (
        Field(
            "gamma",
            "feature-learning rate γ",
            "float",
            1.0,
            1e-3,
            1e3,
            log=True,
            help="How fast the features Ψ move: γ → 0 freezes the kernel (lazy), large γ is rich",
        ),
        Field(
            "eta",
            "learning rate η",
            "float",
            1.0,
            0.1,
            10.0,
            log=True,
            help="Rescales time only: the flow depends on η·t",
        ),
        Field(
            "a",
            "task-power exponent a  (v_k² ∝ k^−a)",
            "float",
            1.5,
            0.2,
            4.0,
            step=0.05,
            help="How fast the target's power falls off along the kernel's eigenvectors",
        ),
        Field(
            "b",
            "eigenvalue exponent b  (λ_k ∝ k^−b)",
            "float",
            1.2,
            0.0,
            3.0,
            step=0.05,
            help="How fast the initial kernel's eigenvalues fall off",
        ),
        Field(
            "samples",
            "number of samples P",
            "int",
            64,
            8,
            MAX_SAMPLES,
            step=1,
            help=f"Size of the P×P kernel (at most {MAX_SAMPLES})",
        ),
        Field(
            "seed",
            "random seed",
            "int",
            0,
            0,
            99,
            step=1,
            help="Draws the eigenvectors of K₀ and the signs of the target",
        ),
        Field("horizon", "time horizon", "float", 1000.0, 1.0, 1e6, log=True),
        Field("log_time", "logarithmic time axis", "bool", True),
        Field("descent", "show gradient descent (discrete feature evolution)", "bool", True),
        Field("lr", "gradient-descent step size", "float", 0.1, 1e-4, 10.0, log=True),
    )
)

GROUPS = (
    ("Feature learning", ("gamma", "eta")),
    ("Power-law task", ("a", "b", "samples", "seed")),
    ("Time and gradient descent", ("horizon", "log_time", "descent", "lr")),
)

PRESETS = (
    Preset(
        "Fig. 2 — kernel regime (small γ)",
        "γ = 0.01: the kernel barely moves; loss and alignment "
        "stay those of kernel gradient descent.",
        {"gamma": 0.01, "lr": 0.5, "horizon": 1000.0},
    ),
    Preset(
        "Fig. 2 — near the threshold γ*",
        "γ = 0.2: K∞'s top eigenvector turns towards y; A∞ half-way between A₀ and 1.",
        {"gamma": 0.2, "lr": 0.3, "horizon": 1000.0},
    ),
    Preset(
        "Fig. 2 — strong feature learning (large γ)",
        "γ = 30: A → 1 almost at once; an exponential phase, then a power law.",
        {"gamma": 30.0, "lr": 0.005, "horizon": 1000.0},
    ),
    Preset(
        "Fig. 2 A–B — spectra before and after",
        "P = 300, γ = 1: only the top eigenvalue of K∞ "
        "moves, the task power falls off much faster.",
        {"gamma": 1.0, "samples": 300, "descent": False, "horizon": 1e4},
    ),
    Preset(
        "Hard task: flat task power (a = 1.1, b = 2)",
        "Slow kernel gradient descent; feature learning gains the most.",
        {"a": 1.1, "b": 2.0, "gamma": 1.0, "lr": 0.1, "horizon": 1e5},
    ),
    Preset(
        "Easy task: steep task power (a = 3)",
        "The target already sits in the top modes: A₀ is high and γ adds little.",
        {"a": 3.0, "b": 1.2, "gamma": 1.0, "lr": 0.2, "horizon": 100.0},
    ),
)

PANELS = (
    Panel(
        "loss",
        "Loss: feature learning vs a frozen kernel",
        r"$L(t) = \|\Delta(t)\|^2$ for the chosen $\gamma$ and for $\gamma = 0$, kernel gradient "
        r"descent $\Delta' = -\eta K_0\Delta$, $L = \sum_k v_k^2 e^{-2\eta\lambda_k t} \sim "
        r"t^{-(a-1)/b}$. Feature learning speeds learning up: at large $\gamma$ an exponential "
        r"phase $\sim e^{-2\eta c_1 t}$ comes first, then a power law with a better exponent.",
    ),
    Panel(
        "alignment",
        "Kernel–target alignment A(t)",
        r"$A(K, y) = \dfrac{y^\top K y}{\|K\|_F\,\|y\|^2}$ rises from $A_0$ to "
        r"$A_\infty = \dfrac{\gamma\|y\|^4 + y^\top K_0 y}{\|K_0 + \gamma y y^\top\|_F\,\|y\|^2}$ "
        r"(dashed), faster and higher for larger $\gamma$; with $\gamma = 0$ it stays at $A_0$.",
    ),
    Panel(
        "spectrum",
        "Eigenvalues of K₀ and K∞",
        r"Since $C = \gamma\Delta\Delta^\top + K$ is conserved and $\Delta \to 0$, the final "
        r"kernel is $K_\infty = K_0 + \gamma y y^\top$: a rank-one spike that lifts only the top "
        r"eigenvalues; the power-law tail $\lambda_k \propto k^{-b}$ is unchanged (Fig. 2A).",
    ),
    Panel(
        "task",
        "Task power along the eigenvectors",
        r"$v_k^2 = (u_k^\top y)^2$ for the eigenvectors $u_k$ of $K_0$ ($\propto k^{-a}$ by "
        r"construction) and of $K_\infty$: after feature learning the target sits in the top "
        r"modes and the task power falls off much faster (Fig. 2B).",
    ),
    Panel(
        "sweep",
        "Threshold: top eigenvector of K∞ and A∞ against γ",
        r"The overlap $|u_1^\top y|/\|y\|$ of $K_\infty$'s top eigenvector with the target and "
        r"the final alignment $A_\infty$, for $\gamma$ from $10^{-3}$ to $10^{3}$ (Fig. 2C–D). "
        r"Past a threshold $\gamma^*$ (dotted: the overlap half-way to 1) the top eigenvector "
        r"locks onto $y$. The current $\gamma$ is marked.",
        wide=True,
    ),
)

INTRO = (
    r"*Optimal feature evolution*: the features $\Psi$ (kernel $K = \Psi^\top\Psi$) move in the "
    r"direction that most decreases the loss one step ahead. For the residual $\Delta = f - y$ on "
    r"$P$ training points this gives $\Delta' = -\eta K\Delta$ and "
    r"$\Psi' = \gamma\eta\,\Psi\Delta\Delta^\top$, starting from $\Delta(0) = -y$. The matrix "
    r"$C = \gamma\Delta\Delta^\top + K$ is conserved, which solves the flow exactly: with "
    r"$C = O\,\mathrm{diag}(c)\,O^\top$,"
    "\n\n"
    r"$$\Delta(t) = \dfrac{e^{-\eta Ct}\Delta_0}{\sqrt{1 - 2\eta\gamma\,\Delta_0^\top\int_0^t "
    r"e^{-2\eta Cs}\,ds\,\Delta_0}}, \qquad K(t) = C - \gamma\Delta\Delta^\top, \qquad "
    r"K_\infty = K_0 + \gamma yy^\top.$$"
    "\n\n"
    r"The task is a power law: $K_0$ has eigenvalues $\lambda_k = k^{-b}$ and the target has "
    r"power $v_k^2 = k^{-a}$ along them. Every curve is the exact solution; open circles are the "
    r"discrete updates $\Delta \leftarrow \Delta - \mathrm{lr}\,\eta K\Delta$, "
    r"$K \leftarrow (I + \mathrm{lr}\,\gamma\eta\Delta\Delta^\top)K(I + \mathrm{lr}\,\gamma\eta"
    r"\Delta\Delta^\top)$."
)


# -- computing ----------------------------------------------------------------------------


def task(values: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """(K₀, y) of the power-law task."""
    return fe.power_law_task(values["samples"], values["a"], values["b"], values["seed"])


def descent_cap(samples: int) -> int:
    """Most gradient-descent steps for P samples (each step costs ~P³)."""
    cap = int(DESCENT_WORK // (samples**3 + DESCENT_OVERHEAD))
    return min(max(cap, MIN_DESCENT_STEPS), MAX_DESCENT_STEPS)


def descent_every(steps: int, samples: int) -> int:
    """Record every n-th step so that the stored kernels stay below DESCENT_STORE_BYTES."""
    records = DESCENT_STORE_BYTES // (8 * samples**2)
    records = min(max(records, DESCENT_RECORDS[0]), DESCENT_RECORDS[1])
    return max(1, math.ceil(steps / records))


def times(values: Mapping[str, Any], top_rate: float) -> np.ndarray:
    """Plot times; on a log axis they start early enough to show the alignment rise, which
    happens at t ~ 1/(η c₁) with c₁ the top eigenvalue of K∞."""
    horizon = values["horizon"]
    if not values["log_time"]:
        return fig.plot_times(horizon, False, CURVE_POINTS)
    start = min(horizon * 1e-4, 0.01 / (values["eta"] * top_rate))
    return np.geomspace(max(start, horizon * 1e-10), horizon, CURVE_POINTS)


def eigen(kernel: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues (descending) of a kernel and the target's components v_k = u_kᵀy."""
    values, vectors = np.linalg.eigh(kernel)
    return values[::-1], (vectors.T @ y)[::-1]


def sweep_overlap(
    eigenvalues: np.ndarray, components: np.ndarray, gammas: np.ndarray
) -> np.ndarray:
    """|u₁ᵀy|/‖y‖ for the top eigenvector u₁ of K₀ + γyyᵀ, for each γ, from K₀'s eigenpairs.

    In K₀'s eigenbasis the top eigenvalue is λ₁ + d with d > 0 solving the secular equation
    1 = γ Σ_k v_k²/(d + λ₁ − λ_k), and u₁ ∝ (d + λ₁ − λ_k)⁻¹ v_k. The equation is solved by
    bisection on log d (d ∈ (0, γ‖y‖²]): O(P) per γ instead of an O(P³) eigendecomposition.
    """
    gaps = np.maximum(eigenvalues[0] - eigenvalues, 0.0)
    power = components**2
    total = float(np.sum(power))
    gammas = np.asarray(gammas, dtype=float)
    high = np.log(gammas * total) + 1e-12
    low = high - 760.0
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        for _ in range(100):
            middle = 0.5 * (low + high)
            spread = np.exp(middle)[:, None] + gaps[None, :]
            below = gammas * np.sum(power / spread, axis=1) > 1.0  # root lies above
            low, high = np.where(below, middle, low), np.where(below, high, middle)
        vector = components / (np.exp(high)[:, None] + gaps[None, :])
        overlap = np.abs(vector @ components) / (np.linalg.norm(vector, axis=1) * math.sqrt(total))
    return np.nan_to_num(np.minimum(overlap, 1.0))


def sweep_alignment(K0: np.ndarray, y: np.ndarray, gammas: np.ndarray) -> np.ndarray:
    """A∞(γ) = (γ‖y‖⁴ + yᵀK₀y)/(‖K₀ + γyyᵀ‖_F‖y‖²) from three scalars."""
    y_sq, y_k_y, frobenius = float(y @ y), float(y @ K0 @ y), float(np.sum(K0 * K0))
    norm = np.sqrt(frobenius + 2 * gammas * y_k_y + gammas**2 * y_sq**2)
    return (gammas * y_sq**2 + y_k_y) / (norm * y_sq)


def threshold(gammas: np.ndarray, overlap: np.ndarray, start: float) -> float | None:
    """γ* where the overlap first passes half-way from its γ → 0 value to 1 (None if it
    starts there)."""
    level = 0.5 * (start + 1.0)
    if start > 0.98 or overlap[-1] < level:
        return None
    index = int(np.argmax(overlap >= level))
    if index == 0:
        return float(gammas[0])
    x0, x1 = np.log(gammas[index - 1]), np.log(gammas[index])
    y0, y1 = overlap[index - 1], overlap[index]
    return float(np.exp(x0 + (level - y0) * (x1 - x0) / (y1 - y0)))


def kernel_descent_time(
    loss: float, eigenvalues: np.ndarray, components: np.ndarray, eta: float
) -> float:
    """Time kernel gradient descent (γ = 0) needs to reach ``loss``: L(t) = Σ v_k² e^{−2ηλ_k t}."""
    power = components**2
    total = float(np.sum(power))
    smallest = float(eigenvalues[-1])
    if loss >= total:
        return 0.0
    if loss <= 0 or smallest <= 0:
        return math.inf
    low, high = -30.0, math.log(math.log(total / loss) / (2 * eta * smallest)) + 1e-9
    rates = 2 * eta * eigenvalues
    with np.errstate(under="ignore"):
        for _ in range(100):
            middle = 0.5 * (low + high)
            if float(np.sum(power * np.exp(-rates * math.exp(middle)))) > loss:
                low = middle
            else:
                high = middle
    return math.exp(high)


def _trajectory(run) -> dict[str, np.ndarray]:
    return {"t": run.t, "loss": run.loss, "alignment": run.alignment, "residual": run.residual}


def compute(values: Mapping[str, Any]) -> dict:
    K0, y = task(values)
    gamma, eta = values["gamma"], values["eta"]
    final = fe.final_kernel(K0, y, gamma)
    lam0, v0 = eigen(K0, y)
    lam_final, v_final = eigen(final, y)
    t = times(values, float(lam_final[0]))
    rich = fe.exact(K0, y, t, eta=eta, gamma=gamma)
    lazy = fe.kernel_gradient_descent(K0, y, t, eta=eta)
    gammas = np.geomspace(*SWEEP_RANGE, SWEEP_POINTS)
    overlap = sweep_overlap(lam0, v0, gammas)
    overlap_start = float(abs(v0[0]) / np.linalg.norm(y))
    result = {
        "exact": _trajectory(rich),
        "kernel": _trajectory(lazy),
        "A0": fe.final_alignment(K0, y, 0.0),
        "A_inf": fe.final_alignment(K0, y, gamma),
        "spectrum": {"K0": lam0, "K_inf": lam_final, "v0": v0**2, "v_inf": v_final**2},
        "overlap": float(abs(v_final[0]) / np.linalg.norm(y)),
        "sweep": {
            "gamma": gammas,
            "overlap": overlap,
            "A_inf": sweep_alignment(K0, y, gammas),
            "overlap_start": overlap_start,
            "threshold": threshold(gammas, overlap, overlap_start),
        },
        "catch_up": kernel_descent_time(float(rich.loss[-1]), lam0, v0, eta),
        "stable_lr": 0.5
        * min(1.0 / (eta * gamma * float(y @ y)), 2.0 / (eta * float(lam_final[0]))),
        "descent": None,
    }
    if values["descent"]:
        lr, samples = values["lr"], values["samples"]
        wanted = max(1, math.ceil(values["horizon"] / lr))
        cap = descent_cap(samples)
        steps = min(wanted, cap)
        run = fe.gradient_descent(
            K0, y, lr, steps, eta=eta, gamma=gamma, every=descent_every(steps, samples)
        )
        # keep what is drawn and exported; the stored kernels (records × P × P) are dropped
        result["descent"] = _trajectory(run) | {
            "diverged_at": run.diverged_at,
            "steps": steps,
            "capped": wanted > cap,
            "cap": cap,
        }
    return result


# -- figures ------------------------------------------------------------------------------


def _floor(*curves: np.ndarray) -> float:
    """A log axis cannot show 0; below ~1e-30 of the start only rounding is left."""
    return 1e-30 * max(float(np.max(curve)) for curve in curves)


def _decade_ticks(values: np.ndarray, floor: float) -> dict:
    """One tick per decade when the values span at least two (plotly labels 2 and 5 otherwise)."""
    shown = np.maximum(values, floor)
    return {"dtick": 1} if np.log10(np.max(shown) / np.min(shown)) >= 2 else {}


def _shown_descent(descent: dict, log_time: bool) -> np.ndarray:
    """Which recorded steps to draw: not t = 0 on a log axis, and a diverged run only until its
    loss blows up (its last finite values would squash the loss axis)."""
    shown = descent["t"] > 0 if log_time else np.ones(descent["t"].size, dtype=bool)
    if descent["diverged_at"] is not None:
        shown &= np.cumprod(descent["loss"] <= 1e3 * descent["loss"][0]).astype(bool)
    return shown


def _descent_label(values: Mapping[str, Any], descent: dict) -> str:
    label = f"gradient descent, lr = {values['lr']:g}"
    if descent["capped"]:
        label += f" (first {descent['steps']:,} steps)"
    return label


def render(values: Mapping[str, Any], result: dict) -> Rendered:
    exact, kernel, descent = result["exact"], result["kernel"], result["descent"]
    t = exact["t"]
    log_time = values["log_time"]
    gamma = values["gamma"]
    messages = []
    if descent is not None and descent["diverged_at"] is not None:
        messages.append(
            f"Gradient descent diverged at step {descent['diverged_at']} "
            f"(t = {descent['diverged_at'] * values['lr']:.3g}): step size {values['lr']:g} is too "
            f"large for γ = {gamma:g}; below about {result['stable_lr']:.2g} it stays stable. "
            "Its markers stop where it blows up."
        )
    rich_label, lazy_label = f"γ = {gamma:g}", "γ = 0 (kernel gradient descent)"
    shown = _shown_descent(descent, log_time) if descent is not None else None

    # loss
    floor = _floor(exact["loss"], kernel["loss"])
    loss_data = [
        fig.exact_trace(t, np.maximum(kernel["loss"], floor), lazy_label, fig.COLORS["kernel"]),
        fig.exact_trace(t, np.maximum(exact["loss"], floor), rich_label, fig.COLORS["exact"]),
    ]
    if descent is not None:
        loss_data.append(
            fig.descent_trace(
                descent["t"][shown],
                np.maximum(descent["loss"][shown], floor),
                _descent_label(values, descent),
            )
        )
    loss_data.append(fig.cursor_point(float(t[0]), float(max(exact["loss"][0], floor))))
    loss_figure = fig.figure(
        loss_data,
        y_title="loss ‖Δ‖²",
        log_x=log_time,
        log_y=True,
        shapes=[fig.cursor_line(float(t[0]))],
    )

    # alignment
    ends = [float(t[0]), float(t[-1])]
    alignment_data = [
        fig.exact_trace(t, kernel["alignment"], lazy_label, fig.COLORS["kernel"]),
        fig.exact_trace(
            ends, [result["A_inf"]] * 2, "A∞", fig.COLORS["feature"], dash="dash", width=1.5
        ),
        fig.exact_trace(t, exact["alignment"], rich_label, fig.COLORS["exact"]),
    ]
    if descent is not None:
        alignment_data.append(
            fig.descent_trace(
                descent["t"][shown], descent["alignment"][shown], _descent_label(values, descent)
            )
        )
    alignment_data.append(fig.cursor_point(float(t[0]), float(exact["alignment"][0])))
    alignment_figure = fig.figure(
        alignment_data,
        y_title="alignment A(t)",
        log_x=log_time,
        shapes=[fig.cursor_line(float(t[0]))],
        yaxis=fig.axis("alignment A(t)", range=[0, 1.05]),
    )

    # spectra
    spectrum = result["spectrum"]
    rank = np.arange(1, spectrum["K0"].size + 1)
    eigen_floor = _floor(spectrum["K_inf"])
    spectrum_figure = fig.figure(
        [
            fig.exact_trace(
                rank, np.maximum(spectrum["K0"], eigen_floor), "K₀", fig.COLORS["kernel"]
            ),
            fig.exact_trace(
                rank,
                np.maximum(spectrum["K_inf"], eigen_floor),
                f"K∞ = K₀ + γyyᵀ, γ = {gamma:g}",
                fig.COLORS["exact"],
            ),
        ],
        x_title="rank k",
        y_title="eigenvalue λ_k",
        log_x=True,
        yaxis=fig.axis("eigenvalue λ_k", log=True, **_decade_ticks(spectrum["K_inf"], eigen_floor)),
    )
    power_floor = _floor(spectrum["v0"], spectrum["v_inf"])
    task_figure = fig.figure(
        [
            fig.exact_trace(
                rank, np.maximum(spectrum["v0"], power_floor), "before (K₀)", fig.COLORS["kernel"]
            ),
            fig.exact_trace(
                rank, np.maximum(spectrum["v_inf"], power_floor), "after (K∞)", fig.COLORS["exact"]
            ),
        ],
        x_title="rank k",
        y_title="task power v_k²",
        log_x=True,
        log_y=True,
    )

    # γ sweep
    sweep = result["sweep"]
    sweep_data = [
        fig.exact_trace(
            sweep["gamma"],
            sweep["overlap"],
            "top-eigenvector overlap |u₁ᵀy|/‖y‖",
            fig.COLORS["exact"],
        ),
        fig.exact_trace(
            sweep["gamma"], sweep["A_inf"], "final alignment A∞", fig.COLORS["feature"]
        ),
    ]
    if sweep["threshold"] is not None:
        star = sweep["threshold"]
        sweep_data.append(
            fig.exact_trace(
                [star, star], [0, 1], f"threshold γ* ≈ {star:.2g}", "#555555", dash="dot", width=1.2
            )
        )
    sweep_data.append(
        {
            "type": "scatter",
            "mode": "markers",
            "x": [gamma, gamma],
            "y": [result["overlap"], result["A_inf"]],
            "name": f"current γ = {gamma:g}",
            "hovertemplate": "%{y:.4g}<extra>γ = %{x:.3g}</extra>",
            "marker": {
                "size": 10,
                "color": fig.COLORS["cursor"],
                "line": {"color": "#22313f", "width": 1.5},
            },
        }
    )
    current = {
        "type": "line",
        "xref": "x",
        "yref": "paper",
        "x0": gamma,
        "x1": gamma,
        "y0": 0,
        "y1": 1,
        "line": {"color": fig.COLORS["cursor"], "width": 2},
    }
    sweep_figure = fig.figure(
        sweep_data,
        x_title="feature-learning rate γ",
        y_title="overlap, alignment",
        log_x=True,
        shapes=[current],
        height=300,
        yaxis=fig.axis("overlap, alignment", range=[0, 1.05]),
    )

    figures = {
        "loss": loss_figure,
        "alignment": alignment_figure,
        "spectrum": spectrum_figure,
        "task": task_figure,
        "sweep": sweep_figure,
    }
    index = fig.thin(len(t), FRAMES)
    frames = {
        "t": fig.rounded(t[index]),
        "order": [p.graph for p in PANELS],
        "cursor": {
            "loss": {
                "x": fig.rounded(t[index]),
                "y": fig.rounded(np.maximum(exact["loss"][index], floor)),
            },
            "alignment": {"x": fig.rounded(t[index]), "y": fig.rounded(exact["alignment"][index])},
        },
        # plotly.js places shapes on a log axis by data value, not by its log
        "lines": {name: fig.rounded(t[index]) for name in ("loss", "alignment")},
    }
    return Rendered(
        figures=figures, summary=_summary(values, result), messages=messages, frames=frames
    )


def _speed_up(values: Mapping[str, Any], result: dict) -> str:
    rich, lazy = result["exact"]["loss"][-1], result["kernel"]["loss"][-1]
    horizon = result["exact"]["t"][-1]
    text = f"{rich:.3g} with γ = {values['gamma']:g}, {lazy:.3g} with γ = 0"
    if rich > 0:
        text += f" ({lazy / rich:.3g}× lower)"
    catch_up = result["catch_up"]
    if math.isinf(catch_up):
        return text + "; kernel gradient descent never gets there in floating point"
    if catch_up > horizon:
        text += (
            f"; kernel gradient descent needs t ≈ {catch_up:.3g} to get there, "
            f"{catch_up / horizon:.3g}× longer"
        )
    return text


def _summary(values: Mapping[str, Any], result: dict) -> html.Dl:
    sweep = result["sweep"]
    star = sweep["threshold"]
    items = [
        (
            "what γ is",
            "the feature-learning rate: how fast the features (and so the kernel) move "
            "relative to the function — γ → 0 is a frozen kernel (lazy), large γ pulls K "
            "towards yyᵀ (rich).",
        ),
        ("alignment A₀ → A∞", f"{result['A0']:.3f} → {result['A_inf']:.3f}"),
        (
            "overlap of K∞'s top eigenvector with y",
            f"{result['overlap']:.3f} (γ → 0: {sweep['overlap_start']:.3f}"
            + (f"; threshold γ* ≈ {star:.2g})" if star is not None else ")"),
        ),
        (f"loss at t = {result['exact']['t'][-1]:.3g}", _speed_up(values, result)),
    ]
    descent = result["descent"]
    if descent is not None:
        steps, lr = descent["steps"], values["lr"]
        text = f"{steps:,} steps of size {lr:g}, to t = {steps * lr:.3g}"
        if descent["diverged_at"] is not None:
            stop = descent["diverged_at"]
            text = (
                f"diverged at step {stop:,} (t = {stop * lr:.3g}) of {steps:,} steps of size {lr:g}"
            )
        if descent["capped"]:
            text += (
                f" — limited to {descent['cap']:,} steps for P = {values['samples']} (each step "
                "updates the P×P kernel), so it stops before the horizon"
            )
        items.append(("gradient descent", text))
    return components.facts(items)


def export(values: Mapping[str, Any], result: dict) -> dict[str, dict[str, np.ndarray]]:
    columns = ("t", "loss", "alignment", "residual")
    return trajectory_tables(
        columns,
        {
            f"exact gamma={values['gamma']:g}": result["exact"],
            "kernel gradient descent gamma=0": result["kernel"],
            "gradient descent": result["descent"],
        },
    )


VIEW = View(
    key="kernel-alignment",
    path="/kernel-alignment",
    title="Kernel–target alignment under optimal feature evolution",
    nav_title="Kernel alignment",
    summary=(
        "Let the features move as fast as γ allows: the kernel aligns with the target "
        "(A₀ → A∞), its top eigenvector locks onto y past a threshold γ*, and the power-law "
        "loss of kernel gradient descent is beaten by an exponential phase."
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
