# Shared by the web and export tests (no tests here): a small package whose messages and
# docstrings hold HTML, quotes and template syntax, indexed into a real SQLite file, and
# a real uvicorn server on a free loopback port.
from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn

from errdex.index import index_snapshot
from errdex.model import Snapshot
from errdex.store import Store, open_store
from errdex.web import create_app
from errdex.web.app import SERVER_OPTIONS
from tests.conftest import write_tree

# Every section of the seed page that an error page must show.
SECTIONS = (
    "Error message",
    "What it means",
    "Source",
    "Solutions",
    "When it happens",
    "Inputs",
    "Versions",
)

EVIL_FILES = {
    "evil/__init__.py": '''
        """<script>alert("init")</script>"""
    ''',
    "evil/config.py": '''
        class Config:
            """Settings for <b>evil</b>."""

            mode: str = "fast"
            """The mode: <script>alert('doc')</script> & "quotes" {{ 7*7 }}"""

            def check(self) -> None:
                if self.mode not in ("fast", "slow"):
                    raise ValueError(
                        f"<script>alert('x')</script> bad mode {self.mode!r}: use \\"fast\\""
                        " or {{ 7*7 }}"
                    )


        def parse_port(port: int) -> int:
            if port < 0:
                raise ValueError(f"port must be non-negative, got {port}")
            return port


        def load(path: str) -> None:
            if not path.endswith(".toml"):
                raise TypeError(f"config file must end with .toml: {path}")
    ''',
    "evil/net.py": """
        class TimeoutTooShort(RuntimeError):
            pass


        def connect(timeout: float) -> None:
            if timeout < 0.5:
                raise TimeoutTooShort(f"timeout {timeout} is too short for a handshake")
    """,
}

REPO = "https://github.com/example/evil"
COMMIT = "0123abc"


def index_evil(root: Path, db: Path | str) -> Store:
    """Index EVIL_FILES (as package "evil" 1.0 of REPO at COMMIT) into the database at `db`
    (a SQLite file, or a PostgreSQL URL)."""
    tree = write_tree(root, EVIL_FILES)
    snapshot = Snapshot(
        package="evil",
        version="1.0",
        root=tree,
        source=str(tree),
        repo_url=REPO,
        commit=COMMIT,
        date="2024-05-01",
        code_paths=("evil",),
    )
    store = open_store(db)
    index_snapshot(snapshot, store, cache_path=None, workers=1)
    return store


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def running(store: Store) -> Iterator[str]:
    """Serve `store` with uvicorn on 127.0.0.1 in a thread, configured as `errdex serve`
    configures it; yield its base URL."""
    port = free_port()
    app = create_app(store, warm=False)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", **SERVER_OPTIONS)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
