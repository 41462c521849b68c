"""What a pasted Python statement shows, and the values Python printed for it: the small
reader of code and reprs behind `python_text`.

A statement of a transcript (``>>> print("CUDA:", torch.cuda.is_available())``) becomes the
expressions it shows, each as a whitespace-free key (``torch.cuda.is_available()``), with the
literal text around them; `match_output` finds each expression's value in the line Python
printed. Values are reprs or `print` forms: ``'2.1.2+cu121'``, ``True``, ``(8, 9)``,
``['sm_50', 'sm_90']``, ``_CudaDeviceProperties(name='...', major=8, minor=9, ...)``;
`answer_of` says what such a value means. `line_of` says what one pasted line is (a prompt, a
continuation, the banner, a shell command that starts Python, PyTorch's message, output), and
`plan_of` all that a statement with its output says: both pure, so that `python_text` works
each out once for a line or statement a long log repeats.

Every function is linear in its input and bounded (`MAX_CODE_CHARS`), and none raises on any
text: code it cannot read shows nothing.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from gpuscope.parsers import python_env as env

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
BANNER = re.compile(r"^Python (\d+\.\d+\.\d+)\S{0,20}\s")
PLATFORM = re.compile(r"\bon (linux|win32|cygwin|msys|darwin)\s*$")
IPYTHON_IN = re.compile(r"^In \[\d{1,6}\]: ?")
IPYTHON_OUT = re.compile(r"^Out\[\d{1,6}\]: ?")
_CMD_PROMPT = re.compile(r"^(?:PS )?([A-Za-z]:\\[^>\"]{0,300})>\s?(\S.*)$")
# "$ cmd", "user@host:~/dir$ cmd", "(venv) root@host:/# cmd" (a bare "# " is a heading).
_POSIX_PROMPT = re.compile(r"^(?:\([^()\s]{1,60}\) )?([^\s>]{0,200})([$#%]) (\S.*)$")
_PYTHON_WORD = re.compile(r"(?i)^(?:.*[\\/])?python(?:\d(?:\.\d{1,2})?)?(?:\.exe)?$")
_ONE_LINER = re.compile(r"(?:^|\s)-c\s+(['\"])(.{1,1000})\1\s*$")
_TORCH_VERSION = re.compile(r"^\d+\.\d+(?:\.\d+)?\S{0,60}$")
PLATFORM_OS = {"linux": "linux", "win32": "windows", "cygwin": "windows", "msys": "windows",
               "darwin": "macos"}
_DEVICE_CALLS = ("torch.cuda.get_device_name", "torch.cuda.get_device_capability",
                 "torch.cuda.get_device_properties")
_DEVICE_PREFIXES = tuple(call + "(" for call in _DEVICE_CALLS)
# Expressions whose value `answer_of` reads (and calls of _DEVICE_CALLS).
KNOWN = frozenset({
    "torch.__version__", "torch.version.__version__", "torch.version.cuda", "torch.version.hip",
    "torch.cuda.is_available()", "torch.cuda.device_count()", "torch.cuda.get_arch_list()",
    "torch.backends.cudnn.version()", "sys.executable", "torch.__file__", "sys.version",
    "sys.platform"})


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
    if separator not in code:
        return [code]
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
    hash_at = code.find("#")
    if hash_at < 0:
        return code.rstrip()
    if "'" not in code[:hash_at] and '"' not in code[:hash_at]:
        return code[:hash_at].rstrip()  # (no string the "#" could be in)
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


# ----------------------------------------------------------------------------- answers


@dataclass(frozen=True, slots=True)
class Answer:
    """What the value an expression printed says: `kind` ("version", "cuda", "hip",
    "available", "count", "arch", "math", "python", "python_version", "os", or "name",
    "capability", "properties" of device `index`), the value, and the OS of a "python" path."""

    kind: str
    value: object
    index: int = 0
    os: str | None = None


def is_known(expression: str) -> bool:
    """Whether `answer_of` reads the value of `expression`."""
    return expression in KNOWN or expression.startswith(_DEVICE_PREFIXES)


def _version(value: str | None) -> str | None:
    return value if value and re.match(r"\d+\.\d+", value) else None


def answer_of(expression: str, value: str, echoed: bool) -> Answer | None:
    """The answer the printed `value` of `expression` gives (`echoed`: its repr, so strings
    are quoted); None when it is none (another value, or an expression not read)."""
    if echoed and STRING_VALUED.get(expression, False) and not quoted(value):
        return None
    if expression in ("torch.__version__", "torch.version.__version__"):
        version = unquote(value)
        return Answer("version", version) if version and _TORCH_VERSION.match(version) else None
    if expression in ("torch.version.cuda", "torch.version.hip"):
        return Answer(expression[14:], _version(unquote(value)))
    if expression == "torch.cuda.is_available()":
        available = as_bool(value)
        return None if available is None else Answer("available", available)
    if expression in ("torch.cuda.device_count()", "torch.backends.cudnn.version()"):
        number = as_int(value)
        if number is None:
            return None
        return Answer("count", number) if "device" in expression else Answer("math", str(number))
    if expression == "torch.cuda.get_arch_list()":
        arch = as_string_list(value)
        return Answer("arch", arch) if arch else None
    if expression in ("sys.executable", "torch.__file__"):
        path = unquote(value)
        interpreter = (path if expression == "sys.executable" else env.interpreter_of(path)) \
            if path else None
        return Answer("python", interpreter, os=env.os_of_path(path)) \
            if path and interpreter else None
    if expression == "sys.version":
        match = re.match(r"(\d+\.\d+\.\d+)", unquote(value) or "")
        return Answer("python_version", match.group(1)) if match else None
    if expression == "sys.platform":
        platform = unquote(value)
        return Answer("os", PLATFORM_OS[platform]) if platform in PLATFORM_OS else None
    for call, kind in zip(_DEVICE_CALLS, ("name", "capability", "properties"), strict=True):
        if not expression.startswith(call + "("):
            continue
        index = device_argument(expression, call)
        if index is None:
            return None
        found: object = (unquote(value) if kind == "name" else as_compute_capability(value)
                         if kind == "capability" else as_properties(value))
        return Answer(kind, found, index) if found else None
    return None


# ----------------------------------------------------------------------------- sessions


def unquoted(line: str) -> str:
    """A line without Markdown quote markers ("> " before a ``>>>`` prompt or any text)."""
    stripped = line.lstrip()
    if not stripped.startswith(">") or stripped.startswith(">>>"):
        return stripped
    for _ in range(8):
        if stripped.startswith(">>>") or not stripped.startswith(">"):
            break
        if len(stripped) > 1 and stripped[1] not in " \t":
            break
        stripped = stripped[1:].lstrip()
    return stripped


def prompt_of(line: str) -> tuple[bool, str | None, str | None] | None:
    """A shell prompt that starts Python: (a Windows prompt, the interpreter when the command
    names it by its path, a one-liner's program); None for any other line."""
    if "ython" not in line and "YTHON" not in line:
        return None  # no prompt that starts Python
    cmd = _CMD_PROMPT.match(line)
    posix = None if cmd else _POSIX_PROMPT.match(line)
    if cmd is None and posix is None:
        return None
    if posix is not None and posix.group(2) == "#" and not posix.group(1):
        return None
    command = cmd.group(2) if cmd else posix.group(3) if posix else ""
    words = command.split()
    launcher = next((w.strip("\"'") for w in words[:12] if _PYTHON_WORD.match(w.strip("\"'"))),
                    None)
    if launcher is None:
        return None
    if cmd is not None and not re.match(r"[A-Za-z]:\\", launcher) and (
            "\\" in launcher or "/" in launcher):
        launcher = cmd.group(1).rstrip("\\") + "\\" + launcher.replace("/", "\\")
    python = launcher if re.match(r"[A-Za-z]:\\|/", launcher) and (
        "\\" in launcher or "/" in launcher) else None
    one_liner = _ONE_LINER.search(command)
    return cmd is not None, python, one_liner.group(2) if one_liner else None


@dataclass(frozen=True, slots=True)
class Line:
    """What one line is to the reader (worked out once per distinct line): its message, the
    text it adds to a statement's output, and what else it may be (None: not that)."""

    message: env.Message | None
    text: str  # the line unquoted and stripped
    code: str | None = None  # a ">>>" prompt's code
    more: str | None = None  # a "..." continuation's code
    ipython_in: str | None = None
    ipython_out: str | None = None
    prompt: tuple[bool, str | None, str | None] | None = None  # `prompt_of`
    banner: tuple[str, str | None] | None = None  # the version, the platform it names


def line_of(raw: str) -> Line | str:
    """`raw` read as `Line`; a line that is nothing but output text, as that text."""
    line = unquoted(raw)
    message = env.message_of(raw)
    if line.startswith(">>>"):
        return Line(message, line.strip(), code=line[3:].strip())
    more = line[3:].strip() if line.startswith("...") else None
    ipython_in = ipython_out = None
    if line.startswith(("In [", "Out[")):
        if (match := IPYTHON_IN.match(line)) is not None:
            ipython_in = line[match.end():].strip()
        elif (match := IPYTHON_OUT.match(line)) is not None:
            ipython_out = line[match.end():]
    prompt = prompt_of(line)
    banner = None
    if line.startswith("Python ") and (version := BANNER.match(line)) is not None:
        platform = PLATFORM.search(line)
        banner = (version.group(1), platform.group(1) if platform else None)
    if message is None and more is None and ipython_in is None and ipython_out is None \
            and prompt is None and banner is None:
        return line.strip()
    return Line(message, line.strip(), None, more, ipython_in, ipython_out, prompt, banner)


@dataclass(frozen=True, slots=True)
class Plan:
    """What a statement and its output say (worked out once per distinct pair): whether it
    imports torch, the error an import ended with (and its output line), and the answers
    (each with the index of its output line)."""

    imports: bool
    failure: tuple[str, int] | None = None
    answers: tuple[tuple[Answer, int], ...] = ()


def plan_of(code: str, texts: list[str]) -> Plan:
    """What statement `code` says with the output lines `texts` it printed."""
    simple = [s for line in code.split("\n") for s in statements(line)]
    imports = any(is_torch_import(s) for s in simple)
    outputs = [(text, index) for index, text in enumerate(texts)]
    if imports:
        failure = import_failure(outputs)
        if failure is not None and simple and is_torch_import(simple[0]):
            error = failure[0]
            if "no module named 'torch'" in error.lower():
                error = "PyTorch is not installed (" + error + ")"
            return Plan(True, (error, failure[1]))
    if "\n" in code:
        return Plan(imports)  # a compound statement: its output is no one expression's value
    shows = [item for item in (shown(s) for s in simple) if item is not None]
    if not any(is_known(e) for item in shows for e in item.expressions):
        return Plan(imports)
    values = value_lines(outputs)
    if not values:
        return Plan(imports)
    single = shows[0].expressions if len(shows) == 1 else ()
    if len(single) == 1 and all(kind == "expr" for kind, _ in shows[0].parts):
        for candidate, index in candidates(values):
            answer = answer_of(single[0], candidate, shows[0].repr_form)
            if answer is not None:
                return Plan(imports, answers=((answer, index),))
        return Plan(imports)
    answers = []
    for item, (text, index) in zip(shows, values, strict=False):
        for expression, value in match_output(item.parts, text).items():
            answer = answer_of(expression, value, False)
            if answer is not None:
                answers.append((answer, index))
    return Plan(imports, answers=tuple(answers))
