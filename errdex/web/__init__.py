# The web stage: errdex's site and JSON API (FastAPI + Jinja2), and the views that the
# static export (errdex.web.export) renders to files. Thin over the store and the matcher.
# Names load lazily so that importing errdex.web costs the command line nothing until used.
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from errdex.web.app import MAX_BODY, create_app

__all__ = ["MAX_BODY", "create_app"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from errdex.web import app

        return getattr(app, name)
    raise AttributeError(f"module 'errdex.web' has no attribute {name!r}")
