# The git tag of a release that names no commit, for source links to it, read from
# what the release's own files say about its tags; GitHub itself is never asked (errdex
# may be offline, and a guess would be a link to nothing). The evidence, in order:
#
#   links to the repository at a tag: `…/releases/tag/v2.1.0`, `…/tree/2.1.0`,
#   `…/blob/v2.1.0/…`, `…/compare/v2.0.0...v2.1.0`, `…/archive/refs/tags/v2.1.0.zip`, in
#   PKG-INFO and in the changelog files (top level and docs/): this release's tag itself
#   when it is named, else the form its other tags take (`v` + version, the version
#   alone, `name-` + version);
#   the tag patterns the release workflows run on (`on: push: tags: ["v*"]`).
#
# Nothing here imports or runs indexed code; every file is read as bounded text.
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from errdex.repos import github_name
from errdex.sources.reading import read_text, resolves_inside

MAX_READ = 1 << 20  # bytes of each file read
MAX_FILES = 12  # changelog and workflow files read
_CHANGELOG = re.compile(r"(?i)^(changes|changelog|history|news|releases?|release-notes)\b")
_DOC_CHANGELOG = re.compile(r"(?i)(change|history|news|release)")
# a tag: optional `name-` or `name_`, optional `v`, then a version (digits, dots, and
# the letters of pre-, post- and dev-releases)
_TAG = re.compile(
    r"(?P<prefix>(?:[A-Za-z][A-Za-z0-9]*[-_])?[vV]?)(?P<version>\d+(?:\.\d+)+[\w.+-]*)"
)
# a workflow's tag pattern: `- "v*"`, `tags: ["v[0-9]*", ...]`
_TAGS_KEY = re.compile(r"^(\s*)tags:\s*(.*)$")
_PATTERN = re.compile(r"""["']?([^"',\[\]\s]+)["']?""")


def release_tag(root: Path, repo_url: str | None, version: str) -> str | None:
    """The tag of release `version` of the GitHub repository `repo_url`, as the tree at
    `root` says its tags are named; None when nothing in it says so."""
    name = github_name(repo_url)
    if name is None:
        return None
    forms: Counter[str] = Counter()
    link = re.compile(
        r"github\.com/" + re.escape(name) + r"(?:\.git)?/"
        r"(?:releases/tag|tree|blob|compare|archive/refs/tags|archive)/([\w.+-]+)",
        re.IGNORECASE,
    )
    for text in _changelogs(root):
        for found in link.finditer(text):
            for ref in re.split(r"\.{2,3}", found.group(1)):
                ref = ref.removesuffix(".tar.gz").removesuffix(".zip")
                tag = _TAG.fullmatch(ref)
                if tag is None:
                    continue
                if tag.group("version") == version:
                    return ref  # the tag itself
                forms[tag.group("prefix")] += 1
    if forms:
        return f"{forms.most_common(1)[0][0]}{version}"  # as its other tags are named
    workflow = _workflow_prefix(root)
    if workflow is not None:
        return f"{workflow}{version}"
    return None


def _files(root: Path, folder: str, wanted: re.Pattern[str]) -> list[Path]:
    base = root / folder if folder else root
    try:
        found = sorted(p for p in base.iterdir() if wanted.search(p.name) and p.is_file())
    except OSError:
        return []
    return [p for p in found if resolves_inside(p, root)]


def _changelogs(root: Path) -> Iterator[str]:
    """The text of PKG-INFO and of the changelog files, each read as bounded text."""
    paths = [
        root / "PKG-INFO",
        *_files(root, "", _CHANGELOG),
        *_files(root, "docs", _DOC_CHANGELOG),
    ]
    for path in paths[:MAX_FILES]:
        if not resolves_inside(path, root):
            continue
        text = read_text(path, MAX_READ)
        if text is not None:
            yield text


def _workflow_prefix(root: Path) -> str | None:
    """ "v" or "" when the workflows run on tags of that form (`v*`, `[0-9]*`); None when
    they say nothing of the form (no tag trigger, or only `*`)."""
    forms: Counter[str] = Counter()
    for path in _files(root, ".github/workflows", re.compile(r"\.ya?ml$"))[:MAX_FILES]:
        text = read_text(path, MAX_READ) or ""
        lines = text.splitlines()
        for number, line in enumerate(lines):
            key = _TAGS_KEY.match(line)
            if key is None:
                continue
            patterns = _PATTERN.findall(key.group(2))
            indent = len(key.group(1))
            for item in lines[number + 1 : number + 20]:  # the list under the key
                stripped = item.strip()
                if not stripped.startswith("- ") or len(item) - len(item.lstrip()) <= indent:
                    break
                patterns += _PATTERN.findall(stripped[2:])
            for pattern in patterns:
                if pattern[:1] in ("v", "V") and (
                    pattern[1:2] in ("*", "[") or pattern[1:2].isdigit()
                ):
                    forms[pattern[0]] += 1
                elif pattern[:1].isdigit() or pattern.startswith("[0-9]"):
                    forms[""] += 1
    return forms.most_common(1)[0][0] if forms else None
