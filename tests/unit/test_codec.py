"""Cache entries are data: what goes in comes out equal, and nothing but a well-formed entry of
the expected schema is ever turned back into a value."""

from __future__ import annotations

import dataclasses
import json
import pickle

import numpy as np
import pytest

from app.codec import MAGIC, CodecError, codec_for


@dataclasses.dataclass(frozen=True)
class Inner:
    values: np.ndarray
    label: str


@dataclasses.dataclass(frozen=True)
class Outer:
    inner: Inner
    pairs: tuple[tuple[float, Inner], ...]
    note: str | None = None
    flags: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0, dtype=bool))


@dataclasses.dataclass(frozen=True)
class Changed:  # same name pattern, other fields: another schema
    inner: Inner
    count: int


def _sample() -> Outer:
    rng = np.random.default_rng(0)
    return Outer(
        inner=Inner(rng.normal(size=(3, 4)), "α ≠ β"),
        pairs=((1.5, Inner(np.arange(5, dtype=np.int64), "ints")),),
        note=None,
        flags=np.array([True, False, True]),
    )


def test_a_round_trip_returns_equal_values_of_the_same_types():
    value = {
        "outer": _sample(),
        "floats": [np.nan, np.inf, -0.0, 1e-300],
        "complex": 1 - 2j,
        "matrix": np.asfortranarray(np.arange(6.0).reshape(2, 3)),
        "empty": np.zeros((0, 2)),
        "scalar": np.float64(2.5),
        3: (None, True, "x"),
    }
    codec = codec_for(dict[str, Outer])
    back = codec.decode(codec.encode(value))
    assert back.keys() == value.keys()
    outer = back["outer"]
    assert isinstance(outer, Outer) and isinstance(outer.inner, Inner)
    np.testing.assert_array_equal(outer.inner.values, value["outer"].inner.values)
    assert outer.pairs[0][1].values.dtype == np.int64 and outer.flags.dtype == bool
    assert np.isnan(back["floats"][0]) and back["floats"][1:] == [np.inf, -0.0, 1e-300]
    assert back["complex"] == 1 - 2j and back[3] == (None, True, "x")
    np.testing.assert_array_equal(back["matrix"], value["matrix"])
    assert back["empty"].shape == (0, 2) and back["scalar"] == 2.5
    back["matrix"][0, 0] = 7.0  # arrays handed out are the caller's to change


def test_the_schema_follows_the_fields_of_every_reachable_dataclass():
    assert codec_for(Outer).schema == codec_for(Outer).schema
    assert codec_for(Outer).schema != codec_for(Changed).schema
    assert set(codec_for(Outer).classes) == {
        f"{__name__}.Outer",
        f"{__name__}.Inner",
    }  # found through tuple[tuple[float, Inner], ...]


def test_an_entry_of_another_schema_is_refused():
    entry = codec_for(Outer).encode(_sample())
    with pytest.raises(CodecError, match="schema"):
        codec_for(Changed).decode(entry)


class Planted:
    """Unpickling this would run code."""

    ran = False

    def __reduce__(self):
        return (Planted.mark, ())

    @staticmethod
    def mark():
        Planted.ran = True


@pytest.mark.parametrize(
    "entry",
    [
        pickle.dumps(Planted()),
        b"!" + pickle.dumps(Planted()),
        MAGIC + b"\xff\xff\xff\xff{",
        MAGIC + b"\x00\x00\x00\x02{}",
        b"",
    ],
    ids=["pickle", "redis-pickle", "bad-length", "no-schema", "empty"],
)
def test_foreign_entries_are_refused_without_running_anything(entry):
    with pytest.raises(CodecError):
        codec_for(Outer).decode(entry)
    assert not Planted.ran


def _forged(node, arrays: bytes = b"") -> bytes:
    header = json.dumps({"schema": codec_for(Outer).schema, "value": node}).encode()
    return MAGIC + len(header).to_bytes(4, "big") + header + arrays


@pytest.mark.parametrize(
    ("node", "arrays", "reason"),
    [
        ({"C": "pickle.loads", "F": {}}, b"", "not part of the schema"),
        ({"C": f"{__name__}.Changed", "F": {}}, b"", "not part of the schema"),
        ({"C": f"{__name__}.Inner", "F": {"values": 1}}, b"", "do not match"),
        ({"A": ["|O", [1], 0]}, b"\0" * 8, "refused"),
        ({"A": ["<f8", [4], 0]}, b"\0" * 8, "missing"),
        ({"A": ["<f8", [-1], 0]}, b"", "shape"),
        ({"Q": 1}, b"", "unknown"),
        ({"L": {"not": "a list"}}, b"", "malformed"),
    ],
)
def test_forged_entries_are_refused(node, arrays, reason):
    with pytest.raises(CodecError, match=reason):
        codec_for(Outer).decode(_forged(node, arrays))


def test_deep_nesting_is_refused():
    node: dict = {"L": []}
    for _ in range(200):
        node = {"L": [node]}
    with pytest.raises(CodecError, match="deep"):
        codec_for(Outer).decode(_forged(node))


def test_values_outside_the_schema_are_not_encoded():
    with pytest.raises(CodecError, match="schema"):
        codec_for(Inner).encode(_sample())  # Outer is not reachable from Inner
    with pytest.raises(CodecError, match="dtype"):
        codec_for(object).encode(np.array([object()]))
