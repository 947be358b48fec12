# PyPI sources: find a release's sdist (or pure-python wheel; for a project that publishes
# neither, as torch, one platform wheel, whose Python files are indexed) through the JSON simple API
# (PEP 691), download it once into cache/downloads with its sha256 checked, and remember
# which file NAME==VERSION resolved to, so a pinned SOURCE works offline once cached.
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import InvalidVersion, Version

from errdex.errors import NetworkError, NotFoundError, SourceError
from errdex.sources.cache import sweep_stale, temp_prefix
from errdex.sources.metadata import canonical_name
from errdex.sources.reading import writing

DEFAULT_INDEX = "https://pypi.org/simple"
ACCEPT = "application/vnd.pypi.simple.v1+json"
TIMEOUT_SECONDS = 30.0
CONNECT_SECONDS = 10.0
MAX_DOWNLOAD = 2 * 1024**3
_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
_PURE_TAGS = {("py3", "none", "any"), ("py2.py3", "none", "any")}

Progress = Callable[[int, int], None]


@dataclass(frozen=True, slots=True, kw_only=True)
class Release:
    """One downloadable file of a release, as the index describes it."""

    name: str  # canonical distribution name
    version: str
    filename: str
    url: str
    sha256: str | None
    upload_time: str | None
    size: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Download:
    """A release file in the cache."""

    release: Release
    path: Path
    sha256: str
    checked: bool = False  # its bytes were hashed just now (a download, not the pin)


def index_url() -> str:
    """Return the simple index base URL: $ERRDEX_PYPI_INDEX or PyPI's."""
    return os.environ.get("ERRDEX_PYPI_INDEX", DEFAULT_INDEX).rstrip("/")


def parse_spec(spec: str) -> tuple[str, str | None]:
    """Split `NAME==VERSION` or `NAME` into (canonical name, version or None).

    Raises SourceError for anything else (other operators, a malformed name or version).
    """
    name, sep, version = spec.partition("==")
    name, version = name.strip(), version.strip()
    if not _NAME.fullmatch(name) or (sep and not version):
        raise SourceError(
            f"cannot read the PyPI SOURCE {'pypi:' + spec!r}; write pypi:NAME or pypi:NAME==VERSION"
        )
    if sep:
        try:
            Version(version)
        except InvalidVersion as exc:
            raise SourceError(
                f"{version!r} is not a valid version in {'pypi:' + spec!r}; "
                "write an exact version, e.g. pypi:NAME==1.2.0"
            ) from exc
    return canonical_name(name), version if sep else None


def fetch(
    name: str, version: str | None, downloads: Path, progress: Progress | None = None
) -> Download:
    """Return the cached file of `name`'s release `version` (newest stable when None).

    A pinned release already downloaded is served from the cache without the network.
    Raises NotFoundError when the package, version or a usable file does not exist,
    NetworkError when the index cannot be reached, SourceError on a hash mismatch.
    """
    if version is not None:
        found = cached(name, version, downloads)
        if found is not None:
            return found
    try:
        files = list_files(name)
    except NetworkError as exc:
        if version is not None:
            raise
        raise NetworkError(
            f"{exc}; a pinned pypi:{name}==VERSION downloaded before works offline"
        ) from exc
    release = choose(name, version, files)
    path = _download(release, downloads, progress)
    digest = _sha256(path)
    # remembered under the version it is (the newest, when none was asked for), so that
    # pypi:NAME==VERSION of a release first fetched unpinned works offline too
    _remember(release, version or release.version, digest, downloads)
    return Download(release=release, path=path, sha256=digest, checked=True)


def _client() -> Any:
    import httpx

    timeout = httpx.Timeout(TIMEOUT_SECONDS, connect=CONNECT_SECONDS)
    return httpx.Client(timeout=timeout, follow_redirects=True)


def list_files(name: str) -> list[dict[str, Any]]:
    """Return the `files` of `name`'s JSON simple-API page, with absolute URLs.

    Raises NotFoundError for an unknown package and NetworkError when the index fails.
    """
    base = index_url()
    page = f"{base}/{name}/"
    import httpx  # only when the network is needed: it costs 50 ms of start-up

    try:
        with _client() as client:
            response = client.get(page, headers={"Accept": ACCEPT})
    except httpx.HTTPError as exc:
        raise NetworkError(
            f"cannot reach the package index at {base}: {exc or type(exc).__name__}; "
            "check your network, or set ERRDEX_PYPI_INDEX to a reachable index"
        ) from exc
    if response.status_code == 404:
        raise NotFoundError(
            f"no package {name!r} on {base}; check the spelling (pypi.org/project/{name})"
        )
    if response.status_code != 200:
        raise NetworkError(
            f"the package index at {base} answered HTTP {response.status_code} for {page}; "
            "try again later"
        )
    try:
        files = response.json()["files"]
        if not isinstance(files, list):
            raise TypeError("files is not a list")
    except (ValueError, KeyError, TypeError) as exc:
        raise SourceError(
            f"{page} is not a JSON simple-API page (PEP 691); point ERRDEX_PYPI_INDEX at "
            "an index that serves application/vnd.pypi.simple.v1+json"
        ) from exc
    out: list[dict[str, Any]] = []
    for entry in files:
        if isinstance(entry, dict) and isinstance(entry.get("filename"), str):
            out.append({**entry, "url": urljoin(str(response.url), str(entry.get("url", "")))})
    return out


def _file_version(name: str, filename: str) -> tuple[Version, int] | None:
    """(version, preference) of a usable file of `name`: 0 sdist, 1 pure wheel, then the
    platform wheels, the likeliest first (see _platform_rank); else None."""
    try:
        if filename.endswith(".whl"):
            wheel_name, version, _, tags = parse_wheel_filename(filename)
            if wheel_name != name:
                return None
            pure = any((t.interpreter, t.abi, t.platform) in _PURE_TAGS for t in tags)
            return (version, 1) if pure else (version, 2 + _platform_rank(tags))
        if filename.endswith((".tar.gz", ".zip")):
            sdist_name, version = parse_sdist_filename(filename)
            return (version, 0) if canonical_name(sdist_name) == name else None
    except (InvalidSdistFilename, InvalidWheelFilename, InvalidVersion):
        return None
    return None


def _platform_rank(tags: frozenset[Any]) -> int:
    """How far a platform wheel is from the one most users install: Linux x86-64 first,
    then other Linux, macOS, Windows; within each, the newest CPython first."""
    platforms = " ".join(t.platform for t in tags)
    if "linux" in platforms and "x86_64" in platforms:
        system = 0
    elif "linux" in platforms:
        system = 1
    elif "macosx" in platforms:
        system = 2
    else:
        system = 3
    pythons = [int(t.interpreter[2:]) for t in tags if t.interpreter[2:].isdigit()]
    return system * 1000 + (999 - max(pythons, default=0) % 1000)


def is_platform_wheel(filename: str) -> bool:
    """True for a wheel that is not pure Python (its compiled parts are not indexed)."""
    if not filename.endswith(".whl"):
        return False
    try:
        _, _, _, tags = parse_wheel_filename(filename)
    except InvalidWheelFilename:
        return False
    return not any((t.interpreter, t.abi, t.platform) in _PURE_TAGS for t in tags)


def release_versions(name: str, files: list[dict[str, Any]]) -> list[str]:
    """Stable versions of `name` that have an sdist or pure wheel not yanked, oldest first."""
    versions = set()
    for entry in files:
        found = _file_version(name, entry["filename"])
        if found is not None and not entry.get("yanked") and not found[0].is_prerelease:
            versions.add(found[0])
    return [str(v) for v in sorted(versions)]


def choose(name: str, version: str | None, files: list[dict[str, Any]]) -> Release:
    """Pick the sdist (else a pure-python wheel, else one platform wheel: Linux x86-64, the
    newest CPython) of `version`, or of the newest stable release.

    Yanked files are used only when pinned. Raises NotFoundError when there is none.
    """
    wanted = Version(version) if version is not None else None
    usable: list[tuple[Version, int, dict[str, Any]]] = []
    seen: set[Version] = set()
    for entry in files:
        found = _file_version(name, entry["filename"])
        if found is None:
            continue
        seen.add(found[0])
        if wanted is None and entry.get("yanked"):
            continue
        usable.append((found[0], found[1], entry))
    if wanted is not None:
        matches = [item for item in usable if item[0] == wanted]
        if not matches:
            releases = sorted(v for v in seen if not v.is_prerelease and not v.is_devrelease)
            near = ", ".join(str(v) for v in releases[-5:]) or "none"
            raise NotFoundError(
                f"{name} has no release {version}; its most recent stable releases: {near}"
            )
    else:
        stable = [item for item in usable if not item[0].is_prerelease]
        matches = stable or usable
        if not matches:
            raise NotFoundError(
                f"no sdist or wheel of {name} on {index_url()}; "
                "errdex needs one of these to read the code"
            )
        newest = max(item[0] for item in matches)
        matches = [item for item in matches if item[0] == newest]
    matches.sort(
        key=lambda item: (item[1], not item[2]["filename"].endswith(".tar.gz"), item[2]["filename"])
    )
    found_version, _, entry = matches[0]
    hashes = entry.get("hashes")
    sha = hashes.get("sha256") if isinstance(hashes, dict) else None
    size = entry.get("size")
    upload = entry.get("upload-time")
    return Release(
        name=name,
        version=str(found_version),
        filename=_safe_filename(entry["filename"]),
        url=entry["url"],
        sha256=sha.lower() if isinstance(sha, str) else None,
        upload_time=upload if isinstance(upload, str) else None,
        size=size if isinstance(size, int) else None,
    )


def _safe_filename(filename: str) -> str:
    if "/" in filename or "\\" in filename or filename.startswith(".") or "\x00" in filename:
        raise SourceError(f"the index gave an unsafe file name {filename!r}; refusing it")
    return filename


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _pin_file(name: str, version: str, downloads: Path) -> Path:
    return downloads / "resolved" / f"{name}=={version}.json"


def _remember(release: Release, version: str, digest: str, downloads: Path) -> None:
    record = {
        "name": release.name,
        "version": release.version,
        "filename": release.filename,
        "url": release.url,
        "sha256": digest,
        "upload_time": release.upload_time,
        "size": release.size,
    }
    pin = _pin_file(release.name, version, downloads)
    with writing(pin, f"the record of {release.filename}"):
        pin.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=temp_prefix(f".{pin.name}"), dir=pin.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(record, out, indent=1)
            os.replace(tmp, pin)
        finally:
            Path(tmp).unlink(missing_ok=True)


def cached(name: str, version: str, downloads: Path) -> Download | None:
    """The remembered download of `name`==`version` in `downloads`, when its file is there
    (None when it was never fetched or its file is gone); needs no network."""
    try:
        record = json.loads(_pin_file(name, version, downloads).read_text(encoding="utf-8"))
        release = Release(
            name=record["name"],
            version=record["version"],
            filename=_safe_filename(record["filename"]),
            url=record["url"],
            sha256=record["sha256"],
            upload_time=record.get("upload_time"),
            size=record.get("size"),
        )
    except (OSError, ValueError, KeyError, TypeError, SourceError):
        return None
    path = downloads / release.filename
    if not path.is_file() or release.sha256 is None:
        return None
    return Download(release=release, path=path, sha256=release.sha256)


def verify(download: Download) -> bool:
    """Return True when the cached file still has the sha256 recorded for it."""
    return download.path.is_file() and _sha256(download.path) == download.sha256


def _download(release: Release, downloads: Path, progress: Progress | None) -> Path:
    """Download `release` into `downloads` (reusing an intact copy) and return its path."""
    path = downloads / release.filename
    if path.is_file() and release.sha256 is not None and _sha256(path) == release.sha256:
        return path
    what = f"the download of {release.filename}"
    sweep_stale(downloads)
    with writing(downloads, what):
        downloads.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=temp_prefix(f".{release.filename}"), dir=downloads)
    tmp = Path(tmp_name)
    digest = hashlib.sha256()
    try:
        with writing(tmp, what), os.fdopen(fd, "wb") as out:
            _stream(release, out, digest, progress)
        actual = digest.hexdigest()
        if release.sha256 is not None and actual != release.sha256:
            raise SourceError(
                f"{release.filename} from {release.url} has sha256 {actual}, but the index "
                f"says {release.sha256}; the download is corrupt or was tampered with"
            )
        with writing(path, what):
            tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def _stream(release: Release, out: Any, digest: Any, progress: Progress | None) -> None:
    import httpx

    total = release.size or 0
    done = 0
    try:
        with (
            _client() as client,
            client.stream("GET", release.url) as response,
        ):
            if response.status_code != 200:
                raise NetworkError(
                    f"downloading {release.url} failed with HTTP {response.status_code}; "
                    "try again later"
                )
            total = total or int(response.headers.get("content-length") or 0)
            for chunk in response.iter_bytes(1 << 16):
                done += len(chunk)
                if done > MAX_DOWNLOAD:
                    raise SourceError(
                        f"{release.url} is over {MAX_DOWNLOAD:,} bytes; refusing to download it"
                    )
                digest.update(chunk)
                out.write(chunk)
                if progress is not None:
                    progress(done, total)
    except httpx.HTTPError as exc:
        raise NetworkError(
            f"cannot download {release.url}: {exc or type(exc).__name__}; check your network"
        ) from exc


def releases_since(name: str, since: str) -> list[str]:
    """Stable versions of `name` first uploaded on or after the ISO date `since`, oldest
    first (a release's date is that of its earliest file).

    Raises NotFoundError for an unknown package and NetworkError when the index fails.
    """
    files = list_files(name)
    first: dict[str, str] = {}
    for entry in files:
        found = _file_version(name, entry["filename"])
        upload = entry.get("upload-time")
        if found is None or not isinstance(upload, str):
            continue
        version = str(found[0])
        first[version] = min(first.get(version, upload), upload)
    return [v for v in release_versions(name, files) if first.get(v, "") >= since]
