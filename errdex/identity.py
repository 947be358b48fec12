# Stable error ids: line numbers stay out, so an id survives edits elsewhere in a file
# and carries across versions while the error itself is unchanged. And a file's digest:
# what the per-file cache keys its facts by and a snapshot records of each file, so that
# the hook can tell that an installed file is still the one indexed.
from __future__ import annotations

import hashlib


def site_id(
    *, package: str, file: str, function: str, exception: str, message: str, ordinal: int
) -> str:
    """Return the 16-hex-digit id of an error site (docs/architecture.md, Identity)."""
    key = "\0".join((package, file, function, exception, message, str(ordinal)))
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def file_digest(data: bytes) -> str:
    """The digest of a file's bytes (32 hex digits)."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()
