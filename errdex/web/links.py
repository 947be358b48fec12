# The site's URLs in one place, so the server and the static export agree on them. In an
# export, JSON files carry a ".json" suffix (a static host needs it for the content type,
# and /api/packages is both a file and a folder); the server answers both forms.
from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote, urlencode


def segment(value: str) -> str:
    """`value` as one URL path segment (and one file name in an export): nothing in it
    can climb out of its folder."""
    quoted = quote(value, safe="")
    return "%2E" if quoted == "." else "%2E%2E" if quoted == ".." else quoted


@dataclass(frozen=True, slots=True)
class Links:
    static_site: bool = False  # True for `errdex export`

    @property
    def _json(self) -> str:
        return ".json" if self.static_site else ""

    def home(self) -> str:
        return "/"

    def error(self, site_id: str) -> str:
        return f"/errors/{segment(site_id)}"

    def error_json(self, site_id: str) -> str:
        return f"/api/errors/{segment(site_id)}{self._json}"

    def package(self, name: str, version: str, **query: str | int | None) -> str:
        url = f"/packages/{segment(name)}/{segment(version)}"
        return _with_query(url, query)

    def package_json(self, name: str, version: str) -> str:
        return f"/api/packages/{segment(name)}/{segment(version)}/errors{self._json}"

    def packages_json(self) -> str:
        return f"/api/packages{self._json}"

    def search(self, **query: str | int | None) -> str:
        return _with_query("/search", query)

    def search_json(self, **query: str | int | None) -> str:
        return _with_query("/api/search", query)

    def static(self, name: str) -> str:
        return f"/static/{segment(name)}"


def _with_query(url: str, query: dict[str, str | int | None]) -> str:
    pairs = [(k, str(v)) for k, v in query.items() if v is not None and v != ""]
    return f"{url}?{urlencode(pairs)}" if pairs else url
