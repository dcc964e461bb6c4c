"""The paper-figures page through the router and its callback: one card per paper figure, links
that the views resolve, figures that are the solvers' numbers, and a broken card that leaves the
others alone."""

import json
import math
import re
from collections.abc import Sequence
from urllib.parse import urlparse

import numpy as np
import pytest

from app import create_app
from app import paper_figures as pf
from app.config import Settings
from app.views import BY_KEY, VIEWS
from solvers import lambda_balanced as lb
from solvers import single_neuron as sn
from tests.dash_client import payload
from tests.integration.figures import trace as named
from tests.integration.figures import unpacked

PREFIX = "/course/lazy-rich/"
#: the callback's whole answer must stay light enough for a phone on a slow network
MAX_RESPONSE_BYTES = 1_500_000


def _route(client, dependencies, pathname: str, search: str = "", prefix: str = "/") -> dict:
    router = next(d for d in dependencies if d["output"] == "page.children")
    body = payload(router, {"url.pathname": pathname, "url.search": search})
    response = client.post(f"{prefix}_dash-update-component", json=body)
    assert response.status_code == 200
    return response.get_json()["response"]["page"]["children"]


def _nodes(node):
    """Every component of a serialised layout, depth first."""
    if isinstance(node, dict) and "type" in node and "props" in node:
        yield node
        node = node["props"].get("children")
    for child in node if isinstance(node, list) else [node]:
        if isinstance(child, dict):
            yield from _nodes(child)


def _entries(page: dict) -> list[dict]:
    """Every card as the page sends it (the data assets/paper_figures.js builds cards from)."""
    return [
        entry
        for node in _nodes(page)
        if "data-cards" in node["props"]
        for entry in json.loads(node["props"]["data-cards"])
    ]


def _words(text: str) -> list[str]:
    """A text's words and numbers, with any typesetting markup left out."""
    plain = re.sub(r"</?(?:i|sub|sup)>|[_^{}]", "", text)  # x_i reads "xi" once typeset
    return re.findall(r"[^\W_]+", plain.replace("−", "-"))


def _card_links(page: dict) -> dict[str, str]:
    """Card id → href of its "open" link."""
    return {entry["id"]: entry["href"] for entry in _entries(page)}


def _by_id(component) -> dict:
    """The components of a layout (Dash objects) by id."""
    found, stack = {}, [component]
    while stack:
        node = stack.pop()
        if isinstance(getattr(node, "id", None), str):
            found[node.id] = node
        children = getattr(node, "children", None)
        if isinstance(children, (list, tuple)):
            stack.extend(children)
        elif hasattr(children, "to_plotly_json"):
            stack.append(children)
    return found


#: each view's first card: the tests of routing and of one view's failure ask for these
#: rather than for every card (all of them cost ~20 s of computation; the warm-up's and the
#: budget's tests compute them all)
FIRST_OF_EACH_VIEW = tuple({card.view.key: card for card in reversed(pf.CARDS)}.values())


def _fill(
    client, prefix: str = "/", theme: str = "light", cards: Sequence[pf.Card] = pf.CARDS
) -> tuple[dict, int]:
    """The content of ``cards`` as the page fetches it (key → answer) and the bytes of all."""
    answer, size = {}, 0
    for card in cards:
        query = f"?v={pf.code_version()}" + ("&theme=dark" if theme == "dark" else "")
        response = client.get(f"{prefix}{pf.CARD_ROUTE}{card.key}{query}")
        assert response.status_code == 200, card.key
        assert response.headers["Cache-Control"] == "public, max-age=86400"
        answer[card.key] = response.get_json()
        size += len(response.get_data())
    return answer, size


def _array(value) -> np.ndarray:
    """A trace's array as plotly.js reads it: a plain list or a base64 typed array."""
    return unpacked(value).astype(float)


def _card(view_key: str, name_start: str) -> pf.Card:
    (card,) = [
        c for c in pf.CARDS if c.view.key == view_key and c.preset.name.startswith(name_start)
    ]
    return card


# -- the cards ---------------------------------------------------------------------------------


def test_one_card_per_paper_figure_with_a_panel_of_its_view():
    expected = {(view.key, p.slug) for view in VIEWS for p in view.presets if p.figure}
    assert {(c.view.key, c.preset.slug) for c in pf.CARDS} == expected
    assert len({c.key for c in pf.CARDS}) == len(pf.CARDS)
    for card in pf.CARDS:
        assert card.panel.graph == (card.preset.panel or card.view.panels[0].graph), card.key
        assert card.preset.caption and card.preset.name.startswith(card.preset.figure[:4])
    papers = [paper for paper, _, cards in pf.GROUPS if cards]
    assert [p.authors for p in papers[:4]] == [
        "Kunin et al.",
        "Xu & Ziyin",
        "Dominé et al.",
        "Shan & Bordelon",
    ]


def test_the_page_routes_with_every_card_and_the_navigation(client, dependencies):
    page = _route(client, dependencies, pf.PATH)
    text = json.dumps(page, ensure_ascii=False)
    assert "site-header" in text and "Page not found" not in text
    assert pf.INTRO in text
    entries = {entry["id"]: entry for entry in _entries(page)}
    assert len(entries) == len(pf.CARDS)
    for card in pf.CARDS:
        entry = entries[f"{pf.PREFIX}-{card.key}"]
        assert (entry["slot"], entry["note"], entry["graph"]) == (
            card.slot_id,
            card.note_id,
            card.graph_id,
        )
        # the texts come typeset (<i>, <sub>, <sup> only), the words unchanged
        assert _words(entry["title"]) == _words(card.preset.name), card.key
        assert _words(entry["caption"]) == _words(card.preset.caption), card.key
        assert not re.findall(r"<(?!/?(?:i|sub|sup)>)[a-z/]", json.dumps(entry)), card.key
        if card.preset.differs:
            assert "<sub>" in entry["differs"] or "_" not in card.preset.differs, card.key
        if card.preset.claim is not None:
            assert entry["evidence"] == card.evidence_id, card.key
            assert _words(entry["claim"]) == _words(card.preset.claim.text), card.key
    nav = [n["props"] for n in _nodes(page) if "nav-link" in str(n["props"].get("className"))]
    assert any(n.get("href") == pf.PATH and "active" in n["className"] for n in nav)
    # and every other page links to it
    other = _route(client, dependencies, BY_KEY["single-neuron"].path)
    assert any(n["props"].get("href") == pf.PATH for n in _nodes(other))


def test_every_card_links_to_its_preset_in_its_view(client, dependencies):
    links = _card_links(_route(client, dependencies, pf.PATH))
    assert len(links) == len(pf.CARDS)
    by_path = {view.path: view for view in VIEWS}
    for card in pf.CARDS:
        href = urlparse(links[f"{pf.PREFIX}-{card.key}"])
        view = by_path[href.path]
        state = view.parse_link("?" + href.query)
        assert view is card.view and state.preset == card.preset and not state.messages
        shown = _by_id(view.layout("?" + href.query))
        assert shown[f"{view.key}-preset"].value == card.preset.slug
        assert shown[f"{view.key}-preset-caption"].children == card.preset.caption


def test_embed_mode_hides_the_chrome_and_the_intro(client, dependencies):
    page = _route(client, dependencies, pf.PATH, "?embed=1")
    text = json.dumps(page, ensure_ascii=False)
    assert "site-header" not in text and "site-footer" not in text
    assert pf.INTRO not in text
    assert not [n for n in _nodes(page) if n["type"] == "H1"]
    links = _card_links(page)
    assert len(links) == len(pf.CARDS)
    assert all(href.endswith("&embed=1") for href in links.values())


def test_the_page_and_its_links_under_a_path_prefix():
    app = create_app(Settings(cache_type="SimpleCache", url_base_pathname=PREFIX))
    client = app.server.test_client()
    assert client.get(f"{PREFIX}paper-figures").status_code == 200
    dependencies = client.get(f"{PREFIX}_dash-dependencies").get_json()
    page = _route(client, dependencies, f"{PREFIX}paper-figures", prefix=PREFIX)
    assert "Page not found" not in json.dumps(page)
    links = _card_links(page)
    assert len(links) == len(pf.CARDS)
    for card in pf.CARDS:
        assert links[f"{pf.PREFIX}-{card.key}"] == (
            f"{PREFIX.rstrip('/')}{card.view.path}?preset={card.preset.slug}"
        )
    sources = [entry["source"] for entry in _entries(page)]
    assert len(sources) == len(pf.CARDS)
    assert all(source.startswith(f"{PREFIX}{pf.CARD_ROUTE}") for source in sources)
    answer, _ = _fill(client, prefix=PREFIX, cards=FIRST_OF_EACH_VIEW)
    assert all(answer[card.key]["figure"]["data"] for card in FIRST_OF_EACH_VIEW)


def _preloads(response) -> list[tuple[str, str]]:
    """(address, media) of each ``Link: rel=preload`` of an answer."""
    found = re.findall(
        r'<([^>]+)>; rel=preload; as=fetch; crossorigin; media="([^"]+)"',
        response.headers.get("Link", ""),
    )
    return found


@pytest.mark.parametrize("prefix", ["/", PREFIX])
def test_the_page_s_html_preloads_its_first_cards_as_the_script_asks_for_them(prefix):
    """The first cards' content is fetched while the page's scripts load: the addresses the
    page's answer names are exactly those the script asks for (else the browser fetches
    twice), one per colour scheme; no other page names any."""
    app = create_app(Settings(cache_type="SimpleCache", url_base_pathname=prefix))
    client = app.server.test_client()
    preloads = _preloads(client.get(f"{prefix}paper-figures"))
    dependencies = client.get(f"{prefix}_dash-dependencies").get_json()
    page = _route(client, dependencies, f"{prefix}paper-figures", prefix=prefix)
    first = [entry["source"] for entry in _entries(page)][: pf.PRELOADED]
    light = [(source, "(prefers-color-scheme: light)") for source in first]
    dark = [(source + "&theme=dark", "(prefers-color-scheme: dark)") for source in first]
    assert sorted(preloads) == sorted(light + dark)
    for source, _ in preloads:  # and each is the card's content
        assert client.get(source).get_json()["figure"]["data"]
    assert not _preloads(client.get(f"{prefix}single-neuron"))
    assert not _preloads(client.get(f"{prefix}_dash-layout"))


# -- the callback ------------------------------------------------------------------------------


def test_single_neuron_fig_3_is_the_exact_solution(client, dependencies):
    card = _card("single-neuron", "Fig. 3")
    assert card.panel.graph == "kernel"
    figure = _fill(client, cards=[card])[0][card.key]["figure"]
    # Kunin et al. Fig. 3: β* = (0, 1), β₀ = (−1, 0) (τ = 1), η_a = η_w = 1, δ ∈ ±{5, 0.5}, 0
    beta_star = np.array([math.cos(math.pi / 2), 1.0])
    direction = np.array([-1.0, math.sin(math.pi)])
    t = np.linspace(0.0, 30.0, 400)
    for delta in (-5.0, -0.5, 0.0, 0.5, 5.0):
        trace = named(figure, f"δ = {delta:g}")
        a0, w0 = sn.init_from_norm_delta(1.0, delta, direction)
        expected = sn.exact(a0, w0, beta_star, t).kernel_distance
        np.testing.assert_allclose(_array(trace["x"]), t, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(_array(trace["y"]), expected, rtol=1e-5, atol=1e-6)
    # lazy upstream, rich balanced: the kernel moves far more at δ = 0 than at δ = 5
    final = {delta: _array(named(figure, f"δ = {delta:g}")["y"])[-1] for delta in (0.0, 5.0)}
    assert final[0.0] > 5 * final[5.0]


def test_lambda_balanced_fig_4_shows_the_final_representation(client, dependencies):
    card = _card("lambda-balanced", "Fig. 4 — semantic hierarchy, λ = +10")
    assert card.panel.graph == "rsm_in"
    figure = _fill(client, cards=[card])[0][card.key]["figure"]
    (heatmap,) = figure["data"]
    values = card.view.spec.with_overrides(card.preset.values)
    sigma_yx = lb.hierarchical_task()
    W1, W2 = lb.balanced_init(
        8, 8, 8, values.lam, values.scale, np.random.default_rng([values.seed, 1])
    )
    t = np.linspace(0.0, values.horizon, 400)
    expected = lb.exact(W1, W2, sigma_yx, t).rsm_in[-1]
    np.testing.assert_allclose(_array(heatmap["z"]), expected, rtol=1e-5, atol=1e-6)
    assert f"t = {values.horizon:g}" in figure["layout"]["title"]["text"]


def test_a_failing_card_leaves_the_others(monkeypatch):
    app = create_app(Settings(cache_type="SimpleCache"))
    client = app.server.test_client()
    broken = next(view for view in VIEWS if view.key == "lambda-balanced")

    def fail(values):
        raise RuntimeError("the solver is down")

    monkeypatch.setitem(broken.__dict__, "compute", fail)  # the view is a frozen dataclass
    failed = [card for card in pf.CARDS if card.view is broken]
    assert len(failed) > 1
    asked = failed + [card for card in FIRST_OF_EACH_VIEW if card.view is not broken]
    answer, _ = _fill(client, cards=asked)
    for card in asked:
        figure, note = answer[card.key]["figure"], answer[card.key]["message"]
        if card.view is broken:
            assert figure["data"] == [] and "could not be computed" in json.dumps(figure)
            assert "could not be computed" in note and "the solver is down" in note
            assert answer[card.key]["claim"] is None
        else:
            assert figure["data"] and note is None, card.key


def test_cards_are_computed_once_then_read_within_budget_with_their_evidence(monkeypatch):
    """After the warm-up (what the server starts beside itself), the page's requests compute
    nothing: every answer comes from the shared cache, even with the engine gone; every card
    is served within the page's budget with the evidence of its claim. (One computation of
    every card, ~20 s, for both.)"""
    app = create_app(Settings(cache_type="SimpleCache"))
    cache = app.server.config["RESULT_CACHE"]
    assert pf.warm_up(cache) == 0
    for view in {card.view.key: card.view for card in pf.CARDS}.values():
        monkeypatch.setitem(view.__dict__, "compute", _refuse)
    answer, size = _fill(app.server.test_client())
    assert size < MAX_RESPONSE_BYTES
    for card in pf.CARDS:
        content = answer[card.key]
        figure = content["figure"]
        assert figure["data"] and all("type" in trace for trace in figure["data"]), card.key
        height = figure["layout"]["height"]  # taller only to fit a long legend
        assert card.height <= height < 2 * card.height and content["height"] == height
        assert "frames" not in figure
        assert not any(t.get("uid") == "cursor" and t["type"] != "heatmap" for t in figure["data"])
        assert content["message"] is None, card.key
        if card.preset.claim is not None:  # the page prints what the check found
            assert content["claim"]["holds"] is True, (card.key, content["claim"])
            assert content["claim"]["found"], card.key
    dark, _ = _fill(app.server.test_client(), theme="dark")
    for card in pf.CARDS:  # the dark theme recolours the same figure
        assert dark[card.key]["figure"]["layout"]["paper_bgcolor"] != "white", card.key
        assert len(dark[card.key]["figure"]["data"]) == len(answer[card.key]["figure"]["data"])


def _refuse(values):
    raise AssertionError("a card was computed again")


@pytest.mark.parametrize("path", ["nope", "single-neuron--nope", "%00", "x" * 500, "single-neuron"])
def test_unknown_cards_are_404s_and_odd_queries_harmless(client, path):
    assert client.get(f"/{pf.CARD_ROUTE}{path}").status_code == 404
    card = pf.CARDS[0]
    for query in ("?theme=%00", "?theme=dark&theme=light", "?v=old", "?v=" + "9" * 300):
        response = client.get(f"/{pf.CARD_ROUTE}{card.key}{query}")
        assert response.status_code == 200 and response.get_json()["figure"]["data"]
        assert response.headers["Cache-Control"] == "no-cache"  # not this version's link
