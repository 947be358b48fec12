# What a source tree says about itself: distribution name, version, repository URL and
# commit, read as text from PKG-INFO / METADATA, pyproject.toml, setup.cfg and the
# `_version.py` that setuptools-scm writes. Nothing here imports or runs indexed code.
from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from errdex.names import canonical
from errdex.repos import GITHUB, GITHUB_HOST, is_github_url
from errdex.sources.reading import read_text, resolves_inside

MAX_READ = 1 << 20  # metadata files are small; a huge one is not worth reading whole

# Project-URL labels that name the code, best first (compared lower-cased, without spaces)
SOURCE_LABELS = ("source", "sourcecode", "repository", "code", "github", "git", "homepage")
FORGES = (GITHUB_HOST, "gitlab.com", "bitbucket.org", "codeberg.org")
# GitHub paths whose first segment is not an owner
GITHUB_RESERVED = {"sponsors", "orgs", "apps", "marketplace", "features", "topics", "users"}


@dataclass(frozen=True, slots=True, kw_only=True)
class TreeMetadata:
    """What a tree's own metadata files say; None where they say nothing."""

    name: str | None = None
    version: str | None = None
    repo_url: str | None = None
    # (distribution, extra, version specifier) of each requirement, extra "" for the
    # base ones, specifier "" when it names no version
    requires: tuple[tuple[str, str, str], ...] = ()
    # where a dynamic version is declared to come from: ("attr", "pkg.__version__") for
    # setuptools' `attr`, ("path", "src/pkg/__about__.py") for hatch's `path`; with the
    # folder of the root package ("" or "src") for `attr`
    version_from: tuple[str, str, str] | None = None


def canonical_name(name: str) -> str:
    """Return the PEP 503 normalised form of a distribution name (`Foo_Bar` -> `foo-bar`)."""
    return canonical(name)


def import_name(name: str) -> str:
    """Return the likely import name of a distribution (`huggingface-hub` -> `huggingface_hub`)."""
    return canonical_name(name).replace("-", "_")


def _read(path: Path, root: Path) -> str | None:
    """The text of the metadata file at `path`; None when it is missing, unreadable, not a
    regular file (a FIFO would block the read) or a link that leads outside `root`."""
    if not resolves_inside(path, root):
        return None
    return read_text(path, MAX_READ)


# -- repository URLs ----------------------------------------------------------------------

_SCP = re.compile(r"^[\w.-]+@([\w.-]+):(?!//)(.+)$")  # git@github.com:owner/name.git


def normalize_repo_url(url: str) -> str | None:
    """Return `url` as a browsable https repository URL, or None when it is not one.

    GitHub URLs become exactly `https://github.com/OWNER/NAME`: `.git`, trailing
    slashes, `/tree/...`, `#...`, `?...` and the `git@github.com:` / `ssh://` / `git+`
    forms are all reduced to it and the host is lower-cased. Other https / ssh URLs keep
    their path without `.git` and trailing slash. Local paths and `file:` URLs give None.
    """
    text = url.strip()
    if text.startswith("git+"):
        text = text[4:]
    scp = _SCP.match(text)
    if scp:
        host, path = scp.group(1).lower(), scp.group(2)
    else:
        parts = urlsplit(text)
        if parts.scheme not in ("http", "https", "ssh", "git") or not parts.hostname:
            return None
        host, path = parts.hostname.lower(), parts.path
    host = host.removeprefix("www.")
    segments = [segment for segment in path.split("/") if segment]
    if host == GITHUB_HOST:
        if len(segments) < 2 or segments[0].lower() in GITHUB_RESERVED:
            return None
        owner, name = segments[0], segments[1].removesuffix(".git")
        return f"{GITHUB}{owner}/{name}" if name else None
    if not segments:
        return None
    segments[-1] = segments[-1].removesuffix(".git")
    return f"https://{host}/" + "/".join(segment for segment in segments if segment)


def pick_repo_url(urls: Iterable[tuple[str, str]]) -> str | None:
    """Return the best repository URL among `(label, url)` pairs, normalised, or None.

    A GitHub URL wins, preferring source-like labels (Source, Repository, Code, GitHub,
    Homepage); then a URL on another forge; then any URL labelled Source/Repository/Code.
    A homepage that is not on a forge (a docs site) is never taken for the repository.
    """
    ranked: list[tuple[int, int, str]] = []
    for order, (label, raw) in enumerate(urls):
        url = normalize_repo_url(raw)
        if url is None:
            continue
        key = re.sub(r"[\s_-]+", "", label).lower()
        label_rank = SOURCE_LABELS.index(key) if key in SOURCE_LABELS else len(SOURCE_LABELS)
        host = urlsplit(url).hostname or ""
        if is_github_url(url):
            tier = 0
        elif host in FORGES:
            tier = 1
        elif key in ("source", "sourcecode", "repository", "code", "git"):
            tier = 2
        else:
            continue
        ranked.append((tier, label_rank * 1000 + order, url))
    return min(ranked)[2] if ranked else None


# -- commits ------------------------------------------------------------------------------

_HEX = re.compile(r"[0-9a-f]{7,40}")
_COMMIT_LINE = re.compile(
    r"^[ \t]*(?:__commit_id__|commit_id)[ \t]*(?:=[ \t]*(?:__commit_id__|commit_id)[ \t]*)?"
    r"=[ \t]*['\"]([^'\"\n]{1,64})['\"]",
    re.MULTILINE,
)
_VERSION_LINE = re.compile(
    r"^[ \t]*(?:__version__|version)[ \t]*(?::[ \t]*str[ \t]*)?"
    r"(?:=[ \t]*(?:__version__|version)[ \t]*)?=[ \t]*['\"]([^'\"\n]{1,128})['\"]",
    re.MULTILINE,
)


def _scm_commit(value: str) -> str | None:
    """`g2cf0a6915` (setuptools-scm's form) or a bare hex id -> the hex id, else None."""
    value = value.strip().lower()
    if value.startswith("g") and _HEX.fullmatch(value[1:]):
        return value[1:]
    return value if _HEX.fullmatch(value) else None


def commit_from_version(version: str) -> str | None:
    """Return the commit in a version's local label (`0.1.dev5+g1234abc.d20240101`), or None."""
    _, plus, local = version.partition("+")
    if not plus:
        return None
    for label in re.split(r"[.\-_]", local):
        commit = _scm_commit(label) if label.lower().startswith("g") else None
        if commit:
            return commit
    return None


def commit_from_version_file(text: str) -> str | None:
    """Return the commit recorded in a setuptools-scm `_version.py` text, or None.

    Reads `__commit_id__ = commit_id = 'g2cf0a6915'` (-> "2cf0a6915"), else the local
    label of `__version__ = version = '0.1.dev5+g1234abc'` (-> "1234abc").
    """
    match = _COMMIT_LINE.search(text)
    if match:
        commit = _scm_commit(match.group(1))
        if commit:
            return commit
    version = version_from_version_file(text)
    return commit_from_version(version) if version else None


def version_from_version_file(text: str) -> str | None:
    """Return `__version__` / `version` as assigned a string literal in `text`, or None."""
    match = _VERSION_LINE.search(text)
    return match.group(1).strip() if match else None


VERSION_FILES = ("_version.py", "version.py", "__version__.py", "__about__.py")


def version_file_facts(root: Path, code_paths: Iterable[str]) -> tuple[str | None, str | None]:
    """Return (version, commit) from the first version file in the package dirs, or Nones."""
    version: str | None = None
    for code_path in code_paths:
        package = root / code_path
        if not package.is_dir():
            continue
        for name in VERSION_FILES:
            text = _read(package / name, root)
            if text is None:
                continue
            commit = commit_from_version_file(text)
            version = version or version_from_version_file(text)
            if commit:
                return version, commit
    return version, None


# -- metadata files -----------------------------------------------------------------------


def _from_pkg_info(text: str) -> TreeMetadata:
    headers = read_headers(text)

    def first(field: str) -> str:
        return (headers.get(field) or [""])[0].strip()

    urls: list[tuple[str, str]] = []
    for entry in headers.get("project-url", []):
        label, _, url = entry.partition(",")
        urls.append((label.strip(), url.strip()))
    home = first("home-page")
    if home and home.upper() != "UNKNOWN":
        urls.append(("Homepage", home))
    requires = [_requirement(line) for line in headers.get("requires-dist", [])]
    return TreeMetadata(
        name=first("name") or None,
        version=first("version") or None,
        repo_url=pick_repo_url(urls),
        requires=tuple(r for r in requires if r is not None),
    )


def read_headers(text: str) -> dict[str, list[str]]:
    """The header fields of a PKG-INFO / METADATA text, by lowercased name, each name's
    values in order, read as `email.parser.HeaderParser` (policy compat32) reads them,
    without importing the email package (some 20 ms of an unchanged re-index's start).

    The headers end at the first line that is neither a field (`Name: value`, the name
    printable ASCII), a folded continuation (starting with a space or tab) nor an
    envelope `From ` line: at the blank line before the body, as a rule. A value keeps
    its folded lines, line breaks included, as `email` keeps them."""
    fields: dict[str, list[str]] = {}
    name, source = "", [""]  # the field being read and its source lines

    def keep() -> None:
        value = source[0].lstrip(" \t") + "".join(source[1:])
        fields.setdefault(name.lower(), []).append(value.rstrip("\r\n"))

    for found in _LINES.finditer(text):  # lazily: the long description is not split
        line = found.group()
        if not _HEADER_LINE.match(line):
            break
        if line[0] in " \t":
            if name:
                source.append(line)
            continue
        if name:
            keep()
            name = ""
        colon = line.find(":")
        if colon > 0 and not line.startswith("From "):
            name, source = line[:colon], [line[colon + 1 :]]
    if name:
        keep()
    return fields


# Each line with its break, split where email splits (not at \x0b, \x85, \u2028, ...)
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
# What email's parser takes as a header line: a field name of printable ASCII but the
# colon, then the colon; a folded continuation; an envelope line.
_HEADER_LINE = re.compile(r"From |[\041-\071\073-\176]*:|[\t ]")


def _from_pyproject(text: str) -> TreeMetadata:
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return TreeMetadata()
    project = data.get("project")
    project = project if isinstance(project, dict) else {}
    tool = data.get("tool")
    poetry = tool.get("poetry") if isinstance(tool, dict) else None
    poetry = poetry if isinstance(poetry, dict) else {}
    urls: list[tuple[str, str]] = []
    for table in (project.get("urls"), poetry.get("urls")):
        if isinstance(table, dict):
            urls += [(str(k), v) for k, v in table.items() if isinstance(v, str)]
    for key in ("repository", "homepage"):
        if isinstance(poetry.get(key), str):
            urls.append((key, poetry[key]))
    name = project.get("name") or poetry.get("name")
    version = project.get("version") or poetry.get("version")
    requires: list[tuple[str, str, str] | None] = []
    base = project.get("dependencies")
    if isinstance(base, list):
        requires += [_requirement(r) for r in base if isinstance(r, str)]
    extras = project.get("optional-dependencies")
    if isinstance(extras, dict):
        for extra, items in extras.items():
            if isinstance(items, list):
                requires += [_requirement(r, str(extra)) for r in items if isinstance(r, str)]
    return TreeMetadata(
        name=name if isinstance(name, str) else None,
        version=version if isinstance(version, str) else None,
        repo_url=pick_repo_url(urls),
        requires=tuple(r for r in requires if r is not None),
        version_from=_pyproject_version_from(tool if isinstance(tool, dict) else {}),
    )


def _table(data: object, *keys: str) -> dict[str, object]:
    """The TOML table at `keys` under `data`, {} where there is none."""
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else {}


def _pyproject_version_from(tool: dict[str, object]) -> tuple[str, str, str] | None:
    """Where pyproject's `tool` table says a dynamic version is: setuptools'
    `dynamic.version = {attr = "pkg.__version__"}` or hatch's `version.path`."""
    attr = _table(tool, "setuptools", "dynamic", "version").get("attr")
    if isinstance(attr, str):
        package_dir = _table(tool, "setuptools", "package-dir").get("")
        return "attr", attr.strip(), package_dir if isinstance(package_dir, str) else ""
    path = _table(tool, "hatch", "version").get("path")
    if isinstance(path, str):
        return "path", path.strip(), ""
    return None


def _from_setup_cfg(text: str) -> TreeMetadata:
    import configparser

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return TreeMetadata()
    requires: list[tuple[str, str, str] | None] = []
    if parser.has_section("options"):
        lines = parser["options"].get("install_requires", "").splitlines()
        requires += [_requirement(line) for line in lines if line.strip()]
    if parser.has_section("options.extras_require"):
        for extra, text in parser["options.extras_require"].items():
            requires += [_requirement(line, extra) for line in text.splitlines() if line.strip()]
    found = tuple(r for r in requires if r is not None)
    if not parser.has_section("metadata"):
        return TreeMetadata(requires=found)
    meta = parser["metadata"]
    urls: list[tuple[str, str]] = []
    for line in meta.get("project_urls", "").splitlines():
        label, _, url = line.partition("=")
        if url.strip():
            urls.append((label.strip(), url.strip()))
    for key in ("url", "home_page"):
        if meta.get(key):
            urls.append(("Homepage", meta[key].strip()))
    version = meta.get("version", "").strip()
    static = version and not version.startswith(("attr:", "file:"))
    version_from = None
    if version.startswith("attr:"):
        package_dir = ""
        if parser.has_section("options"):  # package_dir = =src
            for line in parser["options"].get("package_dir", "").splitlines():
                key, _, folder = line.partition("=")
                if not key.strip() and folder.strip():
                    package_dir = folder.strip()
        version_from = ("attr", version.removeprefix("attr:").strip(), package_dir)
    return TreeMetadata(
        name=meta.get("name", "").strip() or None,
        version=version if static else None,
        repo_url=pick_repo_url(urls),
        requires=found,
        version_from=version_from,
    )


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def declared_version(root: Path, version_from: tuple[str, str, str]) -> str | None:
    """The version a dynamic declaration names, read from the file it points to without
    importing it: the string assigned to the attribute at module level (setuptools'
    `attr`, as setuptools itself first tries), or `__version__` in hatch's `path`. None
    when the file is not in the tree or the value is not a string literal."""
    kind, target, package_dir = version_from
    if kind == "path":
        return _assigned_string(root / target, root, "__version__")
    module, _, name = target.rpartition(".")
    parts = module.split(".")
    if not name or not all(_IDENTIFIER.fullmatch(p) for p in [*parts, name]):
        return None
    base = root / package_dir.strip("/") if package_dir.strip("/") else root
    for candidate in (
        base.joinpath(*parts, "__init__.py"),
        base.joinpath(*parts[:-1], f"{parts[-1]}.py"),
    ):
        found = _assigned_string(candidate, root, name)
        if found is not None:
            return found
    return None


def _assigned_string(path: Path, root: Path, name: str) -> str | None:
    """The string literal assigned to `name` at the top level of the Python file at
    `path` (`__version__ = version = "1.2"` and `__version__: str = "1.2"` included);
    the last such assignment wins, as it would when the module ran."""
    import ast

    text = _read(path, root)
    if text is None:
        return None
    try:
        tree = ast.parse(text, str(path))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found: str | None = None
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            literal = value if isinstance(value, ast.Constant) else None
            found = (
                literal.value if literal is not None and isinstance(literal.value, str) else None
            )
    return found.strip() if found else None


def read_tree_metadata(root: Path) -> TreeMetadata:
    """Return the name, version and repo URL a tree declares, first source first.

    PKG-INFO at the root (an sdist) or a wheel's `*.dist-info/METADATA` comes first, then
    pyproject.toml (`[project]`, `[tool.poetry]`), then setup.cfg `[metadata]`; each
    field is taken from the first file that has it, and a file is not read once every
    field is found. Never raises for a malformed file.
    """
    found = TreeMetadata()
    for read, parse in (
        (_pkg_info, _from_pkg_info),
        (lambda top: _read(top / "pyproject.toml", top), _from_pyproject),
        (lambda top: _read(top / "setup.cfg", top), _from_setup_cfg),
    ):
        text = read(root)
        if text is not None:
            more = parse(text)
            found = TreeMetadata(
                name=found.name or more.name,
                version=found.version or more.version,
                repo_url=found.repo_url or more.repo_url,
                requires=found.requires or more.requires,
                version_from=found.version_from or more.version_from,
            )
        if found.name and found.version and found.repo_url and found.requires:
            break
    if found.version is None and found.version_from is not None:
        return dataclasses.replace(found, version=declared_version(root, found.version_from))
    return found


def _pkg_info(root: Path) -> str | None:
    """PKG-INFO at `root` (an sdist), else the first `*.dist-info/METADATA` (a wheel)."""
    text = _read(root / "PKG-INFO", root)
    if text is None:
        for meta in sorted(root.glob("*.dist-info/METADATA")):
            return _read(meta, root)
    return text


_EXTRA = re.compile(r"""\bextra\s*==\s*['"]([^'"]+)['"]""")
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
# what follows the name: its own extras, then the versions, bare or in parentheses (the
# old PKG-INFO form `foo (>=1.0)`), up to the marker
_SPECIFIER = re.compile(r"\s*(?:\[[^\]]*\])?\s*\(?\s*([<>=!~][^;)]*)")


def _requirement(line: str, extra: str = "") -> tuple[str, str, str] | None:
    """(distribution, extra, specifier) of a requirement line (`h2<5,>=3; extra ==
    "http2"`: ("h2", "http2", "<5,>=3")), the extra from its marker when the line has
    one; None for what names no distribution."""
    text = line.split("#", 1)[0].strip()
    found = _NAME.match(text)
    if not found or text.startswith("-"):
        return None
    marker = _EXTRA.search(text.partition(";")[2])
    versions = _SPECIFIER.match(text, found.end())
    specifier = "" if versions is None else "".join(versions.group(1).split())
    return canonical_name(found.group(1)), (marker.group(1) if marker else extra), specifier


def metadata_from_headers(text: str) -> TreeMetadata:
    """Return name, version and repo URL from a METADATA / PKG-INFO text."""
    return _from_pkg_info(text)
