# Which installed distribution owns a file, read from the *.dist-info directories of a
# sys.path entry as importlib.metadata reads them: the name and version from METADATA's
# headers, the files from RECORD. Without importing importlib.metadata, which loads the
# email package to parse METADATA (20 ms of a hook's first explain), and reading RECORD
# only of the distributions that can own the file: the one named like the file's top
# folder first, then the rest. Anything else (an .egg-info, a dist-info without RECORD)
# is read through importlib.metadata, imported then.
from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field

from errdex.names import canonical

Owner = tuple[str, str]  # (distribution name, installed version)


@dataclass
class _Dist:
    path: str  # the .dist-info (or .egg-info) directory
    stem: str  # its name before the version, PEP 503-normalized
    owner: Owner | None = None
    # normalized absolute paths of its .py files and extension modules (a Cython frame's
    # module is one)
    files: set[str] | None = None
    read: bool = False


@dataclass
class _Entry:
    dists: list[_Dist] = field(default_factory=list)


_lock = threading.RLock()
_entries: dict[str, _Entry] = {}


def forget() -> None:
    """Drop what was read (the benchmark times a first lookup with it)."""
    with _lock:
        _entries.clear()


def owner_in(entry: str, path: str) -> Owner | None:
    """(name, version) of the distribution installed in `entry` (a sys.path directory)
    whose RECORD lists `path` (normalized, absolute, inside `entry`), or None."""
    with _lock:
        found = _entries.get(entry)
        if found is None:
            found = _entries[entry] = _scan(entry)
        top = canonical(os.path.relpath(path, entry).split(os.sep, 1)[0].removesuffix(".py"))
        likely = [d for d in found.dists if d.stem == top]
        for dist in (*likely, *(d for d in found.dists if d.stem != top)):
            _read(dist, entry)
            if dist.owner is not None and dist.files is not None and path in dist.files:
                return dist.owner
    return None


def _scan(entry: str) -> _Entry:
    try:
        names = sorted(os.listdir(entry))
    except OSError:  # not a directory, or unreadable: it owns nothing
        return _Entry()
    dists = [
        _Dist(os.path.join(entry, name), canonical(_stem(name)))
        for name in names
        if name.endswith((".dist-info", ".egg-info"))
    ]
    return _Entry(dists)


def _stem(name: str) -> str:
    """The distribution name in a metadata folder's name: `zope.interface-5.0.dist-info`
    -> `zope.interface`."""
    return name.removesuffix(".dist-info").removesuffix(".egg-info").partition("-")[0]


def _read(dist: _Dist, entry: str) -> None:
    if dist.read:
        return
    dist.read = True
    try:
        head = _text(dist.path, "METADATA") or _text(dist.path, "PKG-INFO") or ""
        record = _text(dist.path, "RECORD")
        if record is not None:
            listed = [line.rsplit(",", 2)[0].strip('"') for line in record.splitlines() if line]
            base = entry
        else:
            listed, base = _listed_by_importlib(dist.path)
    except Exception:  # a broken dist-info: it owns nothing, and is not ours to judge
        return
    dist.owner = _name_and_version(head)
    dist.files = {
        os.path.normpath(os.path.join(base, text))
        for text in listed
        if text.endswith((".py", ".so", ".pyd"))
    }


def _text(directory: str, name: str) -> str | None:
    try:
        with open(os.path.join(directory, name), encoding="utf-8") as handle:
            return handle.read()
    except (FileNotFoundError, NotADirectoryError):
        return None


def _name_and_version(head: str) -> Owner | None:
    name = version = ""
    for line in head.splitlines():
        if not line.strip():
            break  # the headers end at the first blank line
        key, _, value = line.partition(":")
        if key.lower() == "name" and not name:
            name = value.strip()
        elif key.lower() == "version" and not version:
            version = value.strip()
    return (name, version) if name and version else None


def _listed_by_importlib(directory: str) -> tuple[list[str], str]:
    """The files of a distribution without RECORD (an egg's installed-files.txt or
    SOURCES.txt), as importlib.metadata lists them, and the folder they are relative to."""
    from importlib import metadata

    dist = metadata.PathDistribution.at(directory)
    return [str(f) for f in dist.files or ()], str(dist.locate_file(""))
