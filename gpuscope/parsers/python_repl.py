"""What a pasted Python statement shows, and the values Python printed for it: the small
reader of code and reprs behind `python_text`.

A statement of a transcript (``>>> print("CUDA:", torch.cuda.is_available())``) becomes the
expressions it shows, each as a whitespace-free key (``torch.cuda.is_available()``), with the
literal text around them; `match_output` finds each expression's value in the line Python
printed. Values are reprs or `print` forms: ``'2.1.2+cu121'``, ``True``, ``(8, 9)``,
``['sm_50', 'sm_90']``, ``_CudaDeviceProperties(name='...', major=8, minor=9, ...)``.

Every function is linear in its input and bounded (`MAX_CODE_CHARS`), and none raises on any
text: code it cannot read shows nothing.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

MAX_CODE_CHARS = 1000  # of one statement: longer code is no `>>> torch.__version__` check
MAX_PARTS = 40
MAX_STATEMENTS = 20

_QUOTES = ("'", '"')
_STRING_PREFIX = re.compile(r"(?i)(?:[rbuf]|fr|rf|br|rb)?(['\"])")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_NOT_SHOWN = ("import ", "from ", "def ", "class ", "for ", "if ", "elif ", "else", "while ",
              "with ", "try", "except", "finally", "return", "del ", "pass", "assert ",
              "raise ", "global ", "exit(", "quit(")
# Calls that print their argument the way `print` does (pprint too, for a value on one line).
_PRINTERS = ("print", "pprint.pp", "pprint.pprint", "pp", "pprint")
_PROPERTY = re.compile(r"(\w{1,40})=('([^'\\]{0,200})'|\"([^\"\\]{0,200})\"|[^,()\s]{1,60})")
_LIST_ITEM = re.compile(r"'([^'\\]{1,60})'|\"([^\"\\]{1,60})\"")
_CC_TUPLE = re.compile(r"^\(\s*(\d{1,2})\s*,\s*(\d{1,2})\s*\)$")
_MEMORY = re.compile(r"^(\d{1,12})\s*(MB|GB|B)?$")
_EXCEPTION = re.compile(r"^(?:[\w.]{1,80}\.)?(\w{1,60}(?:Error|Exception)):\s?(.{0,300})")
MAX_OUTPUT_LINES = 60  # lines of a statement's output that are read


@dataclass(frozen=True, slots=True)
class Shown:
    """One printed line's worth of a statement: literal text and expressions, in order.
    `repr_form`: the REPL echoed a bare expression (its repr, possibly over several lines)."""

    parts: tuple[tuple[str, str], ...]  # ("lit", text) | ("expr", key)
    repr_form: bool = False

    @property
    def expressions(self) -> tuple[str, ...]:
        return tuple(text for kind, text in self.parts if kind == "expr")


def key_of(expression: str) -> str:
    """An expression without whitespace: the key the readers look values up by."""
    return "".join(expression.split())


def _scan_string(code: str, start: int) -> int:
    """The index just past the string literal whose quote is at `start` (or the end)."""
    quote = code[start]
    triple = code[start:start + 3] == quote * 3
    index = start + (3 if triple else 1)
    while index < len(code):
        char = code[index]
        if char == "\\":
            index += 2
            continue
        if triple and code[index:index + 3] == quote * 3:
            return index + 3
        if not triple and char == quote:
            return index + 1
        index += 1
    return len(code)


def _top_level_split(code: str, separator: str) -> list[str]:
    """`code` split at `separator` outside strings and brackets."""
    pieces: list[str] = []
    depth = 0
    begin = index = 0
    while index < len(code):
        char = code[index]
        if char in _QUOTES:
            index = _scan_string(code, index)
            continue
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        elif char == separator and depth == 0:
            pieces.append(code[begin:index])
            begin = index + 1
        index += 1
    pieces.append(code[begin:])
    return pieces


def strip_comment(code: str) -> str:
    """`code` without its trailing ``# comment`` (a ``#`` inside a string stays)."""
    code = code[:MAX_CODE_CHARS]
    index = 0
    while index < len(code):
        char = code[index]
        if char in _QUOTES:
            index = _scan_string(code, index)
            continue
        if char == "#":
            return code[:index].rstrip()
        index += 1
    return code.rstrip()


def statements(code: str) -> list[str]:
    """The simple statements of one line of code (``import torch; print(x)``), stripped."""
    found = [piece.strip() for piece in _top_level_split(strip_comment(code), ";")]
    return [piece for piece in found if piece][:MAX_STATEMENTS]


def is_torch_import(statement: str) -> bool:
    """``import torch``, ``import torch, sys``, ``import torch.cuda``, ``from torch import x``."""
    words = statement.replace(",", " ").split()
    if len(words) >= 2 and words[0] == "import":
        return any(w == "torch" or w.startswith("torch.") for w in words[1:])
    return len(words) >= 2 and words[0] == "from" and (
        words[1] == "torch" or words[1].startswith("torch."))


def _literal_text(argument: str) -> tuple[str, bool] | None:
    """(the text a string literal prints, whether it is an f-string), or None when
    `argument` is no single string literal."""
    match = _STRING_PREFIX.match(argument)
    if match is None:
        return None
    start = match.start(1)
    end = _scan_string(argument, start)
    if end != len(argument):
        return None
    quote_len = 3 if argument[start:start + 3] == argument[start] * 3 else 1
    body = argument[start + quote_len:end - quote_len]
    return body, "f" in argument[:start].lower()


def _fstring_parts(body: str) -> list[tuple[str, str]]:
    """An f-string's body as literal text and expressions ({expr!r:fmt} -> expr)."""
    parts: list[tuple[str, str]] = []
    text: list[str] = []
    index = 0
    while index < len(body) and len(parts) < MAX_PARTS:
        char = body[index]
        if char == "{" and body[index + 1:index + 2] == "{":
            text.append("{")
            index += 2
            continue
        if char == "}" and body[index + 1:index + 2] == "}":
            text.append("}")
            index += 2
            continue
        if char == "{":
            depth, end = 1, index + 1
            while end < len(body) and depth:
                depth += {"{": 1, "}": -1}.get(body[end], 0)
                end += 1
            inner = body[index + 1:end - 1]
            expression = _top_level_split(inner, ":")[0].split("!", 1)[0]
            if text:
                parts.append(("lit", "".join(text)))
                text = []
            parts.append(("expr", key_of(expression.rstrip("="))))
            index = end
            continue
        text.append(char)
        index += 1
    if text:
        parts.append(("lit", "".join(text)))
    return parts


def shown(statement: str) -> Shown | None:
    """What a simple statement prints: a `print`-like call's arguments, or a bare expression
    the REPL echoes; None for anything else (imports, assignments, compound statements)."""
    statement = statement.strip()
    if not statement or statement.startswith(_NOT_SHOWN) or len(statement) > MAX_CODE_CHARS:
        return None
    call = _NAME.match(statement)
    if call and call.group(0) in _PRINTERS and statement[call.end():call.end() + 1] == "(" \
            and statement.endswith(")"):
        arguments = _top_level_split(statement[call.end() + 1:-1], ",")
        parts: list[tuple[str, str]] = []
        for number, raw in enumerate(arguments):
            argument = raw.strip()
            if not argument:
                continue
            if re.match(r"(?:sep|end|file|flush)\s*=", argument):
                if argument.startswith("sep"):
                    return None  # a separator other than the space: not worth guessing
                continue
            if number and parts:
                parts.append(("lit", " "))
            literal = _literal_text(argument)
            if literal is None:
                parts.append(("expr", key_of(argument)))
            elif literal[1]:
                parts += _fstring_parts(literal[0])
            else:
                parts.append(("lit", literal[0]))
            if len(parts) > MAX_PARTS:
                return None
        return Shown(tuple(parts)) if parts else None
    if _is_assignment(statement):
        return None
    return Shown((("expr", key_of(statement)),), repr_form=True)


def _is_assignment(statement: str) -> bool:
    """A top-level ``=`` that is no comparison (``==``, ``!=``, ``<=``, ``>=``)."""
    pieces = _top_level_split(statement, "=")
    for left, right in itertools.pairwise(pieces):
        if not left or not right or left[-1] in "=!<>":
            continue
        return True
    return False


def match_output(parts: tuple[tuple[str, str], ...], line: str) -> dict[str, str]:
    """Each expression of `parts` -> the text it printed in `line`; {} when the literal text
    does not fit the line (it was another statement's output)."""
    values: dict[str, str] = {}
    position = 0
    for index, (kind, text) in enumerate(parts):
        if kind == "lit":
            stripped = text.strip()
            if not stripped:
                continue
            found = line.find(stripped, position)
            if found < 0 or line[position:found].strip():
                return {}
            position = found + len(stripped)
            continue
        following = next((t.strip() for k, t in parts[index + 1:] if k == "lit" and t.strip()),
                         None)
        rest = line[position:]
        if following is None:
            if any(k == "expr" for k, _ in parts[index + 1:]):
                token = rest.split(None, 1)
                values[text] = token[0] if token else ""
                position = len(line) - len(token[1]) if len(token) > 1 else len(line)
            else:
                values[text] = rest.strip()
                position = len(line)
            continue
        found = rest.find(following)
        if found < 0:
            return {}
        values[text] = rest[:found].strip()
        position += found
    return {key: value for key, value in values.items() if value}


# ----------------------------------------------------------------------------- values


def unquote(value: str) -> str | None:
    """A repr or printed string: ``'2.1.2'`` -> ``2.1.2``; ``None`` -> None."""
    value = value.strip()
    if value == "None":
        return None
    if len(value) >= 2 and value[0] == value[-1] and value[0] in _QUOTES:
        return value[1:-1]
    return value


def as_bool(value: str) -> bool | None:
    return {"True": True, "False": False}.get(value.strip())


def as_int(value: str) -> int | None:
    value = value.strip()
    return int(value) if value.isdigit() and len(value) <= 12 else None


def as_compute_capability(value: str) -> str | None:
    """``(8, 9)`` -> ``8.9``."""
    match = _CC_TUPLE.match(value.strip())
    return f"{int(match.group(1))}.{int(match.group(2))}" if match else None


def as_string_list(value: str) -> tuple[str, ...]:
    """``['sm_50', 'sm_90']`` (on one line or pretty-printed over several) -> its items."""
    value = value.strip()
    if not value.startswith("[") or not value.endswith("]"):
        return ()
    return tuple((m.group(1) or m.group(2)) for m in _LIST_ITEM.finditer(value[:4000]))


def as_properties(value: str) -> dict[str, str]:
    """``_CudaDeviceProperties(name='...', major=8, minor=9, total_memory=24217MB, ...)``
    -> its fields as text (strings unquoted)."""
    value = value.strip()
    if "DeviceProperties(" not in value[:60]:
        return {}
    found: dict[str, str] = {}
    for match in _PROPERTY.finditer(value[:4000]):
        text = match.group(3) if match.group(3) is not None else match.group(4)
        found.setdefault(match.group(1), text if text is not None else match.group(2))
    return found


def device_facts(fields: dict[str, str]) -> dict[str, str | int]:
    """A device's properties (`as_properties`) as `name`, `compute_capability`, `arch` (the
    gfx target a ROCm build reports instead of a capability) and `memory_bytes`."""
    found: dict[str, str | int] = {}
    if fields.get("name"):
        found["name"] = fields["name"]
    major, minor = fields.get("major", ""), fields.get("minor", "")
    arch = (fields.get("gcnArchName") or "").split(":", 1)[0]
    if arch.startswith("gfx"):
        found["arch"] = arch
    elif major.isdigit() and minor.isdigit():
        found["compute_capability"] = f"{int(major)}.{int(minor)}"
    memory = memory_bytes(fields.get("total_memory", ""))
    if memory is not None:
        found["memory_bytes"] = memory
    return found


def memory_bytes(value: str) -> int | None:
    """torch's ``total_memory=24217MB`` (MiB: it divides by 1024**2) to bytes."""
    match = _MEMORY.match(value.strip())
    if match is None:
        return None
    unit = {"MB": 1024 ** 2, "GB": 1024 ** 3}.get(match.group(2) or "B", 1)
    return int(match.group(1)) * unit


def device_argument(expression: str, call: str) -> int | None:
    """The device index of ``torch.cuda.get_device_name(1)`` / ``('cuda:1')`` /
    ``(torch.device('cuda:1'))``; 0 for no argument or a bare "cuda"; None for a variable."""
    inner = expression[len(call):]
    if not inner.startswith("(") or not inner.endswith(")"):
        return None
    argument = inner[1:-1].removeprefix("device=")
    if not argument or argument == "torch.cuda.current_device()":
        return 0  # the current device is 0 unless the program chose another
    if argument.isdigit() and len(argument) <= 3:
        return int(argument)
    numbered = re.search(r"cuda:(\d{1,3})", argument)
    if numbered:
        return int(numbered.group(1))
    return 0 if re.fullmatch(r"(?:torch\.device\()?['\"]cuda['\"]\)?", argument) else None


# ----------------------------------------------------------------------------- outputs


# Expressions whose value is a string: echoed by the REPL, it is quoted.
STRING_VALUED = {"torch.__version__": True, "torch.version.__version__": True,
                  "torch.version.cuda": True, "torch.version.hip": True,
                  "sys.executable": True, "torch.__file__": True, "sys.version": True,
                  "sys.platform": True}
# Lines of the output of a statement that are no value: warnings PyTorch prints on the way
# (with the source line Python shows under them) and traceback frames.
_NOT_VALUES = ("warning:", "warnings.warn", "return torch._c", "cuda capability",
               "pytorch install supports", "if you want to use the", "triggered internally",
               "please check the instructions", "traceback (most recent")


def quoted(value: str) -> bool:
    value = value.strip()
    return value == "None" or (len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"")


def value_lines(outputs: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The output lines that may be values: up to the first exception line, without
    PyTorch's warnings and traceback frames."""
    values: list[tuple[str, int]] = []
    for text, line in outputs:
        if not text:
            continue
        if _EXCEPTION.match(text) and not text.startswith(("_CudaDeviceProperties", "(")):
            break
        lowered = text.lower()
        if text.startswith("File ") or any(marker in lowered for marker in _NOT_VALUES):
            continue
        values.append((text, line))
    return values


def candidates(values: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Each value line, a list printed over several lines (pprint) joined into one."""
    found: list[tuple[str, int]] = []
    index = 0
    while index < len(values):
        text, line = values[index]
        if text.startswith("[") and not text.endswith("]"):
            end = next((i for i in range(index, min(len(values), index + MAX_OUTPUT_LINES))
                        if values[i][0].endswith("]")), None)
            if end is not None:
                found.append((" ".join(t for t, _ in values[index:end + 1]), values[end][1]))
                index = end + 1
                continue
        found.append((text, line))
        index += 1
    return found


def import_failure(outputs: list[tuple[str, int]]) -> tuple[str, int] | None:
    """The exception an ``import torch`` ended with (its last "XxxError: ..." line)."""
    if not outputs or not any(text.startswith("Traceback") for text, _ in outputs[:3]):
        return None
    for text, line in reversed(outputs):
        match = _EXCEPTION.match(text)
        if match:
            return f"{match.group(1)}: {match.group(2)}".strip(), line
    return None
