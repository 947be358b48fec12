# The one place where records become the JSON contract of DESIGN.md and back.
from __future__ import annotations

from typing import Any

from errdex.model import (
    ErrorSite,
    ExceptionRef,
    Explanation,
    Guard,
    Hole,
    Input,
    Location,
    Message,
    Part,
    Snapshot,
    Snippet,
    SourcePos,
    TestRef,
    Text,
)

JSON = dict[str, Any]


def source_url(repo_url: str | None, commit: str | None, file: str, line: int) -> str | None:
    """Return a link pinned to `commit` for GitHub repositories, else None (never a guess)."""
    if not repo_url or not commit or not repo_url.startswith("https://github.com/"):
        return None
    return f"{repo_url}/blob/{commit}/{file}#L{line}"


def message_to_json(message: Message) -> JSON:
    parts: list[JSON] = []
    for part in message.parts:
        if isinstance(part, Text):
            parts.append({"text": part.text})
        else:
            parts.append(
                {"hole": part.expr, "conversion": part.conversion, "format_spec": part.format_spec}
            )
    return {"text": message.text, "parts": parts, "static": message.static}


def message_from_json(data: JSON) -> Message:
    parts: list[Part] = []
    for part in data["parts"]:
        if "hole" in part:
            parts.append(
                Hole(
                    expr=part["hole"],
                    conversion=part.get("conversion"),
                    format_spec=part.get("format_spec"),
                )
            )
        else:
            parts.append(Text(text=part["text"]))
    return Message(parts=tuple(parts))


def _pos_to_json(pos: SourcePos | None) -> JSON | None:
    return None if pos is None else {"file": pos.file, "line": pos.line}


def site_to_json(site: ErrorSite, snapshot: Snapshot) -> JSON:
    """Return the DESIGN.md JSON object of `site` as indexed in `snapshot`."""
    loc = site.location
    record: JSON = {
        "id": site.id,
        "package": {"name": snapshot.package, "version": snapshot.version},
        "repo": {"url": snapshot.repo_url, "commit": snapshot.commit},
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
            "url": source_url(snapshot.repo_url, snapshot.commit, loc.file, loc.line),
        },
        "snippet": {"start_line": site.snippet.start_line, "lines": list(site.snippet.lines)},
        "guard": [
            {"kind": g.kind, "test": g.test, "negated": g.negated, "line": g.line}
            for g in site.guard
        ],
        "inputs": [
            {
                "name": i.name,
                "expr": i.expr,
                "kind": i.kind,
                "owner": i.owner,
                "type": i.type,
                "default": i.default,
                "doc": i.doc,
                "location": _pos_to_json(i.location),
            }
            for i in site.inputs
        ],
    }
    if site.explanation is not None:
        record.update(explanation_to_json(site.explanation))
    if site.cause is not None:
        record["cause"] = site.cause
    if site.variant is not None:
        record["variant"] = site.variant
    return record


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
            file=loc["file"], line=loc["line"], end_line=loc["end_line"], function=loc["function"]
        ),
        snippet=Snippet(
            start_line=data["snippet"]["start_line"], lines=tuple(data["snippet"]["lines"])
        ),
        guard=tuple(
            Guard(kind=g["kind"], test=g["test"], negated=g["negated"], line=g["line"])
            for g in data["guard"]
        ),
        inputs=tuple(
            Input(
                name=i["name"],
                expr=i["expr"],
                kind=i["kind"],
                owner=i.get("owner"),
                type=i.get("type"),
                default=i.get("default"),
                doc=i.get("doc"),
                location=None
                if i.get("location") is None
                else SourcePos(file=i["location"]["file"], line=i["location"]["line"]),
            )
            for i in data["inputs"]
        ),
        cause=data.get("cause"),
        variant=data.get("variant"),
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
    )
