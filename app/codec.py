"""Results as data: cache entries that are read without running any code.

A pickle is a program: whoever can write to the cache (a shared Redis, a cache folder) could
make every worker run theirs. Results are therefore stored as *data* — a JSON description of
the value's tree followed by the raw bytes of its arrays — and read back only into plain
containers, numeric numpy arrays and the frozen dataclasses a view declares as its result type.
Anything else in an entry (a pickle, an unknown class, an object array, a truncated buffer)
makes :func:`decode` raise :class:`CodecError`, which the cache treats as a miss.

Layout of an entry::

    MAGIC | header length (4 bytes, big-endian) | header (UTF-8 JSON) | array bytes

The header holds ``{"schema": …, "value": node}``. A node is a JSON scalar (``None``, bool,
int, float — NaN and ±inf included — or str) or a one-key object: ``{"L": [...]}`` list,
``{"T": [...]}`` tuple, ``{"D": [[key, value], ...]}`` dict, ``{"Z": [re, im]}`` complex,
``{"A": [dtype, shape, offset]}`` array, ``{"C": name, "F": {field: node}}`` dataclass.

The *schema* is a fingerprint of the result type — every dataclass reachable from it, with its
fields and their annotations — so changing a result type changes the cache keys and the
entries written before are never misread: no version number to bump by hand.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import struct
import types
import typing
from collections.abc import Mapping
from functools import cache
from typing import Any

import numpy as np

__all__ = ["MAGIC", "CodecError", "ResultCodec", "codec_for"]

MAGIC = b"LRC\x01"
#: numpy dtype kinds an entry may hold: bool, integers, floats, complex (never objects)
_ARRAY_KINDS = frozenset("biufc")
_ALIGN = 8
_HEADER = struct.Struct(">I")
#: deepest nesting decoded (a hostile entry must not exhaust the stack)
_MAX_DEPTH = 64


class CodecError(ValueError):
    """An entry that is not a well-formed result of the expected schema."""


@dataclasses.dataclass(frozen=True)
class ResultCodec:
    """Encodes and decodes values of one result type (see the module docstring)."""

    schema: str
    #: every dataclass that may appear in an entry, by its qualified name
    classes: Mapping[str, type]

    # -- encoding ---------------------------------------------------------------------------

    def encode(self, value: Any) -> bytes:
        chunks: list[bytes] = []
        offset = [0]

        def array(values: np.ndarray) -> dict:
            if values.dtype.kind not in _ARRAY_KINDS:
                raise CodecError(f"arrays of dtype {values.dtype} cannot be stored")
            data = np.ascontiguousarray(values).tobytes()
            padding = -len(data) % _ALIGN
            chunks.append(data + b"\0" * padding)
            node = {"A": [values.dtype.str, list(values.shape), offset[0]]}
            offset[0] += len(data) + padding
            return node

        def node(item: Any) -> Any:
            if item is None or isinstance(item, bool | int | str):
                return item
            if isinstance(item, float):
                return item
            if isinstance(item, np.ndarray):
                return array(item)
            if isinstance(item, np.generic):
                return node(item.item())
            if isinstance(item, complex):
                return {"Z": [item.real, item.imag]}
            if isinstance(item, list):
                return {"L": [node(v) for v in item]}
            if isinstance(item, tuple):
                return {"T": [node(v) for v in item]}
            if isinstance(item, dict):
                return {"D": [[node(k), node(v)] for k, v in item.items()]}
            name = _qualified(type(item))
            if dataclasses.is_dataclass(item) and self.classes.get(name) is type(item):
                fields = dataclasses.fields(item)
                return {"C": name, "F": {f.name: node(getattr(item, f.name)) for f in fields}}
            raise CodecError(f"{name} is not part of this result's schema")

        header = json.dumps({"schema": self.schema, "value": node(value)}).encode()
        return b"".join([MAGIC, _HEADER.pack(len(header)), header, *chunks])

    # -- decoding ---------------------------------------------------------------------------

    def decode(self, entry: bytes) -> Any:
        """The value stored in ``entry``; :class:`CodecError` if it is anything but a
        well-formed entry of this schema."""
        if not isinstance(entry, bytes | bytearray | memoryview) or bytes(entry[:4]) != MAGIC:
            raise CodecError("not a result entry")
        try:
            (length,) = _HEADER.unpack_from(entry, len(MAGIC))
            start = len(MAGIC) + _HEADER.size
            header = json.loads(bytes(entry[start : start + length]))
        except (struct.error, ValueError, RecursionError) as error:
            raise CodecError(f"unreadable header ({error})") from None
        if not isinstance(header, dict) or header.get("schema") != self.schema:
            raise CodecError("written for another schema")
        # one copy into a writable buffer: the arrays handed out may be changed by their user
        buffer = memoryview(bytearray(entry[start + length :]))
        return self._node(header.get("value"), buffer, 0)

    def _node(self, item: Any, buffer: memoryview, depth: int) -> Any:
        if depth > _MAX_DEPTH:
            raise CodecError("nested too deeply")
        if item is None or isinstance(item, bool | int | float | str):
            return item
        if not (isinstance(item, dict) and len(item) in (1, 2)):
            raise CodecError("malformed node")
        deeper = depth + 1
        if "L" in item:
            return [self._node(v, buffer, deeper) for v in _list(item["L"])]
        if "T" in item:
            return tuple(self._node(v, buffer, deeper) for v in _list(item["T"]))
        if "D" in item:
            pairs = (_pair(p) for p in _list(item["D"]))
            return {self._node(k, buffer, deeper): self._node(v, buffer, deeper) for k, v in pairs}
        if "Z" in item:
            real, imag = _pair(item["Z"])
            return complex(float(real), float(imag))
        if "A" in item:
            return _array(item["A"], buffer)
        if "C" in item:
            return self._dataclass(item, buffer, deeper)
        raise CodecError("unknown node")

    def _dataclass(self, item: dict, buffer: memoryview, depth: int) -> Any:
        cls = self.classes.get(item.get("C")) if isinstance(item.get("C"), str) else None
        fields = item.get("F")
        if cls is None or not isinstance(fields, dict):
            raise CodecError(f"class {str(item.get('C'))[:80]!r} is not part of the schema")
        expected = {f.name for f in dataclasses.fields(cls)}
        if set(fields) != expected:
            raise CodecError(f"fields of {cls.__name__} do not match")
        values = {name: self._node(node, buffer, depth) for name, node in fields.items()}
        try:
            return cls(**values)
        except (TypeError, ValueError) as error:
            raise CodecError(f"{cls.__name__} refused the stored fields ({error})") from None


def _list(item: Any) -> list:
    if not isinstance(item, list):
        raise CodecError("malformed node")
    return item


def _pair(item: Any) -> tuple[Any, Any]:
    if not (isinstance(item, list) and len(item) == 2):
        raise CodecError("malformed node")
    return item[0], item[1]


def _array(spec: Any, buffer: memoryview) -> np.ndarray:
    if not (isinstance(spec, list) and len(spec) == 3):
        raise CodecError("malformed array")
    dtype_text, shape, offset = spec
    try:
        dtype = np.dtype(dtype_text) if isinstance(dtype_text, str) else None
    except TypeError:
        dtype = None
    if dtype is None or dtype.kind not in _ARRAY_KINDS or dtype.fields is not None:
        raise CodecError(f"arrays of dtype {str(dtype_text)[:40]!r} are refused")
    if not (
        isinstance(shape, list)
        and all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape)
        and isinstance(offset, int)
        and offset >= 0
    ):
        raise CodecError("malformed array shape")
    size = math.prod(shape) * dtype.itemsize
    if offset + size > len(buffer):
        raise CodecError("array bytes missing")
    return np.frombuffer(buffer, dtype=dtype, count=math.prod(shape), offset=offset).reshape(shape)


# -- schemas ---------------------------------------------------------------------------------


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _annotations(cls: type) -> dict[str, Any]:
    try:
        return typing.get_type_hints(cls)
    except Exception:  # unresolvable forward references: the text still fingerprints them
        return {f.name: f.type for f in dataclasses.fields(cls)}


def _reachable(hint: Any, found: dict[str, type]) -> None:
    """Every dataclass reachable from a type hint, into ``found`` (by qualified name)."""
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        name = _qualified(hint)
        if name in found:
            return
        found[name] = hint
        for field_hint in _annotations(hint).values():
            _reachable(field_hint, found)
        return
    for argument in typing.get_args(hint):
        _reachable(argument, found)
    if isinstance(hint, types.UnionType):
        for argument in hint.__args__:
            _reachable(argument, found)


def _describe(classes: Mapping[str, type], root: Any) -> str:
    lines = [repr(root)]
    for name in sorted(classes):
        hints = _annotations(classes[name])
        fields = dataclasses.fields(classes[name])
        lines.append(
            f"{name}(" + ", ".join(f"{f.name}: {hints.get(f.name)!r}" for f in fields) + ")"
        )
    return "\n".join(lines)


@cache
def codec_for(result_type: Any) -> ResultCodec:
    """The codec of a result type (a dataclass, or a hint such as ``dict[str, Sweep]``); its
    schema changes whenever any dataclass reachable from the type changes its fields."""
    classes: dict[str, type] = {}
    _reachable(result_type, classes)
    text = _describe(classes, result_type) + f"\nformat {MAGIC!r}"
    schema = hashlib.sha256(text.encode()).hexdigest()[:16]
    return ResultCodec(schema=schema, classes=classes)
