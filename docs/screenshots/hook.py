# Makes docs/screenshots/hook.svg, the README's picture of `errdex run`: a real run in a
# real terminal. The tests' demo package (mypkg, whose Box.check refuses a negative
# size) is installed by pip into a folder of its own, `errdex run script.py` is typed
# into a tmux session, and the pane is captured with its colours and drawn as SVG by
# rich. Needs tmux.
#
#   .venv/bin/python -m docs.screenshots.hook
from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.text import Text

from tests.test_hook import PACKAGE, SCRIPT, build_wheel

OUT = Path(__file__).with_suffix(".svg")
WIDTH, HEIGHT = 92, 22
SOCKET = "errdex-screenshot"


def main() -> None:
    if shutil.which("tmux") is None:
        raise SystemExit("this needs tmux: apt-get install -y tmux")
    with tempfile.TemporaryDirectory(prefix="demo-") as name:
        root = Path(name)
        (root / "src" / "mypkg").mkdir(parents=True)
        (root / "src" / "mypkg" / "__init__.py").write_text(PACKAGE.lstrip())
        wheel = build_wheel(root / "src", root)
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
             "--target", str(root / "site"), str(wheel)],
            check=True,
        )  # fmt: skip
        (root / "script.py").write_text(SCRIPT)
        env = {
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "PYTHONPATH": str(root / "site"),
            "ERRDEX_DB": str(root / "errdex.sqlite"),
            "ERRDEX_CACHE": str(root / "cache"),
            "TERM": "xterm-256color",
            "PS1": "$ ",
            "HOME": os.environ.get("HOME", "/"),
        }
        # the picture shows the full answer: mypkg indexed first (a first error alone is
        # answered from the raising file, and indexed in the background)
        subprocess.run(
            [sys.executable, "-m", "errdex", "index", "installed:mypkg"],
            env={**os.environ, **env}, check=True, capture_output=True,
        )  # fmt: skip
        tmux = ["tmux", "-L", SOCKET]
        subprocess.run(
            [*tmux, "-f", "/dev/null", "new-session", "-d", "-s", "shot",
             "-x", str(WIDTH), "-y", str(HEIGHT), "-c", str(root),
             "env", "-i", *(f"{k}={v}" for k, v in env.items()), "bash", "--norc", "-i"],
            check=True,
        )  # fmt: skip
        try:
            subprocess.run([*tmux, "send-keys", "-t", "shot", "clear", "Enter"], check=True)
            time.sleep(0.5)
            typed = "errdex run script.py"
            subprocess.run([*tmux, "send-keys", "-t", "shot", typed, "Enter"], check=True)
            pane = _wait_for(tmux, "details: errdex show")
        finally:
            subprocess.run([*tmux, "kill-server"], check=False)
    console = Console(record=True, width=WIDTH, file=io.StringIO(), force_terminal=True)
    console.print(Text.from_ansi(pane.rstrip("\n") + "\n"))
    console.save_svg(str(OUT), title="errdex run script.py")
    print(f"wrote {OUT}")


def _wait_for(tmux: list[str], marker: str, timeout: float = 120.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pane = subprocess.run(
            [*tmux, "capture-pane", "-p", "-e", "-t", "shot"],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        if marker in pane:
            time.sleep(0.3)  # the prompt comes back
            return subprocess.run(
                [*tmux, "capture-pane", "-p", "-e", "-t", "shot"],
                capture_output=True, text=True, check=True,
            ).stdout  # fmt: skip
        time.sleep(0.2)
    raise SystemExit(f"no {marker!r} on the screen after {timeout:.0f} s")


if __name__ == "__main__":
    main()
