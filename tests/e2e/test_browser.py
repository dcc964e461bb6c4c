"""Every view in a real browser: loads cleanly, reacts to each kind of control, restores from a
copied link, embeds without chrome, loads presets, plays, and downloads the solver's numbers."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest

from app.views import VIEWS
from solvers import feature_evolution as fe
from solvers import finite_width as fw
from solvers import lambda_balanced as lb
from solvers import networks as nw
from solvers import single_neuron as sn
from tests.e2e.conftest import screenshot

pytestmark = pytest.mark.e2e
VIEW_IDS = [view.key for view in VIEWS]
VIEWS_BY_KEY = {view.key: view for view in VIEWS}
ANIMATED = [view for view in VIEWS if view.animated]
TIMEOUT = 20_000  # ms


def graph_selector(view, panel) -> str:
    return f"#{view.key}-graph-{panel.graph} .js-plotly-plot"


#: a state of each view with background jobs that stays light (answered within the request)
#: whatever one control does to it: tests that move every control start there
LIGHT = {"networks-map": {"resolution": 4, "steps": 100, "n_test": 40}}


def light_controls(view):
    """The view's defaults, made light where the defaults are a background job."""
    return view.spec.with_overrides(LIGHT.get(view.key, {}))


def light(view) -> str:
    """The query of :func:`light_controls` (empty for the defaults)."""
    values = LIGHT.get(view.key)
    return "?" + "&".join(f"{name}={value}" for name, value in values.items()) if values else ""


def open_view(page, base: str, view, query: str = ""):
    page.goto(f"{base}{view.path}{query}")
    wait_for_graphs(page, view)


def wait_for_graphs(page, view) -> None:
    selectors = [graph_selector(view, panel) for panel in view.panels]
    page.wait_for_function(
        """selectors => selectors.every(s => { const g = document.querySelector(s);
               return g && g._fullData && g._fullData.length > 0; })""",
        arg=selectors,
        timeout=TIMEOUT,
    )


def signature(page, view) -> str:
    """Everything the figures show (data and axis types), as one string."""
    selectors = [graph_selector(view, panel) for panel in view.panels]
    return page.evaluate(
        """selectors => selectors.map(s => { const g = document.querySelector(s);
               const axis = g.layout.xaxis ? g.layout.xaxis.type : '';
               const notes = JSON.stringify(g.layout.annotations || []);
               return JSON.stringify(g.data) + axis + notes; }).join('|')""",
        selectors,
    )


def query(page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def wait_for_no_job(page, view, timeout_ms: int = 60_000) -> None:
    """Until no background job of the view is running (its progress bar is hidden)."""
    page.wait_for_function(
        "id => { const bar = document.getElementById(id); return !bar || bar.hidden; }",
        arg=f"{view.key}-job-bar",
        timeout=timeout_ms,
    )


def wait_for_change(page, view, before: str, what: str) -> None:
    deadline = 60
    for _ in range(deadline):
        page.wait_for_timeout(250)
        if signature(page, view) != before:
            return
    raise AssertionError(f"the plots did not change after {what}")


def move(page, view, spec) -> None:
    """Change one control the way a user would (keyboard on sliders, clicks on the rest)."""
    ident = f"#{view.key}-{spec.name}"
    if spec.kind in ("float", "int"):
        thumb = page.locator(f"{ident} [role=slider]")
        thumb.focus()
        now = float(thumb.get_attribute("aria-valuenow"))
        high = float(thumb.get_attribute("aria-valuemax"))
        low = float(thumb.get_attribute("aria-valuemin"))
        key = "PageUp" if now < (low + high) / 2 else "PageDown"
        thumb.press(key)
        thumb.press(key)
    elif spec.kind == "choice":
        current = page.locator(f"{ident} input:checked").get_attribute("value")
        options = page.locator(f"{ident} input")
        for index in range(options.count()):
            if options.nth(index).get_attribute("value") != current:
                options.nth(index).check()
                break
    else:
        page.locator(f"{ident} input").click()


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_view_loads_without_console_errors(page, live_server, view):
    open_view(page, live_server, view)
    page.wait_for_timeout(500)  # let MathJax and late callbacks finish
    assert page.locator(".site-header").count() == 1
    assert page.locator(".message").count() == 0
    screenshot(page, view.key)


@pytest.mark.slow
@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_every_control_updates_the_link_and_each_kind_changes_the_plots(page, live_server, view):
    open_view(page, live_server, view, light(view))
    changed_kinds, kinds = set(), {("log" if s.log else s.kind) for s in view.spec.fields}
    for spec in view.spec.fields:
        kind = "log" if spec.log else spec.kind
        # a change of the map before may have started a background job; a display switch
        # (labels) waits for it, so the plots would not change within the window below
        wait_for_no_job(page, view)
        before, link_before = signature(page, view), query(page)
        move(page, view, spec)
        for _ in range(40):
            page.wait_for_timeout(250)
            if query(page).get(spec.name) != link_before.get(spec.name):
                break
        else:
            raise AssertionError(f"{spec.name}: the link did not change")
        for _ in range(20):
            if signature(page, view) != before:
                changed_kinds.add(kind)
                break
            page.wait_for_timeout(250)
    assert changed_kinds == kinds, f"no control of kind {kinds - changed_kinds} changed the plots"


def test_the_link_follows_the_controls_in_place_and_back_leaves_the_view(page, live_server):
    """The address bar follows each change without a history entry of its own: Back from the
    next view returns to this one as it was left, not to its previous slider positions (nor,
    from a bare link, to the same view)."""
    view, other = VIEWS_BY_KEY["finite-width"], VIEWS_BY_KEY["lambda-balanced"]
    open_view(page, live_server, view)  # a bare link: the page writes the whole state
    page.wait_for_function("() => window.location.search.length > 1", timeout=TIMEOUT)
    entries = page.evaluate("history.length")
    spec = next(s for s in view.spec.fields if s.kind == "float" and not s.log and s.physics)
    for _ in range(2):
        before, value_before = signature(page, view), query(page).get(spec.name)
        move(page, view, spec)
        wait_for_change(page, view, before, f"a step of {spec.name}")
        page.wait_for_function(
            "([name, old]) => new URLSearchParams(location.search).get(name) !== old",
            arg=[spec.name, value_before],
            timeout=TIMEOUT,
        )
    # the link of the last press (its answer can come after the plots first change)
    page.wait_for_function(
        """([name, id]) => {
            const now = document.querySelector(id).getAttribute('aria-valuenow');
            return Number(new URLSearchParams(location.search).get(name)) === Number(now); }""",
        arg=[spec.name, f"#{view.key}-{spec.name} [role=slider]"],
        timeout=TIMEOUT,
    )
    assert page.evaluate("history.length") == entries
    left = page.url
    page.locator(f".site-header a[href='{other.path}']").first.click()
    wait_for_graphs(page, other)
    page.wait_for_function("() => window.location.search.length > 1", timeout=TIMEOUT)
    page.go_back()
    wait_for_graphs(page, view)
    assert page.url == left
    moved = query(page)[spec.name]
    thumb = page.locator(f"#{view.key}-{spec.name} [role=slider]")
    assert math.isclose(float(thumb.get_attribute("aria-valuenow")), float(moved), rel_tol=1e-9)


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_typed_value_in_a_slider_box(page, live_server, view):
    spec = next(s for s in view.spec.fields if s.kind == "float" and not s.log)
    open_view(page, live_server, view)
    box = page.locator(f"#{view.key}-{spec.name} input[type=number]")
    target = spec.low + 0.3 * (spec.high - spec.low)
    if spec.step:
        target = round(target / spec.step) * spec.step
    box.fill(f"{target:g}")
    box.press("Enter")
    for _ in range(40):
        page.wait_for_timeout(250)
        if math.isclose(
            float(query(page).get(spec.name, "nan")), target, rel_tol=1e-6, abs_tol=1e-9
        ):
            return
    raise AssertionError(f"typing {target:g} did not reach the link: {query(page).get(spec.name)}")


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_copied_link_restores_the_view(browser, page, live_server, view):
    preset = view.presets[-1]
    values = view.spec.with_overrides(preset.values)
    open_view(page, live_server, view, view.spec.encode(values))
    link, shown = page.url, signature(page, view)
    other = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    try:
        open_view(other, live_server, view, "?" + urlparse(link).query)
        assert signature(other, view) == shown
        assert view.parse_link(urlparse(other.url).query).controls == values
        for spec in view.spec.fields:
            if spec.kind in ("float", "int") and not spec.log:
                thumb_value = float(
                    other.locator(f"#{view.key}-{spec.name} [role=slider]").get_attribute(
                        "aria-valuenow"
                    )
                )
                wanted = getattr(values, spec.name)
                assert math.isclose(thumb_value, wanted, rel_tol=1e-9, abs_tol=1e-9), spec.name
    finally:
        other.context.close()


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_embed_mode_has_no_chrome(page, live_server, view):
    open_view(page, live_server, view, "?embed=1")
    assert page.locator(".site-header").count() == 0
    assert page.locator(".site-footer").count() == 0
    assert page.locator(".graph-card .explanation").count() == 0
    assert query(page).get("embed") == "1"  # the mode survives the link's rewriting
    screenshot(page, f"{view.key}-embed")


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
def test_preset_loads_with_its_caption(page, live_server, view):
    open_view(page, live_server, view)
    # the first preset that changes something (a map's defaults may be a paper figure)
    preset = next(
        p for p in view.presets if view.spec.with_overrides(p.values) != view.spec.defaults()
    )
    before = signature(page, view)
    page.locator(f"#{view.key}-preset").click()
    page.get_by_text(preset.name, exact=True).click()
    page.wait_for_function(
        "([id, text]) => document.getElementById(id).textContent === text",
        arg=[f"{view.key}-preset-caption", preset.caption],
        timeout=TIMEOUT,
    )
    expected = view.spec.with_overrides(preset.values)
    for _ in range(40):
        shown = view.parse_link(urlparse(page.url).query).controls
        if shown == expected:
            break
        page.wait_for_timeout(250)
    assert shown == expected
    wait_for_change(page, view, before, f"preset {preset.name!r}")


#: where the play bar's cursors are: overlays on 2-D plots, data on 3-D scenes and matrices
CURSORS = """key => Array.from(
        document.querySelectorAll(`[id^="${key}-graph-"] .js-plotly-plot`)).map(gd => {
    const marks = Array.from(gd.querySelectorAll('.time-line, .time-dot')).map(m => m.style.left);
    const data = (gd.data || []).filter(t => t.uid === 'cursor')
        .map(t => JSON.stringify(t.z || t.x));
    return marks.concat(data).join(','); }).join('|')"""


@pytest.mark.parametrize("view", ANIMATED, ids=[view.key for view in ANIMATED])
def test_play_advances_time(page, live_server, view):
    open_view(page, live_server, view)
    label = page.locator(f"#{view.key}-frame-label")
    start, cursors = label.text_content(), page.evaluate(CURSORS, view.key)
    page.locator(f"#{view.key}-play").click()
    page.wait_for_function(
        "([id, text]) => document.getElementById(id).textContent !== text",
        arg=[f"{view.key}-frame-label", start],
        timeout=TIMEOUT,
    )
    assert page.locator(f"#{view.key}-play").text_content().strip().endswith("Pause")
    page.wait_for_timeout(300)
    assert page.evaluate(CURSORS, view.key) != cursors  # the cursors moved through the plots
    page.locator(f"#{view.key}-play").click()
    page.wait_for_timeout(300)
    paused = label.text_content()
    page.wait_for_timeout(600)
    assert label.text_content() == paused
    assert page.locator(f"#{view.key}-play").text_content().strip().endswith("Play")
    assert int(query(page)["frame"]) > 0  # the animation's position is part of the link


#: the matrix of a plot's animated trace (uid "cursor") as the browser draws it
MATRIX = """([selector]) => { const g = document.querySelector(selector);
    const trace = g._fullData.find(t => t.uid === 'cursor' && t.type === 'heatmap');
    return trace ? JSON.stringify(Array.from(trace.z, row => Array.from(row))) : null; }"""


@pytest.mark.parametrize(
    "view, graph",
    [(VIEWS_BY_KEY["lambda-balanced"], "function"), (VIEWS_BY_KEY["networks"], "function")],
    ids=["lambda-balanced", "networks"],
)
def test_scrubbing_redraws_the_animated_matrices(page, live_server, view, graph):
    open_view(page, live_server, view)
    selector = f"#{view.key}-graph-{graph} .js-plotly-plot"
    before = page.evaluate(MATRIX, [selector])
    assert before is not None
    thumb = page.locator(f"#{view.key}-frame [role=slider]")
    thumb.focus()
    thumb.press("End")
    page.wait_for_function(
        f"([selector, before]) => ({MATRIX})([selector]) !== before",
        arg=[selector, before],
        timeout=TIMEOUT,
    )


def _read_csv(text: str) -> dict[str, dict[str, np.ndarray]]:
    rows = [row for row in csv.reader(io.StringIO(text)) if row and not row[0].startswith("#")]
    tables: dict[str, dict[str, list]] = {}
    header = None
    for row in rows:
        if row[0] == "method":
            header = row[1:]
            continue
        table = tables.setdefault(row[0], {name: [] for name in header})
        for name, value in zip(header, row[1:], strict=True):
            table[name].append(float(value))
    return {m: {k: np.array(v) for k, v in t.items()} for m, t in tables.items()}


def _single_neuron_expected(values, t):
    eta_a = math.sqrt(values["eta_ratio"])
    theta0, theta = math.radians(values["init_angle"]), math.radians(values["target_angle"])
    a0, w0 = sn.init_from_norm_delta(
        values["tau"] ** 2,
        values["delta"],
        [math.cos(theta0), math.sin(theta0)],
        eta_a=eta_a,
        eta_w=1 / eta_a,
        sign=values["sign"],
    )
    target = values["target_norm"] * np.array([math.cos(theta), math.sin(theta)])
    path = sn.exact(a0, w0, target, t, eta_a=eta_a, eta_w=1 / eta_a)
    return {
        "a": path.a,
        "w_1": path.w[:, 0],
        "w_2": path.w[:, 1],
        "loss": path.loss,
        "kernel_distance": path.kernel_distance,
    }


def _flatten(table: dict) -> dict[str, np.ndarray]:
    """Name matrix columns as the CSV does (w → w_1, w_2, …)."""
    out = {}
    for name, values in table.items():
        values = np.asarray(values, dtype=float)
        if values.ndim == 1:
            out[name] = values
        else:
            flat = values.reshape(values.shape[0], -1)
            out.update({f"{name}_{i + 1}": flat[:, i] for i in range(flat.shape[1])})
    return out


def _finite_width_expected(values, t):
    assert values["init"] == "gaussian" and values["gamma_rule"] == "mf"  # the defaults
    u0, W0 = fw.gaussian_init(
        values["d"], values["d0"], values["sigma_u"], values["sigma_w"], values["seed"]
    )
    x = np.full(values["d0"], values["x_norm"] / math.sqrt(values["d0"]))
    eta_u = math.sqrt(values["eta_ratio"])
    path = fw.exact(
        u0, W0, x, values["y"], t, gamma=1.0 / values["d"], eta_u=eta_u, eta_w=1 / eta_u
    )
    return {
        "output": path.output,
        "loss": path.loss,
        "zeta": path.zeta,
        "ntk": path.ntk,
        "u_1": path.u[:, 0],
        "hidden_1": path.hidden[:, 0],
    }


def _lambda_balanced_expected(values, t):
    assert values["task"] == "random" and values["init"] == "random" and values["shape"] == "square"
    d = values["d_in"]
    sigma_yx = lb.random_task(d, d, np.random.default_rng([values["seed"], 0]))
    W1, W2 = lb.balanced_init(
        d, d, d, values["lam"], values["scale"], np.random.default_rng([values["seed"], 1])
    )
    path = lb.exact(W1, W2, sigma_yx, t)
    singular = path.singular_values
    return {
        "loss": path.loss,
        "kernel_distance": path.kernel_distance,
        **{f"singular_values_{k + 1}": singular[:, k] for k in range(singular.shape[1])},
        **{f"function_{k + 1}": path.function.reshape(len(t), -1)[:, k] for k in range(d * d)},
    }


def _lambda_balanced_sequences_expected(values, t):
    """The first network of the side-by-side view's default (one random task, smallest λ)."""
    assert values["experiment"] == "one task" and values["init"] == "random"
    d = values["d_in"]
    sigma_yx = lb.random_task(d, d, np.random.default_rng([values["seed"], 0]))
    lam = min(values["lam_low"], values["lam_high"])
    W1, W2 = lb.balanced_init(
        d, d, d, lam, values["scale"], np.random.default_rng([values["seed"], 1])
    )
    path = lb.exact(W1, W2, sigma_yx, t)
    U, _, Vt = np.linalg.svd(sigma_yx)
    strengths = np.einsum("ir,tij,rj->tr", U, path.function, Vt)
    return {
        "loss": path.loss,
        "first_task_loss": path.loss,
        "kernel_distance": path.kernel_distance,
        **{f"mode_strength_{k + 1}": strengths[:, k] for k in range(d)},
    }


def _kernel_alignment_expected(values, t):
    K0, y = fe.power_law_task(values["samples"], values["a"], values["b"], values["seed"])
    path = fe.exact(K0, y, t, eta=values["eta"], gamma=values["gamma"])
    return {"loss": path.loss, "alignment": path.alignment, "residual_1": path.residual[:, 0]}


def _single_neuron_map_check(values, tables):
    """Cells of the downloaded map against single trajectories set up here by hand."""
    ((name, table),) = tables.items()
    assert name == f"portrait t={values['t']:g}" and len(table["tau"]) == values["resolution"] ** 2
    eta_a = math.sqrt(values["eta_ratio"])
    theta0, theta = math.radians(values["init_angle"]), math.radians(values["target_angle"])
    target = values["target_norm"] * np.array([math.cos(theta), math.sin(theta)])
    for index in np.random.default_rng(0).integers(0, len(table["tau"]), 8):
        a0, w0 = sn.init_from_norm_delta(
            table["tau"][index] ** 2,
            table["delta"][index],
            [math.cos(theta0), math.sin(theta0)],
            eta_a=eta_a,
            eta_w=1 / eta_a,
        )
        path = sn.exact(a0, w0, target, [0.0, values["t"]], eta_a=eta_a, eta_w=1 / eta_a)
        assert table["kernel_distance"][index] == pytest.approx(path.kernel_distance[-1], rel=1e-8)
        assert table["loss"][index] == pytest.approx(path.loss[-1], rel=1e-8)


def _finite_width_map_check(values, tables):
    """Each width-sweep row's ζ(∞) and NTK change against a long exact run of that network."""
    rows = {name: table for name, table in tables.items() if name.startswith("width sweep")}
    assert rows and any(name.startswith("phase map") for name in tables)
    for table in rows.values():
        column = len(table["d"]) // 2
        d = int(table["d"][column])
        u0, W0 = fw.gaussian_init(
            d, 1, table["sigma_u"][column], table["sigma_w"][column], values["seed"]
        )
        rates = {"gamma": table["gamma"][column]} | dict.fromkeys(
            ("eta_u", "eta_w"), table["eta"][column]
        )
        t_c = fw.exact(u0, W0, np.ones(1), values["y"], [0.0], **rates).t_c
        path = fw.exact(u0, W0, np.ones(1), values["y"], [0.0, 60 * t_c], **rates)
        assert table["zeta_final"][column] == pytest.approx(path.zeta[-1], rel=1e-8)
        assert table["ntk_change"][column] == pytest.approx(path.ntk_change[-1], rel=1e-8)


def _lambda_balanced_map_check(values, tables):
    """Cells of each architecture's row against the exact flow from the trajectory view's
    seeding convention (task from [seed, 0], weights from [seed, 1])."""
    assert values["task"] == "random"  # the default
    for name, (d_in, hidden, d_out) in lb.SHAPES.items():
        (table,) = [t for n, t in tables.items() if n.startswith(f"{name} {d_in}→")]
        sigma_yx = lb.random_task(d_in, d_out, np.random.default_rng([values["seed"], 0]))
        for index in (0, len(table["lam"]) // 2, len(table["lam"]) - 1):
            W1, W2 = lb.balanced_init(
                d_in,
                hidden,
                d_out,
                table["lam"][index],
                values["scale"],
                np.random.default_rng([values["seed"], 1]),
            )
            path = lb.exact(W1, W2, sigma_yx, [0.0, values["t"]])
            assert table["kernel_distance"][index] == pytest.approx(
                path.kernel_distance[-1], rel=1e-8, abs=1e-14
            )
            assert table["loss"][index] == pytest.approx(path.loss[-1], rel=1e-8)


def _kernel_alignment_map_check(values, tables):
    """A∞ of map cells against eq. 11 on the task built here."""
    axis = values["axis"]
    table = tables[f"map over gamma and {axis}"]
    for index in np.random.default_rng(1).integers(0, len(table["gamma"]), 6):
        exponents = {"a": values["a"], "b": values["b"], axis: table[axis][index]}
        K0, y = fe.power_law_task(values["samples"], exponents["a"], exponents["b"], values["seed"])
        expected = fe.final_alignment(K0, y, table["gamma"][index])
        assert table["final_alignment"][index] == pytest.approx(expected, rel=1e-10)


def _teacher_student_network(values, tau, delta):
    """Kunin et al.'s teacher–student set-up from the views' seeding convention: data from the
    generator seeded [seed, 0], the symmetrised student's base draw from [seed, 1]."""
    X, y, X_test, y_test = nw.teacher_student(
        values["d"],
        values["k"],
        values["n"],
        n_test=values["n_test"],
        seed=np.random.default_rng([values["seed"], 0]),
    )
    net = nw.kunin_init(
        values["d"],
        values["width"],
        tau=tau,
        delta=delta,
        seed=np.random.default_rng([values["seed"], 1]),
        activation=values["activation"],
    )
    return X, y, X_test, y_test, net


def _networks_expected(values, t):
    """The frozen-NTK flow (N15) of the default network: f(t) = y + e^{−K₀t/n}(f₀ − y)."""
    assert values["data"] == "teacher" and values["init"] == "kunin" and values["loss"] == "mse"
    assert values["rate_ratio"] == 1.0  # layer rates 1
    X, y, _, _, net = _teacher_student_network(values, values["tau"], values["delta"])
    K0 = nw.ntk(net, X)
    r0 = (nw.forward(net, X) - y)[:, 0]
    values_k, vectors = np.linalg.eigh(K0)
    residual = [
        vectors @ (np.exp(-np.maximum(values_k, 0) * s / len(y)) * (vectors.T @ r0)) for s in t
    ]
    return {"loss": np.array([0.5 * np.mean(r**2) for r in residual])}


def _networks_map_check(values, tables):
    """Cells of the map against single networks trained with lr = c/τ² (Kunin et al. D.1)."""
    ((name, table),) = tables.items()
    assert name == f"map after {values['steps']} steps"
    assert len(table["tau"]) == values["resolution"] ** 2
    for index in np.random.default_rng(2).integers(0, len(table["tau"]), 3):
        tau, delta, lr = table["tau"][index], table["delta"][index], table["lr"][index]
        assert lr == pytest.approx(values["rate"] / tau**2, rel=1e-9)
        X, y, X_test, y_test, net = _teacher_student_network(values, tau, delta)
        run = nw.train(
            net,
            X,
            y,
            lr=lr,
            steps=values["steps"],
            record=[0, values["steps"]],
            X_test=X_test,
            y_test=y_test,
        )
        assert table["test_loss"][index] == pytest.approx(run.test_loss[-1], rel=1e-8)
        assert table["kernel_distance"][index] == pytest.approx(
            run.kernel_distance[-1], rel=1e-6, abs=1e-12
        )


def _lambda_balanced_transfer_check(values, tables):
    """Columns of the transfer map against the trajectory view's seeding convention: the
    pre-training's W₁ᵀW₁ read out for the taught item (Dominé et al. eqs. 186–187)."""
    ((name, table),) = tables.items()
    assert name == f"new feature of the {values['item']}"
    item = lb.HIERARCHY_ITEMS.index(values["item"])
    for column in (0, len(table["lam"]) // 2, len(table["lam"]) - 1):
        W1, W2 = lb.balanced_init(
            8,
            8,
            8,
            table["lam"][column],
            values["scale"],
            np.random.default_rng([values["seed"], 1]),
        )
        path = lb.exact(W1, W2, lb.hierarchical_task(), [0.0, values["horizon"]])
        similarity = path.rsm_in[-1]
        for k, other in enumerate(lb.HIERARCHY_ITEMS):
            expected = similarity[item, k] / similarity[item, item]
            assert table[other.replace(" ", "_")][column] == pytest.approx(expected, abs=1e-9)


#: checks of a map's download against independent solver calls, for its default state
MAP_CHECKS = {
    "lambda-balanced-map": _lambda_balanced_map_check,
    "lambda-balanced-transfer": _lambda_balanced_transfer_check,
    "kernel-alignment-map": _kernel_alignment_map_check,
    "single-neuron-map": _single_neuron_map_check,
    "finite-width-map": _finite_width_map_check,
    "networks-map": _networks_map_check,
}

#: independent solver calls for each view's default state (the test's own parameter mapping)
EXPECTED = {
    "single-neuron": _single_neuron_expected,
    "finite-width": _finite_width_expected,
    "lambda-balanced": _lambda_balanced_expected,
    "lambda-balanced-sequences": _lambda_balanced_sequences_expected,
    "kernel-alignment": _kernel_alignment_expected,
    "networks": _networks_expected,
}


@pytest.mark.parametrize("view", VIEWS, ids=VIEW_IDS)
@pytest.mark.parametrize("kind", ["csv", "json"])
def test_download_matches_the_solver(page, live_server, view, kind):
    open_view(page, live_server, view)
    with page.expect_download(timeout=TIMEOUT) as info:
        page.locator(f"#{view.key}-download-{kind}").click()
    download = info.value
    assert download.suggested_filename == f"{view.key}.{kind}"
    text = open(download.path(), encoding="utf-8").read()
    defaults = dataclasses.asdict(view.spec.defaults())  # the checks read values by name
    if kind == "csv":
        tables = _read_csv(text)
    else:
        document = json.loads(text)
        assert document["parameters"] == defaults
        tables = {m: _flatten(t) for m, t in document["trajectories"].items()}
    if view.key in MAP_CHECKS:
        MAP_CHECKS[view.key](defaults, tables)
        return
    exact = next(table for method, table in tables.items() if method.startswith("exact"))
    assert len(exact["t"]) > 10 and np.all(np.isfinite(exact["t"]))
    if view.key in EXPECTED:
        expected = EXPECTED[view.key](defaults, exact["t"])
        for name, values in expected.items():
            assert np.allclose(exact[name], values, rtol=1e-12, atol=1e-14), name
    else:
        pytest.fail(f"no independent solver check written for {view.key}")
