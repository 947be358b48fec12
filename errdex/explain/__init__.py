# The explain stage: derive each site's title and prose (what it means, when it
# happens, solutions, common situations), its call paths, reproducing tests, related
# sites and a report link, from what extract produced alone (it reads no file):
# deterministic, no model, no network. A model's notes are errdex.enrich's business.
from __future__ import annotations

import dataclasses

from errdex.explain.access import private_name, with_access
from errdex.explain.analysis import Analysis, analyse
from errdex.explain.callgraph import CallGraph
from errdex.explain.catalog import Catalog
from errdex.explain.meaning import what_it_means
from errdex.explain.related import Related
from errdex.explain.report import report_issue_url
from errdex.explain.situations import common_situations
from errdex.explain.solutions import Solution, solutions
from errdex.explain.tests_scan import find_tests
from errdex.explain.title import base_title, unique_titles
from errdex.explain.when import when_it_happens
from errdex.extract import Extraction
from errdex.model import ErrorSite, Explanation, Snapshot

__all__ = ["explain_sites"]


def explain_sites(extraction: Extraction, snapshot: Snapshot) -> tuple[ErrorSite, ...]:
    """Return the extraction's sites, in order, each with its `explanation` set.

    Raises nothing for odd code: what cannot be read is said as source text or left out.
    """
    if not extraction.sites:
        return ()
    catalog = Catalog(extraction)
    sites = tuple(with_access(site, catalog) for site in extraction.sites)
    graph = CallGraph(extraction.facts)
    related = Related(sites)
    modules = {f.module for f in extraction.facts}
    analyses = [analyse(site, catalog) for site in sites]
    titles = unique_titles(
        sites, [base_title(s, _guard_text(a)) for s, a in zip(sites, analyses, strict=True)]
    )
    tests = find_tests(extraction.tests, sites, graph, [_target(s, modules) for s in sites])
    out: list[ErrorSite] = []
    for site, analysis, title in zip(sites, analyses, titles, strict=True):
        target = _target(site, modules)
        paths = graph.paths(target) if target is not None else ()
        shorten = {q: _module_prefix(q, modules) for path in paths for q in path}
        report = report_issue_url(site, snapshot, title)
        means = what_it_means(analysis, catalog)
        fixes = solutions(analysis, caller=_public_caller(paths, shorten))
        texts = [s.text for s in fixes]
        if internal_invariant(analysis, fixes):
            package = snapshot.package
            means += (
                f" The check reads only {package}'s own state, nothing you pass or set:"
                f" when it fails, it points to a bug in {package}, not in your code or"
                " settings."
            )
            link = f": {report}" if report else ""
            texts.insert(0, f"Report it to the {package} maintainers, with the traceback{link}")
        explanation = Explanation(
            title=title,
            what_it_means=means,
            when_it_happens=when_it_happens(analysis, paths, shorten),
            solutions=tuple(texts),
            common_situations=tuple(common_situations(analysis)),
            call_paths=paths,
            tests=tests.get(site.id, ()),
            related=related.of(site),
            report_issue_url=report,
            provenance="static",
        )
        out.append(dataclasses.replace(site, explanation=explanation))
    return tuple(out)


def internal_invariant(analysis: Analysis, fixes: list[Solution]) -> bool:
    """The site's conditions read only what the library itself keeps (private state, its
    constants), the site reads nothing public, and nothing says what to do."""
    read = [c.subject for c in analysis.trigger + analysis.reached_if if c.subject is not None]
    own = [
        s for s in read if s.kind == "constant" or (s.kind != "parameter" and private_name(s.expr))
    ]
    if not read or len(own) < len(read):
        return False
    if any(i.access == "public" for i in analysis.site.inputs):
        return False
    return not any(s.kind in ("message", "dependency") for s in fixes)


def _public_caller(paths: tuple[tuple[str, ...], ...], shorten: dict[str, str]) -> str | None:
    """The nearest caller on the first call path that a user can call (no private part)."""
    for qualified in paths[0] if paths else ():
        local = qualified.removeprefix(shorten.get(qualified, "") + ".")
        if not any(p.startswith("_") and not p.endswith("__") for p in qualified.split(".")):
            return local
    return None


def _guard_text(analysis: Analysis) -> str | None:
    for guard in reversed(analysis.site.guard):
        if guard.kind == "assert":
            return guard.test
    return None


def _target(site: ErrorSite, modules: set[str]) -> str | None:
    """The module-qualified function the site is in (None at module level, or outside
    the modules extract read)."""
    module = _module(site.location.file, modules)
    if module is None or site.location.function == "<module>":
        return None
    return f"{module}.{site.location.function}"


def _module(path: str, modules: set[str]) -> str | None:
    from errdex.extract.files import module_name

    name = module_name(path)
    return name if name in modules else None


def _module_prefix(qualified: str, modules: set[str]) -> str:
    """The module part of a module-qualified function name."""
    parts = qualified.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        if ".".join(parts[:cut]) in modules:
            return ".".join(parts[:cut])
    return parts[0]
