# What errdex knows of where source code is hosted: the form of a GitHub repository URL,
# which alone gets pinned source links and prefilled issue links. Every stage asks here.
from __future__ import annotations

GITHUB_HOST = "github.com"
GITHUB = f"https://{GITHUB_HOST}/"  # how every GitHub repository URL we keep begins


def is_github_url(url: str | None) -> bool:
    """True when `url` is a repository on GitHub as sources write it
    (`https://github.com/OWNER/NAME`); the one test for links only GitHub has."""
    return url is not None and url.startswith(GITHUB)


def github_name(url: str | None) -> str | None:
    """`OWNER/NAME` of a GitHub repository URL, else None."""
    return url[len(GITHUB) :].strip("/") if url is not None and is_github_url(url) else None
