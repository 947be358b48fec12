# Stable error ids: line numbers stay out, so an id survives edits elsewhere in a file
# and carries across versions while the error itself is unchanged.
from __future__ import annotations

import hashlib


def site_id(
    *, package: str, file: str, function: str, exception: str, message: str, ordinal: int
) -> str:
    """Return the 16-hex-digit id of an error site (docs/architecture.md, Identity)."""
    key = "\0".join((package, file, function, exception, message, str(ordinal)))
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]
