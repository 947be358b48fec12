# "What it means": which component rejects what, in the codebase's own words: the
# enclosing class (with the first sentence of its docstring) or function, the clause
# that names the rejected value, and the conditions under which it is rejected.
from __future__ import annotations

import re

from errdex.explain.analysis import Analysis
from errdex.explain.conditions import join_and
from errdex.explain.imports import Needed
from errdex.extract.files import module_name

# Sphinx roles (":class:`Option`", ":exc:`Error <mod.Error>`") and reST literals
# ("``x``") of a docstring, as the single backticks the rest of the prose uses.
_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`(~?)([^`<]*?)\s*(?:<[^`>]*>)?`(\\s)?")
_LITERAL = re.compile(r"``([^`]+)``")
_LINK = re.compile(r"<?https?://")

_NOT_IMPLEMENTED = ("NotImplementedError",)
# Exceptions a framework uses to steer its own loop, not to report a failure: what each
# tells the code that catches it (the framework, whose walker raised the visit).
_FLOW = {
    "docutils.nodes.SkipNode": "skip this node's children and its departure",
    "docutils.nodes.SkipChildren": "skip this node's children",
    "docutils.nodes.SkipSiblings": "skip this node's remaining siblings",
    "docutils.nodes.SkipDeparture": "skip this node's departure",
    "docutils.nodes.StopTraversal": "stop walking the document",
}


def component(analysis: Analysis) -> str:
    """The code that rejects: "`CompilationConfig` (configuration for compilation)"."""
    if analysis.owner is not None:
        name = f"`{analysis.owner.qualname}`"
        doc = analysis.owner.doc
        doc = _gist(plain_markup(doc)) if doc else doc
        if doc:
            doc = doc.rstrip(".")
            first = doc.split(" ", 1)[0]
            lower = first[1:].islower() or first in ("A", "An")  # not a name: "A base …"
            doc = doc[0].lower() + doc[1:] if lower else doc
            return f"{name} ({doc})"
        return name
    function = analysis.site.location.function
    file = analysis.site.location.file
    module = module_name(file) or file  # a tree's own root __init__.py names no module
    if function == "<module>":
        return f"the module `{module}`"
    return f"`{function}()` in `{module}`"


def _gist(doc: str) -> str:
    """A class doc's opening as a parenthesis: the words before its first link ("the
    SpecBench dataset: https://…" is "the SpecBench dataset"); none when fewer than
    three words are left."""
    found = _LINK.search(doc)
    if found is None:
        return doc
    before = " ".join(doc[: found.start()].split()).rstrip(" :;,(-")
    return before if len(before.split()) >= 3 else ""


def plain_markup(text: str) -> str:
    """`text` with reST literals and Sphinx roles as plain backticked names."""
    text = _LITERAL.sub(r"`\1`", text)
    return _ROLE.sub(_role_name, text)


def _role_name(found: re.Match[str]) -> str:
    """`X` of ":class:`X`", `Y` of ":class:`~mod.Y`", `text` of ":ref:`text <target>`"."""
    name = found.group(2)
    plural = "s" if found.group(3) else ""  # ":class:`Option`\s"
    return f"`{name.rsplit('.', 1)[-1] if found.group(1) else name}`{plural}"


def what_it_means(analysis: Analysis, needed: Needed | None = None) -> str:
    """One or two sentences: who rejects what, and when; for a site behind an import
    check (`needed`, see explain/imports.py), what it needs."""
    site = analysis.site
    exc = site.exception.name.rsplit(".", 1)[-1]
    who = component(analysis)
    function = site.location.function
    flow = _FLOW.get(site.exception.qualname)
    if flow is not None:
        return (
            f"{who} raises docutils' `{exc}` as a signal, not an error: the docutils walker"
            f" that called `{function}` (`Node.walk` or `Node.walkabout`) catches it and"
            f" goes on, told to {flow}. You see it only when you call `{function}`"
            " yourself, outside a walk."
        )
    if site.kind == "assert":
        expects = join_and(analysis.expected) or "its condition holds"
        return (
            f"An internal consistency check (`assert`) in {who} failed: `{function}` expects "
            f"that {expects}. Asserts guard assumptions of the code itself rather than "
            "validate user input (and are skipped under `python -O`)."
        )
    if site.kind == "reraise":
        catches = analysis.catches()
        if catches and catches[-1][0] in ("BaseException", "Exception"):  # a catch-all
            raiser = catches[-1][1]
            what = f"whatever `{raiser}` raised" if raiser else "whatever its `try` block raised"
            return f"{who} passes on {what}, unchanged: that exception is the one to read."
        return f"{who} passes on {caught(analysis) or 'an exception'} unchanged."
    reached = analysis.reached_if + analysis.asserted
    if site.kind == "helper":
        lead = f"{who} reports a failure through a helper that raises `{exc}`"
        if analysis.trigger or reached:
            lead += " when " + join_and(analysis.trigger or reached)
    elif site.message is None and (
        exc in _NOT_IMPLEMENTED
        or any(b.endswith("NotImplementedError") for b in site.exception.bases)
    ):
        lead = f"`{function}` is not implemented for this case by {who}"
        if analysis.owner is not None and function.rsplit(".", 1)[-1] in analysis.owner.abstract:
            # a subclass that lacks it cannot be made: only `super()` reaches this raise
            lead = (
                f"`{function}` is an abstract method of {who}: it raises only when a"
                " subclass's implementation calls it through `super()`"
            )
    elif needed is not None:
        lead = _needs(who, needed, analysis)
    else:
        primary = analysis.primary
        others = [c for c in analysis.trigger if c is not primary]
        if primary is not None and primary.noun and primary.subject is not None:
            lead = f"{who} rejects {primary.noun}"
            if others:
                lead += " when " + join_and(others)
        elif analysis.trigger or reached:
            # with no test of its own, the raise fires whenever the function gets there
            lead = f"{who} refuses to go on when " + join_and(analysis.trigger or reached)
        elif analysis.context:
            lead = f"{who} raises `{exc}` " + ", ".join(analysis.context)
        elif analysis.handled:
            lead = f"{who} raises `{exc}`"
        elif analysis.passed:
            lead = (
                f"{who} raises `{exc}` when {join_and(analysis.passed)}: the raise before it"
                " did not fire"
            )
        else:
            lead = f"{who} always raises `{exc}` at this point of `{function}`"
    if analysis.handled:
        lead += f", after catching {caught(analysis)}"
    return lead + "."


def caught(analysis: Analysis) -> str:
    """The exceptions the site's handlers catch, each with the call that raised it when
    the `try` block is one statement: "`ValueError` raised by `parse_url(url)`"."""
    return " or ".join(
        (f"`{types}` raised by `{raiser}`" if raiser else f"`{types}`")
        + (f" ({said})" if said else "")
        for (types, raiser), said in zip(analysis.catches(), analysis.failures(), strict=True)
    )


def _needs(who: str, needed: Needed, analysis: Analysis) -> str:
    """ "`load()` in `pkg.io` needs `yaml`, which could not be imported", with the
    conditions besides the lookup that the site fires under."""
    named = [f"`{m}`" for m in (*needed.modules, *needed.own)]
    named += [f"the module that `{g}` names" for g in needed.given]
    if named:
        listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
        lead = f"{who} needs {listed}, which {needed.failure(many=len(named) > 1)}"
    else:
        lead = f"{who} needs a module that {needed.failure()}"
    others = [
        c
        for c in analysis.trigger
        if not any(c.call == name or f"{name}(" in c.text for name in needed.lookups)
    ]
    return lead + (", when " + join_and(others) if others else "")
