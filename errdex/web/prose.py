# Words for an error page drawn from the record alone, used where the explain stage has
# not (yet) written its own: a title that is never cut mid-word, and plain statements of
# the conditions in the code. Never a guess: a condition is quoted, not paraphrased.
from __future__ import annotations

from typing import Any

from errdex.codec import JSON

TITLE_CHARS = 110


def title(record: JSON) -> str:
    """The record's title, else its message's literal text (holes as "…"), cut at a word
    boundary, else "ExceptionType in function"."""
    given = record.get("title")
    if isinstance(given, str) and given.strip():
        return given.strip()
    message = record.get("message")
    if message:
        text = "".join(p.get("text", "…") for p in message.get("parts", [])).strip()
        text = " ".join(text.split()).strip(" :,;-")
        if len(text.replace("…", "")) >= 3:
            return shorten(text, TITLE_CHARS)
    return f"{record['exception']['name']} in {record['location']['function']}"


def shorten(text: str, limit: int) -> str:
    """`text`, or its longest prefix of whole words within `limit` characters plus "…"."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0].rstrip(" ,;:-")
    return (cut or text[:limit]) + "…"


def condition(guard: JSON) -> str:
    """A guard as the condition under which the site runs, in source syntax."""
    test = str(guard.get("test", ""))
    kind = guard.get("kind")
    if kind in ("for", "with", "try", "finally", "match"):
        return f"inside `{kind} {test}`".replace("`try `", "`try`").replace(
            "`finally `", "`finally`"
        )
    if kind == "except":
        return f"while handling `{test or 'an exception'}`"
    if kind == "case":
        return f"the value matches `case {test}`"
    return f"`{test}` is {'false' if guard.get('negated') else 'true'}"


def fallback(record: JSON) -> dict[str, Any]:
    """What it means, when it happens and solutions stated from the code's own facts."""
    exc = record["exception"]["name"]
    loc = record["location"]
    where = "at module level" if loc["function"] == "<module>" else f"in `{loc['function']}`"
    guards = [g for g in record.get("guard", []) if isinstance(g, dict)]
    conditions = [condition(g) for g in guards]
    kind = record.get("kind")
    if kind == "assert":
        means = f"An assertion {where} failed: the code requires this condition to hold."
    elif kind == "reraise":
        means = f"An exception caught {where} was raised again as {exc}."
    elif guards and guards[-1].get("kind") in ("if", "elif") and guards[-1].get("test"):
        last_test = guards[-1]["test"]
        verdict = "false" if guards[-1].get("negated") else "true"
        means = (
            f"A check {where} failed: the code raises {exc} on purpose when "
            f"`{last_test}` is {verdict}, to stop before it goes on with values it cannot use."
        )
    else:
        means = f"{where[0].upper() + where[1:]}, the code raises {exc}"
        means += " on purpose when its checks fail." if conditions else "."
    last = guards[-1] if guards else None
    if last is not None:
        when = f"{exc} is raised at {loc['file']}:{loc['line']} when {condition(last)}"
        if len(guards) > 1:
            when += f", after {len(guards) - 1} other condition"
            when += "s" if len(guards) > 2 else ""
            when += " on the way (listed below)"
        when += "."
    else:
        when = f"{exc} is raised whenever `{loc['function']}` reaches line {loc['line']}."
    fixes = []
    if last is not None and last.get("kind") in ("if", "elif", "assert") and last.get("test"):
        want = "true" if last.get("negated") else "false"
        fixes.append(
            f"Make sure `{last['test']}` is {want} (line {last['line']}) when this code runs."
        )
    inputs = [i for i in record.get("inputs", []) if isinstance(i, dict)]
    if inputs:
        names = ", ".join(f"`{i['name']}`" for i in inputs[:4])
        fixes.append(f"Check the values you pass for {names} (see Inputs below).")
    return {"what_it_means": means, "when_it_happens": when, "solutions": fixes}
