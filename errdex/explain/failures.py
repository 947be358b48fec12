# What a well-known call's failure says about what it was handed: `json.loads(text)`
# raising `ValueError` means `text` is not JSON, `open(path)` raising `OSError` that
# `path` cannot be opened. Read where a handler catches what such a call raises, so that
# "while handling `ValueError` raised by `json.loads(header)`" says what went wrong.
# Calls are matched as the code writes them (`json.loads`, `int`), standard library and
# builtins only: a package's own function of the same name is not one of these.
from __future__ import annotations

from dataclasses import dataclass

from errdex.expr import Attribute, Call, Expr, Name


@dataclass(frozen=True, slots=True)
class _Fails:
    raises: str  # the family it raises: "value" (ValueError and its kin) or "os" (OSError)
    said: str  # of its first argument


_VALUE = frozenset({"ValueError", "Exception", "BaseException"})
_OS = frozenset({"OSError", "IOError", "EnvironmentError", "Exception", "BaseException"})
# the subclasses of OSError a handler may name, and what each says of a path
_OS_KINDS = {
    "FileNotFoundError": "does not exist",
    "PermissionError": "is not allowed (permissions)",
    "IsADirectoryError": "is a directory",
    "NotADirectoryError": "has a part that is not a directory",
    "FileExistsError": "already exists",
}
_CAUGHT = {"value": _VALUE, "os": _OS}
# kin a parse failure may be caught as
_VALUE_KIN = frozenset(
    {"json.JSONDecodeError", "JSONDecodeError", "json.decoder.JSONDecodeError",
     "binascii.Error", "UnicodeDecodeError", "UnicodeError"}
)  # fmt: skip

_TABLE: dict[str, _Fails] = {
    "json.loads": _Fails("value", "is not valid JSON"),
    "json.load": _Fails("value", "does not hold valid JSON"),
    "int": _Fails("value", "is not an integer"),
    "float": _Fails("value", "is not a number"),
    "complex": _Fails("value", "is not a complex number"),
    "decimal.Decimal": _Fails("value", "is not a decimal number"),
    "Decimal": _Fails("value", "is not a decimal number"),
    "base64.b64decode": _Fails("value", "is not valid base64"),
    "base64.urlsafe_b64decode": _Fails("value", "is not valid base64"),
    "binascii.unhexlify": _Fails("value", "is not valid hexadecimal"),
    "bytes.fromhex": _Fails("value", "is not valid hexadecimal"),
    "uuid.UUID": _Fails("value", "is not a UUID"),
    "UUID": _Fails("value", "is not a UUID"),
    "ipaddress.ip_address": _Fails("value", "is not an IP address"),
    "ipaddress.ip_network": _Fails("value", "is not an IP network"),
    "datetime.fromisoformat": _Fails("value", "is not an ISO 8601 date and time"),
    "datetime.datetime.fromisoformat": _Fails("value", "is not an ISO 8601 date and time"),
    "date.fromisoformat": _Fails("value", "is not an ISO 8601 date"),
    "datetime.strptime": _Fails("value", "does not match the date format"),
    "datetime.datetime.strptime": _Fails("value", "does not match the date format"),
    "urlparse": _Fails("value", "is not a valid URL"),
    "urlsplit": _Fails("value", "is not a valid URL"),
    "urllib.parse.urlparse": _Fails("value", "is not a valid URL"),
    "urllib.parse.urlsplit": _Fails("value", "is not a valid URL"),
    "shlex.split": _Fails("value", "has an unclosed quote"),
    "ast.literal_eval": _Fails("value", "is not a Python literal"),
    "packaging.version.Version": _Fails("value", "is not a valid version"),
    "Version": _Fails("value", "is not a valid version"),
    "open": _Fails("os", "cannot be opened"),
    "io.open": _Fails("os", "cannot be opened"),
    "os.open": _Fails("os", "cannot be opened"),
    "os.stat": _Fails("os", "cannot be read"),
    "os.listdir": _Fails("os", "cannot be listed"),
    "os.scandir": _Fails("os", "cannot be listed"),
    "os.makedirs": _Fails("os", "cannot be created"),
    "os.mkdir": _Fails("os", "cannot be created"),
    "os.remove": _Fails("os", "cannot be removed"),
    "os.unlink": _Fails("os", "cannot be removed"),
    "os.rmdir": _Fails("os", "cannot be removed"),
    "shutil.rmtree": _Fails("os", "cannot be removed"),
    "os.rename": _Fails("os", "cannot be moved"),
    "os.replace": _Fails("os", "cannot be moved"),
    "shutil.move": _Fails("os", "cannot be moved"),
    "shutil.copy": _Fails("os", "cannot be copied"),
    "shutil.copy2": _Fails("os", "cannot be copied"),
    "shutil.copyfile": _Fails("os", "cannot be copied"),
    "shutil.copytree": _Fails("os", "cannot be copied"),
    "os.symlink": _Fails("os", "cannot be linked"),
    "os.chmod": _Fails("os", "cannot have its mode changed"),
}
# methods whose receiver is what the failure is about: `path.read_text()`
_METHODS: dict[str, _Fails] = {
    "read_text": _Fails("os", "cannot be read"),
    "read_bytes": _Fails("os", "cannot be read"),
    "write_text": _Fails("os", "cannot be written"),
    "write_bytes": _Fails("os", "cannot be written"),
    "mkdir": _Fails("os", "cannot be created"),
    "unlink": _Fails("os", "cannot be removed"),
    "rmdir": _Fails("os", "cannot be removed"),
    "decode": _Fails("value", "is not valid text in that encoding"),
}


def failure(call: Expr | None, caught: str) -> str | None:
    """What the failure of `call` (the `try` block's one statement, as a tree) says
    about what it was handed, when the handler catches (`caught`, as the `except`
    names it) what that call raises: "`header` is not valid JSON"; None otherwise."""
    if not isinstance(call, Call):
        return None
    names = {n.strip() for n in caught.split(" as ", 1)[0].strip("() ").split(",")}
    written = _dotted(call.func)
    fails = _TABLE.get(written) if written is not None else None
    subject: Expr | None = call.args[0] if call.args else None
    if fails is None and isinstance(call.func, Attribute) and call.func.attr in _METHODS:
        fails, subject = _METHODS[call.func.attr], call.func.value
        if _dotted(subject) in ("os", "os.path", "shutil", "json"):
            return None  # `os.unlink(...)` is in the table, or not one of these
    if fails is None or subject is None:
        return None
    said = fails.said
    if fails.raises == "os":
        kinds = [_OS_KINDS[n] for n in names if n in _OS_KINDS]
        if kinds and not names & _OS:
            said = " or ".join(dict.fromkeys(kinds))
        elif not names & _OS:
            return None
    elif not names & (_CAUGHT[fails.raises] | _VALUE_KIN):
        return None
    shown = subject.source()
    if len(shown) > 60 or "\n" in shown:
        return None
    return f"`{shown}` {said}"


def _dotted(node: Expr) -> str | None:
    if isinstance(node, Name):
        return node.id
    if isinstance(node, Attribute):
        head = _dotted(node.value)
        return None if head is None else f"{head}.{node.attr}"
    return None
