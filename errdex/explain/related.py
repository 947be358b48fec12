# "Related": other sites of the same function, then sites guarded by the same inputs
# (a field or property of the same class, by name).
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from errdex.model import ErrorSite

MAX_RELATED = 6
_SAME_FUNCTION = 4


class Related:
    def __init__(self, sites: Sequence[ErrorSite]):
        self.by_function: dict[tuple[str, str], list[ErrorSite]] = defaultdict(list)
        self.by_input: dict[tuple[str, str], list[ErrorSite]] = defaultdict(list)
        for site in sites:
            self.by_function[(site.location.file, site.location.function)].append(site)
            for key in _input_keys(site):
                self.by_input[key].append(site)

    def of(self, site: ErrorSite) -> tuple[str, ...]:
        """Ids of a handful of related sites, nearest first."""
        line = site.location.line
        same = [
            s
            for s in self.by_function[(site.location.file, site.location.function)]
            if s.id != site.id
        ]
        same.sort(key=lambda s: abs(s.location.line - line))
        out = [s.id for s in same[:_SAME_FUNCTION]]
        for key in _input_keys(site):
            for other in self.by_input[key]:
                if len(out) >= MAX_RELATED:
                    break
                if other.id != site.id and other.id not in out:
                    out.append(other.id)
        return tuple(out[:MAX_RELATED])


def _input_keys(site: ErrorSite) -> list[tuple[str, str]]:
    names = {g for guard in site.guard for g in [guard.test]}
    return [
        (i.owner, i.name)
        for i in site.inputs
        if i.owner and i.kind in ("field", "property") and any(i.expr in t for t in names)
    ]
