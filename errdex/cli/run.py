# `errdex run script.py [ARGS]` / `errdex run -m MODULE [ARGS]`: the program runs in this
# process, as `python` would run it, with errdex's section under an uncaught exception's
# traceback. The exit status is the program's own.
from __future__ import annotations

import os
import runpy
import signal
import sys
from types import TracebackType

import click

from errdex.cli.console import CONTEXT_SETTINGS, HelpCommand

_SETTINGS = {
    **CONTEXT_SETTINGS,
    "ignore_unknown_options": True,
    "allow_interspersed_args": False,
}


@click.command(cls=HelpCommand, context_settings=_SETTINGS)
@click.argument("args", nargs=-1, type=click.UNPROCESSED, metavar="SCRIPT|-m MODULE [ARGS]...")
def run(args: tuple[str, ...]) -> None:
    """Run a Python script (or `-m MODULE`, as `python -m`) in this process, with its
    arguments; an uncaught error is explained under its traceback. The exit status is
    the program's."""
    module: str | None = None
    if args and args[0].startswith("-m"):  # -m MODULE, or -mMODULE as python takes it
        if args[0] == "-m":
            if len(args) < 2:
                raise click.UsageError("-m needs a module name")
            module, args = args[1], args[2:]
        else:
            module, args = args[0][2:], args[1:]
    elif not args or args[0].startswith("-"):
        raise click.UsageError("give a script (errdex run script.py ARGS) or -m MODULE")
    from errdex.hook import install

    install()
    if module is not None:
        sys.argv = [module, *args]  # run_module puts the module's path in argv[0]
        sys.path[0:1] = [os.getcwd()]
    else:
        script, *rest = args
        script = os.path.abspath(script)
        if not os.path.exists(script):
            click.echo(f"errdex run: can't open file {script!r}: no such file", err=True)
            sys.exit(2)
        sys.argv = [args[0], *rest]
        sys.path[0:1] = [os.path.dirname(script)]
    # The frames below the program's (python -m errdex, click, this command, runpy's) come
    # out of its recursion budget: the limit grows by as many, so that a program that
    # recurses N deep under python does under errdex run too.
    sys.setrecursionlimit(sys.getrecursionlimit() + _frames_below(module is not None))
    try:
        if module is not None:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(script, run_name="__main__")
    except SystemExit:
        raise
    except KeyboardInterrupt as exc:
        sys.excepthook(type(exc), exc, _trimmed(exc))
        sys.stderr.flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # die of SIGINT, as python does
        os.kill(os.getpid(), signal.SIGINT)
        sys.exit(130)
    except BaseException as exc:
        sys.excepthook(type(exc), exc, _trimmed(exc))
        sys.exit(1)


def _frames_below(module: bool) -> int:
    """How much more of the recursion budget is used under the program's first frame
    here than under python's, measured rather than counted (which calls count differs
    between Python versions). `reach` is how deep a probe recurses from this frame, and
    `inside` from a module frame that exec runs from it. The program's module frame is
    two frames deeper than that one (run(), which calls this, runs it through runpy's
    three, where this frame and exec are one deep): a probe from it reaches `inside - 1`
    (`_reach` is a frame itself), where under python a script's reaches `limit - 2`.
    `python -m` runs the module through two of runpy's and exec, as this command runs
    it through three and exec, one more than this frame is deep: `reach` tells."""
    limit = sys.getrecursionlimit()
    if module:
        return limit - 2 - _reach()
    scope: dict[str, object] = {"_reach": _reach}
    exec("inside = _reach()", scope)
    inside = scope["inside"]
    assert isinstance(inside, int)
    return limit - 1 - inside


def _reach() -> int:
    """How many more calls fit under the caller's frame before a RecursionError."""

    def down(depth: int) -> int:
        try:
            return down(depth + 1)
        except RecursionError:
            return depth

    return down(0)


def _trimmed(exc: BaseException) -> TracebackType | None:
    # python prints no frame of its runner; neither does this one (the process ends)
    tb = _user_frames(exc.__traceback__)
    exc.__traceback__ = tb
    return tb


def _user_frames(tb: TracebackType | None) -> TracebackType | None:
    """The traceback as python would print it: without this command's and runpy's frames
    (the exception itself keeps its whole traceback)."""
    start = tb
    while start is not None and start.tb_frame.f_code.co_filename in _OURS:
        start = start.tb_next
    return start if start is not None else tb


_OURS = {__file__, runpy.__file__, "<frozen runpy>"}
