# How the caches keep values: as data only, never code. What the per-file cache keeps (a file's
# facts, a test file's scan) and what explain keeps of a site's prose are written as
# JSON of plain values, each record of ours as {"ClassName": [its fields, in order]},
# under a format tag. Reading one back builds only the classes it was given (errdex's
# own frozen records, looked up by name in that list) and the builtin containers: an
# entry someone else wrote (an older errdex's pickles, a planted payload, a damaged
# row) is unreadable, and the caller treats it as a miss. Nothing in an entry is ever
# imported, called or evaluated.
#
# The shapes: a tuple is a JSON array; the other containers and enum members are
# one-key objects whose key is a lowercase letter ("l" list, "d" dict as [key, value]
# pairs, "f" frozenset, "s" set, "e" [enum class, value]), so they cannot be confused
# with a record, whose key is its class's (capitalised) name.
from __future__ import annotations

import dataclasses
import enum
import json
import operator
import types
import typing
import zlib
from collections.abc import Callable, Iterable
from typing import Any

FORMAT = b"errdex-data/1\n"  # the first bytes of every entry; another format is a miss


class Unreadable(ValueError):
    """An entry this code cannot read back: another format, a foreign class, damage."""


_CONTAINER_KEYS = frozenset("ldfse")


class Packer:
    """Writes and reads the values of `classes` (frozen dataclasses and enums of ours),
    nested in tuples, lists, dicts, sets and frozensets of them and of scalars."""

    def __init__(self, classes: Iterable[type]) -> None:
        self._records: dict[str, _Record] = {}
        self._enums: dict[str, type[enum.Enum]] = {}
        self._names: dict[type, str] = {}
        for cls in classes:
            name = cls.__name__
            if name in self._names.values() or name in _CONTAINER_KEYS:
                raise ValueError(f"two classes, or a class and a container, named {name!r}")
            self._names[cls] = name
            if issubclass(cls, enum.Enum):
                self._enums[name] = cls
            elif dataclasses.is_dataclass(cls):
                self._records[name] = _Record(cls)
            else:
                raise ValueError(f"{name} is neither a dataclass nor an enum")
        self._makers: dict[str, _Convert] = {
            **_CONTAINERS,
            "e": self._enum,
            **{name: record.make for name, record in self._records.items()},
        }

    # -- writing ----------------------------------------------------------------------

    def dumps(self, value: Any, *, compress: bool = False) -> bytes:
        """The entry of `value`; raises Unreadable for a value of a type not given."""
        # ASCII: a lone surrogate (valid in a Python string, not in UTF-8) is escaped
        try:
            data = json.dumps(self._plain(value), separators=(",", ":")).encode("ascii")
        except RecursionError:  # a tree nested deeper than this can write (or read)
            raise Unreadable("a value nested too deep to keep") from None
        return FORMAT + (zlib.compress(data, 1) if compress else data)

    def _plain(self, value: Any) -> Any:
        kind = type(value)
        if kind is str or kind is int or kind is bool or value is None or kind is float:
            return value
        # map, not a comprehension: one frame a level, so that deep trees still fit
        plain = self._plain
        if kind is tuple:
            return list(map(plain, value))
        name = self._names.get(kind)
        if name is not None:
            if name in self._enums:
                return {"e": [name, value.value]}
            return {name: list(map(plain, self._records[name].values(value)))}
        if kind is list:
            return {"l": list(map(plain, value))}
        if kind is dict:
            return {"d": [[plain(k), plain(v)] for k, v in value.items()]}
        if kind is frozenset or kind is set:
            return {"f" if kind is frozenset else "s": list(map(plain, value))}
        raise Unreadable(f"cannot keep a {kind.__qualname__} in the cache")

    # -- reading ----------------------------------------------------------------------

    def loads(self, data: bytes, *, compressed: bool = False) -> Any:
        """The value `dumps` wrote; raises Unreadable for anything else."""
        if not data.startswith(FORMAT):
            raise Unreadable("not an entry of this format")
        body = data[len(FORMAT) :]
        try:
            if compressed:
                body = zlib.decompress(body)
            value = json.loads(body, object_hook=self._hook)
            return _tuples(value)
        except Unreadable:
            raise
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError, zlib.error) as exc:
            raise Unreadable(f"a damaged entry ({type(exc).__name__}: {exc})") from None

    def _hook(self, obj: dict[str, Any]) -> Any:
        ((key, items),) = obj.items()  # ValueError unless one key: read as damage
        make = self._makers.get(key)
        if make is None:
            raise Unreadable(f"an entry holding {key!r}, which is no class of this errdex")
        return make(items)

    def _enum(self, items: list[Any]) -> Any:
        if len(items) != 2 or type(items[0]) is not str or items[0] not in self._enums:
            raise Unreadable("an enum member of no known class")
        return self._enums[items[0]](items[1])


class _Record:
    """One record class: its fields in order, and how each field's JSON value becomes
    the field's value (a JSON array is a list until it is made the tuple it was; the
    fields whose type holds no tuple are taken as they come, which keeps reading fast)."""

    def __init__(self, cls: type) -> None:
        self.cls = cls
        self.fields = tuple(f.name for f in dataclasses.fields(cls))
        self.values = operator.attrgetter(*self.fields) if len(self.fields) > 1 else _one(self)
        self.slotted = "__slots__" in cls.__dict__
        try:
            hints = typing.get_type_hints(cls)
        except Exception:  # a name only imported for type checking: read every field
            hints = {}
        self.converts = tuple(
            (field, convert)
            for field in self.fields
            if (convert := _converter(hints.get(field, Any))) is not None
        )

        self.make = self._maker()

    def _maker(self) -> _Convert:
        """What makes one record of the class from the JSON array of its fields: set as
        pickle sets them (no __init__ runs), and quick, as it runs for every record."""
        cls, fields, converts, new = self.cls, self.fields, self.converts, object.__new__
        if self.slotted:

            def make_slotted(items: list[Any]) -> Any:
                made: Any = new(cls)
                for field, value in zip(fields, items, strict=True):
                    object.__setattr__(made, field, value)
                for field, convert in converts:
                    object.__setattr__(made, field, convert(getattr(made, field)))
                return made

            return make_slotted

        def make(items: list[Any]) -> Any:
            made: Any = new(cls)
            values = made.__dict__
            values.update(zip(fields, items, strict=True))
            for field, convert in converts:
                values[field] = convert(values[field])
            return made

        return make


def _one(record: _Record) -> Callable[[Any], tuple[Any, ...]]:
    names = record.fields
    return lambda value: tuple(getattr(value, name) for name in names)


_Convert = Callable[[Any], Any]
_PLAIN = (str, int, float, bool, type(None))


def _converter(hint: Any) -> _Convert | None:
    """What makes a field of type `hint` from its JSON value; None when it is taken as it
    is (scalars, records and containers, which the hook makes)."""
    origin = typing.get_origin(hint)
    if hint in _PLAIN or origin is typing.Literal:
        return None
    if isinstance(hint, type) and (dataclasses.is_dataclass(hint) or issubclass(hint, enum.Enum)):
        return None
    if origin in (frozenset, set, dict, list):
        return None
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            inner = _converter(args[0])
            return tuple if inner is None else lambda v: tuple(map(inner, v))
        if args and Ellipsis not in args:
            inners = [_converter(a) for a in args]
            if all(c is None for c in inners):
                return tuple
        return _tuples
    if origin in (typing.Union, types.UnionType):
        members = [_converter(a) for a in typing.get_args(hint)]
        if all(c is None for c in members):
            return None
        return _tuples
    return _tuples  # Any, object, what this does not know: every array a tuple


class _List(list[Any]):
    """A list that was a list (not a JSON array, which is a tuple), until it is placed."""


def _tuples(value: Any) -> Any:
    """JSON arrays as the tuples they were, and lists as lists; containers and records
    inside are made already."""
    kind = type(value)
    if kind is list:
        return tuple(map(_tuples, value))
    if kind is _List:
        return list(value)
    return value


def _pairs(items: list[Any]) -> dict[Any, Any]:
    if not all(type(item) is list and len(item) == 2 for item in items):
        raise Unreadable("a dict that is not a list of pairs")
    return {_tuples(k): _tuples(v) for k, v in items}


_CONTAINERS: dict[str, _Convert] = {
    "l": lambda items: _List(map(_tuples, items)),
    "d": _pairs,
    "f": lambda items: frozenset(map(_tuples, items)),
    "s": lambda items: set(map(_tuples, items)),
}


def classes_of(*modules: Any) -> list[type]:
    """The dataclasses and enums each of `modules` defines (not those it imports)."""
    found: list[type] = []
    for module in modules:
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and value.__module__ == module.__name__
                and (dataclasses.is_dataclass(value) or issubclass(value, enum.Enum))
            ):
                found.append(value)
    return found
