# The calls a file writes inside expressions (`b"".join(self.iter_bytes())`, `if
# self._check(x):`, `for part in self.iter_raw():`), which the statement walk does not
# record: it notes only the call that heads a statement. They are read from the text, in
# the pass that finds every name called (FileFacts.called), not from the tree: on vllm
# 0.28.0, in one process, walking every expression of every statement cost 4.3 CPU-s
# more (of 10), this pass 0.6 CPU-s where the names alone took 0.15. The text holds
# strings and comments too, so a call written in a docstring counts as well; these calls
# only widen the call graph that finding a site's tests follows (CallGraph.reaching),
# never what an explanation says of who passes what.
from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from errdex.extract.facts import CallFact, FunctionFact

# `a.b.name(` read backwards: the search then starts at the literal "(" and skips ahead
# to each one, where forwards it would try every character as the start of a name (8x
# slower on vllm). As r"(?<!def )(?<!class )\b([A-Za-z_][\w.]*)\s*\(" forwards, and:
# the dotted name (reversed), unless a `def` or `class` defines it, and whether an
# expression other than a name comes before it (`x().name(`: a receiver of unknown class)
_CALLED_BACKWARDS = re.compile(r"\(\s*(\w+(?:\.\w+)*)(?!\w)(?! fed)(?! ssalc)(\.)?")
# keywords (`if (`, `return (x)`) and builtins (`len(x)`): no function of the codebase,
# as the backwards search reads them. Not the soft keywords: `match(x)` may well call a
# function (and `match (a, b):` is a statement whose edge leads nowhere)
_NOT_CALLED = frozenset(name[::-1] for name in (*keyword.kwlist, *dir(builtins)))
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
RECEIVER = "<expr>"  # stands for a receiver that is not a name: `f().close()`


# a call of what a subscript or a call gives (`handlers[kind](x)`, `make()(x)`)
_OPAQUE = re.compile(r"[\])][ \t]*\(")


@dataclass(frozen=True, slots=True)
class Calls:
    names: frozenset[str]  # every name written as called, but those a def or class makes
    nested: tuple[CallFact, ...]  # the calls no statement heads, once per function
    opaque: frozenset[str]  # the functions that call what no name says


def written_calls(
    source: str, functions: Sequence[FunctionFact], heading: Iterable[CallFact]
) -> Calls:
    """Every name `source` writes as called (`name(`, strings and comments included), and
    the calls no statement heads, each once per function that writes it, as CallFacts
    marked `nested` (no arguments: they are not read)."""
    text = source[::-1]
    line = source.count("\n") + 1  # of the text read so far (backwards), the line
    read = 0
    scope = _scopes(functions, line)
    seen = {(call.function, call.callee) for call in heading}
    names: set[str] = set()
    out: list[CallFact] = []
    for m in _CALLED_BACKWARDS.finditer(text):
        backwards, receiver = m.group(1, 2)
        last = backwards.partition(".")[0]
        if last[-1] in _NAME_START:
            names.add(last)
        if last[-1] not in _NAME_START or (
            backwards in _NOT_CALLED and not receiver  # `len(x)`, not `console.print(x)`
        ):
            continue
        at = m.start()
        line -= text.count("\n", read, at)
        read = at
        written = backwards[::-1]
        if receiver:
            written = f"{RECEIVER}.{written}"
        owner = scope[line]
        function = functions[owner].qualname if owner >= 0 else "<module>"
        if (function, written) in seen:
            continue
        seen.add((function, written))
        out.append(
            CallFact(
                callee=written,
                line=line,
                function=function,
                owner_class=functions[owner].owner_class if owner >= 0 else None,
                alone=False,
                nested=True,
            )
        )
    opaque: set[str] = set()
    line, read = 1, 0
    for m in _OPAQUE.finditer(source):
        line += source.count("\n", read, m.start())
        read = m.start()
        owner = scope[line]
        opaque.add(functions[owner].qualname if owner >= 0 else "<module>")
    return Calls(
        names=frozenset(n[::-1] for n in names), nested=tuple(out), opaque=frozenset(opaque)
    )


def _scopes(functions: Sequence[FunctionFact], lines: int) -> list[int]:
    """For each line, the index of the innermost function that holds it, or -1."""
    scope = [-1] * (lines + 1)
    # outer functions first: an inner one, starting later, paints over its lines
    for index, fn in sorted(enumerate(functions), key=lambda f: (f[1].line, -f[1].end_line)):
        scope[fn.line : fn.end_line + 1] = [index] * (fn.end_line + 1 - fn.line)
    return scope
