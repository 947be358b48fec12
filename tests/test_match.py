# errdex match, in two parts. First a small package written here, two versions of it
# indexed into a real SQLite file: every shape people paste (bare, prefixed, wrapped in
# logs, tracebacks, chained, fragments, near misses) against templates with holes, no
# network. Then, marked `network`, real indexes of vllm, transformers, datasets and
# huggingface_hub from PyPI: the dev set of messages users really reported (with
# hand-verified raise sites, tests/data/) must come back at rank 1.
from __future__ import annotations

import dataclasses
import json
import random
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from errdex.cli.match import render_text
from errdex.codec import match_result_to_json
from errdex.errors import InputTooLarge
from errdex.index import index_source
from errdex.match import MAX_INPUT_BYTES, Match, Matcher, MatchResult
from errdex.model import ErrorSite, Hole, Record, Snapshot, Text
from errdex.store import SqliteStore, Store, open_store
from tests.conftest import indexed_store, write_tree

network = pytest.mark.network


def at(m: Match) -> tuple[str, int]:
    return (m.file, m.line)


def _traceback(frames: list[tuple[str, int, str]], tail: str) -> str:
    lines = ["Traceback (most recent call last):"]
    for path, line, func in frames:
        lines += [f'  File "{path}", line {line}, in {func}', "    do_something()", "    ^^^^"]
    return "\n".join([*lines, tail])


SP = "/venv/lib/python3.12/site-packages/"


# -- a package of our own, "shop", in two versions ------------------------------------

SHOP_ERRORS = '''\
class ShopError(Exception):
    """Base of the shop's errors."""


class OutOfStock(ShopError):
    """Fewer units are left than were asked for."""


class PaymentDeclined(ShopError, ValueError):
    """The card was refused."""
'''
SHOP_CART = """\
from shop.errors import OutOfStock, ShopError


class Cart:
    def __init__(self, stock):
        self.stock = stock
        self.items = {}

    def add(self, item, quantity):
        if quantity < 1:
            raise ValueError(f"quantity must be at least 1, got {quantity}.")
        if item not in self.stock:
            raise KeyError(f"unknown item: {item} (choose from {', '.join(self.stock)})")
        if self.stock[item] < quantity:
            raise OutOfStock(
                f"only {self.stock[item]} of {item!r} left in stock, "
                f"but {quantity} were asked for"
            )
        self.items[item] = quantity

    def remove(self, item):
        if item not in self.items:
            raise LookupError("the cart holds no such item")
        del self.items[item]


def fail(msg):
    raise ShopError(msg)


def set_currency(code):
    if len(code) != 3:
        raise ValueError("currency must be a three-letter code")


def set_display_currency(code):
    if len(code) != 3:
        raise ValueError("currency must be a three-letter code")


def open_warehouse(city, day):
    raise RuntimeError(f"the warehouse at {city} is closed on {day}s for maintenance")
"""
SHOP_CHECKOUT = """\
from shop.errors import PaymentDeclined


def checkout(cart):
    if not cart.items:
        raise RuntimeError(
            "Cannot check out an empty cart: add at least one item to it first, "
            "then try again."
        )


def pay(card, timeout):
    if timeout < 1:
        raise TimeoutError(f"timeout {timeout} is too short ")
    if card.declined:
        raise PaymentDeclined(f"card {card.number} was declined by {card.bank}")


def greet(first, last):
    if len(first) + len(last) > 40:
        raise ValueError(f"name {first} {last} is too long")
"""
OLD_QUANTITY = "quantity must be at least 1, got"
NEW_QUANTITY = "quantity must be 1 or more, got"


def shop_files(version: str) -> dict[str, str]:
    """shop 1.0, or 1.1: two lines more at the top of cart.py and one message reworded."""
    cart = SHOP_CART
    if version != "1.0":
        cart = '"""What a customer picked, checked against the stock."""\n\n' + cart.replace(
            OLD_QUANTITY, NEW_QUANTITY
        )
    return {
        "pyproject.toml": f'[project]\nname = "shop"\nversion = "{version}"\n',
        "shop/__init__.py": "",
        "shop/errors.py": SHOP_ERRORS,
        "shop/cart.py": cart,
        "shop/checkout.py": SHOP_CHECKOUT,
    }


def raise_line(version: str, path: str, needle: str, *, after: str = "") -> int:
    """The line of the `raise` statement whose text holds `needle` (the first one below
    the line holding `after`), read off the source."""
    lines = textwrap.dedent(shop_files(version)[path]).splitlines()
    start = next(i for i, line in enumerate(lines) if after in line)
    found = next(i for i in range(start, len(lines)) if needle in lines[i])
    return next(i + 1 for i in range(found, -1, -1) if lines[i].lstrip().startswith("raise"))


@pytest.fixture(scope="module")
def shop_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """shop 1.0 and 1.1, each a directory SOURCE, indexed into one real SQLite file."""
    root = tmp_path_factory.mktemp("shop")
    store = open_store(root / "errdex.sqlite")
    for version in ("1.0", "1.1"):
        tree = write_tree(root / version / "shop", shop_files(version))
        index_source(str(tree), store, use_cache=False)
    yield store
    store.close()


@pytest.fixture(scope="module")
def shop_records(shop_store: Store) -> list[Record]:
    return list(shop_store.iter_records(version="*"))


@pytest.fixture(scope="module")
def shop(shop_store: Store) -> Matcher:
    return Matcher(shop_store)


QUANTITY = ("shop/cart.py", raise_line("1.1", "shop/cart.py", NEW_QUANTITY))
CURRENCY = [
    ("shop/cart.py", raise_line("1.1", "shop/cart.py", "three-letter")),
    ("shop/cart.py", raise_line("1.1", "shop/cart.py", "three-letter", after="def set_display")),
]
WAREHOUSE = ("shop/cart.py", raise_line("1.1", "shop/cart.py", "the warehouse at"))
CHECKOUT = ("shop/checkout.py", raise_line("1.1", "shop/checkout.py", "Cannot check out"))
DECLINED = ("shop/checkout.py", raise_line("1.1", "shop/checkout.py", "was declined"))


def test_shop_is_indexed_from_its_sources(shop_store: Store, shop_records: list[Record]) -> None:
    assert [(s.package, s.version) for s in shop_store.snapshots()] == [
        ("shop", "1.0"),
        ("shop", "1.1"),
    ]
    # 12 raises in each version; all but the reworded one keep their id across versions
    assert len(shop_records) == 24 and len({r.id for r in shop_records}) == 13


def test_holes_are_filled_and_the_answer_is_the_contract(shop: Matcher) -> None:
    result = shop.match("ValueError: card 4242 was declined by Big Bank")
    top = result.matches[0]
    assert (top.package, top.version, top.file, top.line, top.function) == (
        "shop",
        "1.1",
        *DECLINED,
        "pay",
    )
    assert top.template == "card {card.number} was declined by {card.bank}"
    assert top.values == {"card.number": "4242", "card.bank": "Big Bank"}
    # PaymentDeclined is a ValueError, so the class the text shows agrees
    assert top.exact and top.exception_agrees is True and not top.ambiguous
    data = match_result_to_json(result)
    assert set(data) == {"query", "matches", "closest"}
    first = data["matches"][0]
    assert first["values"] == top.values and first["exact"] is True
    assert first["id"] == top.id and first["line"] == DECLINED[1]
    json.dumps(data)  # plain JSON all the way down
    text = render_text(result)
    assert f"shop/checkout.py:{DECLINED[1]} in pay" in text
    assert "{card.number=4242}" in text and "{card.bank=Big Bank}" in text
    assert f"errdex show {top.id}" in text


@pytest.mark.parametrize(
    "text",
    [
        "quantity must be 1 or more, got 0.",
        "ValueError: quantity must be 1 or more, got 0.",
        "builtins.ValueError: quantity must be 1 or more, got 0.",
        "  quantity must be 1 or more,\tgot 0.  \r\n",
        "\x1b[31mValueError\x1b[0m: \x1b[1mquantity must be 1 or more, got 0.\x1b[0m",
        "FAILED tests/test_cart.py::test_zero - ValueError: quantity must be 1 or more, got 0.",
        "> quantity must be 1 or more, got 0.",
        "2025-01-18 10:00:00,123 - ERROR - quantity must be 1 or more, got 0.",
        "quantity must be 1 or more, got 1234567890123456789012345678901234567890.",
        "quantity must be 1 or more, got {'a': [1, 2], 'b': 'got 3.'}.",
    ],
)
def test_message_shapes(shop: Matcher, text: str) -> None:
    top = shop.match(text).matches[0]
    assert at(top) == QUANTITY and top.version == "1.1"


def test_value_with_newlines_and_a_huge_value(shop: Matcher) -> None:
    value = "{'a': [1, 2], 'b': 'got 3.'}\nsecond line of the value"
    result = shop.match(f"quantity must be 1 or more, got {value}.")
    assert at(result.matches[0]) == QUANTITY
    assert result.matches[0].values == {"quantity": " ".join(value.split())}
    huge = "x" * 100_000
    assert at(shop.match(f"quantity must be 1 or more, got {huge}.").matches[0]) == QUANTITY


def test_exception_class_agrees_through_bases_or_is_noted(shop: Matcher) -> None:
    own = shop.match("PaymentDeclinedError: card 4242 was declined by Big Bank").matches[0]
    assert at(own) == DECLINED and own.exception_agrees is False
    other = shop.match("TypeError: card 4242 was declined by Big Bank").matches[0]
    assert at(other) == DECLINED and other.exception_agrees is False
    assert other.note and "the text shows TypeError" in other.note
    assert "PaymentDeclined" in other.note


def test_identical_messages_are_all_offered_as_ambiguous(shop: Matcher) -> None:
    result = shop.match("ValueError: currency must be a three-letter code")
    assert sorted(at(m) for m in result.matches) == CURRENCY
    assert all(m.ambiguous and m.exact for m in result.matches)
    assert {m.function for m in result.matches} == {"set_currency", "set_display_currency"}
    assert render_text(result).count("one of several identical messages") == 2


def test_keyerror_quotes_and_an_expression_hole(shop: Matcher) -> None:
    top = shop.match("KeyError: 'unknown item: pear (choose from apple, plum)'").matches[0]
    assert top.function == "Cart.add" and top.exception == "KeyError"
    assert top.values == {"item": "pear", "', '.join(self.stock)": "apple, plum"}


def test_rich_logging_records_unwrapped(shop: Matcher) -> None:
    """What rich's RichHandler prints, as it prints it: the message wrapped in a column
    beside the time and level, a word longer than the column cut mid-word, the path on
    the first row only, the next record's head right below."""
    import io
    import logging

    from rich.console import Console
    from rich.logging import RichHandler

    shown = io.StringIO()
    handler = RichHandler(console=Console(file=shown, width=80, color_system=None))
    log = logging.getLogger("errdex-test-rich")
    log.addHandler(handler)
    log.propagate = False
    try:
        item = "family_pack_of_forty_two_organic_apples_deluxe"  # longer than the column
        log.error("checkout failed: unknown item: %s (choose from apple, plum)", item)
        log.error("only 2 of 'apple' left in stock, but 5 were asked for")
        log.error("Shutting down.")
    finally:
        log.removeHandler(handler)
    text = shown.getvalue()
    assert item not in text and "   " in text  # it really was wrapped and cut

    lines = text.splitlines()
    cut = next(n for n, line in enumerate(lines) if "only 2" in line)  # the second head
    top = shop.match("\n".join(lines[:cut])).matches[0]
    assert top.function == "Cart.add" and top.exception == "KeyError"
    assert top.values["item"] == item
    top = shop.match("\n".join(lines[cut:])).matches[0]
    assert top.exception == "OutOfStock"
    assert top.values == {"self.stock[item]": "2", "item": "'apple'", "quantity": "5"}


def test_repr_hole_and_several_holes(shop: Matcher) -> None:
    top = shop.match("only 2 of 'apple' left in stock, but 5 were asked for").matches[0]
    assert top.exception == "OutOfStock" and top.exact
    assert top.values == {"self.stock[item]": "2", "item": "'apple'", "quantity": "5"}


def test_the_last_traceback_line_alone_names_a_class_of_any_name(shop: Matcher) -> None:
    text = "shop.errors.OutOfStock: only 2 of 'apple' left in stock, but 5 were asked for"
    top = shop.match(text).matches[0]
    assert top.exception == "OutOfStock" and top.exact and top.exception_agrees is True
    bare = shop.match(text.partition(": ")[2]).matches[0]
    assert bare.id == top.id and top.score >= bare.score  # the class shown only helps


def test_fragments_cut_at_either_end_or_elided(shop: Matcher) -> None:
    start_cut = shop.match("house at Berlin is closed on Mondays for maintenance").matches[0]
    assert at(start_cut) == WAREHOUSE and not start_cut.exact
    assert start_cut.values == {"city": "Berlin", "day": "Monday"}
    assert start_cut.note == "the text is only part of this message"
    end_cut = shop.match("the warehouse at Berlin is clo").matches[0]
    assert at(end_cut) == WAREHOUSE and end_cut.values == {"city": "Berlin"}
    middle = shop.match("out an empty cart: add at least one item to it first").matches[0]
    assert at(middle) == CHECKOUT and not middle.exact
    elided = shop.match("Cannot check out an empty cart: add at least one item...").matches[0]
    assert at(elided) == CHECKOUT and not elided.exact
    whole = shop.match(
        "Cannot check out an empty cart: add at least one item to it first, then try again."
    ).matches[0]
    assert at(whole) == CHECKOUT and whole.exact


CHECKOUT_MESSAGE = (
    "Cannot check out an empty cart: add at least one item to it first, then try again."
)


def test_rewrapped_message(shop: Matcher) -> None:
    # a terminal 21 columns wide breaks this message inside words only
    wrapped = "\n".join(CHECKOUT_MESSAGE[i : i + 21] for i in range(0, len(CHECKOUT_MESSAGE), 21))
    assert wrapped.count("\n") == 3
    assert at(shop.match("RuntimeError: " + wrapped).matches[0]) == CHECKOUT
    # a paragraph filled at spaces
    filled = textwrap.fill("RuntimeError: " + CHECKOUT_MESSAGE, 30)
    assert filled.count("\n") == 3
    assert at(shop.match(filled).matches[0]) == CHECKOUT


@pytest.mark.xfail(
    strict=True,
    reason="lines are stripped before they are joined, so a wrap that breaks both inside "
    "words and just after spaces ('...to it ' / 'first, then try agai' / 'n.') is tried "
    "only with every break a space or every break glued, and neither fits",
)
def test_rewrapped_message_broken_inside_words_and_after_spaces(shop: Matcher) -> None:
    wrapped = "\n".join(CHECKOUT_MESSAGE[i : i + 20] for i in range(0, len(CHECKOUT_MESSAGE), 20))
    assert at(shop.match("RuntimeError: " + wrapped).matches[0]) == CHECKOUT


def test_whitespace_at_the_edges_of_literals(shop: Matcher) -> None:
    # the template ends in a space the paste has lost
    timeout = shop.match("TimeoutError: timeout 0 is too short").matches[0]
    assert timeout.function == "pay" and timeout.exact and timeout.values == {"timeout": "0"}
    # an empty value between two spaces: the text shows only one of them
    name = shop.match("name Ada  is too long").matches[0]
    assert name.function == "greet" and name.exact
    assert name.values == {"first": "Ada", "last": ""}


def test_a_short_fragment_is_only_a_near_miss(shop: Matcher) -> None:
    result = shop.match("empty cart")
    assert not result.matches
    assert result.note == "no match; the closest near misses are listed"
    assert [at(m) for m in result.closest] == [CHECKOUT]
    assert result.closest[0].label == "only part of the template fits (10 of 82 literal characters)"


def test_closest_near_misses_say_why_they_are_only_close(shop: Matcher) -> None:
    text = (
        "the warehouse at Berlin is open again on Mondays, the manager of our shop said "
        "to us on the phone yesterday"
    )
    result = shop.match(text)
    assert not result.matches and [at(m) for m in result.closest] == [WAREHOUSE]
    assert result.closest[0].label == "only part of the template fits (17 of 48 literal characters)"
    data = match_result_to_json(result)
    assert data["matches"] == [] and data["closest"][0]["label"] == result.closest[0].label
    assert data["note"] == result.note
    rendered = render_text(result)
    assert rendered.startswith("no match; the closest near misses are listed")
    assert "closest (not answers):" in rendered and "17 of 48 literal characters" in rendered


# -- tracebacks


def test_traceback_points_at_the_raise(shop: Matcher) -> None:
    text = _traceback(
        [(SP + "app/main.py", 3, "<module>"), (SP + "shop/checkout.py", DECLINED[1], "pay")],
        "shop.errors.PaymentDeclined: card 4242 was declined by Big Bank",
    )
    top = shop.match(text).matches[0]
    assert at(top) == DECLINED and top.exact and top.version_inferred is None
    assert top.note == f"the traceback's last frame is this raise (shop/checkout.py:{DECLINED[1]})"


def test_chained_traceback_answers_the_last_exception(shop: Matcher) -> None:
    first = _traceback(
        [(SP + "shop/cart.py", 9, "__init__")],
        "KeyError: 'nothing here matches anything at all'",
    )
    second = _traceback(
        [(SP + "shop/checkout.py", DECLINED[1], "pay")],
        "shop.errors.PaymentDeclined: card 4242 was declined by Big Bank",
    )
    for marker in (
        "During handling of the above exception, another exception occurred:",
        "The above exception was the direct cause of the following exception:",
    ):
        text = f"{first}\n\n{marker}\n\n{second}\n"
        assert at(shop.match(text).matches[0]) == DECLINED
    # the other way round, the last one is still the answer
    quantity = _traceback(
        [(SP + "shop/cart.py", QUANTITY[1], "add")],
        "ValueError: quantity must be 1 or more, got 0.",
    )
    text = f"{second}\n\nDuring handling of the above exception, another exception occurred:\n\n"
    assert at(shop.match(text + quantity).matches[0]) == QUANTITY


def test_log_prefixed_crlf_ansi_traceback(shop: Matcher) -> None:
    body = _traceback(
        [(SP + "shop/checkout.py", DECLINED[1], "pay")],
        "shop.errors.PaymentDeclined: card 4242 was declined by Big Bank",
    )
    prefix = "(APIServer pid=123) \x1b[1;31mERROR\x1b[0m 11-29 10:00:00 [core.py:123] "
    text = "\r\n".join(prefix + line for line in body.splitlines())
    text += "\r\n(APIServer pid=123) INFO 11-29 10:00:01 [core.py:9] Shutting down."
    top = shop.match(text).matches[0]
    assert at(top) == DECLINED and top.exact
    assert top.values == {"card.number": "4242", "card.bank": "Big Bank"}
    ranked = "\n".join(f"[rank4]: {line}" for line in body.splitlines())
    assert at(shop.match(ranked).matches[0]) == DECLINED


def test_exception_group_and_rich_traceback(shop: Matcher) -> None:
    group = "\n".join(
        [
            "  + Exception Group Traceback (most recent call last):",
            '  |   File "/app/main.py", line 3, in <module>',
            "  |     run()",
            "  | ExceptionGroup: errors (1 sub-exception)",
            "  +-+---------------- 1 ----------------",
            "    | Traceback (most recent call last):",
            f'    |   File "{SP}shop/cart.py", line {QUANTITY[1]}, in add',
            "    |     raise ValueError(",
            "    | ValueError: quantity must be 1 or more, got 0.",
            "    +------------------------------------",
        ]
    )
    assert at(shop.match(group).matches[0]) == QUANTITY
    rich = "\n".join(
        [
            "╭───────────────────── Traceback (most recent call last) ─────────────────────╮",
            f"│ {SP}shop/cart.py:{QUANTITY[1]} in add                              │",
            "│                                                                              │",
            f"│ ❱ {QUANTITY[1]} │   │   │   raise ValueError(                                    │",
            "╰──────────────────────────────────────────────────────────────────────────────╯",
            "ValueError: quantity must be 1 or more, got 0.",
        ]
    )
    assert at(shop.match(rich).matches[0]) == QUANTITY


def test_last_frame_picks_a_site_whose_message_is_all_hole(shop: Matcher) -> None:
    line = raise_line("1.1", "shop/cart.py", "raise ShopError(msg)")
    text = _traceback(
        [(SP + "shop/cart.py", line, "fail")],
        "shop.errors.ShopError: something only this process knew",
    )
    top = shop.match(text).matches[0]
    assert (top.function, top.line, top.template) == ("fail", line, "{msg}")
    assert top.values == {"msg": "something only this process knew"}
    assert top.note and "last frame" in top.note
    # without its message line, the traceback still names the raise
    bare = shop.match(text.rsplit("\n", 1)[0]).matches[0]
    assert (bare.function, bare.line, bare.values, bare.exact) == ("fail", line, {}, False)


def test_last_frame_on_a_raise_whose_message_does_not_fit_is_a_near_miss(
    shop: Matcher,
) -> None:
    timeout = raise_line("1.1", "shop/checkout.py", "is too short")
    text = _traceback(
        [(SP + "shop/checkout.py", timeout, "pay")], "TimeoutError: the moon is made of cheese"
    )
    result = shop.match(text)
    assert not result.matches
    labels = {m.function + ":" + str(m.line): m.label for m in result.closest}
    assert labels[f"pay:{timeout}"] == (
        f"the traceback's last frame is this raise (shop/checkout.py:{timeout}), "
        "but the message does not fit its template"
    )
    assert labels[f"pay:{DECLINED[1]}"] == (
        "raised in the function of the traceback's last frame, "
        "but the message does not fit its template"
    )


def test_line_number_trap_keeps_the_message_site(shop: Matcher) -> None:
    # the frame's line is another raise of the same function: the message decides
    text = _traceback(
        [(SP + "shop/cart.py", raise_line("1.1", "shop/cart.py", "unknown item"), "add")],
        "ValueError: quantity must be 1 or more, got 0.",
    )
    top = shop.match(text).matches[0]
    assert at(top) == QUANTITY
    assert top.note == "raised in the function of the traceback's last frame"


def test_version_inferred_from_the_frame_line(shop: Matcher) -> None:
    old_line = raise_line("1.0", "shop/cart.py", OLD_QUANTITY)
    assert old_line == QUANTITY[1] - 2  # 1.1 put two lines above it
    old = shop.match(
        _traceback(
            [(SP + "shop/cart.py", old_line, "add")],
            "ValueError: quantity must be at least 1, got 0.",
        )
    )
    top = old.matches[0]
    assert (top.version, top.line, top.version_inferred) == ("1.0", old_line, "1.0")
    assert top.values == {"quantity": "0"}
    assert "you probably run shop 1.0" in render_text(old)
    # a site unchanged between the versions: one id, and the frame's line picks the version
    removal = raise_line("1.0", "shop/cart.py", "no such item")
    seen = shop.match(
        _traceback(
            [(SP + "shop/cart.py", removal, "remove")], "LookupError: the cart holds no such item"
        )
    ).matches[0]
    assert (seen.version, seen.line, seen.version_inferred) == ("1.0", removal, "1.0")
    newest = shop.match("LookupError: the cart holds no such item").matches[0]
    assert (newest.id, newest.version, newest.line) == (seen.id, "1.1", removal + 2)
    assert newest.version_inferred is None


RAISE_IN_SHOP_1_0 = """
import sys, traceback
from rich.console import Console
from rich.traceback import Traceback
from shop.cart import Cart
try:
    Cart({}).remove("apple")
except LookupError as exc:
    if sys.argv[1] == "rich":
        Console(file=sys.stdout, width=100, color_system=None).print(Traceback.from_exception(
            type(exc), exc, exc.__traceback__))
    else:
        print("".join(traceback.format_exception(exc)), end="")
"""


@pytest.mark.parametrize("drawn", ["plain", "rich"])
def test_the_frame_picks_the_version_in_a_rich_traceback_too(
    shop_store: Store, tmp_path: Path, drawn: str
) -> None:
    """shop 1.0 raises (its code run from a site-packages of its own), its traceback is
    printed plain or drawn by rich, and `errdex match -` reads it: the frame's line is
    1.0's, so the answer is 1.0's, as the plain traceback's is."""
    import os
    import subprocess
    import sys

    site = tmp_path / "venv" / "lib" / "python3.12" / "site-packages"
    write_tree(site, {k: v for k, v in shop_files("1.0").items() if k.startswith("shop/")})
    env = {**os.environ, "PYTHONPATH": str(site), "NO_COLOR": "1"}
    shown = subprocess.run(
        [sys.executable, "-c", RAISE_IN_SHOP_1_0, drawn],
        capture_output=True, text=True, env=env, timeout=60, check=True,
    ).stdout  # fmt: skip
    assert ("╭" in shown) == (drawn == "rich")
    assert isinstance(shop_store, SqliteStore)
    done = subprocess.run(
        [sys.executable, "-m", "errdex", "match", "-", "--json", "--db", str(shop_store.path)],
        input=shown, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    top = json.loads(done.stdout)["matches"][0]
    removal = raise_line("1.0", "shop/cart.py", "no such item")
    assert (top["version"], top["line"], top.get("version_inferred")) == ("1.0", removal, "1.0")


def test_package_and_version_filters(shop: Matcher) -> None:
    text = "quantity must be 1 or more, got 0."
    assert shop.match(text, package="shop").matches
    assert not shop.match(text, package="vllm").matches
    assert shop.match(text, package="shop==1.1").matches
    assert not shop.match(text, package="shop==1.0").matches  # 1.0 worded it otherwise
    assert shop.match("quantity must be at least 1, got 0.", package="shop==1.0").matches
    assert not shop.match(text, version="9.9").matches


# -- bad input: a clear answer, never a traceback of ours, never a hang


def test_empty_input(shop: Matcher) -> None:
    for text in ("", "   \n\t  ", b""):
        result = shop.match(text)
        assert not result.matches and result.note and "empty" in result.note


def test_input_over_the_cap(shop: Matcher) -> None:
    with pytest.raises(InputTooLarge, match="KiB cap"):
        shop.match("x" * (MAX_INPUT_BYTES + 1))
    with pytest.raises(InputTooLarge):
        shop.match("é" * (MAX_INPUT_BYTES // 2 + 1))  # characters under, bytes over
    with pytest.raises(InputTooLarge):
        shop.match(b"y" * (MAX_INPUT_BYTES + 1))


def test_binary_and_undecodable_input(shop: Matcher) -> None:
    rng = random.Random(3)
    noise = bytes(rng.randrange(256) for _ in range(5000))
    result = shop.match(noise)
    assert not result.matches and result.note and "UTF-8" in result.note
    result = shop.match("\x00\x01\x02ELF\x00\x00" * 50)
    assert not result.matches and result.note and "binary" in result.note
    assert at(shop.match(b"quantity must be 1 or more, got 0.").matches[0]) == QUANTITY


def test_traceback_without_a_message(shop: Matcher) -> None:
    text = _traceback([("/app/main.py", 3, "<module>"), ("/app/lib.py", 9, "f")], "")
    result = shop.match(text)
    assert not result.matches and result.note and "no exception message" in result.note


def test_text_matching_nothing(shop: Matcher) -> None:
    result = shop.match("zqxj vvmph kkrrw: the frobnicator refused to wibble")
    assert not result.matches and result.note and result.note.startswith("no match")
    assert render_text(result).startswith("no match")


# -- property: any shop template rendered with plausible values comes back first


def _lits(rec: Record) -> tuple[str, ...]:
    """The literal parts of a record's template, whitespace-normalized (holes split them)."""
    assert rec.site.message is not None
    out: list[str] = []
    buf: list[str] = []
    for part in rec.site.message.parts:
        if isinstance(part, Hole):
            out.append(_squash("".join(buf)))
            buf = []
        else:
            buf.append(part.text)
    out.append(_squash("".join(buf)))
    return tuple(out)


def _squash(text: str) -> str:
    return " ".join(text.split())


def rank_one_or_tie(result: MatchResult, rec: Record, by_id: dict[str, Record]) -> bool:
    """The site is first, or shares the first answer's template (identical messages)."""
    if not result.matches:
        return False
    top = result.matches[0]
    if top.id == rec.id:
        return True
    ids = {m.id for m in result.matches}
    return rec.id in ids and _lits(by_id[top.id]) == _lits(rec)


def render(rec: Record, data: st.DataObject, values: st.SearchStrategy[str]) -> str:
    """The message `rec` raises with values drawn for its holes, maybe after its class."""
    assert rec.site.message is not None
    parts = []
    for part in rec.site.message.parts:
        if isinstance(part, Hole):
            value = data.draw(values)
            parts.append(repr(value) if part.conversion == "r" else value)
        else:
            assert isinstance(part, Text)
            parts.append(part.text)
    text = "".join(parts)
    if data.draw(st.booleans()):
        text = f"{rec.site.exception.name.rsplit('.', 1)[-1]}: {text}"
    return text


_values = st.one_of(
    st.integers(-(10**12), 10**12).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(str),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_./-]{0,30}", fullmatch=True),
    st.lists(st.from_regex(r"[a-z0-9_]{1,8}", fullmatch=True), max_size=6).map(repr),
    st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True), st.integers(), max_size=4).map(
        repr
    ),
    st.sampled_from(["None", "True", "torch.float16", "cuda:0", "Qwen/Qwen2.5-7B-Instruct"]),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_rendered_shop_templates_come_back_first(
    shop: Matcher, shop_records: list[Record], data: st.DataObject
) -> None:
    templates = [
        r for r in shop_records if r.site.message is not None and sum(map(len, _lits(r))) >= 10
    ]
    rec = data.draw(st.sampled_from(templates))
    text = render(rec, data, _values)
    result = shop.match(text, limit=50)
    by_id = {r.id: r for r in shop_records}
    assert rank_one_or_tie(result, rec, by_id), (
        text,
        [(at(m), m.template) for m in result.matches],
    )


# -- real packages from PyPI: the dev set of messages users reported -----------------

# Messages users reported, with the raise sites verified by hand (see tests/data/README.md).
DEV_SET = Path(__file__).parent / "data" / "dev_messages.jsonl"
PACKAGES = {
    "vllm": "0.28.0",
    "transformers": "5.24.0",
    "datasets": "5.2.0",
    "huggingface_hub": "2.4.0",
}
# Dev cases we cannot match yet, and why.
KNOWN_GAPS = {
    "dev-hub-005": "huggingface_hub's `_format` inserts ' (Request ID: ...)' inside the literal "
    "'Client Error.\\n\\nCannot access gated repo' and appends the server's text: the "
    "aligner accepts text only in holes and at the ends, not inside a literal part",
}


@pytest.fixture(scope="session")
def dev_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """The four dev-set packages, indexed into one SQLite file."""
    path = tmp_path_factory.mktemp("match") / "errdex.sqlite"
    store = indexed_store(path, *(f"pypi:{name}=={version}" for name, version in PACKAGES.items()))
    yield store
    store.close()


@pytest.fixture(scope="session")
def records(dev_store: Store) -> list[Record]:
    return list(dev_store.iter_records(version="*"))


@pytest.fixture(scope="session")
def matcher(dev_store: Store) -> Matcher:
    return Matcher(dev_store)


def _dev_cases() -> list[dict[str, Any]]:
    return [json.loads(line) for line in DEV_SET.read_text().splitlines() if line.strip()]


def _dev_params() -> list[Any]:
    params = []
    for case in _dev_cases():
        marks = [network]
        if case["id"] in KNOWN_GAPS:
            marks.append(pytest.mark.xfail(reason=KNOWN_GAPS[case["id"]], strict=True))
        params.append(pytest.param(case, "message", id=f"{case['id']}-message", marks=marks))
        if "traceback" in case:
            params.append(
                pytest.param(case, "traceback", id=f"{case['id']}-traceback", marks=marks)
            )
    return params


def dev_query(case: dict[str, Any], form: str) -> str:
    """The text a user pastes: the message as reported, or the traceback (completed with
    the message line when the stored excerpt stops before it)."""
    if form == "message":
        return str(case["message"])
    tb = str(case["traceback"])
    if _squash(case["message"])[:40] not in _squash(tb):
        tb += f"\n{case['exception']}: {case['message']}"
    return tb


def test_the_dev_set_is_in_the_repository() -> None:
    cases = _dev_cases()
    assert len(cases) == 42 and sum(len(c["truth"]) for c in cases) == 49
    assert {c["package"]: c["version"] for c in cases} == PACKAGES


@pytest.mark.parametrize(("case", "form"), _dev_params())
def test_dev_set(matcher: Matcher, case: dict[str, Any], form: str) -> None:
    result = matcher.match(dev_query(case, form))
    truth = {(t["file"], t["line"]) for t in case["truth"]}
    assert result.matches, result.note
    top = result.matches[0]
    assert at(top) in truth, [(at(m), m.template) for m in result.matches[:3]]
    assert top.package.replace("-", "_") == case["package"]
    if case["ambiguous"] and form == "message":
        found = {at(m) for m in result.matches if m.ambiguous}
        assert truth <= found


@network
def test_values_and_json_contract(matcher: Matcher) -> None:
    result = matcher.match("ValueError: Unknown split \"validation\". Should be one of ['train'].")
    top = result.matches[0]
    assert (top.file, top.line, top.function) == (
        "src/datasets/arrow_reader.py",
        437,
        "_rel_to_abs_instr",
    )
    assert top.values == {"split": "validation", "list(name2len)": "['train']"}
    assert top.exact and top.exception_agrees is True
    data = match_result_to_json(result)
    assert set(data) == {"query", "matches", "closest"}
    first = data["matches"][0]
    for key in ("id", "package", "version", "file", "line", "function", "exception", "score"):
        assert key in first
    assert first["values"] == top.values and first["exact"] is True
    assert first["ambiguous"] is False and first["exception_agrees"] is True
    json.dumps(data)  # plain JSON all the way down
    text = render_text(result)
    assert "src/datasets/arrow_reader.py:437" in text and f"errdex show {top.id}" in text
    assert "{split=validation}" in text


MAX_TOKENS = ("vllm/sampling_params.py", 593)


@network
@pytest.mark.parametrize(
    "text",
    [
        "max_tokens must be at least 1, got 0.",
        "ValueError: max_tokens must be at least 1, got 0.",
        "vllm.exceptions.VLLMValidationError: max_tokens must be at least 1, got 0.",
        "  max_tokens must be at least 1, got 0.  \r\n",
        "\x1b[31mValueError\x1b[0m: \x1b[1mmax_tokens must be at least 1, got 0.\x1b[0m",
        "FAILED tests/test_sampling.py::test_zero - ValueError: max_tokens must be at least 1,"
        " got 0.",
        "> max_tokens must be at least 1, got 0.",
        "max_tokens must be at least 1, got 1234567890123456789012345678901234567890.",
    ],
)
def test_vllm_message_shapes(matcher: Matcher, text: str) -> None:
    top = matcher.match(text).matches[0]
    assert at(top) == MAX_TOKENS


@network
def test_qualified_class_agrees_and_other_class_is_noted(matcher: Matcher) -> None:
    top = matcher.match(
        "vllm.exceptions.VLLMValidationError: max_tokens must be at least 1, got 0."
    )
    assert top.matches[0].exception_agrees is True
    other = matcher.match("ValueError: max_tokens must be at least 1, got 0.").matches[0]
    assert other.exception_agrees is False and other.note and "VLLMValidationError" in other.note


@network
def test_vllm_chained_traceback_answers_the_last_exception(matcher: Matcher) -> None:
    first = _traceback(
        [(SP + "datasets/load.py", 10, "load")],
        "KeyError: 'nothing here matches anything at all'",
    )
    second = _traceback(
        [(SP + "vllm/sampling_params.py", 406, "_verify_args")],
        "ValueError: max_tokens must be at least 1, got 0.",
    )
    for marker in (
        "During handling of the above exception, another exception occurred:",
        "The above exception was the direct cause of the following exception:",
    ):
        text = f"{first}\n\n{marker}\n\n{second}\n"
        assert at(matcher.match(text).matches[0]) == MAX_TOKENS


@network
def test_vllm_log_prefixed_crlf_ansi_traceback(matcher: Matcher) -> None:
    body = _traceback(
        [
            (SP + "vllm/engine/arg_utils.py", 1, "create"),
            (SP + "vllm/sampling_params.py", 406, "f"),
        ],
        "ValueError: max_tokens must be at least 1, got 0.",
    )
    prefix = "(APIServer pid=123) \x1b[1;31mERROR\x1b[0m 11-29 10:00:00 [core.py:123] "
    text = "\r\n".join(prefix + line for line in body.splitlines())
    text += "\r\n(APIServer pid=123) INFO 11-29 10:00:01 [core.py:9] Shutting down."
    top = matcher.match(text).matches[0]
    assert at(top) == MAX_TOKENS and top.exact
    ranked = "\n".join(f"[rank4]: {line}" for line in body.splitlines())
    assert at(matcher.match(ranked).matches[0]) == MAX_TOKENS


@network
def test_vllm_exception_group(matcher: Matcher) -> None:
    text = "\n".join(
        [
            "  + Exception Group Traceback (most recent call last):",
            '  |   File "/app/main.py", line 3, in <module>',
            "  |     run()",
            "  | ExceptionGroup: errors (1 sub-exception)",
            "  +-+---------------- 1 ----------------",
            "    | Traceback (most recent call last):",
            f'    |   File "{SP}vllm/sampling_params.py", line 406, in _verify_args',
            "    |     raise ValueError(",
            "    | ValueError: max_tokens must be at least 1, got 0.",
            "    +------------------------------------",
        ]
    )
    assert at(matcher.match(text).matches[0]) == MAX_TOKENS


@network
def test_vllm_rich_traceback(matcher: Matcher) -> None:
    text = "\n".join(
        [
            "╭───────────────────── Traceback (most recent call last) ─────────────────────╮",
            f"│ {SP}vllm/sampling_params.py:406 in _verify_args                  │",
            "│                                                                              │",
            "│   405 │   │   if self.max_tokens < 1:                                        │",
            "│ ❱ 406 │   │   │   raise ValueError(                                          │",
            "╰──────────────────────────────────────────────────────────────────────────────╯",
            "ValueError: max_tokens must be at least 1, got 0.",
        ]
    )
    assert at(matcher.match(text).matches[0]) == MAX_TOKENS


@network
def test_vllm_terminal_rewrapped_message(matcher: Matcher) -> None:
    message = (
        "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` "
        "when initializing the engine (this flag also controls CPU memory reservation on the "
        "CPU backend, despite its name). See https://docs.vllm.ai/en/latest/configuration/"
        "conserving_memory/ for more details."
    )
    wrapped = "\n".join(message[i : i + 80] for i in range(0, len(message), 80))
    top = matcher.match("ValueError: " + wrapped).matches[0]
    assert at(top) == ("vllm/v1/core/kv_cache_utils.py", 738)


@network
def test_vllm_fragment_and_elision(matcher: Matcher) -> None:
    cut = matcher.match("No available memory for the cache blocks. Try increasing `gpu_mem")
    assert at(cut.matches[0]) == ("vllm/v1/core/kv_cache_utils.py", 738)
    assert not cut.matches[0].exact
    middle = matcher.match("for the cache blocks. Try increasing `gpu_memory_utilization` when")
    assert at(middle.matches[0]) == ("vllm/v1/core/kv_cache_utils.py", 738)


@network
def test_vllm_values_with_template_text_newlines_and_reprs(matcher: Matcher) -> None:
    value = "{'a': [1, 2], 'b': 'got 3.'}\nsecond line of the value"
    result = matcher.match(f"max_tokens must be at least 1, got {value}.")
    assert at(result.matches[0]) == MAX_TOKENS
    assert result.matches[0].values["self.max_tokens"] == " ".join(value.split())
    huge = "x" * 100_000
    assert at(matcher.match(f"max_tokens must be at least 1, got {huge}.").matches[0]) == MAX_TOKENS


@network
def test_vllm_keyerror_quotes(matcher: Matcher) -> None:
    text = "KeyError: 'invalid tool call parser: openai (chose from { a,b })'"
    top = matcher.match(text).matches[0]
    assert at(top) == ("vllm/entrypoints/openai/api_server.py", 580)
    assert top.values["args.tool_call_parser"] == "openai"


@network
def test_vllm_package_filter(matcher: Matcher) -> None:
    text = "Column name input_col not in the dataset. Current columns in the dataset: []"
    assert matcher.match(text, package="datasets").matches
    assert not matcher.match(text, package="vllm").matches
    assert matcher.match(text, package="datasets==5.2.0").matches
    assert not matcher.match(text, package="datasets==0.0.1").matches
    assert not matcher.match(text, version="9.9").matches


@network
def test_vllm_line_number_trap_keeps_the_message_site(matcher: Matcher) -> None:
    text = _traceback(
        [(SP + "vllm/v1/core/kv_cache_utils.py", 758, "_check_enough_kv_cache_memory")],
        "ValueError: No available memory for the cache blocks. Try increasing "
        "`gpu_memory_utilization` when initializing the engine",
    )
    result = matcher.match(text)
    assert at(result.matches[0]) == ("vllm/v1/core/kv_cache_utils.py", 738)


def _generic_site(records: list[Record]) -> Record:
    """A vllm raise whose whole message is one variable known only at run time
    (`raise RuntimeError(err_msg)` of another exception's text)."""
    for rec in records:
        msg = rec.site.message
        if (
            rec.package == "vllm"
            and msg is not None
            and rec.site.exception.name == "RuntimeError"
            and [p.expr if isinstance(p, Hole) else None for p in msg.parts] == ["err_msg"]
        ):
            return rec
    raise AssertionError("no `raise RuntimeError(err_msg)` site in vllm")


@network
def test_vllm_traceback_frame_picks_a_generic_site(matcher: Matcher, records: list[Record]) -> None:
    rec = _generic_site(records)
    loc = rec.site.location
    text = _traceback(
        [(SP + loc.file, loc.line, loc.function.rsplit(".", 1)[-1])],
        f"{rec.site.exception.name.rsplit('.', 1)[-1]}: something only this process knew",
    )
    top = matcher.match(text).matches[0]
    assert (top.id, at(top)) == (rec.id, (loc.file, loc.line))
    assert top.note and "last frame" in top.note
    assert top.values == {"err_msg": "something only this process knew"}


def _older(records: list[Record], shift: int) -> list[ErrorSite]:
    """The vllm sites again as of an older release whose lines sit `shift` lower, with one
    message worded differently (a new id in the newer release)."""
    out = []
    for rec in records:
        if rec.package != "vllm":
            continue
        site = rec.site
        loc = site.location
        site = dataclasses.replace(site, location=dataclasses.replace(loc, line=loc.line - shift))
        if (loc.file, loc.line) == MAX_TOKENS:
            assert site.message is not None
            first = Text(text="max_tokens must be >= 1, got ")
            assert isinstance(site.message.parts[0], Text)
            message = dataclasses.replace(site.message, parts=(first, *site.message.parts[1:]))
            site = dataclasses.replace(site, id="0ld0ld0ld0ld0ld0", message=message)
        out.append(site)
    return out


@network
def test_vllm_version_inferred_from_frame_line(records: list[Record], tmp_path: Path) -> None:
    # vllm 0.28.0 as indexed, and a made-up "0.27.0" of the same sites moved, in one store
    store = open_store(tmp_path / "errdex.sqlite")
    vllm = [r.site for r in records if r.package == "vllm"]
    for version, sites in (("0.27.0", _older(records, 7)), ("0.28.0", vllm)):
        snapshot = Snapshot(package="vllm", version=version, root=tmp_path, source="vllm")
        store.write_snapshot(snapshot, sites, files=0, skipped=(), tree_hash=version, extractor="")
    matcher = Matcher(store)
    line = MAX_TOKENS[1] - 7
    text = _traceback(
        [(SP + "vllm/sampling_params.py", line, "_verify_args")],
        "ValueError: max_tokens must be >= 1, got 0.",
    )
    top = matcher.match(text).matches[0]
    assert (top.version, top.line, top.version_inferred) == ("0.27.0", line, "0.27.0")
    assert top.values == {"self.max_tokens": "0"}
    # The same site, unchanged between versions: one id, and the frame picks the version.
    site = matcher.match(
        _traceback(
            [(SP + "vllm/v1/core/kv_cache_utils.py", 738 - 7, "_check_enough_kv_cache_memory")],
            "ValueError: No available memory for the cache blocks.",
        )
    ).matches[0]
    assert (site.version, site.line, site.version_inferred) == ("0.27.0", 731, "0.27.0")
    newest = matcher.match("No available memory for the cache blocks. Try increasing").matches
    assert [(m.version, m.line) for m in newest[:1]] == [("0.28.0", 738)]
    assert newest[0].version_inferred is None


@network
def test_large_pathological_input_is_fast(matcher: Matcher) -> None:
    texts = [
        "a" * (MAX_INPUT_BYTES - 10),
        "must be " * (MAX_INPUT_BYTES // 9),
        ('File "x", line 1, in f\n' * (MAX_INPUT_BYTES // 24)),
        "(((([[[[{{{{" * (MAX_INPUT_BYTES // 13),
        "ValueError: " * (MAX_INPUT_BYTES // 13),
    ]
    for text in texts:
        result = matcher.match(text)
        assert not result.matches  # none of these is an error message of vllm


@network
@pytest.mark.xfail(
    strict=True,
    reason="a template whose literal words are all common (vllm/compilation/backends.py:195, "
    "'Expected {} but got {} for {}') is not among the text candidates once numeric values "
    "fill its holes: the rare keys picked are the values, not its words",
)
def test_vllm_template_of_common_words_with_numeric_values(matcher: Matcher) -> None:
    result = matcher.match("Expected 0 but got 0.0 for 1.0")
    assert result.matches and at(result.matches[0]) == ("vllm/compilation/backends.py", 195)


# -- property: any vllm template rendered with plausible values comes back at rank 1


@pytest.fixture(scope="session")
def vllm_templates(records: list[Record]) -> list[Record]:
    return [
        r
        for r in records
        if r.package == "vllm" and r.site.message is not None and sum(map(len, _lits(r))) >= 10
    ]


# Derandomized: the same examples every run, so the suite passes or fails the same way
# on every machine (a random search once found the gap marked xfail above).
@network
@settings(
    max_examples=400,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=st.data())
def test_rendered_templates_come_back_first(
    matcher: Matcher,
    records: list[Record],
    vllm_templates: list[Record],
    data: st.DataObject,
) -> None:
    rec = data.draw(st.sampled_from(vllm_templates))
    text = render(rec, data, _values)
    by_id = {r.id: r for r in records}
    result = matcher.match(text, limit=500)
    assert rank_one_or_tie(result, rec, by_id), (
        text,
        rec.site.location,
        [(at(m), m.template) for m in result.matches[:3]],
    )


def test_the_text_answer_marks_holes_with_a_conversion_or_spec(tmp_path: Path) -> None:
    write_tree(
        tmp_path / "pkg",
        {
            "pkg/__init__.py": """
                def check(item, ratio):
                    raise ValueError(f"refused item {item!r} at a ratio of {ratio:.2f} here")
                """
        },
    )
    with open_store(tmp_path / "errdex.sqlite") as store:
        index_source(str(tmp_path / "pkg"), store, use_cache=False)
        result = Matcher(store).match("ValueError: refused item 'pear' at a ratio of 0.25 here")
    text = render_text(result)
    assert "message: refused item {item!r='pear'} at a ratio of {ratio:.2f=0.25} here" in text
