# What errdex.hook prints of a raise site, and where it keeps it. An answer is one JSON
# object per site (codec.hook_answer_to_json). For each snapshot the hook has asked for,
# a folder of the cache dir holds one file of answers per source file with sites, written
# by the background job (_background.py) from the database, and the signature of the
# database file at the time (state.json), each file's answers with the digest the snapshot
# recorded of that file: while the database is unchanged, a failure
# reads the one file of the raising frame and nothing else, without errdex's record
# classes, store or matcher, which cost a failing process some 80 ms to import. The
# folder also holds the job's lock, its log and, when it failed, why.
from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, cast

from errdex import places
from errdex.align import align, normalize

if TYPE_CHECKING:  # the record classes are imported only where records are read
    from errdex.model import ErrorSite

FORMAT = 1  # of the files below; another is not read
_MAX_MESSAGE = 200_000  # characters of an exception's text looked at for the values


class Answer(TypedDict):
    """One site as the hook shows it (codec.hook_answer_to_json makes it)."""

    id: str
    kind: str
    exception: str
    names: list[str]  # the class as written, its qualified name, its bases' names
    file: str
    line: int
    function: str
    package: str
    version: str
    title: str | None
    when: str | None
    solutions: list[str]
    lits: list[str] | None  # the message's normalized literal runs; None: no hole
    holes: list[list[str]]  # the hole expressions between each two runs
    inputs: list[str]  # the expressions of the inputs


def answer_of(site: ErrorSite, package: str, version: str) -> Answer:
    """The answer of a site of `package` at `version`."""
    from errdex.codec import hook_answer_to_json

    return cast(Answer, hook_answer_to_json(site, package, version))


Signature = list[list[int] | None]


def signature(location: str) -> Signature | None:
    """What changes when anything is written to the SQLite database at `location`: the
    (mtime, size) of the file and of its write-ahead log when the log holds anything.
    Reading leaves both alone. None for a database that is not a local file."""
    if location.startswith(("postgresql://", "postgres://")):
        return None
    out: Signature = []
    for path, empty_is_none in ((location, False), (location + "-wal", True)):
        try:
            found = os.stat(path)
        except OSError:
            out.append(None)
            continue
        if empty_is_none and found.st_size == 0:
            out.append(None)
        else:
            out.append([found.st_mtime_ns, found.st_size])
    return out


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=10).hexdigest()


class Kept:
    """The folder of one snapshot (package and version in the database at `location`)."""

    def __init__(self, location: str, package: str, version: str) -> None:
        self.location = location
        self.package = package
        self.version = version
        name = f"{package}-{version}"
        readable = "".join(c if c.isalnum() or c in "._-" else "_" for c in name)[:60]
        whose = _digest("\0".join((os.path.abspath(location), package, version)))
        self.root = places.cache_dir() / "hook" / f"{readable}-{whose}"
        self.lock = self.root / "index.lock"
        self.log = self.root / "index.log"
        self._state = self.root / "state.json"
        self._failed = self.root / "failed.json"
        self._sites = self.root / "sites"
        self._read: dict[str, dict[str, Any]] = {}

    # -- reading, at a failure ------------------------------------------------------------

    def fresh(self) -> bool:
        """Whether the answers kept are those of the database as it is now."""
        state = _load(self._state)
        if not isinstance(state, dict) or state.get("format") != FORMAT:
            return False
        now = signature(self.location)
        return now is not None and state.get("signature") == now

    def at(self, file: str) -> list[Answer]:
        """The answers of the sites of `file` (relative to the snapshot's root)."""
        answers = self._kept(file).get("sites")
        return cast(list[Answer], answers) if isinstance(answers, list) else []

    def digest(self, file: str) -> str | None:
        """The digest the snapshot recorded of `file`, as kept with its answers (None: no
        answers kept for it, or none recorded)."""
        digest = self._kept(file).get("digest")
        return digest if isinstance(digest, str) else None

    def _kept(self, file: str) -> dict[str, Any]:
        """What is kept of `file`, read once by this instance ({} when nothing is)."""
        if file not in self._read:
            found = _load(self._sites / f"{_digest(file)}.json")
            ok = isinstance(found, dict) and found.get("file") == file
            self._read[file] = found if ok else {}
        return self._read[file]

    def failure(self) -> str | None:
        """Why the last background index of this snapshot failed, if it did."""
        found = _load(self._failed)
        if isinstance(found, dict) and isinstance(found.get("reason"), str):
            return str(found["reason"])
        return None

    # -- writing, in the background job ---------------------------------------------------

    def write(
        self,
        answers: Iterable[Answer],
        sig: Signature | None,
        digests: Mapping[str, str | None] | None = None,
    ) -> None:
        """Keep `answers` (every site of the snapshot) in place of what was kept, each
        file's with the digest `digests` gives of it, then the database's signature `sig`
        taken before they were read."""
        digests = digests or {}
        self._read.clear()
        by_file: dict[str, list[Answer]] = {}
        for answer in answers:
            file = answer["file"]
            for name in dict.fromkeys((file, file.removeprefix("src/"))):
                by_file.setdefault(name, []).append(answer)
        self.root.mkdir(parents=True, exist_ok=True)
        fresh = self.root / f"sites.tmp-{os.getpid()}"
        shutil.rmtree(fresh, ignore_errors=True)
        fresh.mkdir()
        for file, sites in by_file.items():
            digest = digests.get(sites[0]["file"])
            kept = {"file": file, "sites": sites, "digest": digest}
            _dump(fresh / f"{_digest(file)}.json", kept)
        old = self.root / f"sites.old-{os.getpid()}"
        if self._sites.exists():
            os.replace(self._sites, old)
        os.replace(fresh, self._sites)
        shutil.rmtree(old, ignore_errors=True)
        _dump(self._state, {"format": FORMAT, "signature": sig, "db": self.location})
        self._failed.unlink(missing_ok=True)

    def fail(self, reason: str) -> None:
        """Say why the background index failed, for the next failures to tell."""
        self.root.mkdir(parents=True, exist_ok=True)
        _dump(self._failed, {"format": FORMAT, "reason": reason})


def _load(path: Path) -> Any:
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


def _dump(path: Path, value: object) -> None:
    """Write `value` as JSON at `path` in one step (a reader sees the old or the new)."""
    part = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(part, "w", encoding="utf-8") as handle:
        json.dump(value, handle, ensure_ascii=False, separators=(",", ":"))
    os.replace(part, path)


def values_in(answer: Answer, message: str) -> dict[str, str]:
    """The text that filled each hole of the answer's message in `message` (the text of
    the exception raised), by the matcher's alignment: {expression: text}, a group of
    holes with nothing between them as "{a}{b}"."""
    lits = answer["lits"]
    if not lits:
        return {}
    text = normalize(message[:_MAX_MESSAGE])
    variants = [text]
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        variants.append(text[1:-1])  # KeyError shows the repr of its message
    for variant in variants:
        found = align(tuple(lits), variant)
        if found is not None and found.complete:  # a part of it could fill a hole wrongly
            break
    else:
        return {}
    values: dict[str, str] = {}
    for holes, gap in zip(answer["holes"], found.gaps, strict=False):
        if gap is not None:
            key = holes[0] if len(holes) == 1 else "".join("{" + h + "}" for h in holes)
            values[key] = variant[gap[0] : gap[1]]
    return values
