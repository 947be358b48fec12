# "When it happens": where the check runs, the guard in plain language, the early
# returns the function must not take, and the static call path (labelled a guess).
from __future__ import annotations

from errdex.explain.analysis import Analysis
from errdex.explain.conditions import join_and
from errdex.explain.surface import said_root, said_route
from errdex.explain.where import where

MAX_PATH_SHOWN = 2


def short_name(qualified: str, module_names: dict[str, str]) -> str:
    """`pkg.mod.Class.method` -> `Class.method`; module level code -> the module."""
    module = module_names.get(qualified)
    if module is None:
        return qualified
    rest = qualified[len(module) + 1 :]
    return f"{module} (module level)" if rest == "<module>" else rest


def _handled(analysis: Analysis) -> str:
    """What the handler around the site caught, and where it came from."""
    return " or ".join(
        (
            f"`{types}` raised by `{raiser}` in the `try` block"
            if raiser
            else f"`{types}` raised inside the `try` block"
        )
        + (f": {said}" if said else "")
        for (types, raiser), said in zip(analysis.catches(), analysis.failures(), strict=True)
    )


def _reached_by(analysis: Analysis, said: str) -> str | None:
    """Where the values the condition names come from in the user's own call, from
    their reach: "`audience` comes from your call `decode(audience=…)` (`decode` →
    `check`)." Only for inputs the text names, at most two."""
    parts = []
    for item in analysis.site.inputs:
        root = said_root(item)
        shown = next((n for n in (item.expr, item.name) if f"`{n}`" in said), None)
        if root is None or shown is None:
            continue
        route = said_route(item)
        parts.append(f"`{shown}` comes from {root}" + (f" ({route})" if route else ""))
        if len(parts) == 2:
            break
    if not parts:
        return None
    return "; ".join(parts) + "."


def when_it_happens(
    analysis: Analysis,
    call_paths: tuple[tuple[str, ...], ...],
    shorten: dict[str, str],
    entry: tuple[str, ...] = (),
) -> str:
    """The prose of "when it happens" (call paths are stored apart, as well)."""
    site = analysis.site
    sentences: list[str] = []
    lead = f"Raised {where(analysis)}"
    reached = analysis.reached_if + analysis.asserted
    if site.kind == "assert" and analysis.expected:
        lead = f"Fails {where(analysis)}, if " + join_and(analysis.trigger)
        expects = join_and(analysis.expected)
        lead += f" (the code expects that {expects})"
    elif analysis.trigger:
        lead += ", if " + join_and(analysis.trigger)
    elif analysis.unparsed:
        lead += ", if " + " and ".join(f"`{t}`" for t in analysis.unparsed)
    elif reached:  # no test of its own: the checks it gets past are its condition
        lead += ", if " + join_and(reached)
    elif analysis.passed:  # past the function's earlier raises
        lead += ", if " + join_and(analysis.passed)
    elif not (analysis.context or analysis.handled):
        lead += ", every time this code is reached"
    if analysis.context:
        context = ", ".join(analysis.context)
        conditioned = analysis.trigger or analysis.unparsed or reached or analysis.passed
        lead += f" ({context})" if conditioned else f", {context}"
    sentences.append(lead + ".")
    if site.unreachable is not None:
        sentences.insert(0, f"This raise can never fire as the code stands: {site.unreachable}.")
    if analysis.handled:
        sentences.append(f"It happens while handling {_handled(analysis)}.")
    if reached and (analysis.trigger or analysis.unparsed):
        sentences.append(f"The function gets this far only if {join_and(reached)}.")
    reached_by = _reached_by(analysis, " ".join(sentences))
    if reached_by:
        sentences.append(reached_by)
    elif len(entry) > 1:  # how a user's own call gets here, when no input says it
        way = " → ".join(f"`{name}`" for name in entry)
        sentences.append(f"You get here by calling `{entry[0]}` ({way}).")
        call_paths = ()
    if call_paths:
        shown = [
            " ← ".join(f"`{short_name(q, shorten)}`" for q in path)
            for path in call_paths[:MAX_PATH_SHOWN]
        ]
        sentences.append(f"Called from (static call graph, best effort): {'; '.join(shown)}.")
    return " ".join(sentences)
