# "Solutions": one fix per input the guard reads (the negated clause, with the input's
# default and what its doc says of the boundary value), then what the message itself
# tells the reader to do ("Please …", "Use … instead", "Either … or …", "set X=…").
from __future__ import annotations

import re
from dataclasses import dataclass

from errdex.explain.analysis import Analysis
from errdex.explain.conditions import Clause
from errdex.explain.title import display
from errdex.model import Input

MAX_SOLUTIONS = 6
MAX_QUOTE = 220
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`'\"{(])|\n+")
_INSTRUCTION = re.compile(
    r"^(please|use|try|consider|set|pass|specify|install|upgrade|downgrade|update|reduce|"
    r"increase|decrease|lower|raise|enable|disable|remove|add|run|call|make sure|ensure|"
    r"check|provide|choose|select|switch|change|rerun|re-run|restart|avoid|refer|see|"
    r"either|you (?:can|may|should|must|need|might)|to (?:fix|use|enable|disable|avoid|"
    r"resolve|run)|if you)\b",
    re.I,
)
_ANYWHERE = re.compile(
    r"\b(please|instead|pip install|you (?:can|may|should|must|need)|consider|"
    r"set [`'\"]?[\w.-]+[`'\"]?\s*=|--[a-z][\w-]+)",
    re.I,
)
_EXC_IMPORT = ("ImportError", "ModuleNotFoundError")


@dataclass(frozen=True, slots=True)
class Solution:
    text: str
    kind: str  # "input" (change a value the guard reads) or what else it is


def solutions(analysis: Analysis, *, caller: str | None = None) -> list[Solution]:
    """Fixes for a site, most specific first. A value only the library sets is never
    one to change: a private function's parameter points to its caller (`caller`, the
    nearest public function of the call path, when known) instead."""
    out: list[Solution] = []
    seen: set[str] = set()
    passed_in: list[Input] = []
    ordered = _fix_order(analysis)
    for clause in ordered:
        subject = clause.subject
        if subject is None or clause.fix is None or subject.name in seen:
            continue
        seen.add(subject.name)
        if subject.access == "internal":
            if subject.kind == "parameter":
                passed_in.append(subject)
            continue
        first = not any(s.kind == "input" for s in out)
        out.append(Solution(text=_input_fix(clause, subject, analysis, first), kind="input"))
    if passed_in and not out:
        out.append(Solution(text=_from_caller(passed_in, analysis, caller), kind="caller"))
    for text in instructions(analysis):
        out.append(Solution(text=text, kind="message"))
    out.extend(_other(analysis))
    unique: dict[str, Solution] = {}
    for solution in out:
        unique.setdefault(solution.text, solution)
    return list(unique.values())[:MAX_SOLUTIONS]


def _fix_order(analysis: Analysis) -> list[Clause]:
    primary = analysis.primary
    rest = [c for c in reversed(analysis.trigger) if c is not primary]
    return ([primary] if primary is not None else []) + rest


def _from_caller(passed: list[Input], analysis: Analysis, caller: str | None) -> str:
    names = ", ".join(f"`{i.name}`" for i in passed[:3])
    function = analysis.site.location.function
    where = f"`{caller}`" if caller else "the public function you called"
    return (
        f"Check what you pass to {where}: {names} reach `{function}` from there, and"
        " this check rejects the value that arrived"
    )


def _input_fix(clause: Clause, subject: Input, analysis: Analysis, first: bool) -> str:
    assert clause.fix is not None
    text = clause.fix
    where = _defined(subject, analysis)
    notes = [where] if where else []
    if subject.default is not None and len(subject.default) <= 40:
        notes.append(f"default {subject.default}")
    if notes:
        text += " (" + ", ".join(notes) + ")"
    quote = doc_quote(subject, clause.bound)
    if quote:
        text += f'; per its doc: "{quote}"'
    if not first and clause in analysis.trigger:
        text = "Or: " + text[0].lower() + text[1:] + ", so that the check does not apply"
    return text


def _defined(subject: Input, analysis: Analysis) -> str | None:
    if subject.kind in ("field", "property", "attribute") and subject.owner:
        return f"`{subject.owner}.{subject.name}`"
    if subject.kind == "parameter" and subject.owner:
        return f"parameter of `{subject.owner}`"
    if subject.kind == "constant":
        return "a module constant"
    return None


def doc_quote(subject: Input, bound: str | None) -> str | None:
    """The sentence of the input's doc that speaks of the boundary value, if any."""
    if not subject.doc:
        return None
    doc = " ".join(subject.doc.split())
    sentences = re.split(r"(?<=[.;])\s+", doc)
    wanted = [bound] if bound else []
    if bound in ("0", "None", "-1"):
        wanted.append("default")
    for word in wanted:
        pattern = re.compile(rf"(?<![\w.]){re.escape(word)}(?![\w.])")
        for sentence in sentences:
            if pattern.search(sentence):
                return sentence if len(sentence) <= MAX_QUOTE else sentence[:MAX_QUOTE] + "…"
    return None


def instructions(analysis: Analysis) -> list[str]:
    """Sentences of the message that tell the reader what to do."""
    message = analysis.site.message
    if message is None:
        return []
    text = display(message)
    out: list[str] = []
    for sentence in _SENTENCE.split(text):
        sentence = sentence.strip(" -–—:;,")
        if len(sentence) < 8:
            continue
        for clause in re.split(r"(?<=;)\s+|\s+[-–—]\s+", sentence):
            clause = clause.strip(" ;:")
            if _INSTRUCTION.match(clause) or _ANYWHERE.search(clause):
                if len(clause.split()) >= 3:
                    out.append(clause[0].upper() + clause[1:])
                break
    return out


def _other(analysis: Analysis) -> list[Solution]:
    site = analysis.site
    exc = site.exception.name.rsplit(".", 1)[-1]
    function = site.location.function
    out: list[Solution] = []
    for clause in analysis.trigger + analysis.reached_if:
        if (
            clause.call
            and clause.call.startswith(("has_", "is_"))
            and "available" in (clause.call + clause.text)
        ):
            out.append(
                Solution(text=f"Install what `{clause.call}()` looks for", kind="dependency")
            )
    for test in (g.test for g in site.guard):
        found = re.search(r"find_spec\(\s*['\"]([\w.]+)['\"]", test)
        if found:
            out.append(Solution(text=f"Install `{found.group(1)}`", kind="dependency"))
    importing = exc in _EXC_IMPORT or any("ImportError" in h for h in analysis.handled)
    if importing and not out and not instructions(analysis):
        out.append(
            Solution(
                text="Install the optional dependency this feature imports",
                kind="dependency",
            )
        )
    if (
        exc == "NotImplementedError" or site.exception.qualname.endswith("NotImplementedError")
    ) and not analysis.trigger:
        name = function.rsplit(".", 1)[-1]
        owner = analysis.owner.fact.qualname if analysis.owner else None
        if owner and function == f"{owner}.{name}":
            out.append(
                Solution(
                    text=f"Use a subclass of `{owner}` that implements `{name}`, "
                    "or a feature that does not call it",
                    kind="implement",
                )
            )
    return out


__all__ = ["Solution", "doc_quote", "instructions", "solutions"]
