"""Property-based fuzzing of every registered server callback through the Flask test client:
random JSON for every input and state, random query strings for the URL parser, random
request bodies. The answer is never a 5xx, and a 200 is a well-formed Dash response."""

import json
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.views import VIEWS
from tests import examples
from tests.dash_client import payload, server_callbacks

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=40)
    | st.sampled_from(["<script>alert(1)</script>", "1e999", "-0", "NaN", "Infinity", "  3 "])
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=6,
)
FUZZ = settings(
    max_examples=examples(120),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _post(client, body):
    return client.post(
        "/_dash-update-component",
        data=json.dumps(body),  # NaN and Infinity go out as JSON's non-standard literals
        content_type="application/json",
    )


def _check(response, where):
    assert response.status_code < 500, (where, response.status_code)
    if response.status_code == 200:
        # strict JSON: the browser's JSON.parse refuses NaN and Infinity
        answer = json.loads(response.get_data(as_text=True), parse_constant=_refuse_constant)
        assert answer["multi"] is True and isinstance(answer["response"], dict), where


def _refuse_constant(name):
    raise AssertionError(f"the response holds {name}, which is not JSON")


@FUZZ
@given(data=st.data())
def test_random_json_in_every_input_of_every_callback(client, dependencies, data):
    dependency = data.draw(st.sampled_from(server_callbacks(dependencies)), label="callback")
    entries = dependency["inputs"] + dependency.get("state", [])
    values = {f"{entry['id']}.{entry['property']}": data.draw(JSON_VALUES) for entry in entries}
    _check(_post(client, payload(dependency, values)), dependency["output"][:60])


@FUZZ
@given(data=st.data())
def test_random_values_near_the_valid_ones(client, dependencies, data):
    """Mostly valid states with some fields pushed out of range or to the wrong type: the
    path through the solvers, not only the refusal at the door."""
    view = data.draw(st.sampled_from(VIEWS), label="view")
    dependency = next(d for d in dependencies if f"{view.key}-summary.children" in d["output"])
    values = dict(zip(view.spec.names, view.spec.to_controls(view.spec.defaults()), strict=True))
    for spec in view.spec.fields:
        if not data.draw(st.booleans()):
            continue
        if spec.kind in ("float", "int"):
            low, high = spec.low, spec.high
            values[spec.name] = data.draw(
                st.floats(low - (high - low), high + (high - low), allow_nan=False)
                | st.sampled_from([low, high, math.nan, math.inf, -math.inf, 1e308])
                | SCALARS
            )
        else:
            values[spec.name] = data.draw(SCALARS)
    raw = [values[name] for name in view.spec.names]
    drawn = (
        st.none() | JSON_VALUES | st.fixed_dictionaries({"values": st.just(raw), "frame": SCALARS})
    )
    request = data.draw(
        st.fixed_dictionaries(
            {"seq": SCALARS, "values": st.just(raw), "frame": SCALARS, "drawn": drawn}
        )
        | JSON_VALUES
    )
    page = data.draw(
        JSON_VALUES | st.fixed_dictionaries({"embed": JSON_VALUES, "messages": JSON_VALUES})
    )
    body = {f"{view.key}-request.data": request, f"{view.key}-page.data": page}
    _check(_post(client, payload(dependency, body)), view.key)


@FUZZ
@given(
    path=st.sampled_from(["/", "/nowhere"] + [view.path for view in VIEWS]),
    query=st.lists(
        st.tuples(
            st.sampled_from(
                sorted(
                    {name for view in VIEWS for name in view.spec.names}
                    | {"embed", "frame", "preset"}
                )
            )
            | st.text(max_size=10),
            st.text(max_size=30) | st.floats().map(repr),
        ),
        max_size=8,
    ),
)
def test_random_query_strings_render_a_page(client, dependencies, path, query):
    from urllib.parse import urlencode

    router = next(d for d in dependencies if d["output"] == "page.children")
    search = "?" + urlencode(query)
    response = _post(client, payload(router, {"url.pathname": path, "url.search": search}))
    _check(response, (path, search))
    assert response.status_code == 200


@FUZZ
@given(body=JSON_VALUES)
def test_random_request_bodies(client, body):
    _check(_post(client, body), "body")
