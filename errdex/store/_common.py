# What every store implementation shares and no SQL dialect decides: how versions
# order, which snapshots a query covers, how a search hit is highlighted, where the
# default database lives, and what the match index keeps of a site.
from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from packaging.version import InvalidVersion, Version

from errdex import codec, places, rank
from errdex.codec import SharedBody
from errdex.model import ErrorSite, IndexedSite, Snapshot
from errdex.text import shape

VersionKey = tuple[int, Version | None, str]
_ZLIB_LEVEL = 6


def version_key(version: str) -> VersionKey:
    """Return a sort key for `version`: PEP 440 order, non-PEP 440 versions first by string.

    A version that packaging cannot parse (a branch name, a bare commit) sorts before
    every PEP 440 version, so that a real release is always "the newest" of a package.
    """
    try:
        return (1, Version(version), version)
    except InvalidVersion:
        return (0, None, version)


def sort_versions(versions: list[str]) -> list[str]:
    """Return `versions` oldest first (see `version_key`)."""
    return sorted(versions, key=version_key)


def default_location() -> str:
    """Return $ERRDEX_DB if set, else errdex.sqlite in the user data directory."""
    return places.database()


def chosen_snapshots(rows: Iterable[tuple[int, str, str]], version: str | None) -> list[int]:
    """The ids among (id, package, version) `rows` that a query with `version` covers, by
    package, then version: None the newest version of each package, "*" every version,
    else that version."""
    found = sorted(rows, key=lambda r: (r[1], version_key(r[2])))
    if version is None:
        newest: dict[str, int] = {}
        for snapshot_id, package, _ in found:
            newest[package] = snapshot_id  # the last one of each package is the newest
        return list(newest.values())
    if version == "*":
        return [r[0] for r in found]
    return [r[0] for r in found if r[2] == version]


def search_highlight(words: list[str], fields: tuple[str | None, ...]) -> dict[str, Any]:
    """A hit's highlight: message and title whole, snippet fields when a word is in them
    (`fields` in rank.FIELDS order; the message alone for a message-only search)."""
    text = dict(zip(rank.FIELDS, fields, strict=False))
    out: dict[str, Any] = {}
    for key in ("message", "title"):
        found = text.get(key)
        out[key] = None if found is None else rank.marks(words, found)
    for key in rank.SNIPPET_FIELDS:
        found = text.get(key)
        if found and any(segment.match for segment in rank.marks(words, found)):
            out[key] = rank.marks(words, rank.snippet(found))
    return out


# -- the match index's rows ----------------------------------------------------------------


def lits_key(lits: tuple[str, ...]) -> str:
    """The key of a template in the templates table: its literal runs as compact JSON."""
    return json.dumps(lits, ensure_ascii=False, separators=(",", ":"))


def template_wants(
    sites: Iterable[ErrorSite],
) -> tuple[dict[str, tuple[str, ...]], list[str | None]]:
    """The literal runs of each distinct template of `sites`, by lits_key, and the key
    of each site's template (None for a site without a message), in `sites` order."""
    wanted: dict[str, tuple[str, ...]] = {}
    keys: list[str | None] = []
    for site in sites:
        if site.message is None:
            keys.append(None)
            continue
        lits, _ = shape(site.message)
        key = lits_key(lits)
        wanted.setdefault(key, lits)
        keys.append(key)
    return wanted, keys


def index_columns(site: ErrorSite) -> tuple[str, str, str | None]:
    """(base, exc_bases, holes) of one site: its file's base name, its exception's bases,
    the hole expressions of each group between literal runs (JSON)."""
    holes = None
    if site.message is not None:
        holes = json.dumps(shape(site.message)[1], ensure_ascii=False, separators=(",", ":"))
    return site.location.file.rsplit("/", 1)[-1], " ".join(site.exception.bases), holes


def indexed_site(row: Sequence[Any]) -> IndexedSite:
    """The IndexedSite of a row of (template_id, lits, site_id, package, version, file,
    line, function, exc_name, exc_qualname, exc_bases, message_text, holes)."""
    (
        tid,
        lits,
        site_id,
        package,
        version,
        file,
        line,
        function,
        name,
        qualname,
        bases,
        text,
        holes,
    ) = row
    return IndexedSite(
        template_id=tid,
        lits=None if lits is None else tuple(json.loads(lits)),
        id=site_id,
        package=package,
        version=version,
        file=file,
        line=line,
        function=function,
        exception=name,
        exception_names=(name, qualname, *(bases.split() if bases else ())),
        text=text,
        holes=() if holes is None else tuple(tuple(group) for group in json.loads(holes)),
    )


# -- a shared record's body and its member's line numbers ----------------------------------


def record_digest(package: str, body: SharedBody) -> bytes:
    """The key of a stored body: the first 16 bytes of SHA-256 over the package's name and
    the body's text (records of two packages are never one row)."""
    return hashlib.sha256(f"{package}\n{body.text}".encode()).digest()[:16]


# Bodies are made on every core from this many sites, in chunks of this many: a body is
# the site's JSON with its marks and its digest, some 0.4 ms each (vllm: 2.6 CPU-s of a
# cold index's write, which was all in one process).
_BODIES_POOL_FROM = 1000
_BODIES_CHUNK = 500


@dataclass(frozen=True, slots=True)
class StoredBody:
    """One site's body as its snapshot stores it, its digest and, when it was made ahead
    (see stored_bodies), its compressed bytes."""

    body: SharedBody
    digest: bytes
    packed: bytes | None = None

    def compressed(self) -> bytes:
        """The body's bytes as a `records` row keeps them (pack_body)."""
        return pack_body(self.body) if self.packed is None else self.packed


def stored_bodies(
    snapshot: Snapshot, sites: Sequence[ErrorSite], *, compress: bool = False
) -> Callable[[], list[StoredBody]]:
    """Start making each of `sites`' body as `snapshot` stores it (codec.shared_body)
    and its digest, compressed too when `compress` (a package's first snapshot, whose
    records are all new), and return the call that waits for them, in order. For many
    sites they are made on a pool of forked workers (explain.parallel), which read the
    sites from their copy of this process's memory and hand back only these: the writer
    goes on with what needs no body meanwhile (the workers never touch the connections
    a fork hands them)."""

    # imported here: the pool's modules are no cost of the commands that only read
    from errdex.explain.parallel import over_workers

    def job(start: int, stop: int) -> list[StoredBody]:
        out = []
        for site in sites[start:stop]:
            body = codec.shared_body(site, snapshot.version, snapshot.commit)
            packed = pack_body(body) if compress else None
            out.append(StoredBody(body, record_digest(snapshot.package, body), packed))
        return out

    return over_workers(job, len(sites), chunk=_BODIES_CHUNK, least=_BODIES_POOL_FROM)


def pack_body(body: SharedBody) -> bytes:
    """A body's text as stored: zlib-compressed (a vllm body is 5 kB of JSON, a third of
    that compressed, and reads back in microseconds)."""
    return zlib.compress(body.text.encode(), _ZLIB_LEVEL)


def pack_lines(line: int, lines: Sequence[int]) -> bytes:
    """`lines` (a member's line numbers, in its body's order) as stored: each one's
    difference from the one before (the first's from `line`, the site's own), as a
    zigzag varint, since most lie a few lines from the site: 1-2 bytes each."""
    out = bytearray()
    before = line
    for value in lines:
        delta = value - before
        before = value
        zig = delta * 2 if delta >= 0 else -delta * 2 - 1
        while zig >= 0x80:
            out.append((zig & 0x7F) | 0x80)
            zig >>= 7
        out.append(zig)
    return bytes(out)


def unpack_lines(line: int, packed: bytes) -> tuple[int, ...]:
    """The line numbers `pack_lines(line, ...)` packed."""
    out: list[int] = []
    before, zig, shift = line, 0, 0
    for byte in packed:
        zig |= (byte & 0x7F) << shift
        if byte & 0x80:
            shift += 7
            continue
        before += zig >> 1 if not zig & 1 else -((zig + 1) >> 1)
        out.append(before)
        zig = shift = 0
    return tuple(out)


def unpack_body(packed: bytes) -> bytes:
    """The UTF-8 of a stored body's text (SharedBody.text)."""
    return zlib.decompress(packed)


def search_texts(site: ErrorSite) -> tuple[str | None, ...]:
    """The text of each of rank.FIELDS that search reads for `site`, the same in every
    version that shares its body: the solutions without the site's report link (it names
    the version and commit; what it says, the message and title, is searched already)."""
    e = site.explanation
    solutions = None
    if e is not None and e.solutions:
        solutions = " · ".join(e.solutions)
        if e.report_issue_url:
            solutions = solutions.replace(e.report_issue_url, "")
    return (
        None if site.message is None else site.message.text,
        None if e is None else e.title,
        solutions,
        ", ".join(i.expr for i in site.inputs) or None,
        f"{site.exception.name} {site.exception.qualname}",
        site.location.function,
        site.location.file,
    )
