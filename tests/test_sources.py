# The sources stage against real things: directories, git repositories made here, the
# installed environment, archives built here (hostile ones included), a PyPI-shaped
# index served on loopback, and (marked `network`) the real PyPI.
from __future__ import annotations

import hashlib
import io
import json
import os
import socket
import subprocess
import sys
import tarfile
import threading
import zipfile
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from errdex.errors import NetworkError, NotFoundError, SourceError, UnsafeArchiveError
from errdex.repos import is_github_url
from errdex.sources import resolve
from errdex.sources.archive import Limits, extract_archive
from errdex.sources.cache import materialise
from errdex.sources.git import run_git
from errdex.sources.layout import code_paths
from errdex.sources.metadata import (
    commit_from_version,
    commit_from_version_file,
    normalize_repo_url,
    pick_repo_url,
    read_headers,
)
from tests.conftest import TEST_CACHE


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


# -- local directories and layout ---------------------------------------------------------

PYPROJECT = """\
[project]
name = "My_Pkg"
version = "1.2.3"

[project.urls]
Homepage = "https://docs.example.org"
Source = "git@github.com:Owner/My-Pkg.git"
"""


def test_directory_with_pyproject(tmp_path: Path) -> None:
    root = write(
        tmp_path / "proj",
        {
            "pyproject.toml": PYPROJECT,
            "my_pkg/__init__.py": "",
            "my_pkg/core.py": "raise ValueError('x')\n",
            "tests/__init__.py": "",
            "tests/test_core.py": "",
            "docs/conf.py": "",
            "examples/demo/__init__.py": "",
            "tools/release.py": "",
            "setup.py": "",
            "conftest.py": "",
            "noxfile.py": "",
            "helper.py": "",
        },
    )
    snap = resolve(str(root), cache_dir=tmp_path / "cache")
    assert snap.package == "my-pkg"
    assert snap.version == "1.2.3"
    assert snap.root == root.resolve()
    assert snap.source == str(root)
    assert snap.repo_url == "https://github.com/Owner/My-Pkg"
    assert snap.code_paths == ("my_pkg",)
    assert snap.commit is None and snap.date is None


def test_src_layout_keeps_src_prefix(tmp_path: Path) -> None:
    root = write(
        tmp_path / "transformers",
        {
            "setup.cfg": "[metadata]\nname = transformers\nversion = 4.0.0\n"
            "url = https://github.com/huggingface/transformers/\n",
            "src/transformers/__init__.py": "",
            "src/transformers/models/__init__.py": "",
            "tests/__init__.py": "",
            "utils/check_repo.py": "",
        },
    )
    snap = resolve(str(root), cache_dir=tmp_path / "cache")
    assert (snap.package, snap.version) == ("transformers", "4.0.0")
    assert snap.code_paths == ("src/transformers",)
    assert snap.repo_url == "https://github.com/huggingface/transformers"


# A package that would stop the indexer if it were imported: the version is read, the
# code never runs.
IMPORTED = "raise SystemExit('errdex imported me')\n"


@pytest.mark.parametrize(
    ("files", "package"),
    [
        (  # setuptools in pyproject, flat layout, `version = version = ...`
            {
                "pyproject.toml": '[project]\nname = "attrpkg"\ndynamic = ["version"]\n\n'
                "[tool.setuptools.dynamic]\n"
                'version = {attr = "attrpkg.__version__"}\n',
                "attrpkg/__init__.py": f"__version__ = version = '2.4.1'\n{IMPORTED}",
            },
            "attrpkg",
        ),
        (  # setuptools in setup.cfg, src layout, the attribute in a submodule, annotated
            {
                "setup.cfg": "[metadata]\nname = srcpkg\nversion = attr: srcpkg.about.VERSION\n"
                "[options]\npackage_dir =\n    =src\n",
                "src/srcpkg/__init__.py": IMPORTED,
                "src/srcpkg/about.py": "VERSION: str = '2.4.1'\n",
            },
            "srcpkg",
        ),
        (  # hatch's version path
            {
                "pyproject.toml": '[project]\nname = "hatchpkg"\ndynamic = ["version"]\n\n'
                '[tool.hatch.version]\npath = "hatchpkg/__about__.py"\n',
                "hatchpkg/__init__.py": IMPORTED,
                "hatchpkg/__about__.py": '__version__ = "2.4.1"\n',
            },
            "hatchpkg",
        ),
    ],
)
def test_a_dynamic_version_is_read_from_its_attribute_without_importing(
    tmp_path: Path, files: dict[str, str], package: str
) -> None:
    root = write(tmp_path / package, files)
    done = subprocess.run(
        [sys.executable, "-m", "errdex", "index", str(root), "--db", str(tmp_path / "db.sqlite")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{package} 2.4.1: ")


def test_a_dynamic_version_that_is_not_a_literal_stays_unknown(tmp_path: Path) -> None:
    root = write(tmp_path / "calc", {
        "pyproject.toml": '[project]\nname = "calc"\ndynamic = ["version"]\n'
        '[tool.setuptools.dynamic]\nversion = {attr = "calc.__version__"}\n',
        "calc/__init__.py": "VERSION = (1, 2)\n__version__ = '.'.join(map(str, VERSION))\n",
    })  # fmt: skip
    assert resolve(str(root), cache_dir=tmp_path / "cache").version == "0+unknown"


SDIST_HEAD = (
    "Metadata-Version: 2.1\nName: rel\nVersion: 2.1.0\n"
    "Project-URL: Source, https://github.com/example/rel\n"
)


@pytest.mark.parametrize(
    ("files", "tag"),
    [
        # the release's own tag, linked from PKG-INFO
        ({"PKG-INFO": SDIST_HEAD + "\nSee https://github.com/example/rel/releases/tag/v2.1.0\n"},
         "v2.1.0"),
        # the form of the other tags its changelog links to: the version alone
        ({"PKG-INFO": SDIST_HEAD,
          "CHANGELOG.md": "[2.0.0]: https://github.com/example/rel/compare/1.9.0...2.0.0\n"},
         "2.1.0"),
        # a release workflow that runs on v-tags
        ({"PKG-INFO": SDIST_HEAD,
          ".github/workflows/release.yml": "on:\n  push:\n    tags:\n      - 'v*'\n"},
         "v2.1.0"),
        # nothing said: any tag, another repository's tags, branches
        ({"PKG-INFO": SDIST_HEAD,
          ".github/workflows/ci.yml": "on:\n  push:\n    tags: [\"*\"]\n"}, None),
        ({"PKG-INFO": SDIST_HEAD + "https://github.com/other/lib/releases/tag/v2.1.0\n"}, None),
        ({"PKG-INFO": SDIST_HEAD + "https://github.com/example/rel/blob/main/README.md\n"}, None),
        # a commit recorded: links are pinned to it, no tag needed
        ({"PKG-INFO": SDIST_HEAD + "https://github.com/example/rel/releases/tag/v2.1.0\n",
          "rel/_version.py": "__version__ = '2.1.0'\n__commit_id__ = 'gabc1234de'\n"}, None),
    ],
)  # fmt: skip
def test_a_release_without_a_commit_gets_the_tag_its_files_name(
    tmp_path: Path, files: dict[str, str], tag: str | None
) -> None:
    root = write(tmp_path / "rel-2.1.0", {"rel/__init__.py": "", **files})
    snap = resolve(str(root), cache_dir=tmp_path / "cache")
    assert (snap.version, snap.tag) == ("2.1.0", tag)


def test_requirements_keep_their_extra_and_versions(tmp_path: Path) -> None:
    pyproject = write(
        tmp_path / "web",
        {
            "pyproject.toml": '[project]\nname = "web"\nversion = "1"\n'
            'dependencies = ["idna", "Foo_Bar[fast] >= 1.2, <2 ; python_version < \'4\'"]\n'
            '[project.optional-dependencies]\nyaml = ["PyYAML>=6"]\n'
            'http2 = ["h2 @ https://example.org/h2.whl"]\n',
            "web/__init__.py": "",
        },
    )
    assert resolve(str(pyproject), cache_dir=tmp_path / "cache").requires == (
        ("idna", "", ""),
        ("foo-bar", "", ">=1.2,<2"),
        ("pyyaml", "yaml", ">=6"),
        ("h2", "http2", ""),
    )
    pkg_info = write(
        tmp_path / "old",
        {
            "PKG-INFO": "Metadata-Version: 1.2\nName: old\nVersion: 1\n"
            'Requires-Dist: six (>=1.10)\nRequires-Dist: h2<5,>=3; extra == "http2"\n',
            "old/__init__.py": "",
        },
    )
    assert resolve(str(pkg_info), cache_dir=tmp_path / "cache").requires == (
        ("six", "", ">=1.10"),
        ("h2", "http2", "<5,>=3"),
    )


def test_layout_single_module_and_namespace_package(tmp_path: Path) -> None:
    six = write(tmp_path / "six", {"six.py": "", "setup.py": "", "test_six.py": ""})
    assert code_paths(six, "six") == ("six.py",)
    both = write(tmp_path / "both", {"pkg/__init__.py": "", "both.py": "", "other.py": ""})
    assert code_paths(both, "both") == ("both.py", "pkg")
    namespace = write(tmp_path / "ns", {"nsname/sub/mod.py": "", "setup.py": ""})
    assert code_paths(namespace, "nsname") == ("nsname",)
    assert code_paths(write(tmp_path / "empty", {"README": ""}), "x") == ()


def test_missing_directory_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="no such directory"):
        resolve(str(tmp_path / "nowhere"), cache_dir=tmp_path / "cache")


# -- metadata -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://github.com/vllm-project/vllm", "https://github.com/vllm-project/vllm"),
        ("https://github.com/vllm-project/vllm.git", "https://github.com/vllm-project/vllm"),
        ("https://github.com/vllm-project/vllm/", "https://github.com/vllm-project/vllm"),
        ("https://GitHub.com/Owner/Name/tree/main/src", "https://github.com/Owner/Name"),
        ("http://www.github.com/owner/name#readme", "https://github.com/owner/name"),
        ("git@github.com:owner/name.git", "https://github.com/owner/name"),
        ("ssh://git@github.com/owner/name.git", "https://github.com/owner/name"),
        ("git+https://github.com/owner/name.git", "https://github.com/owner/name"),
        ("https://github.com/owner/name/issues?q=1", "https://github.com/owner/name"),
        ("https://gitlab.com/group/sub/proj.git/", "https://gitlab.com/group/sub/proj"),
        ("https://github.com/sponsors/someone", None),
        ("https://github.com/owner", None),
        ("/home/me/src/repo", None),
        ("file:///home/me/src/repo", None),
    ],
)
def test_normalize_repo_url(url: str, expected: str | None) -> None:
    assert normalize_repo_url(url) == expected


@pytest.mark.parametrize(
    ("url", "github"),
    [
        ("https://github.com/owner/name", True),
        (normalize_repo_url("git@github.com:Owner/Name.git"), True),
        ("https://gitlab.com/group/proj", False),
        ("https://github.com.example.org/owner/name", False),
        ("", False),
        (None, False),
    ],
)
def test_is_github_url(url: str | None, github: bool) -> None:
    assert is_github_url(url) is github


def test_pick_repo_url_prefers_github_source() -> None:
    urls = [
        ("Homepage", "https://vllm.ai"),
        ("Documentation", "https://docs.vllm.ai/en/latest/"),
        ("Slack", "https://slack.vllm.ai"),
        ("Source", "https://github.com/vllm-project/vllm"),
    ]
    assert pick_repo_url(urls) == "https://github.com/vllm-project/vllm"
    assert pick_repo_url([("Homepage", "https://docs.example.org")]) is None
    assert pick_repo_url([("Code", "https://git.example.org/a/b.git")]) == (
        "https://git.example.org/a/b"
    )


def _email_headers(text: str) -> dict[str, list[str]]:
    from email.parser import HeaderParser

    fields: dict[str, list[str]] = {}
    for name, value in HeaderParser().parsestr(text).items():
        fields.setdefault(name.lower(), []).append(str(value))
    return fields


# Lines of PKG-INFO, well formed or not: fields, folded lines, envelope lines, names
# email does not take (a space, non-ASCII, none), blank lines and odd line breaks.
_PKG_INFO_PIECES = st.sampled_from(
    [
        "Name", "name", "Version", "Project-URL", "From ", "From", "Na me", "Ünï", "x",
        ":", ": ", " ", "\t", "  folded", "value", "Source, https://github.com/o/n", "é",
        "\n", "\r\n", "\r", "\n\n", "\x0b", "\x85", "\u2028", "\x0c", "#",
    ]
)  # fmt: skip


@given(st.lists(_PKG_INFO_PIECES, max_size=40).map("".join))
@example(
    "Metadata-Version: 2.4\nName: vllm\nVersion: 0.28.0\nProject-URL: Homepage,\n"
    " https://github.com/vllm-project/vllm\r\nRequires-Dist: torch==2.9\n\nName: body\n"
)
@example("From nobody\nName: a\n : stray\nFrom x\n:lost\n folded after it\nVersion:1")
def test_pkg_info_headers_are_read_as_email_reads_them(text: str) -> None:
    assert read_headers(text) == _email_headers(text)


# setuptools-scm's template, as in vllm 0.28.0's sdist (vllm/_version.py)
VLLM_VERSION_PY = """\
# file generated by setuptools-scm
# don't change, don't track in version control

__all__ = [
    "__version__",
    "__version_tuple__",
    "version",
    "version_tuple",
    "__commit_id__",
    "commit_id",
]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Tuple
    from typing import Union

    VERSION_TUPLE = Tuple[Union[int, str], ...]
    COMMIT_ID = Union[str, None]
else:
    VERSION_TUPLE = object
    COMMIT_ID = object

version: str
__version__: str
__version_tuple__: VERSION_TUPLE
version_tuple: VERSION_TUPLE
commit_id: COMMIT_ID
__commit_id__: COMMIT_ID

__version__ = version = '0.28.0'
__version_tuple__ = version_tuple = (0, 28, 0)

__commit_id__ = commit_id = 'g2cf0a6915'
"""


def test_commit_from_version_file() -> None:
    assert commit_from_version_file(VLLM_VERSION_PY) == "2cf0a6915"
    dev = (
        "__version__ = version = '0.1.dev5+g1234abc.d20240101'\n__commit_id__ = commit_id = None\n"
    )
    assert commit_from_version_file(dev) == "1234abc"
    assert commit_from_version_file("__version__ = '1.0'\n") is None


@pytest.mark.parametrize(
    ("version", "commit"),
    [
        ("0.1.dev5+g1234abc", "1234abc"),
        ("0.1.dev5+g1234abc.d20240101", "1234abc"),
        ("0.28.0", None),
        ("1.0+gpu", None),
        ("2.0+cu121", None),
    ],
)
def test_commit_from_version(version: str, commit: str | None) -> None:
    assert commit_from_version(version) == commit


def test_unpacked_sdist_reads_pkg_info_and_version_file(tmp_path: Path) -> None:
    root = write(
        tmp_path / "vllm-0.28.0",
        {
            "PKG-INFO": "Metadata-Version: 2.4\nName: vllm\nVersion: 0.28.0\n"
            "Project-URL: Homepage, https://github.com/vllm-project/vllm\n"
            "Project-URL: Documentation, https://docs.vllm.ai/en/latest/\n\nlong description\n",
            "vllm/__init__.py": "",
            "vllm/_version.py": VLLM_VERSION_PY,
            "tests/__init__.py": "",
            "benchmarks/bench.py": "",
            "use_existing_torch.py": "",
            "setup.py": "",
        },
    )
    snap = resolve(str(root), cache_dir=tmp_path / "cache")
    assert (snap.package, snap.version, snap.commit) == ("vllm", "0.28.0", "2cf0a6915")
    assert snap.repo_url == "https://github.com/vllm-project/vllm"
    assert snap.code_paths == ("vllm",)


# -- git ----------------------------------------------------------------------------------

GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.org",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.org",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "init.defaultBranch=main", *args],
        cwd=repo, env=GIT_ENV, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip()


def commit_version(repo: Path, version: str, tag: str) -> str:
    write(
        repo,
        {
            "pyproject.toml": f'[project]\nname = "proj"\nversion = "{version}"\n',
            "proj/__init__.py": f"V = {version!r}\n",
        },
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"release {version}")
    git(repo, "tag", tag)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "proj"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "remote", "add", "origin", "git@github.com:Owner/Proj.git")
    commit_version(repo, "1.0", "v1")
    commit_version(repo, "2.0", "v2")
    # the user's work in progress, which resolving must leave exactly as it is
    (repo / "proj" / "__init__.py").write_text("V = 'work in progress'\n", encoding="utf-8")
    (repo / "notes.txt").write_text("untracked\n", encoding="utf-8")
    return repo


def test_git_runs_in_the_environment_of_the_call(monkeypatch: pytest.MonkeyPatch) -> None:
    # set after errdex.sources.git was imported: git must still see it
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "errdex.probe")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "seen")
    assert run_git(["config", "--get", "errdex.probe"]) == "seen"


def test_git_revision_of_local_clone_leaves_working_tree_alone(repo: Path, tmp_path: Path) -> None:
    before = (git(repo, "status", "--porcelain"), git(repo, "rev-parse", "HEAD"))
    index = (repo / ".git" / "index").read_bytes()
    v1 = git(repo, "rev-parse", "v1")

    snap = resolve(f"{repo}@v1", cache_dir=tmp_path / "cache")

    assert (snap.package, snap.version) == ("proj", "1.0")
    assert (snap.root / "proj" / "__init__.py").read_text() == "V = '1.0'\n"
    assert not (snap.root / "notes.txt").exists()
    assert snap.commit == v1[:9]
    assert snap.date is not None and snap.date.startswith("20")
    assert snap.repo_url == "https://github.com/Owner/Proj"
    assert snap.code_paths == ("proj",)
    assert snap.root.is_relative_to(tmp_path / "cache")
    assert (git(repo, "status", "--porcelain"), git(repo, "rev-parse", "HEAD")) == before
    assert (repo / ".git" / "index").read_bytes() == index
    assert (repo / "proj" / "__init__.py").read_text() == "V = 'work in progress'\n"


def test_git_prefix_and_file_url_clone(repo: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    v2 = resolve(f"git:{repo}@v2", cache_dir=cache)
    assert (v2.root / "proj" / "__init__.py").read_text() == "V = '2.0'\n"
    assert v2.commit == git(repo, "rev-parse", "v2")[:9]

    cloned = resolve(f"git+file://{repo}@v1", cache_dir=cache)  # the clone-into-cache path
    assert (cloned.package, cloned.version) == ("proj", "1.0")
    assert (cloned.root / "proj" / "__init__.py").read_text() == "V = '1.0'\n"
    assert cloned.repo_url is None  # a file: origin is no browsable repository
    assert list((cache / "git").iterdir())
    again = resolve(f"git+file://{repo}@v1", cache_dir=cache)
    assert again.root == cloned.root


def test_git_tree_with_one_top_folder_keeps_it(tmp_path: Path) -> None:
    repo = tmp_path / "single"
    write(repo, {"single/__init__.py": "raise ValueError('x')\n"})
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one")
    snap = resolve(f"{repo}@HEAD", cache_dir=tmp_path / "cache")
    assert snap.code_paths == ("single",)  # paths stay relative to the repository root
    assert (snap.root / "single" / "__init__.py").is_file()
    assert snap.version == f"0+g{snap.commit}"


def test_git_missing_revision_and_not_a_repo(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="no revision 'v9'"):
        resolve(f"{repo}@v9", cache_dir=tmp_path / "cache")
    plain = write(tmp_path / "plain", {"a.py": ""})
    with pytest.raises(NotFoundError, match="not a git repository"):
        resolve(f"{plain}@v1", cache_dir=tmp_path / "cache")
    with pytest.raises(SourceError, match="invalid git revision"):
        resolve(f"{repo}@--upload-pack=x", cache_dir=tmp_path / "cache")


def test_directory_in_git_repo_reports_head(repo: Path, tmp_path: Path) -> None:
    snap = resolve(str(repo), cache_dir=tmp_path / "cache")
    assert snap.root == repo.resolve()  # the working tree itself, work in progress included
    assert snap.commit == git(repo, "rev-parse", "HEAD")[:9]
    assert snap.repo_url == "https://github.com/Owner/Proj"
    assert snap.version == "2.0"


# -- installed distributions --------------------------------------------------------------


def test_installed_packaging() -> None:
    import packaging

    snap = resolve("installed:packaging")
    assert snap.package == "packaging"
    assert snap.version == packaging.__version__
    assert snap.code_paths == ("packaging",)
    assert (snap.root / "packaging" / "version.py").is_file()
    assert snap.repo_url == "https://github.com/pypa/packaging"


def test_installed_distribution_is_never_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    marker = tmp_path / "imported"
    write(
        site,
        {
            "boom/__init__.py": f"open({str(marker)!r}, 'w').close()\nraise SystemExit(1)\n",
            "boom/core.py": "",
            "boom-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: Boom\nVersion: 1.0\n"
            "Project-URL: Source, https://github.com/someone/boom.git\n",
            "boom-1.0.dist-info/RECORD": "boom/__init__.py,,\nboom/core.py,,\n"
            "boom-1.0.dist-info/METADATA,,\n../../bin/boom,,\n",
            "boom-1.0.dist-info/direct_url.json": json.dumps(
                {
                    "url": "https://github.com/someone/boom.git",
                    "vcs_info": {"vcs": "git", "commit_id": "0123456789abcdef" * 2 + "01234567"},
                }
            ),
        },
    )
    monkeypatch.syspath_prepend(str(site))
    snap = resolve("installed:boom")
    assert (snap.package, snap.version, snap.code_paths) == ("boom", "1.0", ("boom",))
    assert snap.root == site.resolve()
    assert snap.commit == "012345678"
    assert snap.repo_url == "https://github.com/someone/boom"
    assert "boom" not in sys.modules
    assert not marker.exists()


def test_installed_missing() -> None:
    with pytest.raises(NotFoundError, match="no installed distribution 'no-such-dist-xyz'"):
        resolve("installed:no-such-dist-xyz")


# -- hostile archives ---------------------------------------------------------------------


def tar_with(path: Path, members: list[tuple[tarfile.TarInfo, bytes]]) -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for info, data in members:
            info.size = len(data) if info.isfile() else 0
            tf.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return path


def member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    return info


def extract_into(tmp_path: Path, archive: Path, limits: Limits | None = None) -> Path:
    return materialise(
        tmp_path / "trees" / "t", lambda tree: extract_archive(archive, tree, limits=limits)
    )


def test_archive_extracts_single_top_folder(tmp_path: Path) -> None:
    archive = tar_with(
        tmp_path / "ok-1.0.tar.gz",
        [
            (member("ok-1.0/ok/__init__.py"), b"x = 1\n"),
            (member("ok-1.0/ok/alias.py", tarfile.SYMTYPE, "__init__.py"), b""),  # skipped
            (member("ok-1.0/dev", tarfile.CHRTYPE), b""),  # skipped
        ],
    )
    root = extract_into(tmp_path, archive)
    assert root == tmp_path / "trees" / "t" / "tree" / "ok-1.0"
    assert (root / "ok" / "__init__.py").read_text() == "x = 1\n"
    assert not (root / "ok" / "alias.py").exists() and not (root / "dev").exists()
    assert extract_into(tmp_path, tmp_path / "gone.tar.gz") == root  # reused, not re-read


ESCAPE = f"/tmp/errdex-evil-{os.getpid()}"


@pytest.mark.parametrize(
    ("members", "match"),
    [
        ([(member("pkg-1/../../evil"), b"x")], "'..'"),
        ([(member(ESCAPE), b"x")], "absolute path"),
        ([(member("pkg-1/passwd", tarfile.SYMTYPE, "/etc/passwd"), b"")], "outside"),
        ([(member("pkg-1/up", tarfile.SYMTYPE, "../../evil"), b"")], "outside"),
        ([(member("pkg-1/hard", tarfile.LNKTYPE, "../evil"), b"")], "outside"),
        ([(member(f"pkg-1/f{i}"), b"") for i in range(6)], "more than 5 members"),
        ([(member("pkg-1/big"), b"x" * 101)], "over the cap of 100"),
        ([(member(f"pkg-1/f{i}"), b"x" * 90) for i in range(3)], "more than 200 bytes"),
    ],
    ids=["dotdot", "absolute", "symlink-etc-passwd", "symlink-up", "hardlink", "count",
         "member-size", "total-size"],
)  # fmt: skip
def test_hostile_tar_is_refused(
    tmp_path: Path, members: list[tuple[tarfile.TarInfo, bytes]], match: str
) -> None:
    archive = tar_with(tmp_path / "pkg-1.tar.gz", members)
    limits = Limits(max_members=5, max_member_bytes=100, max_total_bytes=200)
    with pytest.raises(UnsafeArchiveError, match=match):
        extract_into(tmp_path / "x", archive, limits)
    assert not (tmp_path / "x" / "trees" / "t").exists()
    assert not list((tmp_path / "x" / "trees").iterdir())  # the partial tree is gone
    assert not [p for p in tmp_path.rglob("*evil*")]
    assert not Path(ESCAPE).exists()


def test_hostile_zip_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "pkg-1.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("pkg-1/ok.py", "")
        zf.writestr("pkg-1/../../evil", "x")
    with pytest.raises(UnsafeArchiveError, match=r"'\.\.'"):
        extract_into(tmp_path / "x", archive)
    assert not [p for p in tmp_path.rglob("*evil*")]

    link = tmp_path / "link-1.zip"
    with zipfile.ZipFile(link, "w") as zf:
        info = zipfile.ZipInfo("link-1/passwd")
        info.external_attr = (0o120777 << 16) | 0x10
        zf.writestr(info, "/etc/passwd")
    with pytest.raises(UnsafeArchiveError, match="outside"):
        extract_into(tmp_path / "y", link)


def test_corrupt_archive_is_a_source_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad-1.tar.gz"
    bad.write_bytes(b"not a tarball")
    with pytest.raises(SourceError, match="cannot read the archive"):
        extract_into(tmp_path, bad)


# -- a PyPI-shaped index on loopback ------------------------------------------------------


def sdist(name: str, version: str, *, commit: str = "gabc1234de") -> bytes:
    top = f"{name}-{version}"
    files = {
        f"{top}/PKG-INFO": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        f"Project-URL: Repository, https://github.com/example/{name}\n",
        f"{top}/{name}/__init__.py": "",
        f"{top}/{name}/_version.py": f"__version__ = version = '{version}'\n"
        f"__commit_id__ = commit_id = '{commit}'\n",
        f"{top}/tests/__init__.py": "",
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tf:
        for path, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(path)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def wheel(name: str, version: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr(f"{name}/__init__.py", "")
        zf.writestr(f"{name}-{version}.dist-info/METADATA", f"Name: {name}\nVersion: {version}\n")
    return buffer.getvalue()


def platform_wheel() -> bytes:
    """demo 1.7 for Linux x86-64: Python files beside a compiled library."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("demo/__init__.py", "")
        zf.writestr("demo/_core.cpython-312-x86_64-linux-gnu.so", b"\x7fELF" + bytes(64))
        zf.writestr("demo-1.7.dist-info/METADATA", "Name: demo\nVersion: 1.7\n")
    return buffer.getvalue()


class Index:
    """A JSON simple-API index on a loopback port, serving `files`."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.pages: dict[str, list[dict[str, object]]] = {}
        self.requests: list[str] = []
        index = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                index.requests.append(self.path)
                name = self.path.strip("/").split("/")[-1]
                if self.path.startswith("/simple/") and name in index.pages:
                    body = json.dumps({"meta": {"api-version": "1.1"}, "name": name,
                                       "files": index.pages[name]}).encode()  # fmt: skip
                    kind = "application/vnd.pypi.simple.v1+json"
                elif self.path.startswith("/files/") and name in index.files:
                    body, kind = index.files[name], "application/octet-stream"
                else:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/simple"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def add(self, name: str, filename: str, data: bytes, *, sha256: str | None = None) -> None:
        self.files[filename] = data
        self.pages.setdefault(name, []).append(
            {
                "filename": filename,
                "url": f"../../files/{filename}",  # relative, as PEP 691 allows
                "hashes": {"sha256": sha256 or hashlib.sha256(data).hexdigest()},
                "upload-time": "2025-01-02T03:04:05.000000Z",
                "size": len(data),
                "yanked": False,
            }
        )

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture
def index(monkeypatch: pytest.MonkeyPatch) -> Iterator[Index]:
    served = Index()
    served.add("demo", "demo-1.0.tar.gz", sdist("demo", "1.0"))
    served.add("demo", "demo-1.5-py3-none-any.whl", wheel("demo", "1.5"))
    served.add("demo", "demo-1.7-cp311-cp311-win_amd64.whl", b"not fetched")
    served.add("demo", "demo-1.7-cp312-cp312-manylinux_2_17_x86_64.whl", platform_wheel())
    served.add("demo", "demo-1.7-cp311-cp311-manylinux_2_17_x86_64.whl", b"not fetched")
    served.add("demo", "demo-2.0rc1.tar.gz", sdist("demo", "2.0rc1"))
    monkeypatch.setenv("ERRDEX_PYPI_INDEX", served.url)
    yield served
    served.close()


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/simple"


def test_pypi_pinned_sdist_then_offline(
    index: Index, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[int, int]] = []
    progress: Callable[[int, int], None] = lambda done, total: seen.append((done, total))  # noqa: E731
    snap = resolve("pypi:Demo==1.0", cache_dir=tmp_path, progress=progress)
    assert (snap.package, snap.version, snap.source) == ("demo", "1.0", "pypi:Demo==1.0")
    assert snap.root.name == "demo-1.0" and snap.root.is_relative_to(tmp_path / "trees")
    assert (snap.commit, snap.date) == ("abc1234de", "2025-01-02T03:04:05.000000Z")
    assert snap.repo_url == "https://github.com/example/demo"
    assert snap.code_paths == ("demo",)
    assert seen and seen[-1][0] == seen[-1][1] > 0

    monkeypatch.setenv("ERRDEX_PYPI_INDEX", closed_port_url())
    assert resolve("pypi:Demo==1.0", cache_dir=tmp_path) == snap  # from the cache, offline


def test_pypi_newest_picks_stable_usable_release(index: Index, tmp_path: Path) -> None:
    snap = resolve("pypi:demo", cache_dir=tmp_path)
    # 2.0rc1 is a pre-release; 1.7, the newest stable one, has only platform wheels
    assert (snap.version, snap.code_paths, snap.root.name) == ("1.7", ("demo",), "tree")
    pure = resolve("pypi:demo==1.5", cache_dir=tmp_path)
    assert (pure.version, pure.note) == ("1.5", None)


def test_pypi_platform_wheels_only_index_one_wheel_and_say_which(
    index: Index, tmp_path: Path
) -> None:
    snap = resolve("pypi:demo==1.7", cache_dir=tmp_path)
    # Linux x86-64 first, the newest CPython among those
    assert snap.note is not None
    assert "demo-1.7-cp312-cp312-manylinux_2_17_x86_64.whl" in snap.note
    assert (snap.version, snap.code_paths) == ("1.7", ("demo",))
    assert (snap.root / "demo" / "__init__.py").is_file()
    assert not list(snap.root.rglob("*.so"))  # the compiled parts are not even unpacked


def test_pypi_not_found(index: Index, tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="no package 'nothere'"):
        resolve("pypi:nothere==1.0", cache_dir=tmp_path)
    with pytest.raises(NotFoundError, match=r"demo has no release 3\.0; its most recent") as gone:
        resolve("pypi:demo==3.0", cache_dir=tmp_path)
    assert "1.5" in str(gone.value) and "rc1" not in str(gone.value)  # stable ones only
    with pytest.raises(SourceError, match="pypi:NAME==VERSION"):
        resolve("pypi:demo>=1", cache_dir=tmp_path)


def test_pypi_hash_mismatch_is_refused(index: Index, tmp_path: Path) -> None:
    index.add("bad", "bad-1.0.tar.gz", sdist("bad", "1.0"), sha256="0" * 64)
    with pytest.raises(SourceError, match="sha256"):
        resolve("pypi:bad==1.0", cache_dir=tmp_path)
    assert not list((tmp_path / "downloads").glob("bad-*"))


def tiny_sdist(padding: int = 0) -> bytes:
    """tiny 2.0's sdist: one raise, and `padding` bytes of data that do not compress."""
    import random

    files = {
        "tiny-2.0/PKG-INFO": b"Metadata-Version: 2.1\nName: tiny\nVersion: 2.0\n",
        "tiny-2.0/tiny/__init__.py": b"def f(n):\n    raise ValueError(f'bad {n}')\n",
    }
    if padding:
        files["tiny-2.0/tiny/data.bin"] = random.Random(0).randbytes(padding)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tf:
        for path, data in files.items():
            info = tarfile.TarInfo(path)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_the_download_bar_counts_in_units_on_a_terminal(tmp_path: Path) -> None:
    """`errdex index pypi:tiny` on a terminal (a real pty): the download's bar shows
    rich's transfer columns, bytes in kB or MB, not a raw count."""
    import pty
    import re
    import select

    served = Index()
    served.add("tiny", "tiny-2.0.tar.gz", tiny_sdist(padding=600_000))
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "NO_COLOR")}
    env |= {"ERRDEX_CACHE": str(tmp_path / "cache"), "ERRDEX_PYPI_INDEX": served.url}
    env |= {"TERM": "xterm-256color", "COLUMNS": "120"}
    main, child = pty.openpty()
    argv = [sys.executable, "-m", "errdex", "index", "pypi:tiny", "--db", str(tmp_path / "db")]
    try:
        running = subprocess.Popen(argv, stdin=child, stdout=child, stderr=child, env=env)
        os.close(child)
        shown = b""
        while True:  # until the process closes its end of the terminal
            ready, _, _ = select.select([main], [], [], 60)
            assert ready, "errdex printed nothing for 60 s"
            try:
                chunk = os.read(main, 65536)
            except OSError:  # EIO: the other end is closed
                break
            if not chunk:
                break
            shown += chunk
        assert running.wait(60) == 0, shown
    finally:
        os.close(main)
        served.close()
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown.decode("utf-8", "replace"))
    # 600,000 bytes and the archive's headers, in kB, and how fast they came
    assert re.search(r"download .* 600\.\d/600\.\d kB [\d.]+ [kM]B/s", text), text
    assert "tiny 2.0: 1 files" in text


def test_a_release_first_fetched_unpinned_is_indexed_offline_pinned(tmp_path: Path) -> None:
    """`errdex index pypi:tiny` (the newest), then offline `pypi:tiny==2.0`: the
    download made for the first serves the second, as the offline hint promises."""
    served = Index()
    served.add("tiny", "tiny-2.0.tar.gz", tiny_sdist())

    def index(spec: str, db: str, url: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "ERRDEX_CACHE": str(tmp_path / "cache"), "ERRDEX_PYPI_INDEX": url}
        return subprocess.run(
            [sys.executable, "-m", "errdex", "index", spec, "--db", str(tmp_path / db)],
            capture_output=True, text=True, env=env, timeout=120,
        )  # fmt: skip

    try:
        online = index("pypi:tiny", "online.sqlite", served.url)
    finally:
        served.close()
    assert online.returncode == 0, online.stderr
    assert online.stdout.startswith("tiny 2.0: 1 files")
    offline = index("pypi:tiny==2.0", "offline.sqlite", closed_port_url())
    assert offline.returncode == 0, offline.stderr
    assert offline.stdout.startswith("tiny 2.0: 1 files")


def test_pypi_unreachable_is_network_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRDEX_PYPI_INDEX", closed_port_url())
    with pytest.raises(NetworkError, match="cannot reach the package index"):
        resolve("pypi:six==1.16.0", cache_dir=tmp_path)


# -- the real PyPI ------------------------------------------------------------------------


@pytest.fixture
def shared_cache() -> Path:
    """A cache kept across test runs, so the real PyPI is asked once."""
    return TEST_CACHE


@pytest.mark.network
def test_real_pypi_six(shared_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ERRDEX_PYPI_INDEX", raising=False)
    snap = resolve("pypi:six==1.16.0", cache_dir=shared_cache)
    assert (snap.package, snap.version, snap.code_paths) == ("six", "1.16.0", ("six.py",))
    assert snap.repo_url == "https://github.com/benjaminp/six"
    assert snap.date is not None and snap.date.startswith("2021-05-05")
    assert (snap.root / "six.py").is_file()

    monkeypatch.setenv("ERRDEX_PYPI_INDEX", closed_port_url())
    assert resolve("pypi:six==1.16.0", cache_dir=shared_cache) == snap


@pytest.mark.network
def test_real_pypi_not_found(shared_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ERRDEX_PYPI_INDEX", raising=False)
    with pytest.raises(NotFoundError, match="no package"):
        resolve("pypi:errdex-surely-no-such-package-xyz", cache_dir=shared_cache)
    with pytest.raises(NotFoundError, match=r"six has no release 0\.0\.1; its most recent"):
        resolve("pypi:six==0.0.1", cache_dir=shared_cache)
