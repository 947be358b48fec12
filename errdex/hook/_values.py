# Reading the current values of a site's inputs from the failing frame, without running
# any code of the user's objects: names come from the frame's locals (then globals), and
# attributes from an instance's own __dict__ or a slot's member descriptor, both found by
# builtin descriptors, never through getattr, a property or __getattr__. Values are shown
# with a bounded repr of builtin types only; any other object is named by its class.
from __future__ import annotations

import reprlib
import types
from typing import Any

_MISSING = object()
_TYPE_DICT = type.__dict__["__dict__"]
_TYPE_MRO = type.__dict__["__mro__"]
_TYPE_NAME = type.__dict__["__qualname__"]
_TYPE_MODULE = type.__dict__["__module__"]

# Compared by identity (`_one_of`), never by `in` a set or tuple: that hashes or compares
# the type, which runs a metaclass's __hash__ or __eq__, code of the user's.
_SCALARS: tuple[type, ...] = (int, float, complex, bool, str, bytes, type(None), type(...), range)
_CONTAINERS: tuple[type, ...] = (list, tuple, dict, set, frozenset)
_DICT_SLOTS: tuple[type, ...] = (types.GetSetDescriptorType, types.MemberDescriptorType)


def _one_of(kind: type, kinds: tuple[type, ...]) -> bool:
    """Whether `kind` is one of `kinds`, by identity alone."""
    return any(kind is k for k in kinds)


def read(expr: str, f_locals: dict[str, Any], f_globals: dict[str, Any]) -> object:
    """The value of a dotted name `expr` ("size", "self.config.size") in a frame, or
    _MISSING when it cannot be read without calling user code."""
    parts = expr.split(".")
    if not all(part.isidentifier() for part in parts):
        return _MISSING
    value = f_locals.get(parts[0], _MISSING)
    if value is _MISSING:
        value = f_globals.get(parts[0], _MISSING)
    for name in parts[1:]:
        if value is _MISSING:
            break
        value = attribute(value, name)
    return value


def _namespace(klass: type) -> types.MappingProxyType[str, Any]:
    ns = _TYPE_DICT.__get__(klass, type)
    assert isinstance(ns, types.MappingProxyType)
    return ns


def attribute(obj: object, name: str) -> object:
    """obj.name as stored (instance dict or slot), else a plain class-level value."""
    cls = type(obj)
    mro = _TYPE_MRO.__get__(cls, type)
    found: object = _MISSING
    for klass in mro:
        ns = _namespace(klass)
        if name in ns:
            found = ns[name]
            break
    if found is not _MISSING:
        kind = type(found)
        if kind is types.MemberDescriptorType:  # a __slots__ member
            try:
                return found.__get__(obj, cls)  # type: ignore[attr-defined]
            except AttributeError:  # an unset slot
                return _MISSING
        if _is_descriptor(kind, data=True):  # a property or another data descriptor
            return _MISSING
    instance = _instance_dict(obj, mro)
    if instance is not None and name in instance:
        return instance[name]
    if found is _MISSING or _is_descriptor(type(found), data=False):
        return _MISSING  # nothing stored, or a method / classmethod
    return found


def _is_descriptor(kind: type, *, data: bool) -> bool:
    wanted = "__set__" if data else "__get__"
    return any(
        wanted in _namespace(k) or (data and "__delete__" in _namespace(k))
        for k in _TYPE_MRO.__get__(kind, type)
    )


def _instance_dict(obj: object, mro: tuple[type, ...]) -> dict[str, Any] | None:
    for klass in mro:
        ns = _namespace(klass)
        slot = ns.get("__dict__")
        if slot is not None and _one_of(type(slot), _DICT_SLOTS):
            try:
                found = slot.__get__(obj, type(obj))
            except (AttributeError, TypeError):
                return None
            return found if type(found) is dict else None
    return None


class _SafeRepr(reprlib.Repr):
    """reprlib bounded, over builtin types only: nothing of the user's runs."""

    def __init__(self) -> None:
        super().__init__()
        self.maxstring = 80
        self.maxother = 80
        self.maxlevel = 3

    def repr1(self, x: Any, level: int) -> str:
        kind = type(x)
        if _one_of(kind, _SCALARS):
            return super().repr1(x, level)
        if _one_of(kind, _CONTAINERS):
            if kind is dict and not all(_one_of(type(k), _SCALARS) for k in x):
                return f"<dict of {len(x)} items>"
            if (kind is set or kind is frozenset) and not all(
                _one_of(type(k), _SCALARS) for k in x
            ):
                return f"<{kind.__name__} of {len(x)} items>"
            return super().repr1(x, level)
        return _enum_or_class(x, kind)


def _enum_or_class(x: object, kind: type) -> str:
    qualname = _TYPE_NAME.__get__(kind, type)
    module = _TYPE_MODULE.__get__(kind, type)
    name = _instance_dict(x, _TYPE_MRO.__get__(kind, type))
    if name is not None and type(name.get("_name_")) is str and "_value_" in name:
        return f"{qualname}.{name['_name_']}"  # an enum member
    where = f"{module}." if isinstance(module, str) and module != "builtins" else ""
    return f"<{where}{qualname} object>"


_REPR = _SafeRepr()


def show(value: object) -> str:
    """A bounded, side-effect-free repr of `value`."""
    try:
        return _REPR.repr(value)
    except Exception:  # a builtin repr that still fails (a huge int, say)
        return f"<{type(value).__name__}>"


MISSING = _MISSING
