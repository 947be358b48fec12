# What every store implementation shares and no SQL dialect decides: how versions
# order, and where the default database lives.
from __future__ import annotations

import os
from pathlib import Path

from packaging.version import InvalidVersion, Version

VersionKey = tuple[int, Version | None, str]


def version_key(version: str) -> VersionKey:
    """Return a sort key for `version`: PEP 440 order, non-PEP 440 versions first by string.

    A version that packaging cannot parse (a branch name, a bare commit) sorts before
    every PEP 440 version, so that a real release is always "the newest" of a package.
    """
    try:
        return (1, Version(version), version)
    except InvalidVersion:
        return (0, None, version)


def sort_versions(versions: list[str]) -> list[str]:
    """Return `versions` oldest first (see `version_key`)."""
    return sorted(versions, key=version_key)


def default_location() -> str:
    """Return $ERRDEX_DB if set, else errdex.sqlite in the user data directory."""
    env = os.environ.get("ERRDEX_DB")
    if env:
        return env
    import platformdirs  # only when no database is named: its import is not free

    return str(Path(platformdirs.user_data_dir("errdex")) / "errdex.sqlite")
