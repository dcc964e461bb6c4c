"""The lessons (app/embed/lessons.py): every figure's link opens its view without a message,
every button and prompt sets values its figure's controls take, and what the text says of the
figures holds on their own computed results — a lesson whose numbers stop showing what it says
fails here instead of teaching the wrong thing."""

from __future__ import annotations

import html
import json
from dataclasses import asdict
from html.parser import HTMLParser
from urllib.parse import urlsplit

import numpy as np
import pytest

from app.cache import ResultCache
from app.core.claims import crossing_time, value_at
from app.embed import lessons
from app.views import VIEWS

BY_PATH = {view.path: view for view in VIEWS}


class _Parts(HTMLParser):
    """A lesson's frames (id → src) and its drivers (frame id, values set)."""

    def __init__(self) -> None:
        super().__init__()
        self.frames: dict[str, str] = {}
        self.drivers: list[tuple[str, dict]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "iframe":
            self.frames[found["id"]] = found["src"]
        if "data-lazy-rich-set" in found:
            self.drivers.append(
                (found["data-lazy-rich-frame"], json.loads(found["data-lazy-rich-set"]))
            )


def _parts(lesson: lessons.Lesson) -> _Parts:
    parts = _Parts()
    parts.feed(lessons.page(lesson.slug, ""))
    return parts


def _view(src: str):
    address = urlsplit(html.unescape(src))
    return BY_PATH[address.path], address.query


@pytest.fixture(scope="module")
def cache() -> ResultCache:
    return ResultCache.in_memory()


@pytest.mark.parametrize("lesson", lessons.LESSONS, ids=lambda lesson: lesson.slug)
def test_every_figure_opens_and_every_button_sets_what_its_figure_takes(lesson):
    parts = _parts(lesson)
    assert parts.frames and parts.drivers
    for ident, src in parts.frames.items():
        view, query = _view(src)
        state = view.parse_link("?" + query)
        assert not state.messages, (ident, state.messages)
        assert "embed=1" in query
    for ident, values in parts.drivers:
        view, query = _view(parts.frames[ident])
        start = view.parse_link("?" + query).controls
        moved = view.spec.with_overrides({**asdict(start), **values})  # a bad value raises
        assert set(values) <= set(view.spec.names)
        assert [getattr(moved, name) for name in values] == list(values.values())


def _regime(cache: ResultCache, delta: float):
    view, query = _view(_parts(lessons.BY_SLUG["balance-decides-lazy-or-rich"]).frames["regimes"])
    start = view.parse_link("?" + query).controls
    controls = view.spec.with_overrides({**asdict(start), "delta": delta})
    return view.results(cache, controls).result.exact


def test_the_regimes_lesson_says_what_its_figure_shows(cache):
    """The three regimes' numbers in the text of balance-decides-lazy-or-rich.html."""
    up, balanced, down = (_regime(cache, delta) for delta in (5.0, 0.0, -5.0))
    assert 1e-4 < np.max(up.kernel_distance) < 1e-3  # "above 0.001 … in units of 10⁻⁴"
    assert value_at(balanced.t, balanced.kernel_distance, 1.0) > 0.1  # "above 0.1 by t = 1"
    assert np.min(down.mu[down.t <= 5.0]) < 0.1  # "μ below 0.1 by t = 5"
    assert value_at(down.t, down.kernel_distance, 5.0) < 0.02  # "S stays below 0.02"
    assert crossing_time(down.t, down.kernel_distance, 0.5) > 10  # "crosses 0.5 after t = 10"
    assert down.kernel_distance[-1] > 0.8  # "ends above 0.8"


def test_the_paths_lesson_says_what_its_figure_shows(cache):
    """The β paths' figure is a paper card's set-up: the text repeats its checked claim."""
    view, query = _view(_parts(lessons.BY_SLUG["balance-decides-lazy-or-rich"]).frames["paths"])
    state = view.parse_link("?" + query)
    preset = next(p for p in view.presets if p.slug == "fig-4a-beta-paths-for-several-delta")
    assert preset.claim is not None
    evidence = preset.claim.evaluate(state.controls, view.results(cache, state.controls).result)
    assert evidence.holds, evidence.found


def _driven(cache: ResultCache, slug: str, ident: str, values: dict):
    """(the state a lesson's button or prompt leads its figure ``ident`` to, its result)."""
    view, query = _view(_parts(lessons.BY_SLUG[slug]).frames[ident])
    start = view.parse_link("?" + query).controls
    controls = view.spec.with_overrides({**asdict(start), **values})
    return view, controls, view.results(cache, controls).result


def _card_states(
    cache: ResultCache, slug: str, frames: tuple[str, ...] = (), drivers: bool = True
) -> dict[str, tuple]:
    """Every state a lesson's frames (all, or ``frames``) start in or its buttons lead to
    (unless not ``drivers``), each a paper card's set-up whose checked claim holds: card slug →
    (controls, result)."""
    parts = _parts(lessons.BY_SLUG[slug])
    chosen = frames or tuple(parts.frames)
    states = [(i, {}) for i in chosen] + [d for d in parts.drivers if drivers and d[0] in chosen]
    shown = {}
    for ident, values in states:
        view, controls, result = _driven(cache, slug, ident, values)
        card = next(
            p for p in view.presets if view.spec.with_overrides(p.values) == controls
        )  # StopIteration: a state that is no card's
        evidence = card.claim.evaluate(controls, result)
        assert evidence.holds, (card.slug, evidence.found)
        shown[card.slug] = (controls, result)
    return shown


def test_the_lambda_lesson_s_buttons_lead_to_paper_cards_whose_claims_hold(cache):
    """Every state a button of the-architecture-decides-which-lambda-is-lazy.html leads to is
    a Fig. 5 card's set-up, and the card's checked claim holds; the text's own numbers too."""
    states = _card_states(cache, "the-architecture-decides-which-lambda-is-lazy").values()
    shown = {(controls.shape, controls.lam): result.exact for controls, result in states}
    lazy, late = shown[("funnel", 10.0)], shown[("funnel", -10.0)]
    assert np.max(lazy.kernel_distance) < 1e-4  # "S stays below 10⁻⁴"
    assert value_at(lazy.t, lazy.loss, 1.0) / lazy.loss[0] < 1e-8  # "a billionth by t = 1"
    assert value_at(late.t, late.loss, 1.0) / late.loss[0] < 0.5  # "more than half"
    final = late.kernel_distance[-1]
    assert 0.4 < final < 0.5  # "about 0.46"
    assert crossing_time(late.t, late.kernel_distance, final / 2) > 10  # "only after t = 10"
    assert np.max(shown[("inverted funnel", -10.0)].kernel_distance) < 1e-5  # "below 10⁻⁵"


def test_the_mechanisms_lesson_s_buttons_lead_to_cards_and_its_numbers_hold(cache):
    """align-disalign-or-stay-a-kernel.html: Fig. 1's three cards and Fig. 4's two, and the
    numbers the text states of each."""
    shown = _card_states(cache, "align-disalign-or-stay-a-kernel")
    kernel = shown["fig-1-alignment-kernel-phase-gamma-1-sqrt-d"][1]
    features = shown["fig-1-alignment-feature-learning-phase-gamma-1-d"][1]
    apart = shown["fig-1-disalignment-near-parallel-large-output"][1].exact
    assert kernel.exact.zeta[0] == features.exact.zeta[0]  # "the same N(0, 1) layers"
    assert round(kernel.exact.zeta[0], 2) == 0.06  # "ζ(0) ≈ 0.06"
    assert kernel.exact.zeta[-1] - kernel.exact.zeta[0] < 0.01  # "rises by less than 0.01"
    assert kernel.exact.ntk_change[-1] < 1e-3  # "the NTK moves by less than 0.1 %"
    assert features.exact.t[-1] > 100 * kernel.exact.t[-1]  # "this run takes far longer"
    assert 0.85 < features.exact.zeta[-1] < 0.95  # "from 0.06 to about 0.9"
    assert features.exact.ntk_change[-1] > 1.0  # "more than 100 %"
    assert apart.zeta[0] > 0.99 and apart.zeta[-1] < 0.6  # "from above 0.99 to below 0.6"
    assert 25 < apart.output[0] < 35 and abs(apart.output[-1] - 2) < 0.01  # "about 30 to 2"
    assert apart.ntk_change[-1] > 0.5  # "more than 50 %"
    random = _fitted_deltas(shown["fig-4-kernel-and-feature-learning-pairs-d-10-to-1000"][1])
    zero = _fitted_deltas(shown["fig-4-from-a-zero-initial-output"][1])
    for deltas in (random, zero):
        assert max(abs(d) for d in deltas["feature learning"].values()) < 0.15  # "|δ| < 0.15"
    kernel_deltas = random["kernel"]
    assert min(kernel_deltas, key=kernel_deltas.get) == "Xavier"  # "between … (Xavier⁻)"
    assert max(kernel_deltas, key=kernel_deltas.get) == "Kaiming"  # "… and (Kaiming⁻)"
    assert round(kernel_deltas["Xavier"], 1) == 0.4  # "0.4 (Xavier⁻)", "δ ≈ 0.4 here"
    assert round(kernel_deltas["Kaiming"], 1) == 1.6  # "1.6 (Kaiming⁻)"
    assert abs(zero["kernel"]["Xavier"] - 1) < 0.1  # "Xavier⁻ falls like 1/d (δ ≈ 1)"
    assert abs(zero["kernel"]["Kaiming"] - 1.5) < 0.1  # "Kaiming⁻ still … d^−3/2"


def _fitted_deltas(result) -> dict[str, dict[str, float]]:
    """δ of ‖W(∞) − W(0)‖/‖W(0)‖ ∝ d^−δ: regime → scheme → δ (minus the fitted slope)."""
    deltas: dict[str, dict[str, float]] = {"kernel": {}, "feature learning": {}}
    for (scheme, regime), slope in zip(result.rows, result.weight_fits, strict=True):
        deltas[regime][scheme] = -slope
    return deltas


def test_the_threshold_lesson_s_first_figure_leads_to_cards_and_its_numbers_hold(cache):
    """past-a-threshold-the-kernel-locks-onto-the-task.html, first figure: its three γ are the
    Fig. 2 cards (whose claims hold), and the numbers the text states of each."""
    slug = "past-a-threshold-the-kernel-locks-onto-the-task"
    shown = {
        round(controls.gamma, 3): result
        for controls, result in _card_states(cache, slug, frames=("rates",)).values()
    }
    frozen, near, strong = shown[0.01], shown[0.2], shown[30.0]
    assert round(frozen.exact.alignment[0], 2) == 0.46  # "from 0.46"
    assert frozen.final_alignment < 0.48  # "to under 0.48"
    assert frozen.catch_up < 1.06 * frozen.exact.t[-1]  # "within 6 % of that time"
    assert round(near.sweep.threshold, 2) == 0.18  # "γ* ≈ 0.18"
    assert 0.65 < near.final_alignment < 0.75  # "about 0.7"
    exact, kernel = strong.exact, strong.kernel
    assert crossing_time(exact.t, exact.alignment, 0.9) < 0.02  # "before t = 0.02"
    fast = 5 / float(strong.final.eigenvalues[0])  # the exponential phase, 5/c₁
    assert fast < 0.1  # "before t = 0.1"
    assert exact.loss[0] / value_at(exact.t, exact.loss, fast) > 80  # "nearly a hundredfold"
    assert value_at(kernel.t, kernel.loss, fast) > 0.9 * kernel.loss[0]  # "less than a tenth"
    power = np.log10(value_at(exact.t, exact.loss, 1.0) / value_at(exact.t, exact.loss, 10.0))
    assert 0.8 < power < 1.3  # "about 1/t from t = 1 to 10"
    assert exact.t[-1] == 1000 and kernel.loss[-1] / exact.loss[-1] > 1000  # "a thousand times"


def test_the_threshold_lesson_s_map_says_what_it_shows(cache):
    """The same lesson's map: a Fig. 2C–D card whose claim holds, and each button's row."""
    slug = "past-a-threshold-the-kernel-locks-onto-the-task"
    (_, start), *_ = _card_states(cache, slug, frames=("threshold",), drivers=False).values()
    rows = {}
    for _, values in (d for d in _parts(lessons.BY_SLUG[slug]).drivers if d[0] == "threshold"):
        rows[values["a"]] = _driven(cache, slug, "threshold", values)[2].current
    flat, middle, steep = rows[0.5], rows[1.5], rows[3]
    assert round(middle.initial_overlap, 2) == 0.65 and round(middle.threshold, 2) == 0.18
    assert round(flat.initial_overlap, 2) == 0.26 and round(flat.initial_alignment, 2) == 0.12
    assert round(flat.threshold, 2) == 0.05  # "γ* ≈ 0.05"
    assert round(steep.initial_overlap, 2) == 0.91 and round(steep.initial_alignment, 2) == 0.76
    assert round(steep.threshold, 2) == 0.24  # "larger: … γ* ≈ 0.24"
    assert (start.exponents[0], start.exponents[-1]) == pytest.approx((0.2, 4))  # "0.2 to 4"
    assert np.all(start.top_overlap[:, -1] > 0.99)  # "for every a … the overlap goes to 1"
    assert np.all(start.final_alignment[:, -1] > 0.99)  # "and so does the final alignment"
