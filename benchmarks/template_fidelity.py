# How faithfully templates keep the source's text: for every raise whose exception
# call has a message argument, does the template keep each string literal written in
# that argument? Reported by `make bench` beside the site counts of `ast` itself.
from __future__ import annotations

import ast
import re
from collections import Counter

from benchmarks.common import save, table
from errdex.extract import scan
from errdex.extract.cache import NoCache
from errdex.extract.pipeline import extract
from errdex.sources import resolve


def literals(node: ast.expr) -> list[str]:
    """The fixed text a message expression writes: string literals, f-string text, and
    the text between the fields of `%` and `str.format` templates (not what fills them)."""
    match node:
        case ast.Constant(value=str() as text):
            return [text] if text.strip() else []
        case ast.JoinedStr(values=values):
            return [
                v.value
                for v in values
                if isinstance(v, ast.Constant) and isinstance(v.value, str) and v.value.strip()
            ]
        case ast.BinOp(op=ast.Add(), left=left, right=right):
            return literals(left) + literals(right)
        case ast.BinOp(op=ast.Mod(), left=ast.Constant(value=str() as fmt)):
            return [
                p
                for p in re.split(r"%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[a-zA-Z%]", fmt)
                if p.strip()
            ]
        case ast.Call(func=ast.Attribute(value=ast.Constant(value=str() as fmt), attr="format")):
            return [p for p in re.split(r"\{[^{}]*\}", fmt) if p.strip()]
    return []


def main() -> None:
    snapshot = resolve("pypi:vllm==0.28.0")
    cache = NoCache()
    sites = extract(snapshot, scan(snapshot, cache), cache).sites
    by_line: dict[tuple[str, int], list[str]] = {}
    for site in sites:
        if site.kind in ("raise", "assert") and site.message is not None:
            by_line.setdefault((site.location.file, site.location.line), []).append(
                site.message.literal_text
            )
    counts: Counter[str] = Counter()
    lost: list[str] = []
    root = snapshot.root
    for path in sorted((root / "vllm").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_bytes())):
            if isinstance(node, ast.Raise):
                counts["raise"] += 1
            elif isinstance(node, ast.Assert) and node.msg is not None:
                counts["assert with message"] += 1
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
                continue
            if not node.exc.args:
                continue
            counts["raise with a message argument"] += 1
            wanted = literals(node.exc.args[0])
            texts = by_line.get((rel, node.lineno), [])
            if any(all(w in text for w in wanted) for text in texts):
                counts["template keeps every literal"] += 1
            elif len(lost) < 15:
                lost.append(f"{rel}:{node.lineno}")
    found_raise = len(
        {(s.location.file, s.location.line) for s in sites if s.kind in ("raise", "reraise")}
    )
    found_assert = sum(1 for s in sites if s.kind == "assert")
    share = counts["template keeps every literal"] / counts["raise with a message argument"]
    rows = [
        ["raise statements", f"{found_raise:,}", f"{counts['raise']:,}"],
        ["asserts with a message", f"{found_assert:,}", f"{counts['assert with message']:,}"],
        [
            "raises with a message argument whose template keeps every literal",
            f"{counts['template keeps every literal']:,}",
            f"{counts['raise with a message argument']:,} ({share:.1%})",
        ],
        ["helper call sites", f"{sum(1 for s in sites if s.kind == 'helper'):,}", "-"],
        ["sites in all", f"{len(sites):,}", "-"],
    ]
    save(
        "fidelity.md",
        "vllm 0.28.0, `vllm/`: errdex sites vs `ast`\n\n"
        + table(rows, ["measure", "errdex", "ast"])
        + "\n\nfirst raises whose template lost a literal: "
        + ", ".join(lost),
    )


if __name__ == "__main__":
    main()
