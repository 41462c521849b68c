"""Reading data gpuscope did not write itself, and cleaning its text before it is shown.

Every reader of outside data (snapshots, pasted outputs, standard input, imported reports)
goes through here, so that each of them:
- reads only regular files: a FIFO with no writer, `/dev/zero` or a directory is refused by
  its type before anything is read, so nothing blocks or runs without end;
- caps the bytes read and the bytes decompressed (a gzip bomb stops at the cap);
- bounds JSON nesting and the length of integers (Python's parser recurses, and turns a
  5,000-digit number into a `ValueError`);
- answers each violation with `UntrustedInputError`, whose text is one line naming the input.

`clean_text` strips terminal control characters and escape sequences from text at the output
boundary, so that a GPU name in a shared file cannot retitle, clear or rewrite a terminal.

Standard library only: this module sits at the bottom of the layers, beside `gpuscope.model`.
"""

from __future__ import annotations

import json
import os
import re
import stat
import zlib
from collections.abc import Callable
from typing import Any, BinaryIO

MB = 1_000_000
# What gpuscope reads of outside data at most.
MAX_SNAPSHOT_BYTES = 256 * MB  # a snapshot, after decompression
MAX_PASTE_BYTES = 10 * MB  # a pasted tool output, a file or standard input
MAX_REPORT_BYTES = 4 * MB  # a shared report or diagnosis (tens of kilobytes in practice)
MAX_JSON_DEPTH = 200  # gpuscope's own documents nest fewer than 20 levels
MAX_INT_DIGITS = 40  # a 64-bit counter has 20 digits; nothing gpuscope reads has more

_READ_CHUNK_BYTES = 1 << 20


class UntrustedInputError(Exception):
    """Outside data refused, with a one-line reason that names the input.

    `kind` says which rule it broke: "unreadable" (missing, no permission), "wrong_kind"
    (a directory, a FIFO, a device, a file in another format: the command line calls that a
    usage error), "too_large" (over a bound: bytes read or decompressed, JSON nesting, digits
    of a number) or "malformed" (not valid JSON, damaged gzip)."""

    def __init__(self, message: str, *, kind: str = "malformed") -> None:
        super().__init__(message)
        self.kind = kind

    @property
    def wrong_kind(self) -> bool:
        return self.kind == "wrong_kind"


# ----------------------------------------------------------------------------- files


def file_kind(mode: int) -> str:
    """What a file of this st_mode is, in words ("a named pipe (FIFO)")."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "no regular file"


def _size(count: int) -> str:
    if count % MB == 0:
        return f"{count // MB:,} MB"
    return f"{count / MB:,.1f} MB" if count >= MB else f"{count:,} bytes"


def too_large(name: str, what: str, limit_bytes: int, *, decompressed: bool = False) -> str:
    """The one line for an input over its cap."""
    state = " once decompressed" if decompressed else ""
    return (f"{name}: larger than the {_size(limit_bytes)} gpuscope reads of {what}{state}; "
            "not read")


def _os_reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def _not_regular(shown: str, mode: int) -> str:
    return f"cannot read {shown}: it is {file_kind(mode)}; gpuscope reads only regular files"


def _open_regular(path: str | os.PathLike[str], shown: str) -> tuple[int, os.stat_result]:
    """An open descriptor of the regular file at `path`, and its stat.

    Anything else is refused by its type before it is opened (a FIFO would block, a device
    would never end, opening some devices has effects); the type is checked again on the
    opened file, so a swap between the two checks is caught too."""
    flags = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
             | getattr(os, "O_BINARY", 0))
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise UntrustedInputError(_not_regular(shown, info.st_mode), kind="wrong_kind")
        fd = os.open(path, flags)
    except OSError as exc:
        raise UntrustedInputError(f"cannot read {shown}: {_os_reason(exc)}",
                                  kind="unreadable") from None
    except ValueError:  # an embedded NUL in the name
        raise UntrustedInputError(f"cannot read {shown!r}: not a valid file name",
                                  kind="unreadable") from None
    try:
        info = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        raise UntrustedInputError(f"cannot read {shown}: {_os_reason(exc)}",
                                  kind="unreadable") from None
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise UntrustedInputError(_not_regular(shown, info.st_mode), kind="wrong_kind")
    return fd, info


def read_regular_file(path: str | os.PathLike[str], max_bytes: int, *, name: str | None = None,
                      what: str = "a file") -> bytes:
    """The bytes of the regular file at `path`, at most `max_bytes` of them; only a regular
    file is opened."""
    shown = name if name is not None else os.fspath(path)
    fd, info = _open_regular(path, shown)
    with os.fdopen(fd, "rb") as handle:
        if info.st_size > max_bytes:
            raise UntrustedInputError(too_large(shown, what, max_bytes), kind="too_large")
        try:
            return _read_capped(handle, max_bytes, shown, what)
        except OSError as exc:
            raise UntrustedInputError(f"cannot read {shown}: {_os_reason(exc)}",
                                      kind="unreadable") from None


def read_head(path: str | os.PathLike[str], count_bytes: int) -> bytes:
    """The first bytes of a regular file, or b"" for anything else (never raises, never
    blocks): for recognising a file refused for its size."""
    try:
        fd, _info = _open_regular(path, os.fspath(path))
    except UntrustedInputError:
        return b""
    with os.fdopen(fd, "rb") as handle:
        try:
            return handle.read(count_bytes)
        except OSError:
            return b""


def read_stream(stream: BinaryIO | None, max_bytes: int, *, name: str = "standard input",
                what: str = "a pasted output") -> bytes:
    """At most `max_bytes` of an open stream (standard input), read to its end."""
    if stream is None:
        raise UntrustedInputError(f"cannot read {name}: it is closed", kind="unreadable")
    try:
        return _read_capped(stream, max_bytes, name, what)
    except OSError as exc:
        raise UntrustedInputError(f"cannot read {name}: {_os_reason(exc)}",
                                  kind="unreadable") from None


def _read_capped(stream: BinaryIO, max_bytes: int, name: str, what: str) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while total <= max_bytes:
        chunk = stream.read(min(_READ_CHUNK_BYTES, max_bytes + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total > max_bytes:  # the file grew after stat, or a stream
        raise UntrustedInputError(too_large(name, what, max_bytes), kind="too_large")
    return b"".join(chunks)


# ----------------------------------------------------------------------------- gzip

GZIP_MAGIC = b"\x1f\x8b"


def is_gzip(data: bytes) -> bool:
    return data[:2] == GZIP_MAGIC


def gunzip(data: bytes, max_bytes: int, *, name: str, what: str = "a file") -> bytes:
    """Decompress gzip data (every member, as `gzip.decompress` does), stopping at `max_bytes`
    of output: a few kilobytes of zeros may stand for gigabytes."""
    out = bytearray()
    rest = data
    while rest:
        inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        try:
            out += inflater.decompress(rest, max_bytes + 1 - len(out))
        except zlib.error as exc:
            raise UntrustedInputError(f"{name}: damaged gzip data ({exc})") from None
        if len(out) > max_bytes or inflater.unconsumed_tail:
            raise UntrustedInputError(too_large(name, what, max_bytes, decompressed=True),
                                      kind="too_large")
        if not inflater.eof:
            raise UntrustedInputError(f"{name}: damaged gzip data (it ends too early)")
        rest = inflater.unused_data
        if not rest.strip(b"\x00"):  # zero padding after the last member, as gzip allows
            break
        if not is_gzip(rest):
            raise UntrustedInputError(f"{name}: damaged gzip data (garbage after the end)")
    return bytes(out)


def gunzip_head(data: bytes, head_bytes: int) -> bytes:
    """The first `head_bytes` of gzip data decompressed, or what could be (never raises): for
    recognising what a compressed file holds without decompressing it all."""
    try:
        return zlib.decompressobj(wbits=16 + zlib.MAX_WBITS).decompress(data, head_bytes)
    except zlib.error:
        return b""


# ----------------------------------------------------------------------------- JSON


class _NumberTooLong(Exception):
    def __init__(self, digits: int) -> None:
        super().__init__(digits)
        self.digits = digits


def _bounded_int(max_digits: int) -> Callable[[str], int]:
    def parse_int(text: str) -> int:
        digits = len(text) - (text[:1] == "-")
        if digits > max_digits:
            raise _NumberTooLong(digits)
        return int(text)

    return parse_int


def json_depth_exceeds(doc: Any, max_depth: int) -> bool:
    """Whether containers in `doc` nest deeper than `max_depth`; iterative, so any depth is
    measured without recursion."""
    stack: list[tuple[Any, int]] = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > max_depth:
            return True
        stack.extend((child, depth + 1) for child in children
                     if isinstance(child, (dict, list)))
    return False


def load_json(data: bytes | str, *, name: str, max_depth: int = MAX_JSON_DEPTH,
              max_int_digits: int = MAX_INT_DIGITS) -> Any:
    """Parse outside JSON with bounds on nesting and integer length. Raises
    UntrustedInputError with one line; no RecursionError or ValueError escapes."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise UntrustedInputError(f"{name}: not UTF-8 text") from None
    else:
        text = data
    try:
        doc = json.loads(text, parse_int=_bounded_int(max_int_digits))
    except _NumberTooLong as exc:
        raise UntrustedInputError(
            f"{name}: holds a number of {exc.digits:,} digits (gpuscope reads at most "
            f"{max_int_digits})", kind="too_large") from None
    except RecursionError:
        raise UntrustedInputError(
            f"{name}: JSON nested deeper than {max_depth} levels", kind="too_large") from None
    except json.JSONDecodeError as exc:
        raise UntrustedInputError(
            f"{name}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
        ) from None
    except ValueError as exc:
        raise UntrustedInputError(f"{name}: unreadable JSON ({_first_line(str(exc))})") from None
    # A cheap count rules out deep nesting for most documents before walking them.
    if (text.count("[") + text.count("{") > max_depth
            and json_depth_exceeds(doc, max_depth)):
        raise UntrustedInputError(f"{name}: JSON nested deeper than {max_depth} levels",
                                  kind="too_large")
    return doc


def _first_line(text: str) -> str:
    return text.splitlines()[0][:200] if text.strip() else "no reason given"


# ----------------------------------------------------------------------------- text

# Terminal controls in text: CSI sequences (`ESC [ ... final`), string sequences (OSC `ESC ]`,
# DCS `ESC P`, SOS, PM, APC) up to their terminator (BEL or ST), any other escape sequence or a
# lone ESC, then every remaining C0 control but tab and newline, DEL and the C1 controls.
# Every repetition stops at a character that cannot start a new match, so the scan is linear.
_TERMINAL_CONTROLS = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|\x1b[\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"
    r"|\x1b[ -/]*[0-~]?"
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
)
_C1_AND_DEL = re.compile(r"[\x7f-\x9f]")


def clean_text(text: str) -> str:
    """`text` without terminal control characters and escape sequences (tab and newline
    stay). For data gpuscope did not write itself, where it is shown: a terminal, a report,
    a label."""
    return _TERMINAL_CONTROLS.sub("", text)


def one_line(text: str) -> str:
    """`text` cleaned and on one line (an error message about outside data)."""
    return " ".join(clean_text(text).split())


def escape_json_controls(text: str) -> str:
    """JSON text (from `json.dumps(..., ensure_ascii=False)`) with DEL and the C1 controls
    written as \\u escapes, as the C0 controls already are. Such characters occur in JSON
    text only inside strings, so the document's value is unchanged."""
    return _C1_AND_DEL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
