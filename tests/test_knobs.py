# The knobs that set each input and the solutions said with them (issue 10): small
# packages written to tmp_path, through the real extract and explain stages. Each kind of
# control has its test: an argparse flag (spread from a config class, mirrored by another
# class's field, carrying a JSON config key), click and typer options, environment
# variables (in place, through an `envs` module, from a pydantic settings class), and the
# public constructor parameter behind a private attribute; then the message's own advice,
# the distribution an import needs, and where a private function's argument comes from.
from __future__ import annotations

import ast
from pathlib import Path

from errdex.explain import explain_sites
from errdex.extract import scan
from errdex.extract.cache import NoCache
from errdex.extract.knobs import knob_facts
from errdex.extract.pipeline import extract
from errdex.extract.render import source_renderer
from errdex.model import ErrorSite, Explanation, Fix
from errdex.sources import resolve
from tests.conftest import index_snippet, only, write_tree


def explained(tmp_path: Path, files: dict[str, str]) -> dict[str, ErrorSite]:
    """Write `files` as a package tree, index it as a directory SOURCE (its metadata read
    as errdex reads it) and return the explained sites by message text."""
    root = write_tree(tmp_path / "tree", files)
    snapshot = resolve(str(root))
    cache = NoCache()
    extraction = extract(snapshot, scan(snapshot, cache), cache, workers=1)
    return {
        (s.message.literal_text if s.message else "") or s.location.function: s
        for s in explain_sites(extraction, snapshot)
    }


def body(site: ErrorSite) -> Explanation:
    assert site.explanation is not None
    return site.explanation


def fixes(site: ErrorSite) -> list[Fix]:
    return list(body(site).fixes)


def facts(code: str) -> list[tuple[str, tuple[str, ...], str | None, tuple[str, str] | None]]:
    tree = ast.parse(code)
    lines = code.split("\n")
    found = knob_facts(tree, code, lines, source_renderer(lines))
    return [(k.kind, k.names, k.dest, k.spread) for k in found]


# -- what one file declares ------------------------------------------------------------


def test_the_knob_facts_of_one_file() -> None:
    code = """
import os
import argparse
import click

def add_cli_args(parser):
    model_kwargs = get_kwargs(ModelConfig)
    parser.add_argument("--max-model-len", **model_kwargs["max_model_len"])
    backend = model_kwargs["backend"]
    parser.add_argument("--backend", **backend)
    parser.add_argument("--verbose", "-v", action="store_true", help="Say more.")
    parser.add_argument("--out", dest="output_path")

@click.command()
@click.option("--count", "-c", envvar="APP_COUNT", default=1)
@click.argument("name")
def cli(count, name):
    pass

DEBUG = os.getenv("APP_DEBUG", "0")
readers = {
    # Where the cache lives.
    "APP_CACHE": lambda: os.environ.get("APP_CACHE", "~/.cache"),
    "APP_MODE": env_with_choices("APP_MODE", "fast", ["fast", "slow"]),
}

class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="APP_")
    port: int = 80
"""
    assert facts(code) == [
        ("flag", ("--max-model-len",), "max_model_len", ("ModelConfig", "max_model_len")),
        ("flag", ("--backend",), "backend", ("ModelConfig", "backend")),
        ("flag", ("--verbose", "-v"), "verbose", None),
        ("flag", ("--out",), "output_path", None),
        ("option", ("--count", "-c"), "count", None),
        ("env", ("APP_COUNT",), "count", None),
        ("option", ("NAME",), "name", None),
        ("env", ("APP_DEBUG",), "DEBUG", None),
        ("env", ("APP_CACHE",), "APP_CACHE", None),
        ("env", ("APP_MODE",), "APP_MODE", None),
        ("settings", ("APP_",), "Settings", None),
    ]


def test_a_file_without_controls_costs_no_walk() -> None:
    assert facts("def f(x):\n    return x + 1\n") == []


# -- each kind of knob, named in the solution -------------------------------------------

CONFIGS = {
    "pkg/__init__.py": "",
    "pkg/config.py": '''
        from dataclasses import dataclass, field


        @dataclass
        class CompilationConfig:
            """Settings of the compiler."""

            max_items: int = 0
            """Items per batch. If 0 (default), inferred."""
            graphs: bool = False

            def __post_init__(self):
                if self.graphs and self.max_items < 0:
                    raise ValueError("max_items must be non-negative (0 = auto-infer)")


        @dataclass
        class ModelConfig:
            max_model_len: int | None = None

            def verify(self):
                _check_len(self.max_model_len)


        def _check_len(length):
            if length is not None and length > 4096:
                raise ValueError(f"the length {length} passes the model's limit")


        @dataclass
        class VllmConfig:
            compilation_config: CompilationConfig = field(default_factory=CompilationConfig)
            model_config: ModelConfig = field(default_factory=ModelConfig)
    ''',
    "pkg/arg_utils.py": """
        from dataclasses import dataclass

        from pkg.config import ModelConfig, VllmConfig


        def get_kwargs(cls):
            return {}


        @dataclass
        class EngineArgs:
            max_model_len: int | None = ModelConfig.max_model_len

            @staticmethod
            def add_cli_args(parser):
                vllm_kwargs = get_kwargs(VllmConfig)
                carried = vllm_kwargs["compilation_config"]
                parser.add_argument("--compilation-config", "-cc", **carried)
                parser.add_argument("--max-model-len", type=int)
                return parser
    """,
}


def test_a_config_field_is_set_through_the_json_flag_that_carries_its_class(
    tmp_path: Path,
) -> None:
    site = explained(tmp_path, CONFIGS)["max_items must be non-negative (0 = auto-infer)"]
    first = body(site).solutions[0]
    assert first.startswith(
        "Set `max_items` to 0 or more (`CompilationConfig.max_items`, default 0)"
    )
    assert "e.g. `--compilation-config '{\"max_items\": 0}'`" in first
    assert 'per its doc: "If 0 (default), inferred."' in first
    [item] = [i for i in site.inputs if i.name == "max_items"]
    assert [(k.kind, k.name, k.via) for k in item.knobs] == [
        ("config-key", "max_items", "--compilation-config"),
        ("constructor", "max_items", None),
    ]
    second = body(site).solutions[1]
    assert second.startswith("Or: turn `graphs` off (False)")
    assert "`--compilation-config '{\"graphs\": false}'`" in second


def test_a_flag_of_a_mirrored_field_sets_the_config_it_mirrors(tmp_path: Path) -> None:
    site = explained(tmp_path, CONFIGS)["the length  passes the model's limit"]
    [fix] = fixes(site)
    # `_check_len(self.max_model_len)`: the field of the object that calls the helper,
    # said with its flag (EngineArgs.max_model_len = ModelConfig.max_model_len)
    assert fix.kind == "caller"
    assert fix.text.startswith("Check `max_model_len` (`ModelConfig.max_model_len`, default None)")
    assert "`--max-model-len …`" in fix.text
    assert "`length`" not in fix.text  # the private helper's parameter is not the user's


def test_click_and_typer_options_and_their_environment_variables(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/cli.py": """
                import click
                import typer


                @click.command()
                @click.option("--count", "-c", envvar="APP_COUNT", default=1)
                def cli(count):
                    if count < 0:
                        raise click.BadParameter("count must not be negative")


                def main(level: int = typer.Option(1, "--level", "-l")):
                    if level > 3:
                        raise typer.BadParameter("level goes up to 3")
            """,
        },
    )
    count = body(sites["count must not be negative"]).solutions[0]
    assert count == (
        "Set `count` to 0 or more (parameter of `cli`), e.g. `--count 0` or `APP_COUNT=0`"
    )
    level = body(sites["level goes up to 3"]).solutions[0]
    assert level.startswith("Set `level` to 3 or less (parameter of `main`")
    assert level.endswith("e.g. `--level 3`")


def test_environment_variables_in_place_through_an_envs_module_and_settings(
    tmp_path: Path,
) -> None:
    sites = explained(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/envs.py": """
                import os

                environment_variables = {
                    # Allow lengths past the model's own limit.
                    "PKG_ALLOW_LONG": lambda: os.getenv("PKG_ALLOW_LONG", "0") == "1",
                }
            """,
            "pkg/run.py": """
                import os

                from pydantic_settings import BaseSettings, SettingsConfigDict

                from pkg import envs


                def check(length):
                    if length > 10 and not envs.PKG_ALLOW_LONG:
                        raise ValueError(f"length {length} is too long")


                def debug():
                    if os.environ.get("PKG_DEBUG") == "1":
                        raise RuntimeError("debugging is on")


                class Settings(BaseSettings):
                    model_config = SettingsConfigDict(env_prefix="PKG_")
                    port: int = 80

                    def check(self):
                        if self.port < 1:
                            raise ValueError("the port must be positive")
            """,
        },
    )
    long = body(sites["length  is too long"])
    assert any(
        s.startswith("Or: give the environment variable `PKG_ALLOW_LONG` a non-empty value")
        and "e.g. `PKG_ALLOW_LONG=1`" in s
        for s in long.solutions
    ), long.solutions
    assert all("envs." not in s for s in long.solutions)
    debug = body(sites["debugging is on"]).solutions[0]
    assert debug.startswith("Set the environment variable `PKG_DEBUG` to something other than '1'")
    port = body(sites["the port must be positive"]).solutions[0]
    assert port.startswith("Set `port` to 1 or more (`Settings.port`, default 80)")
    assert port.endswith("e.g. `PKG_PORT=80`")  # the default passes the check


def test_a_private_attribute_is_set_through_the_constructor_parameter_that_fills_it(
    tmp_path: Path,
) -> None:
    sites = explained(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg._models import *\n",
            "pkg/_models.py": """
                class Response:
                    def __init__(self, status, request=None):
                        self.status = status
                        self._request = request

                    def raise_for_status(self):
                        request = self._request
                        if request is None:
                            raise RuntimeError("the request of this response is not set")
            """,
        },
    )
    site = sites["the request of this response is not set"]
    assert body(site).solutions == (
        "Give `request` a value (it must not be None), e.g. `Response(request=…)`",
    )
    assert "bug" not in body(site).what_it_means  # a public class, re-exported


# -- the message's own advice, dependencies ----------------------------------------------


def test_the_messages_advice_comes_first_with_the_flag_of_the_setting_it_names(
    tmp_path: Path,
) -> None:
    sites = explained(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/cache.py": """
                def check_memory(available):
                    if available <= 0:
                        raise ValueError(
                            "No memory for the cache. Try increasing `gpu_memory_utilization`"
                            " when starting the engine."
                        )
            """,
            "pkg/cli.py": """
                def add_cli_args(parser):
                    parser.add_argument("--gpu-memory-utilization", type=float)
            """,
        },
    )
    [site] = [s for m, s in sites.items() if m.startswith("No memory for the cache")]
    [first, *rest] = fixes(site)
    assert first == Fix(
        text=(
            "Try increasing `gpu_memory_utilization` when starting the engine"
            " (`gpu_memory_utilization` is `--gpu-memory-utilization` on the command line)"
        ),
        kind="message",
        source="message",
        knobs=("--gpu-memory-utilization",),
    )
    assert all(f.source == "code" for f in rest)


def test_an_import_names_the_distribution_and_the_packages_own_extra(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "pyproject.toml": """
                [project]
                name = "webby"
                version = "1.0"
                dependencies = ["idna"]
                [project.optional-dependencies]
                http2 = ["h2>=3,<5"]
            """,
            "webby/__init__.py": "",
            "webby/client.py": """
                def connect(http2=False):
                    if http2:
                        try:
                            import h2
                        except ImportError:
                            raise ImportError("http2 support is not installed") from None
                    try:
                        import yaml
                    except ImportError:
                        raise ImportError("reading settings needs YAML") from None
                    try:
                        import idna
                    except ModuleNotFoundError as exc:
                        raise RuntimeError("no idna") from exc
            """,
        },
    )
    h2 = body(sites["http2 support is not installed"]).fixes[0]
    assert h2 == Fix(
        text=(
            "Install `h2` with `pip install 'webby[http2]'` (the `http2` extra of webby"
            " requires `h2>=3,<5`)"
        ),
        kind="dependency",
        knobs=("webby[http2]",),
    )
    yaml = body(sites["reading settings needs YAML"]).solutions
    assert yaml[0] == "Install `PyYAML` (`pip install PyYAML`), which provides `yaml`"
    idna = body(sites["no idna"]).solutions
    assert idna[0] == "Install `idna` (`pip install idna`), which webby requires"


def test_a_module_a_try_block_imports_by_name_names_what_to_install(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/loader.py": """
                import importlib


                def load():
                    try:
                        mod = importlib.import_module("yaml.cyaml")
                    except ImportError:
                        raise ImportError("the fast YAML loader is missing") from None
                    return mod


                def load_plugins():
                    try:
                        from .plugins import registry
                    except ImportError:
                        raise ImportError("the plugins are missing") from None
                    return registry
            """,
        },
    )
    fast = body(sites["the fast YAML loader is missing"]).solutions
    assert fast[0] == "Install `PyYAML` (`pip install PyYAML`), which provides `yaml.cyaml`"
    # a module of the package itself: what it imports in turn is missing, or it is (the
    # tree has no metadata: its distribution is named for its folder)
    plugins = body(sites["the plugins are missing"])
    assert plugins.solutions[0] == (
        "Install the optional dependency that `pkg.plugins` imports, or reinstall tree if"
        " `pkg.plugins` itself is missing (a part of it this build lacks)"
    )
    assert "needs `pkg.plugins`, which could not be imported" in plugins.what_it_means


def test_a_condition_that_looks_a_module_up_names_what_to_install(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/attention.py": """
                import importlib.util


                def pick_backend(name):
                    if name == "flash" and importlib.util.find_spec("flash_attn") is None:
                        raise ImportError("the flash backend is not available")


                def pick_other(name):
                    if name == "other" and find_backend("flash_attn") is None:
                        raise ImportError("the other backend is not available")
            """,
        },
    )
    flash = body(sites["the flash backend is not available"]).solutions
    assert flash[0] == "Install the package that provides the `flash_attn` module"
    # a call of another name looks nothing up that the code says: no import check,
    # whatever the class of the error
    other = body(sites["the other backend is not available"])
    assert not any("flash_attn" in s or "nstall" in s for s in other.solutions)
    assert "could not be imported" not in other.what_it_means


def test_a_missing_attribute_of_an_installed_distribution(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/mem.py": """
                import torch


                def _memory_module():
                    mem = getattr(torch.xpu, "memory", None)
                    if mem is None:
                        raise RuntimeError("torch.xpu.memory is not available")
                    return mem
            """,
        },
    )
    site = sites["torch.xpu.memory is not available"]
    assert body(site).solutions == (
        "Install a version (or build) of `torch` that provides `torch.xpu.memory`",
    )
    assert "bug" not in body(site).what_it_means  # what is installed, not pkg's state


# -- where a value comes from -------------------------------------------------------------

FLOW = """
from urllib.parse import urlsplit


def prepare(url):
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise InvalidURL(str(exc)) from exc
    scheme = parts.scheme
    if not scheme:
        raise ValueError(f"no scheme in {url!r}")
    return parts


def _resize(cache, size):
    if size < 0:
        raise ValueError(f"cannot resize to {size}")


def resize(cache, size):
    _resize(cache, size)


def grow(cache):
    _resize(cache, len(cache) * 2)


def _scale(factor):
    assert factor > 0, "the factor must be positive"


def scale(x):
    _scale(x * 2)


class InvalidURL(Exception):
    pass
"""


def test_a_private_functions_argument_is_traced_to_who_passes_it(tmp_path: Path) -> None:
    sites = explained(tmp_path, {"pkg/__init__.py": "", "pkg/flow.py": FLOW})
    resize = fixes(sites["cannot resize to "])
    assert [f.text for f in resize] == ["Set `size` to 0 or more (from your call `resize(size=…)`)"]
    # `grow` computes what it passes, `scale` too: not a user's value, so an assert on it
    # is the library's own invariant
    factor = body(sites["the factor must be positive"])
    assert factor.solutions[0].startswith("Report it to the tree maintainers")
    assert "`factor`" not in " ".join(factor.solutions)


def test_a_computed_variable_points_to_the_input_it_comes_from(tmp_path: Path) -> None:
    sites = explained(tmp_path, {"pkg/__init__.py": "", "pkg/flow.py": FLOW})
    scheme = body(sites["no scheme in "]).solutions
    assert scheme == (
        "Check the `url` you pass to `prepare`: what the check reads is computed from it",
    )
    assert all("`scheme`" not in s and "`parts`" not in s for s in scheme)
    wrapped = body(sites["prepare"]).solutions  # InvalidURL(str(exc)): no literal message
    assert wrapped == (
        "Check the `url` you pass to `prepare`: it is not a valid URL (the `ValueError` it"
        " handles, printed above this error in the traceback)",
    )


def test_an_unpacked_variable_shows_its_own_element(tmp_path: Path) -> None:
    code = """
    def matmul(input_tensor, other):
        m, n = input_tensor.shape
        if m > 4:
            raise ValueError(f"too many rows: {m}")
    """
    sites = explained(tmp_path, {"pkg/__init__.py": "", "pkg/mm.py": code})
    assert body(sites["too many rows: "]).solutions == (
        "Check the `input_tensor` you pass to `matmul`: what the check reads"
        " (`input_tensor.shape[0]`) is computed from it",
    )


def test_locals_keep_what_they_are_computed_from() -> None:
    site = only(
        index_snippet("""
        def get(self, url, proxies):
            proxy = select(url, proxies)
            proxy = prepend(proxy, "http")
            proxy_url = parse(proxy)
            if not proxy_url.host:
                raise ValueError("the proxy URL has no host")
    """)
    )
    by_expr = {i.expr: i for i in site.inputs}
    assert (by_expr["proxy_url"].kind, by_expr["proxy_url"].sources) == ("local", ("proxy",))
    # `proxy = prepend(proxy, ...)` reads its earlier value too
    assert by_expr["proxy"].sources == ("url", "proxies")
    assert by_expr["proxy"].default == 'prepend(proxy, "http")'


def test_dotted_reads_resolve_through_annotations_and_local_aliases(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/config.py": """
                from dataclasses import dataclass, field


                @dataclass
                class ParallelConfig:
                    size: int = 1


                @dataclass
                class VllmConfig:
                    parallel_config: ParallelConfig = field(default_factory=ParallelConfig)
            """,
            "pkg/run.py": """
                from pkg.config import VllmConfig


                class Runner:
                    def __init__(self, vllm_config: VllmConfig):
                        self.vllm_config = vllm_config

                    def check(self, vllm_config: VllmConfig):
                        parallel = vllm_config.parallel_config
                        if parallel.size > 8:
                            raise ValueError("at most 8 ranks")
                        if self.vllm_config.parallel_config.size < 1:
                            raise ValueError("at least one rank")
            """,
        },
    )
    most = {i.expr: i for i in sites["at most 8 ranks"].inputs}
    assert (most["parallel.size"].owner, most["parallel.size"].kind) == ("ParallelConfig", "field")
    least = {i.expr: i for i in sites["at least one rank"].inputs}
    assert least["self.vllm_config.parallel_config.size"].owner == "ParallelConfig"
    assert (
        body(sites["at most 8 ranks"])
        .solutions[0]
        .startswith("Set `parallel.size` to 8 or less (`ParallelConfig.size`, default 1)")
    )


def test_a_caller_that_passes_an_error_on_only_under_a_setting(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/parser.py": """
                class NoSuchOption(Exception):
                    pass


                class Context:
                    def __init__(self, ignore_unknown=False):
                        self.ignore_unknown = ignore_unknown


                class Parser:
                    def __init__(self, ctx: Context):
                        self.ctx = ctx
                        self.ignore_unknown = ctx.ignore_unknown
                        self._known = {}

                    def _match(self, opt):
                        if opt not in self._known:
                            raise NoSuchOption(f"no such option: {opt}")

                    def process(self, opt):
                        try:
                            self._match(opt)
                        except NoSuchOption:
                            if not self.ignore_unknown:
                                raise
            """,
        },
    )
    # `self.ignore_unknown = ctx.ignore_unknown`: the knob is Context's parameter
    assert body(sites["Parser.process"]).solutions == (
        "Give `ignore_unknown` a non-empty value, e.g. `Context(ignore_unknown=True)`",
    )
    assert body(sites["no such option: "]).solutions == (
        "Set `opt` to one of the values it knows (from your call `Parser.process(opt=…)`)",
        "Or, as `Parser.process` catches it: give `ignore_unknown` a non-empty value, e.g."
        " `Context(ignore_unknown=True)`, so that it does not pass it on",
    )


# -- the flag whose value picks a class by name ------------------------------------------

SELECTED = {
    "srv/__init__.py": "",
    "srv/config.py": """
        from dataclasses import dataclass


        @dataclass
        class ServeConfig:
            reasoning_parser: str = ""
            tokenizer_mode: str = "auto"
            comm_backend: str = "plain"
            backend: str = "a"
    """,
    "srv/args.py": """
        from srv.config import ServeConfig


        def get_kwargs(cls):
            return {}


        def add_cli_args(parser):
            kw = get_kwargs(ServeConfig)
            parser.add_argument("--reasoning-parser", **kw["reasoning_parser"])
            parser.add_argument("--tokenizer-mode", **kw["tokenizer_mode"])
            parser.add_argument("--comm-backend", **kw["comm_backend"])
            parser.add_argument("--backend", **kw["backend"])
    """,
    "srv/parsers/__init__.py": """
        _REASONING_PARSERS_TO_REGISTER = {
            "think": ("think_parser", "ThinkParser"),
            "plain": ("plain_parser", "PlainParser"),
            "json": ("json_parser", "JsonParser"),
        }
    """,
    "srv/parsers/think_parser.py": """
        class ReasoningParser:
            def __init__(self, tokenizer):
                self.vocab = tokenizer.vocab


        class ThinkParser(ReasoningParser):
            def __init__(self, tokenizer):
                super().__init__(tokenizer)
                if self.vocab.get("</think>") is None:
                    raise RuntimeError("could not locate the think end token")
    """,
    "srv/tokenizers.py": """
        _TOKENIZERS = {
            "hf": ("hf", "HfTokenizer"),
            "mistral": ("mistral", "MistralTokenizer"),
            "slow": ("hf", "HfTokenizer"),
        }


        class HfTokenizer:
            pass


        class MistralTokenizer:
            pass


        class Registry:
            def __init__(self):
                self.tokenizers = dict(_TOKENIZERS)

            def load(self, tokenizer_mode):
                if tokenizer_mode not in self.tokenizers:
                    raise ValueError(f"no tokenizer for {tokenizer_mode}")
                return self.tokenizers[tokenizer_mode]


        def is_mistral_tokenizer(obj):
            return type(obj).__name__ == "MistralTokenizer"
    """,
    "srv/scoring.py": """
        from srv.tokenizers import is_mistral_tokenizer


        class CrossEncoder:
            def __init__(self, tokenizer):
                self.tokenizer = tokenizer
                if is_mistral_tokenizer(self.tokenizer):
                    raise ValueError("MistralTokenizer not supported for cross-encoding")


        class NeedsMistral:
            def __init__(self, tokenizer):
                self.tokenizer = tokenizer
                if not is_mistral_tokenizer(self.tokenizer):
                    raise ValueError("this needs a MistralTokenizer")
    """,
    "srv/comm.py": """
        class PlainComm:
            pass


        import platform


        def _on_x3():
            return platform.machine() == "x3"


        class FastComm:
            def __init__(self):
                self._started = False

            def start(self):
                if not _on_x3():
                    raise NotImplementedError("fast comm only runs on x3")
                if self._started:
                    raise RuntimeError("fast comm was started twice")
                self._started = True


        class SlowComm:
            def start(self):
                if _on_x3():
                    raise NotImplementedError("slow comm does not run on x3")


        class Communicator:
            def __init__(self, config, arch):
                self.comm_backend = config.comm_backend
                self.backend = config.backend
                if self.comm_backend == "plain":
                    self.comm = PlainComm()
                elif self.comm_backend in ("fast", "fast_ll"):
                    self.comm = FastComm()
                if self.backend == "slow":
                    self.other = SlowComm()
                elif self.backend == "plain":
                    self.other = PlainComm()
    """,
}


def test_registry_and_branch_facts_of_one_file() -> None:
    code = """
_PARSERS = {"a": ("mod_a", "ParserA"), "b": "mod_b:ParserB", "c": ParserC, "d": 4}

@Manager.register_module("e")
class ParserE:
    pass

def load(name, other):
    return _PARSERS[name]

def build(cfg):
    if cfg.kind == "a":
        return ParserA()
    elif cfg.kind in ("b", "c"):
        raise ValueError("no")
"""
    assert facts(code) == [
        ("registered", ("a",), "ParserA", None),
        ("registered", ("b",), "ParserB", None),
        ("registered", ("c",), "ParserC", None),
        ("registered", ("e",), "ParserE", None),
        ("lookup-key", ("name",), None, None),
        ("choice", ("a",), "kind", None),  # the raise in the `elif` builds nothing
    ]
    # a small table of three values, one of them no class, is no registry
    assert facts('T = {"a": A, "b": 1, "c": 2}\n') == []


def test_a_class_a_registry_key_picks_names_the_flag_whose_words_name_the_registry(
    tmp_path: Path,
) -> None:
    site = explained(tmp_path, SELECTED)["could not locate the think end token"]
    [fix] = fixes(site)
    assert fix.kind == "input" and fix.knobs == ("--reasoning-parser",)
    assert fix.text == (
        "It is raised by `ThinkParser`, the class `--reasoning-parser think` selects: if that"
        " choice does not fit your setup, choose another `--reasoning-parser` (the code knows"
        " `plain`, `json`)"
    )


def test_a_class_a_check_refuses_is_picked_by_the_key_its_registry_is_looked_up_by(
    tmp_path: Path,
) -> None:
    site = explained(tmp_path, SELECTED)["MistralTokenizer not supported for cross-encoding"]
    [fix] = fixes(site)
    assert fix.knobs == ("--tokenizer-mode",)
    assert fix.text.startswith(
        "This check refuses `self.tokenizer` as a `MistralTokenizer`, the class"
        " `--tokenizer-mode mistral` selects: if that choice does not fit your setup, choose"
        " another `--tokenizer-mode`"
    )
    assert fix.text.endswith("(the code knows `hf`, `slow`)")
    # `not is_mistral_tokenizer(...)` refuses every other class: no value is claimed
    other = explained(tmp_path / "again", SELECTED)["this needs a MistralTokenizer"]
    assert not any("--tokenizer-mode" in s for s in body(other).solutions)


def test_a_class_a_branch_on_a_flags_value_builds_names_that_flag(tmp_path: Path) -> None:
    sites = explained(tmp_path, SELECTED)
    [fix] = fixes(sites["fast comm only runs on x3"])
    assert fix.knobs == ("--comm-backend",)
    assert fix.text.startswith(
        "It is raised by `FastComm`, the class `--comm-backend fast` or"
        " `--comm-backend fast_ll` selects"
    )
    assert fix.text.endswith("(the code knows `plain`)")
    # a check on the object's own private state is the class's invariant, whatever picked it
    twice = sites["fast comm was started twice"]
    assert not any("--comm-backend" in s for s in body(twice).solutions)
    # `--backend` is one word: too little to link a branch on, so no flag is guessed
    slow = sites["slow comm does not run on x3"]
    assert not any("--backend" in s for s in body(slow).solutions)
