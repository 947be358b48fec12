# One function per page. Each returns a Page: the context (a JSON-able dict, which is
# exactly what the page's JSON twin returns) plus what only the HTML needs (template,
# <title>, meta description, lookups for display). The server and the export both call
# these, so the site, the API and the static files cannot drift apart.
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from errdex import codec
from errdex.codec import JSON
from errdex.errors import ErrorNotFound
from errdex.model import Record, SearchHit
from errdex.web import prose
from errdex.web.data import WebData, repo_name
from errdex.web.links import Links

SEARCH_LIMIT = 20
MAX_SEARCH_LIMIT = 100
PACKAGE_LIMIT = 500
MAX_PACKAGE_LIMIT = 10_000
MAX_RELATED = 12


@dataclass(frozen=True, slots=True, kw_only=True)
class Page:
    template: str
    context: JSON  # the JSON twin, verbatim
    title: str
    description: str
    extra: dict[str, Any] = field(default_factory=dict)  # HTML-only lookups
    status: int = 200


def summary(record: Record, links: Links) -> JSON:
    """The short form of a record that lists and search results show."""
    site = record.site
    return {
        "id": site.id,
        "url": links.error(site.id),
        "package": record.package,
        "version": record.version,
        "exception": site.exception.name,
        "title": prose.title(site),
        "message": None if site.message is None else site.message.text,
        "file": site.location.file,
        "line": site.location.line,
        "function": site.location.function,
    }


def home(data: WebData, links: Links) -> Page:
    packages: dict[str, JSON] = {}
    for snap in data.snapshots():
        entry = packages.setdefault(
            snap.package, {"name": snap.package, "versions": [], "repo_url": None}
        )
        entry["versions"].append(
            {
                "version": snap.version,
                "sites": snap.sites,
                "files": snap.files,
                "skipped": len(snap.skipped),
                "commit": snap.commit,
                "tag": snap.tag,
                "date": snap.date,
                "url": links.package(snap.package, snap.version),
                "api_url": links.package_json(snap.package, snap.version),
            }
        )
        entry["repo_url"] = snap.repo_url or entry["repo_url"]
    for entry in packages.values():
        entry["versions"].reverse()  # newest first
        entry["newest"] = entry["versions"][0]["version"]
    listed = list(packages.values())
    total = sum(p["versions"][0]["sites"] for p in listed)
    names = ", ".join(p["name"] for p in listed[:8]) or "no packages yet"
    return Page(
        template="home.html",
        context={"packages": listed, "sites": total},
        title="errdex: every error a Python package can raise, explained",
        description=f"Search {total:,} error messages of {names}: what each means, "
        "the code that raises it, and how to fix it. Paste a traceback to find its source.",
    )


def package(
    data: WebData,
    links: Links,
    name: str,
    version: str,
    *,
    exception: str | None = None,
    q: str | None = None,
    limit: int = PACKAGE_LIMIT,
    offset: int = 0,
) -> Page:
    snap = data.snapshot(name, version)
    if snap is None:
        known = [s.version for s in data.snapshots() if s.package == name]
        hint = (
            f"indexed versions of {name}: {', '.join(known)}"
            if known
            else "see /api/packages for what is indexed"
        )
        raise ErrorNotFound(f"package {name} {version} is not indexed; {hint}")
    store = data.store
    exception = exception or None
    q = (q or "").strip() or None
    records: list[Record] = []
    if not q and exception is None and offset == 0:
        records = store.list_records(package=name, version=version, limit=limit)
    # Every record of the version at hand already: counted from them, not read again.
    whole = len(records) < limit and bool(records)
    counts = data.summary(name, version, records if whole else None)
    highlights: dict[str, JSON] = {}
    if q:
        found = store.search(
            q,
            package=name,
            version=version,
            limit=limit,
            offset=offset,
            exception=exception,
            message_only=True,  # the package page's filter is "words in the message"
        )
        matching = found.total
        records = [hit.record for hit in found.hits]
        highlights = {hit.record.id: _highlight_json(hit) for hit in found.hits}
    else:
        matching = (
            counts.total
            if exception is None
            else store.count(package=name, version=version, exception=exception)
        )
        records = records or store.list_records(
            package=name, version=version, exception=exception, limit=limit, offset=offset
        )
    errors = []
    for record in records:
        item = summary(record, links)
        if record.id in highlights:
            item["highlight"] = highlights[record.id]
        errors.append(item)
    context = {
        "package": name,
        "version": version,
        "repo_url": snap.repo_url,
        "commit": snap.commit,
        "tag": snap.tag,
        "date": snap.date,
        "total": counts.total,
        "matching": matching,
        "filters": {"exception": exception, "q": q},
        "limit": limit,
        "offset": offset,
        "next_offset": offset + limit if offset + limit < matching else None,
        "exceptions": [{"name": n, "count": c} for n, c in counts.exceptions],
        "modules": [{"file": f, "count": c} for f, c in counts.modules],
        "errors": errors,
    }
    top = ", ".join(n for n, _ in counts.exceptions[:4])
    return Page(
        template="package.html",
        context=context,
        title=f"{name} {version}: {counts.total:,} errors it can raise · errdex",
        description=f"Every error {name} {version} can raise ({top}…), grouped by module, "
        "each with its message, the code that raises it and how to fix it.",
        extra={"module_counts": dict(counts.modules)},
    )


def error(
    data: WebData,
    links: Links,
    site_id: str,
    *,
    package: str | None = None,
    version: str | None = None,
) -> Page:
    record = data.store.get(site_id, package=package, version=version)
    if record is None:
        raise ErrorNotFound(
            f"no error with id {site_id!r}"
            + (f" in {package} {version or ''}".rstrip() if package else "")
            + "; search for its message at /search?q=… or paste it into the box on /"
        )
    site = record.site
    snap = data.snapshot(record.package, record.version)
    related = []
    for other_id in related_ids(record):
        other = data.related(other_id, record.package)
        if other is not None:
            related.append(summary(other, links))
    loc = site.location
    title = prose.title(site)
    message = "(no message)" if site.message is None else site.message.text
    exc = site.exception.name
    means = "" if site.explanation is None else site.explanation.what_it_means
    context = codec.record_to_json(record)
    return Page(
        template="error.html",
        context=context,
        title=f"{title} — {exc} in {record.package} {record.version} · errdex",
        description=prose.shorten(
            f"{exc}: {message} — raised at {loc.file}:{loc.line} in {record.package} "
            f"{record.version}. {means}",
            300,
        ),
        extra={
            "record": record,
            "title": title,
            "repo": repo_name(record.repo_url, record.package),
            "date": None if snap is None else snap.date,
            "related": related,
            "explanation": context.get("explanation") or {},
        },
    )


def related_ids(record: Record) -> tuple[str, ...]:
    """The ids the error page of `record` lists as related, each the newest record of
    that id in the record's package."""
    explanation = record.site.explanation
    return () if explanation is None else tuple(explanation.related[:MAX_RELATED])


def search(
    data: WebData,
    links: Links,
    q: str,
    *,
    package: str | None = None,
    limit: int = SEARCH_LIMIT,
    offset: int = 0,
) -> Page:
    q = q.strip()
    package = package or None
    found = data.store.search(q, package=package, limit=limit, offset=offset) if q else None
    results = []
    for hit in found.hits if found else ():
        item = summary(hit.record, links)
        item["score"] = hit.score
        item["highlight"] = _highlight_json(hit)
        results.append(item)
    total = found.total if found else 0
    context = {
        "query": q,
        "package": package,
        "total": total,
        "limit": limit,
        "offset": offset,
        "next_offset": offset + limit if offset + limit < total else None,
        "results": results,
    }
    return Page(
        template="search.html",
        context=context,
        title=f"“{prose.shorten(q, 60)}”: {total:,} errors · errdex" if q else "Search · errdex",
        description="Search error messages, titles, solutions and inputs of the indexed "
        "Python packages.",
    )


def match(data: WebData, links: Links, text: str, *, package: str | None = None) -> Page:
    result = codec.match_result_to_json(data.matcher().match(text, package=package or None))
    for item in [*result["matches"], *result["closest"]]:
        item["url"] = links.error(item["id"])
    for item in result["matches"]:  # what the error page would say first, inline
        record = data.store.get(item["id"], package=item["package"], version=item["version"])
        explanation = None if record is None else record.site.explanation
        if explanation is not None:
            item["title"] = explanation.title
            item["when_it_happens"] = explanation.when_it_happens
            item["solution"] = explanation.solutions[0] if explanation.solutions else None
    return Page(
        template="match.html",
        context=result,
        title="Where does this error come from? · errdex",
        description="The raise sites that produced a pasted error message or traceback.",
    )


def _highlight_json(hit: SearchHit) -> JSON:
    return {k: codec.segments_to_json(v) for k, v in hit.highlight.items()}
