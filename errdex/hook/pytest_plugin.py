# The pytest plugin (entry point `errdex`): with `--errdex`, each failing test's report
# gets an "errdex" section, the error page of the raise that failed it. Loaded in every
# pytest run of an environment where errdex is installed, so it imports nothing at load
# and does nothing unless asked.
from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("errdex")
    group.addoption(
        "--errdex",
        action="store_true",
        default=False,
        help="explain each failure with errdex: the raise site's page, under the traceback",
    )


def _enabled(config: pytest.Config) -> bool:
    if config.getoption("errdex", default=False):
        return True
    args = list(config.invocation_params.args)
    names = ("errdex", "errdex.hook.pytest_plugin")
    for number, arg in enumerate(args):
        if arg == "-p" and number + 1 < len(args) and args[number + 1] in names:
            return True
        if arg.startswith("-p") and arg[2:] in names:
            return True
    return False


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any]:
    outcome = yield
    if call.excinfo is None or not _enabled(item.config):
        return
    report = outcome.get_result()
    if not report.failed:
        return
    from errdex.hook import _explain

    text = _explain(call.excinfo.value, stop=True)  # Ctrl-C while it indexes: stop
    if text:
        report.sections.append(("errdex", text))
