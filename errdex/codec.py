# The one place where records become JSON and back: the site record of the contract
# (docs/architecture.md), and every other shape a surface prints or serves (snapshots,
# search hits, match answers, diffs, history, index summaries, model notes). Surfaces
# write JSON only through `dumps`, so the CLI, the API and the export say it byte for byte
# the same.
from __future__ import annotations

import functools
import itertools
import json
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from errdex import expr as x
from errdex.model import (
    Change,
    Enrichment,
    ErrorSite,
    ExceptionRef,
    Explanation,
    Fix,
    Guard,
    Hole,
    Hop,
    IndexResult,
    Input,
    Knob,
    LineageEvent,
    Location,
    Match,
    MatchResult,
    Message,
    Part,
    Record,
    SearchResult,
    Segment,
    SkippedFile,
    Snapshot,
    Snippet,
    SourcePos,
    StoredSnapshot,
    TestRef,
    Text,
)
from errdex.repos import is_github_url
from errdex.text import shape

JSON = dict[str, Any]


def dumps(value: Any) -> str:
    """The JSON text of `value` as every surface writes it: compact, UTF-8 kept, one
    trailing newline."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n"


# The one error object of every surface: an API answer that is not 2xx and what a CLI
# command prints on standard output under --json when it fails. `code` is a stable word
# for programs (docs/architecture.md lists them), `message` the sentence for people.
# The API's HTTP status says the rest; it is not repeated inside.
HTTP_ERROR_CODES = {
    400: "bad-request",
    404: "not-found",
    405: "method-not-allowed",
    408: "timeout",
    413: "too-large",
    422: "usage",
    500: "internal",
    503: "busy",
}


def error_to_json(code: str, message: str) -> JSON:
    """`{"error": {"code", "message"}}`: the error object of the API and of --json."""
    return {"error": {"code": code, "message": message}}


def http_error_to_json(status: int, message: str, code: str | None = None) -> JSON:
    """The error object of an HTTP answer with `status`: `code` when the handler knows a
    more specific one, else the status's (HTTP_ERROR_CODES; "http-NNN" for others)."""
    return error_to_json(code or HTTP_ERROR_CODES.get(status, f"http-{status}"), message)


def join_array_utf8(texts: Iterable[bytes], per_piece: int = 256) -> Iterator[bytes]:
    """The UTF-8 of `dumps` of a list whose items are given as the UTF-8 of their JSON
    text (as `dumps` writes one, without the newline), in pieces of `per_piece` items,
    without holding the list."""
    items = iter(texts)
    yield b"["
    first = True
    while piece := list(itertools.islice(items, per_piece)):
        if not first:
            yield b","
        yield b",".join(piece)
        first = False
    yield b"]\n"


def source_url(
    repo_url: str | None, commit: str | None, file: str, line: int, tag: str | None = None
) -> str | None:
    """Return a link pinned to `commit` for GitHub repositories, else to the release's
    `tag` (one the release's files name: sources/tags.py), else None (never a guess)."""
    ref = commit or tag
    if not ref or not is_github_url(repo_url):
        return None
    return f"{repo_url}/blob/{ref}/{file}#L{line}"


def message_to_json(message: Message) -> JSON:
    parts: list[JSON] = []
    for part in message.parts:
        if isinstance(part, Text):
            parts.append({"text": part.text})
        else:
            hole: JSON = {
                "hole": part.expr,
                "conversion": part.conversion,
                "format_spec": part.format_spec,
            }
            if part.tree is not None:
                hole["tree"] = tree_to_json(part.tree)
            parts.append(hole)
    return {
        "text": message.text,
        "parts": parts,
        "static": message.static,
        "source": message.source,
    }


def message_from_json(data: JSON) -> Message:
    parts: list[Part] = []
    for part in data["parts"]:
        if "hole" in part:
            parts.append(
                Hole(
                    expr=part["hole"],
                    conversion=part.get("conversion"),
                    format_spec=part.get("format_spec"),
                    tree=_tree_or_none(part.get("tree")),
                )
            )
        else:
            parts.append(Text(text=part["text"]))
    return Message(parts=tuple(parts), source=data.get("source", "raise"))


def _pos_to_json(pos: SourcePos | None) -> JSON | None:
    return None if pos is None else {"file": pos.file, "line": pos.line}


def site_to_json(site: ErrorSite, snapshot: Snapshot) -> JSON:
    """Return the contract's JSON object of `site` as indexed in `snapshot`."""
    return _site_json(
        site, snapshot.package, snapshot.version, snapshot.repo_url, snapshot.commit, snapshot.tag
    )


# A record shared by the versions that have it unchanged is stored once, as its body:
# the contract's object without what only the snapshot says (package, repo, the pinned
# link) and with what moves when code above it moves (every line number, and in the
# report link the version, the commit and the line) left as marks, so that a record whose
# error only moved is the same body. The snapshot's member row keeps those values
# (`SharedBody.lines`), and `shared_record_text` puts everything back, byte for byte.
_SNAPSHOT_KEYS = ("package", "repo")
# JSON text never holds a raw control character (json escapes them all, as \u00XX), so
# these marks cannot be mistaken for anything a site says.
_LINE_MARK = "\x01"  # a line number: the next of SharedBody.lines
_VERSION_MARK = "\x02"  # in the report link: the snapshot's version, form-encoded
_COMMIT_MARK = "\x03"  # in the report link: the snapshot's commit, form-encoded
_ANCHOR_MARK = "\x04"  # in the report link: the site's line, after its `#L`
_MARKS = (_LINE_MARK, _VERSION_MARK, _COMMIT_MARK, _ANCHOR_MARK)
# A line number as codec writes it: the value of a "line", "end_line" or "start_line" key.
# `line":` always ends a key (inside a string every quote is escaped, and a string value
# is never followed by a colon).
_LINE_KEY_END = 'line":'
_LINE_KEYS = ('"', '"end_', '"start_')  # what comes before it in each of the three keys
_DIGITS = frozenset("0123456789")
_ANCHOR = "%23L"  # `#L`, form-encoded, before the line in the report link's pinned link


@dataclass(frozen=True, slots=True)
class SharedBody:
    """A site's stored body (see above) and the line numbers its marks stand for."""

    text: str
    lines: tuple[int, ...]


def site_body_text(site: ErrorSite) -> str:
    """The JSON text of `site` without its snapshot's fields (package, repo, the pinned
    link; see `shared_body`), its line numbers and report link as they are."""
    data = _site_json(site, "", "", None, None)
    for key in _SNAPSHOT_KEYS:
        del data[key]
    del data["location"]["url"]
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def shared_body(site: ErrorSite, version: str, commit: str | None) -> SharedBody:
    """The body of `site` as indexed at `version` and `commit`: `site_body_text` with
    its line numbers, and the version, commit and line in its report link, as marks. A
    body that would not come back whole keeps its text as it is (never seen; checked
    because the marks must never lose a byte)."""
    text = site_body_text(site)
    if any(mark in text for mark in _MARKS):  # json escapes them: not text of codec's
        return SharedBody(text=text, lines=())
    report = None if site.explanation is None else site.explanation.report_issue_url
    marked = text
    if report:
        link = _string(report)[1:-1]
        marked_link = _report_marks(link, version, commit, site.location.line)
        back = _unmarked(marked_link.encode(), (), version, commit, site.location.line)
        if back == link.encode():
            marked = text.replace(link, marked_link)
    return _mark_lines(marked)


def _mark_lines(text: str) -> SharedBody:
    """`text` with the value of each line-number key as a mark, and those values (found
    with str.find, which is many times faster here than a regular expression)."""
    pieces: list[str] = []
    lines: list[int] = []
    at = 0
    found = text.find(_LINE_KEY_END)
    while found >= 0:
        start = found + len(_LINE_KEY_END)
        end = start + (text[start : start + 1] == "-")
        while text[end : end + 1] in _DIGITS:
            end += 1
        if text[end - 1] in _DIGITS and _is_line_key(text, found):
            pieces += (text[at:start], _LINE_MARK)
            lines.append(int(text[start:end]))
            at = end
        found = text.find(_LINE_KEY_END, end)
    pieces.append(text[at:])
    return SharedBody(text="".join(pieces), lines=tuple(lines))


def _is_line_key(text: str, found: int) -> bool:
    """Whether the `line":` at `found` ends one of the three line-number keys."""
    return any(text.endswith(before, 0, found) for before in _LINE_KEYS)


def _report_marks(link: str, version: str, commit: str | None, line: int) -> str:
    """The report link with its snapshot's values as marks (each value form-encoded as
    errdex.explain.report writes it; a value it does not hold stays as it is)."""
    marked = link.replace(f"{_ANCHOR}{line}", _ANCHOR + _ANCHOR_MARK)
    if commit:
        marked = marked.replace(_form(commit), _COMMIT_MARK)
    return marked.replace(_form(version), _VERSION_MARK) if version else marked


@functools.lru_cache(maxsize=64)
def _form(text: str) -> str:
    return urllib.parse.quote_plus(text, safe="~")


# Reading: a body is patched as the UTF-8 the store keeps, never decoded (every mark is
# one ASCII byte, which UTF-8 never uses inside a character's bytes). `errdex list
# --json` reads 50,000 records this way: decoding each and encoding it again cost as
# much as filling in its marks.
_LINE_MARK_UTF8, _VERSION_MARK_UTF8, _COMMIT_MARK_UTF8, _ANCHOR_MARK_UTF8 = (
    mark.encode() for mark in _MARKS
)


@functools.lru_cache(maxsize=64)
def _link_values(version: str, commit: str | None) -> tuple[bytes, bytes]:
    """The version and the commit as the report link holds them, each `%` doubled (they
    go into _unmarked's format string)."""
    version_text, commit_text = (
        _form(v).replace("%", "%%").encode() for v in (version, commit or "")
    )
    return version_text, commit_text


def _unmarked(
    body: bytes, lines: Sequence[int], version: str, commit: str | None, line: int
) -> bytes:
    """The UTF-8 `body` with the values of its marks: `lines` for its line marks, and
    in the report link `version`, `commit` and `line`."""
    # Every mark filled in C: the body's own `%`s doubled, it is a format string that
    # takes the lines. Several times faster than splitting the body at its marks and
    # joining it again (a replace that finds nothing costs a scan, and copies nothing).
    version_text, commit_text = _link_values(version, commit)
    template = (
        body.replace(b"%", b"%%")
        .replace(_LINE_MARK_UTF8, b"%d")
        .replace(_VERSION_MARK_UTF8, version_text)
        .replace(_COMMIT_MARK_UTF8, commit_text)
        .replace(_ANCHOR_MARK_UTF8, b"%d" % line)
    )
    try:
        return template % tuple(lines)
    except TypeError:  # too many or too few lines for the marks
        raise ValueError(
            f"a stored body has {body.count(_LINE_MARK_UTF8)} line marks for {len(lines)} lines"
        ) from None


def shared_record_utf8(
    body: bytes,
    lines: Sequence[int],
    line: int,
    package: str,
    version: str,
    repo_url: str | None,
    commit: str | None,
    tag: str | None = None,
) -> bytes:
    """`shared_record_text` in UTF-8, from the UTF-8 of a body's text and its lines (a
    stored body, decompressed, and its member's row): what the store reads records with."""
    return _with_snapshot(
        _unmarked(body, lines, version, commit, line), package, version, repo_url, commit, tag
    )


def shared_record_text(
    body: SharedBody,
    line: int,
    package: str,
    version: str,
    repo_url: str | None,
    commit: str | None,
    tag: str | None = None,
) -> str:
    """The JSON text `site_to_json` makes (as `dumps` writes it, without the newline) of
    a body from `shared_body`, as indexed in the snapshot named by the other fields
    (`line`: the site's location.line there)."""
    return shared_record_utf8(
        body.text.encode(), body.lines, line, package, version, repo_url, commit, tag
    ).decode()


def v4_record_text(
    body: str,
    package: str,
    version: str,
    repo_url: str | None,
    commit: str | None,
    report_issue_url: str | None,
) -> str:
    """`shared_record_text` of a body as schema 4 of the store kept it (its report link
    null, kept with the snapshot): for the migration that reads those bodies."""
    text = _with_snapshot(body.encode(), package, version, repo_url, commit).decode()
    if report_issue_url is not None:
        text = text.replace(_REPORT, ',"report_issue_url":' + _string(report_issue_url), 1)
    return text


_REPORT = ',"report_issue_url":null'
# Where the site's own location object starts (its first key is "file"), what follows
# its file and where the object ends: keys in codec's order (snippet comes right after
# location). A string never holds these: in one every quote is escaped.
_LOCATION_FILE = b'"location":{"file":'
_FILE_END = b'","line":'
_LOCATION_END = b'},"snippet":{'


def _with_snapshot(
    body: bytes,
    package: str,
    version: str,
    repo_url: str | None,
    commit: str | None,
    tag: str | None = None,
) -> bytes:
    """`body` (the UTF-8 of a site's JSON text without its snapshot's fields) with them.

    Spliced, not parsed: the body's text is `dumps`' own, so the snapshot's fields go
    after the id (16 hex digits, the first key), the pinned link at the end of the
    site's own "location" object, the first one. The link is made of the file's JSON
    string as it stands, since JSON escapes a text character by character."""
    comma = body.index(b",")
    file_at = body.index(_LOCATION_FILE, comma) + len(_LOCATION_FILE)  # its opening quote
    file_end = body.index(_FILE_END, file_at)  # its closing quote
    line_at = file_end + len(_FILE_END)
    end = body.index(_LOCATION_END, line_at)
    prefix = _link_prefix(repo_url, commit, tag)
    if prefix is None:
        url = b"null"
    else:
        line = int(body[line_at : body.index(b",", line_at)])
        url = b'"%b%b#L%d"' % (prefix, body[file_at + 1 : file_end], line)
    return b"".join(
        (
            body[: comma + 1],
            _snapshot_fields(package, version, repo_url, commit, tag),
            b",",
            body[comma + 1 : end],
            b',"url":',
            url,
            body[end:],
        )
    )


@functools.lru_cache(maxsize=1024)
def _link_prefix(repo_url: str | None, commit: str | None, tag: str | None) -> bytes | None:
    """What `source_url` puts before the file, as in a JSON string; None when it makes
    no link."""
    url = source_url(repo_url, commit, "", 0, tag)
    return None if url is None else _string(url.removesuffix("#L0"))[1:-1].encode()


@functools.lru_cache(maxsize=1024)
def _snapshot_fields(
    package: str, version: str, repo_url: str | None, commit: str | None, tag: str | None
) -> bytes:
    """`"package":{…},"repo":{…}` as `dumps` writes them: the same for every record of a
    snapshot, so made once."""
    dump = functools.partial(json.dumps, ensure_ascii=False, separators=(",", ":"))
    name = dump({"name": package, "version": version})
    return f'"package":{name},"repo":{dump(_repo_json(repo_url, commit, tag))}'.encode()


def _repo_json(repo_url: str | None, commit: str | None, tag: str | None) -> JSON:
    """The record's `repo`: url and commit, and `tag` only when links point at one."""
    repo: JSON = {"url": repo_url, "commit": commit}
    if tag is not None:
        repo["tag"] = tag
    return repo


def _string(text: str) -> str:
    """A JSON string as `dumps(..., ensure_ascii=False)` writes it."""
    return json.encoder.encode_basestring(text)


def record_to_json(record: Record) -> JSON:
    """Return the contract's JSON object of a stored record: the site, plus `versions`
    and `ai` when the store looked them up."""
    data = _site_json(
        record.site, record.package, record.version, record.repo_url, record.commit, record.tag
    )
    if record.versions:
        data["versions"] = list(record.versions)
    if record.ai is not None:
        data["ai"] = enrichment_to_json(record.ai)
    return data


def record_from_json(data: JSON) -> Record:
    """Return the Record of a JSON object made by `site_to_json` or `record_to_json`."""
    ai = data.get("ai")
    return Record(
        site=site_from_json(data),
        package=data["package"]["name"],
        version=data["package"]["version"],
        repo_url=data["repo"]["url"],
        commit=data["repo"]["commit"],
        tag=data["repo"].get("tag"),
        versions=tuple(data.get("versions", ())),
        ai=None
        if ai is None
        else Enrichment(
            site_id=data["id"],
            model=ai["model"],
            created=ai["created"],
            text=ai["text"],
            provenance=ai.get("provenance", "llm"),
        ),
    )


def _site_json(
    site: ErrorSite,
    package: str,
    version: str,
    repo_url: str | None,
    commit: str | None,
    tag: str | None = None,
) -> JSON:
    loc = site.location
    record: JSON = {
        "id": site.id,
        "package": {"name": package, "version": version},
        "repo": _repo_json(repo_url, commit, tag),
        "exception": {
            "name": site.exception.name,
            "qualname": site.exception.qualname,
            "bases": list(site.exception.bases),
        },
        "kind": site.kind,
        "message": None if site.message is None else message_to_json(site.message),
        "location": {
            "file": loc.file,
            "line": loc.line,
            "end_line": loc.end_line,
            "function": loc.function,
            "language": loc.language,
            "url": source_url(repo_url, commit, loc.file, loc.line, tag),
        },
        "snippet": {"start_line": site.snippet.start_line, "lines": list(site.snippet.lines)},
        "guard": [_guard_to_json(g) for g in site.guard],
        "inputs": [_input_to_json(i) for i in site.inputs],
    }
    if site.explanation is not None:
        record.update(explanation_to_json(site.explanation))
    if site.cause is not None:
        record["cause"] = site.cause
    if site.variant is not None:
        record["variant"] = site.variant
    if site.unreachable is not None:
        record["unreachable"] = site.unreachable
    return record


def _guard_to_json(guard: Guard) -> JSON:
    out: JSON = {
        "kind": guard.kind,
        "test": guard.test,
        "negated": guard.negated,
        "line": guard.line,
    }
    if guard.negated:  # what holds at the raise, so no surface negates the text itself
        out["holds"] = guard.holds()
    if guard.raised_by is not None:
        out["raised_by"] = guard.raised_by
    if guard.tree is not None:
        out["tree"] = tree_to_json(guard.tree)
    if guard.raised_by_tree is not None:
        out["raised_by_tree"] = tree_to_json(guard.raised_by_tree)
    if guard.imports:
        out["imports"] = list(guard.imports)
    return out


# -- expression trees (errdex.expr) ----------------------------------------------------
# Each node is an object whose "node" names its kind, with the node's fields under their
# own names and child nodes as objects: `x < 0` is {"node": "compare", "left": {"node":
# "name", "id": "x"}, "ops": ["<"], "comparators": [{"node": "constant", "value": 0}]}.
# Fields left at their defaults (no keywords, no conditions, no parts) are left out.


def tree_to_json(tree: x.Expr) -> JSON:
    """The JSON object of an expression tree (see the comment above)."""
    return _TREE_JSON[type(tree).__name__](tree)


def _trees(nodes: tuple[x.Expr, ...]) -> list[JSON]:
    return [_TREE_JSON[type(n).__name__](n) for n in nodes]


def _call_json(t: x.Call) -> JSON:
    out: JSON = {"node": "call", "func": tree_to_json(t.func), "args": _trees(t.args)}
    if t.keywords:
        out["keywords"] = [{"name": k.name, "value": tree_to_json(k.value)} for k in t.keywords]
    return out


def _membership_json(t: x.Membership) -> JSON:
    out: JSON = {"node": "membership", "item": tree_to_json(t.item)}
    out["container"] = tree_to_json(t.container)
    if t.negative:
        out["negative"] = True
    return out


def _comprehension_json(t: x.Comprehension) -> JSON:
    out: JSON = {"node": "comprehension", "kind": t.kind, "element": tree_to_json(t.element)}
    out["target"] = tree_to_json(t.target)
    out["iterable"] = tree_to_json(t.iterable)
    if t.conditions:
        out["conditions"] = _trees(t.conditions)
    return out


def _opaque_json(t: x.Opaque) -> JSON:
    out: JSON = {"node": "opaque", "text": t.text, "precedence": t.precedence}
    if t.parts:
        out["parts"] = _trees(t.parts)
    if t.form:
        out["form"] = t.form
    return out


# Each kind of node written by hand, its fields in the order they are declared (a
# generic walk over the fields took a third of a site's encoding on vllm).
_TREE_JSON: dict[str, Callable[[Any], JSON]] = {
    "Name": lambda t: {"node": "name", "id": t.id},
    "Attribute": lambda t: {"node": "attribute", "value": tree_to_json(t.value), "attr": t.attr},
    "Call": _call_json,
    "Subscript": lambda t: {
        "node": "subscript",
        "value": tree_to_json(t.value),
        "index": tree_to_json(t.index),
    },
    "Compare": lambda t: {
        "node": "compare",
        "left": tree_to_json(t.left),
        "ops": list(t.ops),
        "comparators": _trees(t.comparators),
    },
    "Membership": _membership_json,
    "BoolOp": lambda t: {"node": "boolop", "op": t.op, "values": _trees(t.values)},
    "Not": lambda t: {"node": "not", "operand": tree_to_json(t.operand)},
    "IsInstance": lambda t: {
        "node": "isinstance",
        "target": tree_to_json(t.target),
        "types": tree_to_json(t.types),
    },
    "Constant": lambda t: {"node": "constant", "value": t.value},
    "Collection": lambda t: {"node": "collection", "kind": t.kind, "items": _trees(t.items)},
    "Comprehension": _comprehension_json,
    "Opaque": _opaque_json,
}


def tree_from_json(data: JSON) -> x.Expr:
    """The expression tree of a JSON object made by `tree_to_json`."""
    return _TREE_FROM[data["node"]](data)


def _from_trees(items: list[JSON]) -> tuple[x.Expr, ...]:
    return tuple(_TREE_FROM[d["node"]](d) for d in items)


# Each kind of node read by hand, as it is written above; a field left out is at its
# default.
_TREE_FROM: dict[str, Callable[[JSON], x.Expr]] = {
    "name": lambda d: x.Name(id=d["id"]),
    "attribute": lambda d: x.Attribute(value=tree_from_json(d["value"]), attr=d["attr"]),
    "call": lambda d: x.Call(
        func=tree_from_json(d["func"]),
        args=_from_trees(d.get("args", ())),
        keywords=tuple(
            x.Keyword(name=k["name"], value=tree_from_json(k["value"]))
            for k in d.get("keywords", ())
        ),
    ),
    "subscript": lambda d: x.Subscript(
        value=tree_from_json(d["value"]), index=tree_from_json(d["index"])
    ),
    "compare": lambda d: x.Compare(
        left=tree_from_json(d["left"]),
        ops=tuple(d["ops"]),
        comparators=_from_trees(d["comparators"]),
    ),
    "membership": lambda d: x.Membership(
        item=tree_from_json(d["item"]),
        container=tree_from_json(d["container"]),
        negative=d.get("negative", False),
    ),
    "boolop": lambda d: x.BoolOp(op=d["op"], values=_from_trees(d["values"])),
    "not": lambda d: x.Not(operand=tree_from_json(d["operand"])),
    "isinstance": lambda d: x.IsInstance(
        target=tree_from_json(d["target"]), types=tree_from_json(d["types"])
    ),
    "constant": lambda d: x.Constant(value=d["value"]),
    "collection": lambda d: x.Collection(kind=d["kind"], items=_from_trees(d["items"])),
    "comprehension": lambda d: x.Comprehension(
        kind=d["kind"],
        element=tree_from_json(d["element"]),
        target=tree_from_json(d["target"]),
        iterable=tree_from_json(d["iterable"]),
        conditions=_from_trees(d.get("conditions", ())),
    ),
    "opaque": lambda d: x.Opaque(
        text=d["text"],
        precedence=d.get("precedence", x.ATOM),
        parts=_from_trees(d.get("parts", ())),
        form=d.get("form", ""),
    ),
}


def _tree_or_none(data: JSON | None) -> x.Expr | None:
    return None if data is None else tree_from_json(data)


def _input_to_json(item: Input) -> JSON:
    out: JSON = {
        "name": item.name,
        "expr": item.expr,
        "kind": item.kind,
        "owner": item.owner,
        "type": item.type,
        "default": item.default,
        "doc": item.doc,
        "location": _pos_to_json(item.location),
    }
    if item.default_tree is not None:
        out["default_tree"] = tree_to_json(item.default_tree)
    if item.access is not None:
        out["access"] = item.access
    if item.sources:
        out["sources"] = list(item.sources)
    if item.knobs:
        out["knobs"] = [_knob_to_json(k) for k in item.knobs]
    if item.reach:
        out["reach"] = [_hop_to_json(h) for h in item.reach]
    return out


def _hop_to_json(hop: Hop) -> JSON:
    out: JSON = {
        "function": hop.function,
        "param": hop.param,
        "location": _pos_to_json(hop.location),
    }
    if hop.computed:
        out["computed"] = True
    return out


def _knob_to_json(knob: Knob) -> JSON:
    out: JSON = {"kind": knob.kind, "name": knob.name, "usage": knob.usage}
    if knob.via is not None:
        out["via"] = knob.via
    out["location"] = _pos_to_json(knob.location)
    return out


def _pos_from_json(data: JSON | None) -> SourcePos | None:
    return None if data is None else SourcePos(file=data["file"], line=data["line"])


def _input_from_json(data: JSON) -> Input:
    return Input(
        name=data["name"],
        expr=data["expr"],
        kind=data["kind"],
        owner=data.get("owner"),
        type=data.get("type"),
        default=data.get("default"),
        default_tree=_tree_or_none(data.get("default_tree")),
        doc=data.get("doc"),
        location=_pos_from_json(data.get("location")),
        access=data.get("access"),
        sources=tuple(data.get("sources", ())),
        knobs=tuple(
            Knob(
                kind=k["kind"],
                name=k["name"],
                usage=k["usage"],
                via=k.get("via"),
                location=_pos_from_json(k.get("location")),
            )
            for k in data.get("knobs", ())
        ),
        reach=tuple(
            Hop(
                function=h["function"],
                param=h["param"],
                location=_pos_from_json(h.get("location")),
                computed=h.get("computed", False),
            )
            for h in data.get("reach", ())
        ),
    )


def site_from_json(data: JSON) -> ErrorSite:
    """Return the ErrorSite of a JSON record made by `site_to_json`."""
    loc = data["location"]
    exc = data["exception"]
    return ErrorSite(
        id=data["id"],
        kind=data["kind"],
        exception=ExceptionRef(
            name=exc["name"], qualname=exc["qualname"], bases=tuple(exc["bases"])
        ),
        message=None if data["message"] is None else message_from_json(data["message"]),
        location=Location(
            file=loc["file"],
            line=loc["line"],
            end_line=loc["end_line"],
            function=loc["function"],
            language=loc.get("language", "python"),
        ),
        snippet=Snippet(
            start_line=data["snippet"]["start_line"], lines=tuple(data["snippet"]["lines"])
        ),
        guard=tuple(
            Guard(
                kind=g["kind"],
                test=g["test"],
                negated=g["negated"],
                line=g["line"],
                raised_by=g.get("raised_by"),
                tree=_tree_or_none(g.get("tree")),
                raised_by_tree=_tree_or_none(g.get("raised_by_tree")),
                imports=tuple(g.get("imports", ())),
            )
            for g in data["guard"]
        ),
        inputs=tuple(_input_from_json(i) for i in data["inputs"]),
        cause=data.get("cause"),
        variant=data.get("variant"),
        unreachable=data.get("unreachable"),
        explanation=explanation_from_json(data) if "explanation" in data else None,
    )


def explanation_to_json(explanation: Explanation) -> JSON:
    """The contract's `title`, `explanation`, `tests`, `related` and `report_issue_url`."""
    return {
        "title": explanation.title,
        "explanation": {
            "what_it_means": explanation.what_it_means,
            "when_it_happens": explanation.when_it_happens,
            "solutions": list(explanation.solutions),
            "common_situations": list(explanation.common_situations),
            "call_paths": [list(path) for path in explanation.call_paths],
            "provenance": explanation.provenance,
            # the solutions again, in order, with where each came from
            "fixes": [
                {"text": f.text, "kind": f.kind, "source": f.source, "knobs": list(f.knobs)}
                for f in explanation.fixes
            ],
        },
        "tests": [{"file": t.file, "line": t.line, "name": t.name} for t in explanation.tests],
        "related": list(explanation.related),
        "report_issue_url": explanation.report_issue_url,
    }


def explanation_from_json(data: JSON) -> Explanation:
    body = data["explanation"]
    return Explanation(
        title=data["title"],
        what_it_means=body["what_it_means"],
        when_it_happens=body["when_it_happens"],
        solutions=tuple(body["solutions"]),
        common_situations=tuple(body["common_situations"]),
        call_paths=tuple(tuple(path) for path in body.get("call_paths", [])),
        tests=tuple(
            TestRef(file=t["file"], line=t["line"], name=t["name"]) for t in data.get("tests", [])
        ),
        related=tuple(data.get("related", [])),
        report_issue_url=data.get("report_issue_url"),
        provenance=body.get("provenance", "static"),
        fixes=tuple(
            Fix(
                text=f["text"],
                kind=f["kind"],
                source=f.get("source", "code"),
                knobs=tuple(f.get("knobs", ())),
            )
            for f in body.get("fixes", ())
        ),
    )


def enrichment_to_json(enrichment: Enrichment) -> JSON:
    """The `ai` object shown next to a record's `explanation`."""
    return {
        "text": enrichment.text,
        "model": enrichment.model,
        "created": enrichment.created,
        "provenance": enrichment.provenance,
    }


def skipped_to_json(skipped: Sequence[SkippedFile]) -> list[JSON]:
    return [{"path": s.path, "reason": s.reason} for s in skipped]


def snapshot_to_json(snapshot: StoredSnapshot) -> JSON:
    """A stored snapshot: what was indexed, from where, and what indexing found."""
    return {
        "package": snapshot.package,
        "version": snapshot.version,
        "source": snapshot.source,
        "repo_url": snapshot.repo_url,
        "commit": snapshot.commit,
        **({} if snapshot.tag is None else {"tag": snapshot.tag}),
        "date": snapshot.date,
        "files": snapshot.files,
        "sites": snapshot.sites,
        "skipped": skipped_to_json(snapshot.skipped),
        "indexed_at": snapshot.indexed_at,
    }


def index_result_to_json(result: IndexResult) -> JSON:
    """The summary `errdex index --json` prints for one snapshot."""
    snap = result.snapshot
    return {
        "package": snap.package,
        "version": snap.version,
        "repo": snap.repo_url,
        "commit": snap.commit,
        **({} if snap.tag is None else {"tag": snap.tag}),
        "files": result.files,
        "parsed": result.parsed,
        "sites": result.site_count,
        "explanations_reused": result.reused,
        "native": [
            {"language": language, "files": files, "sites": sites}
            for language, files, sites in result.native
        ],
        "unchanged": result.unchanged,
        "skipped": skipped_to_json(result.skipped),
        "seconds": round(result.seconds, 3),
        "phases": {name: round(seconds, 3) for name, seconds in result.phases},
    }


def segments_to_json(segments: Sequence[Segment] | None) -> list[JSON] | None:
    return None if segments is None else [{"text": s.text, "match": s.match} for s in segments]


def search_to_json(result: SearchResult) -> JSON:
    """{"total", "hits": [{"record", "score", "highlight"}]} of a store search."""
    return {
        "total": result.total,
        "hits": [
            {
                "record": record_to_json(hit.record),
                "score": hit.score,
                "highlight": {k: segments_to_json(v) for k, v in hit.highlight.items()},
            }
            for hit in result.hits
        ],
    }


def match_to_json(match: Match, *, closest: bool = False) -> JSON:
    out: JSON = {
        "id": match.id,
        "package": match.package,
        "version": match.version,
        "file": match.file,
        "line": match.line,
        "function": match.function,
        "exception": match.exception,
        "template": match.template,
        "score": match.score,
        "exact": match.exact,
        "values": dict(match.values),
        "ambiguous": match.ambiguous,
    }
    if match.version_inferred is not None:
        out["version_inferred"] = match.version_inferred
    if match.exception_agrees is not None:
        out["exception_agrees"] = match.exception_agrees
    if match.note:
        out["note"] = match.note
    if match.installed_version is not None:
        out["installed_version"] = match.installed_version
    if closest:
        out["label"] = match.label
    return out


def match_result_to_json(result: MatchResult) -> JSON:
    """The contract's `errdex match --json` object: {"query", "matches", "closest"}."""
    data: JSON = {
        "query": result.query,
        "matches": [match_to_json(m) for m in result.matches],
        "closest": [match_to_json(m, closest=True) for m in result.closest],
    }
    if result.note:
        data["note"] = result.note
    return data


def _brief(record: Record | None) -> JSON | None:
    """The few fields that name one side of a change."""
    if record is None:
        return None
    site = record.site
    return {
        "id": site.id,
        "exception": site.exception.name,
        "message": "" if site.message is None else site.message.text,
        "file": site.location.file,
        "line": site.location.line,
        "function": site.location.function,
    }


def change_to_json(change: Change) -> JSON:
    return {"kind": change.kind, "old": _brief(change.old), "new": _brief(change.new)}


def diff_to_json(
    old: tuple[str, str], new: tuple[str, str], counts: Mapping[str, int], changes: Sequence[Change]
) -> JSON:
    """`errdex diff --json`: both sides as (package, version), counts per kind, changes."""
    return {
        "old": {"package": old[0], "version": old[1]},
        "new": {"package": new[0], "version": new[1]},
        "summary": dict(counts),
        "changes": [change_to_json(c) for c in changes],
    }


def history_to_json(record: Record, events: Sequence[LineageEvent]) -> JSON:
    """`errdex history --json`: the versions an error is in, and how it came to be."""
    versions = list(record.versions)
    return {
        "id": record.id,
        "versions": versions,
        "first_seen": versions[0] if versions else None,
        "last_seen": versions[-1] if versions else None,
        "history": [
            {
                "from": e.old_version,
                "to": e.new_version,
                "kind": e.kind,
                "old": _brief(e.old),
                "new": _brief(e.new),
            }
            for e in events
        ],
    }


def hook_answer_to_json(site: ErrorSite, package: str, version: str) -> JSON:
    """What errdex.hook shows of one site under a traceback, as it keeps it per file of an
    indexed snapshot (read at the moment of failure without the record classes): the
    place, the class raised with its qualified name and bases (`names`, to prefer the
    site of the class the traceback shows), the prose, the message's literal runs and
    hole groups as the matcher reads them (`lits`, `holes`: the values that filled it
    are found in the text the user saw) and the expressions of the inputs (their values
    are read in the failing frame)."""
    body = site.explanation
    lits: list[str] | None = None
    holes: list[list[str]] = []
    if site.message is not None and not site.message.static:
        runs, groups = shape(site.message)
        lits, holes = list(runs), [list(group) for group in groups]
    exc = site.exception
    return {
        "id": site.id,
        "kind": site.kind,
        "exception": exc.name,
        "names": [exc.name, exc.qualname, *exc.bases],
        "file": site.location.file,
        "line": site.location.line,
        "function": site.location.function,
        "package": package,
        "version": version,
        "title": None if body is None else body.title,
        "when": None if body is None else body.when_it_happens,
        "solutions": [] if body is None else list(body.solutions),
        "lits": lits,
        "holes": holes,
        "inputs": [item.expr for item in site.inputs],
    }
