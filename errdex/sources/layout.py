# Which parts of a tree are the package's own code: its top-level packages and modules,
# at the root or under `src/`, without tests, docs, examples, build scripts and the like.
from __future__ import annotations

from pathlib import Path

# Top-level directories that hold code around the package, never the package itself
NOT_CODE_DIRS = {
    "tests", "test", "testing", "testing_utils", "docs", "doc", "examples", "example", "benchmarks",
    "benchmark", "scripts", "tools", "build", "dist", "ci", "site-packages", "node_modules",
    "venv", "__pycache__", "requirements", "samples", "demo", "demos", "notebooks",
}  # fmt: skip
# Top-level modules that build, test or release the package
NOT_CODE_MODULES = {
    "setup.py", "conftest.py", "noxfile.py", "tasks.py", "fabfile.py", "dodo.py",
    "versioneer.py", "hatch_build.py", "build.py", "build_backend.py", "manage.py",
    "runtests.py", "run_tests.py", "bootstrap.py", "ez_setup.py", "distribute_setup.py",
}  # fmt: skip


def _is_code_dir(path: Path) -> bool:
    name = path.name
    return (
        path.is_dir()
        and name.isidentifier()
        and name.lower() not in NOT_CODE_DIRS
        and (path / "__init__.py").is_file()
    )


def _is_code_module(path: Path) -> bool:
    name = path.name
    return (
        path.is_file()
        and name.endswith(".py")
        and name[:-3].isidentifier()
        and name not in NOT_CODE_MODULES
        and not name.startswith(("setup_", "test_", "conftest"))
        and not name.endswith("_test.py")
    )


def _children(directory: Path) -> list[Path]:
    try:
        return sorted(directory.iterdir())
    except OSError:
        return []


def code_paths(root: Path, import_name: str | None = None) -> tuple[str, ...]:
    """Return the package code in `root` as paths relative to it, sorted.

    Packages are directories with an `__init__.py` at the root or under `src/` or `lib/`
    (kept as `src/NAME`, `lib/NAME`). A top-level module counts only when no package was
    found or when it is named `import_name` (`six.py`). When neither exists, a directory
    named `import_name` holding .py files (a namespace package) is taken. Empty when
    nothing looks like code.
    """
    bases = [(root, "")]
    if (root / "src").is_dir():
        bases.append((root / "src", "src/"))
    if (root / "lib").is_dir() and not (root / "lib" / "__init__.py").is_file():
        bases.append((root / "lib", "lib/"))  # not a package named lib: packages under it
    packages: list[str] = []
    modules: list[str] = []
    for base, prefix in bases:
        for child in _children(base):
            if _is_code_dir(child):
                packages.append(prefix + child.name)
            elif _is_code_module(child):
                modules.append(prefix + child.name)
    if packages:
        own = f"{import_name}.py" if import_name else None
        modules = [module for module in modules if module.rsplit("/", 1)[-1] == own]
    found = packages + modules
    if not found and import_name:
        for base, prefix in bases:
            candidate = base / import_name
            if candidate.is_dir() and any(candidate.rglob("*.py")):
                found.append(prefix + import_name)
    return tuple(sorted(found))
