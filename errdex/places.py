# Where errdex keeps things on this machine: the database and the cache directory, each
# named by an environment variable or else in the user's data and cache directories.
# Light on purpose (the hook asks at the moment of failure, in the user's process):
# platformdirs is imported only when no variable names the place.
from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_dir", "database"]


def database() -> str:
    """$ERRDEX_DB if set, else errdex.sqlite in the user data directory."""
    env = os.environ.get("ERRDEX_DB")
    if env:
        return env
    import platformdirs

    return str(Path(platformdirs.user_data_dir("errdex")) / "errdex.sqlite")


def cache_dir() -> Path:
    """$ERRDEX_CACHE if set, else errdex's folder in the user cache directory."""
    env = os.environ.get("ERRDEX_CACHE")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("errdex"))
