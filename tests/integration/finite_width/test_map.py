"""The finite-width map (Xu & Ziyin §4): the phase map against Table 1 as printed and against the
solver's rule cell by cell, the width sweep against independent exact solutions, the power laws
of Fig. 4, the links a click opens (and that they reproduce the clicked network), and timings."""

import dataclasses
import math
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest

from app.views.finite_width import MAP as VIEW
from app.views.finite_width import TRAJECTORY
from app.views.finite_width import map_plots as plots
from app.views.finite_width.map_plots import grid
from solvers import finite_width as fw
from tests.dash_client import payload
from tests.integration.figures import trace
from tests.unit.test_finite_width import PRINTED as PAPER_TABLE_1  # Table 1 as printed
from tests.unit.test_finite_width import WORDS

SPEC = VIEW.spec
PHASES = ("frozen", "kernel", "feature learning", "unstable")


def values(**overrides):
    return SPEC.with_overrides(overrides)


def figures(chosen, result=None):
    """{graph: figure} of every panel."""
    result = VIEW.compute(chosen) if result is None else result
    return {panel.graph: panel.draw(chosen, result) for panel in VIEW.panels}


def cell(result, c_eta, c_gamma):
    """(row, column) of the grid point (c_η, c_γ), which must be on the grid."""
    etas, gammas = result.phases.etas, result.phases.gammas
    column, row = int(np.argmin(np.abs(etas - c_eta))), int(np.argmin(np.abs(gammas - c_gamma)))
    assert etas[column] == c_eta and gammas[row] == c_gamma, (c_eta, c_gamma)
    return row, column


# -- the phase map ---------------------------------------------------------------------------


@pytest.mark.parametrize("resolution", [31, 61, 121])
@pytest.mark.parametrize("scheme", list(PAPER_TABLE_1))
def test_every_table_1_point_lands_in_its_printed_phase(scheme, resolution):
    result = VIEW.compute(values(scheme=scheme, resolution=resolution))
    for c_eta, c_gamma, printed in PAPER_TABLE_1[scheme]:
        code = result.phases.codes[cell(result, c_eta, c_gamma)]
        assert PHASES[code] == WORDS.get(printed, printed), (scheme, c_eta, c_gamma)
    # and the solver's coding of the blocks is the table's
    for block, (c_eta, c_gamma, _) in zip(fw.TABLE_1_BLOCKS, PAPER_TABLE_1[scheme], strict=True):
        assert fw.TABLE_1[scheme][block] == (c_eta, c_gamma)


def test_phases_stated_in_the_paper_text():
    # §4: Chizat et al.'s lazy training, c_γ = 1, c_η = −2, c_u = c_w = 0 at fixed width with a
    # zero initial output, "satisfying the conditions of (18) and (19)": the kernel phase
    result = VIEW.compute(values(scheme="lazy", zero_output="yes"))
    assert result.phases.codes[cell(result, -2.0, 1.0)] == 1
    # Theorem 2 needs P/Q → 1: at fixed width a random initial output does not give it …
    result = VIEW.compute(values(scheme="lazy", zero_output="no"))
    assert result.phases.codes[cell(result, -2.0, 1.0)] == 2
    # … unless the learning rates are unbalanced, c_u + c_ηw ≠ c_w + c_ηu (case 3)
    assert VIEW.compute(values(scheme="lazy", zero_output="no", split=1.0)).left_phase == "kernel"
    # Corollaries 2 and 3, for every scheme (P/Q → 1 for c_d = 1 with independent layers):
    # c_γ = −c_η with c_η ≥ c_d + max(c_u, c_w) learns features; c_γ = −(c_d + max(c_u, c_w)
    # + c_η)/2 with c_η < c_d + max(c_u, c_w) is the kernel phase
    for scheme in ("NTK", "Xavier", "Kaiming"):
        result = VIEW.compute(values(scheme=scheme))
        scaling = fw.SCALINGS[scheme]
        top = scaling["c_d"] + max(scaling["c_u"], scaling["c_w"])
        for c_eta in (top, top + 1.0):
            assert result.phases.codes[cell(result, c_eta, -c_eta)] == 2, scheme
        for c_eta in (top - 1.0, top - 2.0):
            gamma = -(top + c_eta) / 2
            assert result.phases.codes[cell(result, c_eta, gamma)] == 1, scheme


@pytest.mark.parametrize(
    "overrides",
    [
        {"scheme": "NTK"},
        {"scheme": "Kaiming", "zero_output": "yes"},
        {"scheme": "lazy"},
        {"scheme": "lazy", "zero_output": "no", "split": -0.75},
        {"scheme": "Xavier", "split": 1.5},
    ],
)
def test_the_map_is_the_solvers_phase_cell_by_cell(overrides):
    chosen = values(resolution=31, **overrides)
    result = VIEW.compute(chosen)
    scaling = fw.SCALINGS[chosen.scheme]
    zero = chosen.scheme == "lazy" if chosen.zero_output == "table" else chosen.zero_output == "yes"
    half = chosen.split / 2
    heatmap = plots.draw_phase(chosen, result)["data"][0]
    for row, c_gamma in enumerate(result.phases.gammas):
        for column, c_eta in enumerate(result.phases.etas):
            args = (
                scaling["c_d"],
                c_gamma,
                scaling["c_u"],
                scaling["c_w"],
                c_eta + half,
                c_eta - half,
            )
            expected = fw.phase(*args, zero_output_init=zero)
            assert PHASES[result.phases.codes[row, column]] == expected, (c_eta, c_gamma)
            assert heatmap["text"][row][column] == expected  # what the hover says
            m = fw.phase_terms(*args, zero_output_init=zero).m
            assert heatmap["customdata"][row, column] == pytest.approx(m, abs=1e-12)


def test_the_drawn_line_is_m_equals_zero_and_coloured_by_phase():
    for scheme in ("NTK", "Xavier", "Kaiming", "lazy"):
        chosen = values(scheme=scheme)
        result = VIEW.compute(chosen)
        figure = plots.draw_phase(chosen, result)
        scaling = fw.SCALINGS[scheme]
        for curve in (1, 2):
            line = figure["data"][curve]
            phase = line["name"].removeprefix("m = 0: ")
            assert len(line["x"]) > 5
            for c_eta, c_gamma in zip(line["x"], line["y"], strict=True):
                args = (scaling["c_d"], c_gamma, scaling["c_u"], scaling["c_w"], c_eta, c_eta)
                zero = scheme == "lazy"
                assert abs(fw.phase_terms(*args, zero_output_init=zero).m) < 1e-9
                if not math.isclose(c_eta, result.kink):
                    assert fw.phase(*args, zero_output_init=zero) == phase, (scheme, c_eta)
        # the kink is where the two segments meet, at c_γ = −c_η
        assert figure["data"][1]["x"][-1] == figure["data"][2]["x"][0]
        assert figure["data"][2]["y"][0] == pytest.approx(-figure["data"][2]["x"][0])


def test_table_1_points_are_drawn_and_named():
    chosen = values(scheme="Kaiming", others=True)
    figure = figures(chosen)["phase"]
    own = figure["data"][3:7]
    assert [t["name"] for t in own] == [
        "as initialised",
        "stable c_η*",
        "feature-learning pair",
        "kernel pair",
    ]
    points = {(x, y) for t in own for x, y in zip(t["x"], t["y"], strict=True)}
    assert points == {(0.0, 0.0), (-1.0, 0.0), (1.0, -1.0)}
    assert "Kaiming⁻ (c_η = −1, c_γ = 0): <b>kernel</b>" in own[3]["text"]
    others = figure["data"][7]
    assert "NTK" in " ".join(others["text"]) and "another init" in others["name"]
    texts = {a["text"] for a in figure["layout"]["annotations"]}
    assert {"Kaiming* = Kaiming⁻", "Kaiming⁺", "Kaiming"} <= texts
    assert "<b>kernel</b>" in texts and "<b>feature learning</b>" in texts
    plain = figures(values(scheme="Kaiming", labels=False))["phase"]
    assert plain["layout"]["annotations"] == []


def test_the_paper_figures_are_marked_with_their_panel():
    marked = {p.slug: (p.figure, p.panel) for p in VIEW.presets if p.figure}
    assert marked == {
        "fig-4-kernel-and-feature-learning-pairs-d-10-to-1000": ("Fig. 4", "weights"),
        "fig-4-from-a-zero-initial-output": ("Fig. 4", "weights"),
    }


# -- the width sweep ---------------------------------------------------------------------------


@pytest.mark.parametrize(("scheme", "regime"), [("Kaiming", "kernel"), ("NTK", "feature learning")])
def test_sweep_values_are_the_exact_solution_at_long_times(scheme, regime):
    drawn = figures(values(d_min=20, d_max=300, count=7, y=-1.5, seed=11))
    name = f"{scheme}{'⁻' if regime == 'kernel' else '⁺'}:"
    ntk = next(t for t in drawn["ntk"]["data"] if t["name"].startswith(name))
    zeta = trace(drawn["zeta"], name.rstrip(":"))
    weights = next(t for t in drawn["weights"]["data"] if t["name"].startswith(name))
    c_eta, c_gamma = {"Kaiming": (-1.0, 0.0), "NTK": (1.0, -1.0)}[scheme]
    c_u, c_w = {"Kaiming": (-1.0, 0.0), "NTK": (0.0, 0.0)}[scheme]
    column = 3
    d = int(ntk["x"][column])
    assert d == int(np.unique(np.round(np.geomspace(20, 300, 7)))[column])
    u0, W0 = fw.gaussian_init(d, 1, d ** (c_u / 2), d ** (c_w / 2), seed=11)
    kwargs = {"gamma": d**c_gamma, "eta_u": d**c_eta, "eta_w": d**c_eta}
    t_c = fw.exact(u0, W0, np.array([1.0]), -1.5, [0.0], **kwargs).t_c
    path = fw.exact(u0, W0, np.array([1.0]), -1.5, [0.0, 60 * t_c], **kwargs)
    assert zeta["y"][column] == pytest.approx(path.zeta[-1], rel=1e-8)
    assert ntk["y"][column] == pytest.approx(path.ntk_change[-1], rel=1e-8)
    moved = np.linalg.norm(path.W[-1] - W0) / np.linalg.norm(W0)
    assert weights["y"][column] == pytest.approx(moved, rel=1e-7)


@pytest.mark.parametrize(
    "overrides", [{}, {"d_min": 10, "d_max": 10_000, "count": 64}, {"seed": 5, "y": 3.0}]
)
def test_ntk_change_vanishes_in_the_kernel_phase_and_stays_in_feature_learning(overrides):
    chosen = values(**overrides)
    result = VIEW.compute(chosen)
    slopes = dict(zip(result.rows, result.ntk_fits, strict=True))
    for (scheme, regime), slope in slopes.items():
        if regime == "kernel":
            assert slope < -0.5, (scheme, slope)
        else:
            assert abs(slope) < 0.2, (scheme, slope)
    # and the fit is what the legend and the summary say
    fit = np.polyfit(np.log(result.sweep.widths), np.log(result.sweep.ntk_change[0]), 1)[0]
    assert slopes[("NTK", "kernel")] == pytest.approx(fit)
    summary = str(VIEW.facts(chosen, result))
    assert f"NTK⁻ {result.sweep.ntk_change[0, -1]:.2g}" in summary


def test_a_lazy_sweep_falls_back_to_the_width_schemes_with_a_message():
    chosen = values(scheme="lazy", sweep="scheme")
    result = VIEW.compute(chosen)
    assert {s for s, _ in result.rows} == {"NTK", "Xavier", "Kaiming"}
    assert any("no width sweep" in m for m in VIEW.notes(chosen, result))
    only = VIEW.compute(values(scheme="Kaiming", sweep="scheme")).rows
    assert only == [("Kaiming", "kernel"), ("Kaiming", "feature learning")]


def test_the_sweep_widths_are_whole_and_messages_explain_odd_settings():
    chosen = values(d_min=700.4, d_max=12.6, count=5, split=0.5)
    result = VIEW.compute(chosen)
    assert list(result.sweep.widths) == sorted({round(w) for w in np.geomspace(12.6, 700.4, 5)})
    messages = " ".join(VIEW.notes(chosen, result))
    assert "above the largest" in messages and "c_ηu − c_ηw = 1/2" in messages


# -- clicks --------------------------------------------------------------------------------------


def opened(href):
    """(url parts, trajectory controls, embedded?) of a link a click opens."""
    parts = urlsplit(href)
    state = TRAJECTORY.spec.parse_query("?" + parts.query)
    assert state.messages == ()  # nothing clamped: the view shows exactly that network
    return parts, state.controls, state.embed


def reproduced(trajectory_controls):
    """Final ζ and relative NTK change of the trajectory view at those controls (long
    horizon)."""
    chosen = dataclasses.replace(trajectory_controls, horizon=40.0, descent=False)
    run = TRAJECTORY.compute(chosen)
    return run.exact.zeta[-1], run.exact.ntk_change[-1]


def target(graph, point, chosen, page=None, prefix="/"):
    return VIEW.open_target(graph, point, SPEC.to_controls(chosen), page, prefix)


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        (0, {"gamma_rule": "ntk", "sigma_u": 1.0, "sigma_w": 1.0}),  # NTK⁻
        (1, {"gamma_rule": "mf", "sigma_u": 1.0, "sigma_w": 1.0}),  # NTK⁺
        # Xavier⁻: γ = d is beyond the view's γ ≤ 10, so the same network in balanced units
        (2, {"gamma_rule": "free", "gamma": 1.0, "sigma_u": 1.0, "sigma_w": 1.0}),
        (5, {"gamma_rule": "mf", "sigma_w": 1.0}),  # Kaiming⁺: σ_u = 1/√d
    ],
)
def test_a_sweep_click_opens_that_network(row, expected):
    chosen = values(d_min=10, d_max=1000, count=9, y=1.3, seed=4)
    result = VIEW.compute(chosen)
    sweep = result.sweep
    index = 6
    d = int(sweep.widths[index])
    point = {"x": d, "y": 0.5, "curveNumber": row, "pointNumber": index}
    href = target("ntk", point, chosen, {"embed": "1"}, "/x/")
    parts, got, embed = opened(href)
    assert parts.path == "/x" + TRAJECTORY.path and embed
    scheme, regime = result.rows[row]
    c_eta, c_gamma = fw.TABLE_1[scheme][regime]
    scaling = fw.SCALINGS[scheme]
    assert got.d == d and got.seed == 4 and got.y == 1.3 and got.init == "gaussian"
    assert got.eta_ratio == 1.0
    for name, value in expected.items():  # approx only for numbers: pytest ≥ 9.2 refuses text
        wanted = value if isinstance(value, str) else pytest.approx(value, rel=1e-9)
        assert getattr(got, name) == wanted, name
    assert (got.c_d, got.c_gamma, got.c_u, got.c_w) == (
        scaling["c_d"],
        c_gamma,
        scaling["c_u"],
        scaling["c_w"],
    )
    assert got.c_eta_u == got.c_eta_w == c_eta
    # the trajectory there ends where the sweep says (any common learning rate only sets t_c,
    # and the balanced rescaling leaves ζ and the relative NTK change alone)
    zeta, change = reproduced(got)
    assert zeta == pytest.approx(sweep.final_alignment[row, index], rel=1e-7, abs=1e-12)
    assert change == pytest.approx(sweep.ntk_change[row, index], rel=1e-6)
    # the other sweep panels open the same point; the ζ(0) line and wide widths open nothing
    assert target("zeta", point, chosen, {"embed": "1"}, "/x/") == href
    assert target("zeta", point | {"curveNumber": 6}, chosen, {}) is None


def test_a_zero_output_sweep_starts_at_zero_and_its_points_do_not_open():
    chosen = values(d_min=10, d_max=1000, count=9, y=1.3, seed=4, sweep_zero_output=True)
    result = VIEW.compute(chosen)
    random = VIEW.compute(dataclasses.replace(chosen, sweep_zero_output=False))
    assert result.sweep.zero_output_init and not random.sweep.zero_output_init
    # one network by hand: the draw of width d with u projected off W x starts at f = 0
    d = int(result.sweep.widths[4])
    g, G = fw.gaussian_init(d, 1, 1.0, 1.0, seed=4)
    u0 = g - (g @ G[:, 0]) / (G[:, 0] @ G[:, 0]) * G[:, 0]
    kwargs = {"gamma": d**-0.5, "eta_u": 1.0, "eta_w": 1.0}  # NTK⁻
    start = fw.exact(u0, G, np.array([1.0]), 1.3, [0.0], **kwargs)
    path = fw.exact(u0, G, np.array([1.0]), 1.3, [0.0, 1e3 * start.t_c], **kwargs)
    assert abs(start.output[0]) < 1e-12
    moved = np.linalg.norm(path.W[-1] - G) / np.linalg.norm(G)
    assert result.sweep.weight_change[0, 4] == pytest.approx(moved, rel=1e-7)
    assert result.sweep.weight_change[0, 4] != pytest.approx(random.sweep.weight_change[0, 4])
    point = {"x": d, "y": 0.5, "curveNumber": 0, "pointNumber": 4}
    assert target("weights", point, chosen, {}) is None
    assert any("do not open" in m for m in VIEW.notes(chosen, result))
    assert "sweep points do not open" in dict(VIEW.facts(chosen, result))["clicking"]


def test_widths_beyond_the_trajectory_view_do_not_open():
    chosen = values(d_min=100, d_max=10_000, count=5)
    assert target("weights", {"x": 10_000, "curveNumber": 0}, chosen, {}) is None
    href = target("weights", {"x": 1000.0, "curveNumber": 0}, chosen, {})
    assert opened(href)[1].d == 1000  # nearest width to x when no point number
    assert "do not open" in str(VIEW.facts(chosen, VIEW.compute(chosen)))


def test_a_map_click_opens_the_cell_the_line_and_the_points():
    chosen = values(scheme="Kaiming", kappa=400, y=-2.0, seed=9, others=True)
    etas, gammas = grid(chosen)
    # a heatmap cell, by its indices: Kaiming⁻ = (−1, 0) at κ = 400
    row, column = int(np.argmin(np.abs(gammas))), int(np.argmin(np.abs(etas + 1.0)))
    point = {"x": -1.0, "y": 0.0, "curveNumber": 0, "pointNumber": [row, column]}
    _, got, _ = opened(target("phase", point, chosen))
    assert got.d == 400 and got.gamma_rule == "free" and got.gamma == 1.0
    assert got.sigma_u == pytest.approx(400**-0.5) and got.sigma_w == 1.0
    assert (got.c_eta_u, got.c_gamma, got.c_u) == (-1.0, 0.0, -1.0)
    assert got.seed == 9 and got.y == -2.0
    # the same cell from float32 coordinates a little off its centre
    near = {"x": float(np.float32(-1.0 + 0.3 * (etas[1] - etas[0]))), "y": float(np.float32(0.02))}
    assert opened(target("phase", near, chosen))[1] == got
    # a point of the line m = 0 stays on the line
    line = {"x": float(np.float32(-2.3)), "y": 0.6, "curveNumber": 1, "pointNumber": 7}
    _, got, _ = opened(target("phase", line, chosen))
    assert got.c_gamma == pytest.approx(-(1.0 + max(-1.0, 0.0) + round(-2.3, 6)) / 2)
    scaling = fw.SCALINGS["Kaiming"]
    args = (1.0, got.c_gamma, scaling["c_u"], scaling["c_w"], got.c_eta_u, got.c_eta_w)
    assert abs(fw.phase_terms(*args).m) < 1e-9
    # a Table-1 marker: Kaiming⁺ (1, −1), and another scheme's point (NTK = (0, −½)) opens
    # with that scheme's own initialisation
    marker = {"x": 1.0, "y": -1.0, "curveNumber": 5, "pointNumber": 0}
    _, got, _ = opened(target("phase", marker, chosen))
    assert got.gamma_rule == "mf" and got.sigma_u == pytest.approx(0.05)
    others = figures(chosen)["phase"]["data"][7]
    index = next(i for i, text in enumerate(others["text"]) if text.startswith("NTK ("))
    other = {"x": 0.0, "y": -0.5, "curveNumber": 7, "pointNumber": index}
    _, got, _ = opened(target("phase", other, chosen))
    assert got.gamma_rule == "ntk" and got.sigma_u == 1.0 and got.c_u == 0.0


def test_a_lazy_click_keeps_the_width_fixed_and_reproduces_the_cell():
    chosen = values(scheme="lazy", kappa=30, y=0.7)
    # lazy⁻ (c_η = −2, c_γ = 1) at κ = 30: γ = 30, width fixed at 100, zero output assumed
    _, got, _ = opened(target("phase", {"x": -2.0, "y": 1.0, "curveNumber": 0}, chosen))
    assert got.d == 100 and got.zero_output is True and got.c_d == 0.0
    # γ = 30 > 10: the view gets the same network in balanced units, γ/s² = 1, σ = √30
    assert got.gamma == 1.0 and got.sigma_u == pytest.approx(math.sqrt(30))
    u0, W0 = fw.gaussian_init(100, 1, 1.0, 1.0, seed=0)
    kwargs = {"gamma": 30.0, "eta_u": 30.0**-2, "eta_w": 30.0**-2}
    t_c = fw.exact(u0, W0, np.array([1.0]), 0.7, [0.0], **kwargs).t_c
    path = fw.exact(u0, W0, np.array([1.0]), 0.7, [0.0, 40 * t_c], **kwargs)
    zeta, change = reproduced(got)
    assert zeta == pytest.approx(path.zeta[-1], rel=1e-7)
    assert change == pytest.approx(path.ntk_change[-1], rel=1e-6)


def test_kappa_is_rounded_to_a_whole_width():
    chosen = values(scheme="Xavier", kappa=123.4)
    _, got, _ = opened(target("phase", {"x": 0.0, "y": 0.0, "curveNumber": 0}, chosen))
    assert got.d == 123 and got.sigma_u == pytest.approx(123**-0.5)
    assert "κ = 123 (width 123)" in str(VIEW.facts(chosen, VIEW.compute(chosen)))


def test_unrepresentable_and_malformed_clicks_open_nothing():
    chosen = values(kappa=1000)
    # γ = 1000² needs s = 1000 to fit the view, and then σ = 1000 does not
    assert target("phase", {"x": 0.0, "y": 2.0}, chosen) is None
    # a split too large for η_u/η_w ≤ 100 at κ = 1000
    assert target("phase", {"x": 0.0, "y": -1.0}, values(kappa=1000, split=2.0)) is None
    for point in (
        None,
        {},
        {"x": "a", "y": 1},
        {"x": float("nan"), "y": 0.0},
        {"x": 9.0, "y": 0.0},
        {"x": 0.0, "y": 0.0, "curveNumber": 99},
        {"x": 0.0, "y": 0.0, "curveNumber": -1},
        {"x": 0.0, "y": 0.0, "curveNumber": 3, "pointNumber": 50},
        {"x": 0.0, "y": 0.0, "curveNumber": 3, "pointNumber": [1, 2]},
        [1, 2],
    ):
        assert target("phase", point, chosen) is None
        assert target("ntk", point, chosen) is None
    # broken grid indices fall back to the coordinates
    broken = {"x": 0.0, "y": -1.0, "pointNumber": [[1], 2]}
    assert opened(target("phase", broken, chosen))[1].c_gamma == -1.0


def test_the_click_callback_over_http(client, dependencies):
    (callback,) = [d for d in dependencies if d["output"] == f"{VIEW.key}-open.href"]
    chosen = values(scheme="Xavier")
    controls = {
        f"{VIEW.key}-{name}.value": value
        for name, value in zip(SPEC.names, SPEC.to_controls(chosen), strict=True)
    }
    click = {"points": [{"x": 0.0, "y": 0.0, "curveNumber": 0, "pointNumber": [36, 30]}]}
    body = payload(callback, controls | {f"{VIEW.key}-graph-phase.clickData": click})
    body["changedPropIds"] = [f"{VIEW.key}-graph-phase.clickData"]
    answer = client.post("/_dash-update-component", json=body)
    assert answer.status_code == 200
    href = answer.get_json()["response"][f"{VIEW.key}-open"]["href"]
    assert href.startswith(TRAJECTORY.path + "?")
    got = {k: v[0] for k, v in parse_qs(urlsplit(href).query).items()}
    # Xavier as initialised (0, 0) at κ = 100: γ = 1, σ_u = σ_w = 1/10
    assert (got["d"], got["gamma"], got["sigma_u"], got["sigma_w"]) == ("100", "1", "0.1", "0.1")
    body = payload(callback, controls | {f"{VIEW.key}-graph-phase.clickData": {"points": "x"}})
    body["changedPropIds"] = [f"{VIEW.key}-graph-phase.clickData"]
    assert client.post("/_dash-update-component", json=body).status_code in (200, 204)


# -- exports and timings --------------------------------------------------------------------------


def test_exports_hold_the_map_and_every_sweep_row():
    chosen = values(scheme="Kaiming", resolution=31, count=5)
    result = VIEW.compute(chosen)
    tables = VIEW.tables(chosen, result)
    (name,) = [n for n in tables if n.startswith("phase map")]
    assert name == "phase map Kaiming (codes: 0 frozen; 1 kernel; 2 feature learning; 3 unstable)"
    assert tables[name]["phase_code"].size == 31 * 31
    rows = [n for n in tables if n.startswith("width sweep")]
    assert len(rows) == 6 and all(tables[n]["d"].size == 5 for n in rows)
    kernel = tables["width sweep Kaiming⁻ (kernel)"]
    np.testing.assert_array_equal(kernel["ntk_change"], result.sweep.ntk_change[4])


def test_kaiming_kernel_pair_is_one_power_of_d_steeper_than_ntk_in_every_draw():
    """One draw per width makes each fitted δ scatter (the random start's output sets the
    residual that drives the change), but NTK⁻ and Kaiming⁻ share that residual: their δ differ
    by the exact model's 1 in every draw, not by appendix B.4's 3/2."""
    for seed in range(8):
        result = VIEW.compute(VIEW.spec.with_overrides({"sweep": "all", "seed": seed}))
        rows = zip(result.rows, result.weight_fits, strict=True)
        kernel = {s: -fit for (s, r), fit in rows if r == "kernel"}
        assert abs(kernel["Kaiming"] - kernel["NTK"] - 1.0) < 0.15
