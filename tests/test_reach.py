# Who can fix it, from reach (explain/surface.py): each kind of hop a user's value takes
# to a check, each kind of public root it starts from, a fix against a way to avoid the
# check, and checks that nothing public reaches staying the library's own. Code in, the
# inputs' access and reach, the condition and the fixes as they should read out.
from __future__ import annotations

from pathlib import Path

from errdex.codec import site_from_json, site_to_json
from errdex.model import ErrorSite, Snapshot
from tests.test_knobs import body, explained, fixes

# A package that declares its surface: `pkg/__init__.py` imports what users call.
SURFACE = {
    "pkg/__init__.py": """
        from pkg.api import decode, encode, Client, Codec
        from pkg.engine.tools import convert
    """,
    "pkg/api.py": """
        from pkg import _core


        def decode(token, audience=None, **options):
            return _core.check(token, audience=audience, **options)


        def encode(payload, key):
            return _core.sign(payload, key)


        class Client:
            def __init__(self, retries, timeout=None):
                self.retries = retries
                self.timeout = timeout

            def fetch(self, url):
                return _core.fetch(url, self.retries)


        class Codec:
            def load(self, text):
                return self._parse(text)

            def _parse(self, text):
                if not text.startswith("{"):
                    raise ValueError("not a JSON object")
                return text
    """,
    "pkg/_core.py": """
        def check(token, audience=None, leeway=0):
            if audience is not None and not isinstance(audience, str):
                raise TypeError("audience must be a string")
            if leeway < 0:
                raise ValueError("leeway must not be negative")
            return token


        def sign(payload, key):
            return _digest(payload, len(key) * 8)


        def _digest(payload, bits):
            if bits < 256:
                raise ValueError("the key is too short")
            return payload


        def fetch(url, retries):
            if retries < 0:
                raise ValueError("retries must not be negative")
            return _pool(url, 4)


        def _pool(url, size):
            if size > 64:
                raise RuntimeError("pool size over the limit")
            return url
    """,
    "pkg/engine/__init__.py": "",
    "pkg/engine/tools.py": """
        def convert(value, *, strict=False):
            return normalize(value, strict)


        def normalize(value, strict):
            if strict and value is None:
                raise ValueError("strict conversion of nothing")
            return value


        def _internal_step(items):
            return shrink(len(items))


        def shrink(count):
            if count > 1000:
                raise ValueError("too many items to shrink")
            return count
    """,
}


def _sites(tmp_path: Path, files: dict[str, str] = SURFACE) -> dict[str, ErrorSite]:
    return explained(tmp_path, files)


def _reach(site: ErrorSite, name: str) -> list[tuple[str, str]]:
    [item] = [i for i in site.inputs if i.name == name]
    return [(h.function, h.param) for h in item.reach]


def _access(site: ErrorSite, name: str) -> str | None:
    [item] = [i for i in site.inputs if i.name == name]
    return item.access


def test_a_keyword_handed_on_reaches_the_public_function(tmp_path: Path) -> None:
    site = _sites(tmp_path)["audience must be a string"]
    assert _access(site, "audience") == "public"
    assert _reach(site, "audience") == [("decode", "audience"), ("check", "audience")]
    said = body(site)
    assert "`audience` comes from your call `decode(audience=…)` (`decode` → `check`)" in (
        said.when_it_happens
    )
    assert said.solutions[0] == (
        "Pass a value of type `str` as `audience` (from your call `decode(audience=…)`)"
    )


def test_a_keyword_handed_on_through_kwargs_is_followed(tmp_path: Path) -> None:
    site = _sites(tmp_path)["leeway must not be negative"]
    assert _reach(site, "leeway") == [("decode", "leeway"), ("check", "leeway")]
    assert (
        body(site).solutions[0] == "Set `leeway` to 0 or more (from your call `decode(leeway=…)`)"
    )


def test_a_field_stored_by_the_constructor_reaches_its_parameter(tmp_path: Path) -> None:
    site = _sites(tmp_path)["retries must not be negative"]
    assert _reach(site, "retries") == [("Client", "retries"), ("fetch", "retries")]
    [item] = [i for i in site.inputs if i.name == "retries"]
    # the hop into `fetch` is the call in `Client.fetch` that hands `self.retries` on
    assert item.reach[0].location is not None and item.reach[0].location.file == "pkg/api.py"
    assert (
        body(site).solutions[0] == "Set `retries` to 0 or more (from your call `Client(retries=…)`)"
    )


def test_a_computed_argument_names_the_users_value_it_comes_from(tmp_path: Path) -> None:
    site = _sites(tmp_path)["the key is too short"]
    assert _reach(site, "bits") == [("encode", "key"), ("sign", "key"), ("_digest", "bits")]
    [item] = [i for i in site.inputs if i.name == "bits"]
    assert item.access == "internal"  # `bits` itself is not what a user sets
    assert [h.computed for h in item.reach] == [False, True, False]  # `sign` computes it
    assert body(site).solutions == (
        "Check the `key` you pass to `encode`: what this check reads is computed from it,"
        " and this check rejects the result",
    )
    assert "bug in" not in body(site).what_it_means


def test_a_method_of_an_exported_class_is_a_root(tmp_path: Path) -> None:
    site = _sites(tmp_path)["not a JSON object"]
    assert _reach(site, "text") == [("Codec.load", "text"), ("Codec._parse", "text")]
    assert _access(site, "text") == "public"


def test_a_public_function_the_package_exports_is_its_own_root(tmp_path: Path) -> None:
    site = _sites(tmp_path)["strict conversion of nothing"]
    # `normalize` is public by name but deep in the package and not exported: users
    # reach it through `convert`
    assert _reach(site, "strict") == [("convert", "strict"), ("normalize", "strict")]


def test_a_check_that_nothing_public_reaches_stays_internal(tmp_path: Path) -> None:
    sites = _sites(tmp_path)
    pool = sites["pool size over the limit"]  # `_pool(url, 4)`: the library's constant
    assert _access(pool, "size") == "internal"
    assert _reach(pool, "size") == []
    # a public-looking function that only the package's own code calls, with what it computed
    shrink = sites["too many items to shrink"]
    assert _access(shrink, "count") == "internal"
    assert not any("`count`" in s for s in body(shrink).solutions)


def test_reach_survives_the_json_record(tmp_path: Path) -> None:
    site = _sites(tmp_path)["the key is too short"]
    snapshot = Snapshot(package="pkg", version="1.0", root=tmp_path, source=str(tmp_path))
    back = site_from_json(site_to_json(site, snapshot))
    assert back.inputs == site.inputs


CLI = {
    "tool/__init__.py": "",
    "tool/cli.py": """
        import typer

        app = typer.Typer()


        @app.command()
        def ls(path: str, tree: bool = typer.Option(False, "--tree"), recursive: bool = False):
            _list(path, tree, recursive)


        def _list(path, as_tree, recursive):
            if as_tree and recursive:
                raise typer.BadParameter("Cannot use --tree with --recursive.")
    """,
}


def test_a_command_line_option_is_named_as_the_user_types_it(tmp_path: Path) -> None:
    site = _sites(tmp_path, CLI)["Cannot use --tree with --recursive."]
    assert _reach(site, "as_tree") == [("ls", "tree"), ("_list", "as_tree")]
    said = body(site)
    assert "`as_tree` comes from your `--tree` option (`ls` → `_list`)" in said.when_it_happens


AVOID = {
    "net/__init__.py": "from net.hub import download\n",
    "net/hub.py": """
        def download(name, offline=False, retries=3):
            return _get(name, offline, retries)


        def _get(name, offline, retries):
            if not offline and retries <= 0:
                raise ConnectionError("no retries left to fetch the file")
            return name
    """,
}


def test_the_fix_comes_before_the_way_to_avoid_the_check(tmp_path: Path) -> None:
    site = _sites(tmp_path, AVOID)["no retries left to fetch the file"]
    solutions = body(site).solutions
    assert solutions[0] == "Set `retries` to more than 0 (from your call `download(retries=…)`)"
    assert solutions[1].startswith(
        "Or: give `offline` a non-empty value (from your call `download("
    )
    assert solutions[1].endswith("so that the check does not apply")


LAYERED = {
    "ui/__init__.py": "from ui.console import Console, get_console, print_line\n",
    "ui/console.py": """
        from ui.text import Text
        from ui.engine.layout import fit


        class Console:
            def show(self, cells):
                Text().append(str(len(cells)))
                return fit(len(cells))


        def get_console():
            return Console()


        def print_line(line):
            return line
    """,
    "ui/text.py": """
        class Text:
            def append(self, text):
                if not isinstance(text, str):
                    raise TypeError("only str can be appended to Text")
                return self
    """,
    "ui/engine/__init__.py": "",
    "ui/engine/layout.py": """
        def fit(width):
            if width > 200:
                raise ValueError("the layout is too wide")
            return width
    """,
}


def test_a_public_module_right_below_the_package_is_its_api(tmp_path: Path) -> None:
    sites = _sites(tmp_path, LAYERED)
    # `ui.text.Text` is imported by users from its module, though `ui` does not export it
    assert _access(sites["only str can be appended to Text"], "text") == "public"
    # a deeper module's function that the package calls with what it computed is its own
    layout = sites["the layout is too wide"]
    assert _reach(layout, "width") == [("Console.show", "cells"), ("fit", "width")]
    assert _access(layout, "width") == "internal"


def test_a_check_on_internal_state_says_which_public_call_gets_there(tmp_path: Path) -> None:
    site = _sites(tmp_path)["pool size over the limit"]
    assert "You get here by calling `Client.fetch` (`Client.fetch` → `fetch` → `_pool`)." in (
        body(site).when_it_happens
    )


TOKEN = {
    "tok/__init__.py": "from tok.api import decode, load\n",
    "tok/api.py": """
        import base64
        import json


        class DecodeError(ValueError):
            pass


        def decode(token):
            return _load(token.split(".")[0])


        def _load(segment):
            header_data = base64.urlsafe_b64decode(segment)
            try:
                return json.loads(header_data)
            except ValueError as e:
                raise DecodeError(f"Invalid header string: {e}") from e


        def load(text):
            try:
                return json.loads(text.strip())
            except ValueError:
                raise DecodeError("bad text") from None
    """,
}


def test_a_handled_failure_names_the_users_value_it_was_made_from(tmp_path: Path) -> None:
    sites = _sites(tmp_path, TOKEN)
    header = next(s for k, s in sites.items() if k.startswith("Invalid header string"))
    assert body(header).solutions[0] == (
        "Check the `token` you pass to `decode`: what is made of it is not valid JSON (the"
        " `ValueError` it handles, printed above this error in the traceback)"
    )
    # a value the function computed is said by what it is, never by its local name
    bad = body(sites["bad text"]).solutions[0]
    assert "`text.strip()`" not in bad and "is not valid JSON" in bad


FACTORY = {
    "val/__init__.py": "from val.validators import in_, instance_of, check\n",
    "val/validators.py": """
        class _InValidator:
            def __init__(self, options):
                self.options = options

            def __call__(self, value):
                if value not in self.options:
                    raise ValueError(f"'{value}' must be in {self.options!r}")


        def in_(options):
            return _InValidator(options)


        def instance_of(kind):
            return kind


        def check(value):
            return value
    """,
    "val/extra.py": """
        def audit(value, strict=False):
            if strict and value is None:
                raise ValueError("nothing to audit")
    """,
}


def test_a_factorys_argument_reaches_the_validator_it_builds(tmp_path: Path) -> None:
    sites = _sites(tmp_path, FACTORY)
    site = next(s for k, s in sites.items() if k.startswith("'"))
    assert _reach(site, "options") == [("in_", "options"), ("_InValidator", "options")]
    assert "`options` comes from your call `in_(options=…)`" in body(site).when_it_happens


def test_a_public_function_nothing_in_the_package_calls_is_a_root(tmp_path: Path) -> None:
    site = _sites(tmp_path, FACTORY)["nothing to audit"]
    # `val.extra.audit`: not exported, but a public module's function only a user calls
    assert _access(site, "strict") == "public"
    assert any(s.startswith("Or: turn `strict` off") for s in body(site).solutions)


EXTRA = {
    "conn/__init__.py": "from conn.models import Connection\n",
    "conn/models.py": """
        import json


        class Connection:
            def set_extra(self, value):
                self._validate_extra(value)

            def _validate_extra(self, extra):
                if extra is None:
                    return
                try:
                    json.loads(extra)
                except json.JSONDecodeError:
                    raise ValueError("Encountered non-JSON in `extra` field")
    """,
}


def test_the_handled_failure_is_the_fix_before_leaving_the_value_out(tmp_path: Path) -> None:
    site = next(s for k, s in _sites(tmp_path, EXTRA).items() if k.startswith("Encountered"))
    solutions = body(site).solutions
    assert solutions[0].startswith(
        "Check the `value` you pass to `Connection.set_extra`: it is not valid JSON"
    )
    assert solutions[1] == (
        "Or: leave `value` unset (None) (from your call `Connection.set_extra(value=…)`),"
        " so that the check does not apply"
    )


HELPERS = {
    "mail/__init__.py": "from mail.validate import validate, Checker, EmailError\n",
    "mail/validate.py": """
        from mail.syntax import check_local


        class EmailError(ValueError):
            pass


        class Checker:
            pass


        def validate(email, allow_utf8=True):
            local = email.split("@")[0]
            return check_local(local.strip(), allow_utf8)
    """,
    "mail/syntax.py": """
        def check_local(local, allow_utf8):
            if ".." in local:
                raise ValueError("The email address contains consecutive periods.")
            return local
    """,
}


def test_a_top_modules_functions_are_helpers_when_the_package_says_what_it_exports(
    tmp_path: Path,
) -> None:
    site = _sites(tmp_path, HELPERS)["The email address contains consecutive periods."]
    assert _access(site, "local") == "internal"
    assert not any("check_local" in s for s in body(site).solutions)


def test_a_callback_s_call_and_a_getattr_name_are_not_the_user_s_to_pass(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "cb/__init__.py": (
                "from cb.strategies import Dense, Layer, Sink, TokenBearer, retry_base,"
                " retry_if_error"
            ),
            "cb/strategies.py": """
                import abc

                from starlette.authentication import Bearer


                class retry_base(abc.ABC):
                    @abc.abstractmethod
                    def __call__(self, state):
                        pass


                class Layer:
                    def __call__(self, inputs):
                        return inputs


                class Dense(Layer):
                    def __call__(self, inputs):
                        if inputs.ndim < 2:
                            raise ValueError("Dense takes a batch of vectors")
                        return inputs


                class TokenBearer(Bearer):
                    def __call__(self, request):
                        if "authorization" not in request.headers:
                            raise PermissionError("no credentials")


                class retry_if_error(retry_base):
                    def __call__(self, state):
                        if state.outcome is None:
                            raise RuntimeError("__call__() called before outcome was set")
                        return state.outcome.failed


                class Sink:
                    def __call__(self, line):
                        if not line.endswith("\\n"):
                            raise ValueError("a line ends with a newline")

                    def __getattr__(self, key):
                        if key != "name":
                            raise AttributeError(key)
                        return "sink"
            """,
        },
    )
    called = sites["__call__() called before outcome was set"]
    state = next(i for i in called.inputs if i.name == "state")
    assert state.access == "internal"
    assert not any("you pass" in f.text for f in fixes(called)), fixes(called)
    # a framework's base (another distribution's) calls its subclasses' objects too
    request = next(i for i in sites["no credentials"].inputs if i.name == "request")
    assert request.access == "internal"
    # a base with a `__call__` of its own (a layer) and a class of no base: their user
    # calls them, with what the user hands over
    dense = next(i for i in sites["Dense takes a batch of vectors"].inputs if i.name == "inputs")
    assert dense.access == "public"
    line = next(i for i in sites["a line ends with a newline"].inputs if i.name == "line")
    assert line.access == "public"
    looked_up = sites["Sink.__getattr__"]
    assert not any("`key`" in f.text for f in fixes(looked_up)), fixes(looked_up)


def test_a_validator_s_value_is_set_through_its_field(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "api/__init__.py": "from api.bodies import PatchBody",
            "api/bodies.py": """
                from pydantic import BaseModel, field_validator

                STATES = ("queued", "running", "failed")


                class PatchBody(BaseModel):
                    new_state: str | None = None

                    @field_validator("new_state", mode="before")
                    @classmethod
                    def validate_new_state(cls, ns):
                        if ns not in STATES:
                            raise ValueError(f"'{ns}' is not one of {STATES}")
                        return ns
            """,
        },
    )
    site = next(s for s in sites.values() if s.location.function.endswith("validate_new_state"))
    ns = next(i for i in site.inputs if i.name == "ns")
    assert ns.access == "internal"
    assert [k.usage for k in ns.knobs] == ["PatchBody(new_state=…)"]
    texts = [f.text for f in fixes(site)]
    assert any("`new_state`" in t for t in texts), texts
    assert not any("`ns`" in t for t in texts), texts


def test_what_an_error_of_the_package_holds_is_not_the_user_s_to_pass(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "rt/__init__.py": "from rt.core import GaveUp, retry",
            "rt/core.py": """
                class GaveUp(Exception):
                    def __init__(self, last):
                        self.last = last

                    def reraise(self):
                        if self.last.failed:
                            raise RuntimeError("the last attempt failed")
                        raise self


                def retry(fn, times):
                    for _ in range(times):
                        outcome = fn()
                        if not outcome.failed:
                            return outcome
                    raise GaveUp(outcome)
            """,
        },
    )
    failed = sites["the last attempt failed"]
    last = next(i for i in failed.inputs if i.expr == "self.last")
    assert last.access == "internal"
    assert not any("`GaveUp`" in f.text for f in fixes(failed)), fixes(failed)
