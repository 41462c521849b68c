"""Evidence: the one door through which gpuscope looks at a machine.

Probes read files, list directories, stat device nodes, check access, run commands (argument
lists, a timeout, never a shell), read environment variables and ask vendor libraries, all
through a `System`. `LiveSystem` does it for real; `RecordingSystem` wraps another system and
keeps every answer so that `Snapshot.save` writes it as plain versioned JSON; `ReplaySystem`
answers from such a snapshot, so every command gives the same answer as it gave live.

Every answer is a value: a missing file is `FileRead(error="ENOENT")`, not an exception.
"""

from __future__ import annotations

import errno as _errno
import gzip
import json
import os
import posixpath
import shutil
import stat as _stat
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Protocol, cast

from gpuscope.model import JsonValue, OriginKind
from gpuscope.safe_write import write_bytes
from gpuscope.untrusted import (
    MAX_SNAPSHOT_BYTES,
    UntrustedInputError,
    gunzip,
    is_gzip,
    load_json,
    read_regular_file,
)

SNAPSHOT_FORMAT = "gpuscope-snapshot"
SNAPSHOT_VERSION = 1

# Bounds what a snapshot keeps of one file or one command's output.
MAX_TEXT_CHARS = 1_000_000


@dataclass(frozen=True, slots=True)
class FileRead:
    text: str | None = None
    error: str | None = None  # errno name: "ENOENT", "EACCES", "EIO", "EISDIR"

    @property
    def ok(self) -> bool:
        return self.error is None and self.text is not None

    def stripped(self) -> str | None:
        return self.text.strip() if self.text is not None and self.error is None else None


@dataclass(frozen=True, slots=True)
class DirListing:
    entries: tuple[str, ...] | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.entries is not None


@dataclass(frozen=True, slots=True)
class StatInfo:
    exists: bool
    mode: int | None = None  # st_mode, file type bits included
    uid: int | None = None
    gid: int | None = None
    error: str | None = None

    @property
    def is_dir(self) -> bool:
        return self.mode is not None and _stat.S_ISDIR(self.mode)

    @property
    def is_char_device(self) -> bool:
        return self.mode is not None and _stat.S_ISCHR(self.mode)

    @property
    def mode_string(self) -> str | None:
        return _stat.filemode(self.mode) if self.mode is not None else None


@dataclass(frozen=True, slots=True)
class CommandResult:
    argv: tuple[str, ...]
    returncode: int | None = None
    stdout: str = ""
    stderr: str = ""
    # "not_found", "permission_denied", "timeout", "os_error: ..."; None when it ran.
    error: str | None = None
    duration_s: float | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.returncode == 0


@dataclass(frozen=True, slots=True)
class Identity:
    """Who gpuscope runs as: the groups the process carries, not those in /etc/group."""

    uid: int
    gid: int
    username: str | None
    process_gids: tuple[int, ...]


class System(Protocol):
    """The evidence interface every probe reads through."""

    @property
    def origin_kind(self) -> OriginKind: ...
    def read_text(self, path: str) -> FileRead: ...
    def open_file(self, path: str) -> OpenFile: ...
    def list_dir(self, path: str) -> DirListing: ...
    def stat(self, path: str) -> StatInfo: ...
    def can_open(self, path: str, write: bool = False) -> bool: ...
    def realpath(self, path: str) -> str: ...
    def which(self, program: str) -> str | None: ...
    def run(self, argv: Sequence[str], timeout_s: float = 10.0) -> CommandResult: ...
    def env(self, name: str) -> str | None: ...
    def identity(self) -> Identity: ...
    def library(self, name: str, collect: Callable[[], JsonValue]) -> JsonValue: ...


def _errno_name(exc: OSError) -> str:
    if exc.errno is not None and exc.errno in _errno.errorcode:
        return _errno.errorcode[exc.errno]
    return type(exc).__name__


class OpenFile(Protocol):
    """A file kept open by the system and read afresh from its start by each `read`."""

    def read(self) -> FileRead: ...
    def close(self) -> None: ...


class RereadFile:
    """A file read through `system.read_text` each time: a replay's, a recording's."""

    def __init__(self, system: System, path: str) -> None:
        self.read = partial(system.read_text, path)

    def close(self) -> None:
        """Nothing is held open."""


class LiveOpenFile:
    """A file kept open, each `read` one pread from its start (a sysfs attribute read at offset
    0 asks the driver anew); after an error the next read opens it again."""

    def __init__(self, path: str) -> None:
        self.path, self._fd = path, -1

    def read(self) -> FileRead:
        try:
            if self._fd < 0:
                self._fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
            data = os.pread(self._fd, 65_536, 0)  # sysfs attributes are at most a page
        except OSError as exc:
            self.close()
            return FileRead(error=_errno_name(exc))
        return FileRead(text=data.decode("utf-8", errors="replace"))

    def close(self) -> None:
        fd, self._fd = self._fd, -1
        if fd >= 0:
            os.close(fd)


class LiveSystem:
    """Reads this machine. Paths are absolute paths of the real file system."""

    origin_kind = OriginKind.LIVE

    def open_file(self, path: str) -> LiveOpenFile:
        """`path` kept open, to be read again and again (the telemetry's sysfs files)."""
        return LiveOpenFile(path)

    def read_text(self, path: str) -> FileRead:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                return FileRead(text=handle.read(MAX_TEXT_CHARS))
        except OSError as exc:
            return FileRead(error=_errno_name(exc))

    def list_dir(self, path: str) -> DirListing:
        try:
            return DirListing(entries=tuple(sorted(os.listdir(path))))
        except OSError as exc:
            return DirListing(error=_errno_name(exc))

    def stat(self, path: str) -> StatInfo:
        try:
            result = os.stat(path)
        except FileNotFoundError:
            return StatInfo(exists=False, error="ENOENT")
        except OSError as exc:
            return StatInfo(exists=False, error=_errno_name(exc))
        return StatInfo(exists=True, mode=result.st_mode, uid=result.st_uid, gid=result.st_gid)

    def can_open(self, path: str, write: bool = False) -> bool:
        # os.access answers for the real uid and the process's groups, which is what a
        # framework started from this session would get.
        return os.access(path, os.R_OK | (os.W_OK if write else 0))

    def realpath(self, path: str) -> str:
        return os.path.realpath(path)

    def which(self, program: str) -> str | None:
        return shutil.which(program)

    def run(self, argv: Sequence[str], timeout_s: float = 10.0) -> CommandResult:
        args = tuple(argv)
        started = time.monotonic()
        try:
            completed = subprocess.run(
                list(args), capture_output=True, timeout=timeout_s, check=False,
                stdin=subprocess.DEVNULL, text=True, errors="replace",
            )
        except FileNotFoundError:
            return CommandResult(args, error="not_found")
        except PermissionError:
            return CommandResult(args, error="permission_denied")
        except subprocess.TimeoutExpired as exc:
            return CommandResult(
                args, stdout=_as_text(exc.stdout), stderr=_as_text(exc.stderr),
                error="timeout", duration_s=time.monotonic() - started,
            )
        except OSError as exc:
            return CommandResult(args, error=f"os_error: {_errno_name(exc)}")
        return CommandResult(
            args, returncode=completed.returncode, stdout=completed.stdout[:MAX_TEXT_CHARS],
            stderr=completed.stderr[:MAX_TEXT_CHARS], duration_s=time.monotonic() - started,
        )

    def env(self, name: str) -> str | None:
        return os.environ.get(name)

    def identity(self) -> Identity:
        uid = os.getuid() if hasattr(os, "getuid") else -1
        gid = os.getgid() if hasattr(os, "getgid") else -1
        gids = tuple(sorted(set(os.getgroups()) | {gid})) if hasattr(os, "getgroups") else ()
        return Identity(uid=uid, gid=gid, username=_username(uid), process_gids=gids)

    def library(self, name: str, collect: Callable[[], JsonValue]) -> JsonValue:
        try:
            return collect()
        except Exception as exc:  # a vendor binding raising anything must become evidence
            return {"status": "error", "error": f"{type(exc).__name__}: {exc}"}


def _as_text(data: str | bytes | None) -> str:
    if data is None:
        return ""
    if isinstance(data, bytes):
        return data.decode("utf-8", errors="replace")
    return data


def _username(uid: int) -> str | None:
    try:
        import pwd

        return pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return os.environ.get("USER") or os.environ.get("USERNAME")


@dataclass
class Snapshot:
    """Every piece of evidence read, keyed by what was asked. Plain JSON, versioned."""

    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    dirs: dict[str, dict[str, Any]] = field(default_factory=dict)
    stats: dict[str, dict[str, Any]] = field(default_factory=dict)
    access: dict[str, bool] = field(default_factory=dict)
    realpaths: dict[str, str] = field(default_factory=dict)
    which: dict[str, str | None] = field(default_factory=dict)
    commands: list[dict[str, Any]] = field(default_factory=list)
    env: dict[str, str | None] = field(default_factory=dict)
    identity: dict[str, Any] | None = None
    libraries: dict[str, JsonValue] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": SNAPSHOT_FORMAT,
            "version": SNAPSHOT_VERSION,
            "meta": self.meta,
            "files": self.files,
            "dirs": self.dirs,
            "stats": self.stats,
            "access": self.access,
            "realpaths": self.realpaths,
            "which": self.which,
            "commands": self.commands,
            "env": self.env,
            "identity": self.identity,
            "libraries": self.libraries,
        }

    @classmethod
    def from_json(cls, doc: Any) -> Snapshot:
        if not isinstance(doc, dict):
            raise SnapshotError("not a gpuscope snapshot: the top level is not a JSON object")
        if doc.get("format") != SNAPSHOT_FORMAT:
            schema = doc.get("schema")
            if isinstance(schema, str) and schema.startswith("gpuscope."):
                raise SnapshotError(f"not a gpuscope snapshot but a {schema[:40]!r} document "
                                    "(open a report on the Compare page)", kind="wrong_kind")
            raise SnapshotError(
                f"not a gpuscope snapshot: format is {doc.get('format')!r:.60}, "
                f"expected {SNAPSHOT_FORMAT!r}", kind="wrong_kind"
            )
        version = doc.get("version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise SnapshotError(f"malformed snapshot: version is {version!r:.40}")
        if version > SNAPSHOT_VERSION:
            raise SnapshotError(
                f"snapshot version {version} is newer than this gpuscope reads "
                f"({SNAPSHOT_VERSION}); update gpuscope"
            )

        def section(name: str, kind: type, item: Callable[[Any], bool]) -> Any:
            value: Any = doc.get(name)
            if value is None:
                return kind()
            if not isinstance(value, kind):
                raise SnapshotError(f"malformed snapshot: {name!r} is not a {kind.__name__}")
            items: Iterable[tuple[Any, Any]] = (
                value.items() if isinstance(value, dict) else enumerate(cast(list[Any], value))
            )
            for key, entry in items:
                if not isinstance(key, (str, int)) or not item(entry):
                    raise SnapshotError(f"malformed snapshot: {name}[{key!r}] is {entry!r:.60}")
            return value

        def is_obj(entry: Any) -> bool:
            return isinstance(entry, dict)

        def is_str(entry: Any) -> bool:
            return isinstance(entry, str)

        def is_opt_str(entry: Any) -> bool:
            return entry is None or isinstance(entry, str)

        identity = doc.get("identity")
        if identity is not None and not isinstance(identity, dict):
            raise SnapshotError("malformed snapshot: 'identity' is not a dict")
        return cls(
            files=section("files", dict, is_obj),
            dirs=section("dirs", dict, is_obj),
            stats=section("stats", dict, is_obj),
            access=section("access", dict, lambda e: isinstance(e, bool)),
            realpaths=section("realpaths", dict, is_str),
            which=section("which", dict, is_opt_str),
            commands=section("commands", list, is_obj),
            env=section("env", dict, is_opt_str),
            identity=identity,
            libraries=section("libraries", dict, lambda e: True),
            meta=section("meta", dict, lambda e: True),
        )

    def save(self, path: str | Path) -> None:
        """Write atomically (`gpuscope.safe_write`); a name ending in .gz is gzip-compressed."""
        data = json.dumps(self.to_json(), indent=1, sort_keys=True).encode("utf-8")
        if str(path).endswith(".gz"):
            data = gzip.compress(data, mtime=0)
        write_bytes(path, data)

    @classmethod
    def load(cls, path: str | Path) -> Snapshot:
        """Read a snapshot file (plain or gzip JSON, told by its content). Only a regular file
        is read, at most MAX_SNAPSHOT_BYTES of it once decompressed, with bounded JSON; any
        problem is a SnapshotError of one line that names the file."""
        source = str(path)
        try:
            raw = read_regular_file(path, MAX_SNAPSHOT_BYTES, name=source, what="a snapshot")
            if is_gzip(raw):
                raw = gunzip(raw, MAX_SNAPSHOT_BYTES, name=source, what="a snapshot")
        except UntrustedInputError as exc:
            raise SnapshotError(str(exc), kind=exc.kind) from None
        try:
            doc = load_json(raw, name=source)
        except UntrustedInputError as exc:
            if exc.kind == "malformed" and not raw.lstrip(
                    b"\xef\xbb\xbf \t\r\n").startswith((b"{", b"[")):
                raise SnapshotError(_not_json(source, raw), kind="wrong_kind") from None
            raise SnapshotError(str(exc), kind=exc.kind) from None
        try:
            return cls.from_json(doc)
        except SnapshotError as exc:
            raise SnapshotError(f"{source}: {exc}", kind=exc.kind) from None


def _not_json(source: str, raw: bytes) -> str:
    if not raw.strip():
        return f"{source}: the file is empty, not a gpuscope snapshot"
    head = raw[:4096]
    text = b"\x00" not in head and head.decode("utf-8", errors="replace").count("\ufffd") < 8
    return (f"{source}: not a gpuscope snapshot (not JSON)"
            + ("; a pasted tool output goes to gpuscope doctor --from FILE" if text else ""))


class SnapshotError(UntrustedInputError):
    """A snapshot file that cannot be read, with a one-line reason for the user."""


class RecordingSystem:
    """Passes every question to `inner` and keeps the answer for a snapshot. Thread-safe:
    probes may run in parallel."""

    def __init__(self, inner: System) -> None:
        self._inner = inner
        self._lock = threading.Lock()
        self.snapshot = Snapshot()

    @property
    def origin_kind(self) -> OriginKind:
        return self._inner.origin_kind

    def open_file(self, path: str) -> OpenFile:
        return RereadFile(self, path)

    def read_text(self, path: str) -> FileRead:
        result = self._inner.read_text(path)
        with self._lock:
            self.snapshot.files[path] = _drop_none({"text": result.text, "error": result.error})
        return result

    def list_dir(self, path: str) -> DirListing:
        result = self._inner.list_dir(path)
        with self._lock:
            self.snapshot.dirs[path] = _drop_none(
                {"entries": list(result.entries) if result.entries is not None else None,
                 "error": result.error}
            )
        return result

    def stat(self, path: str) -> StatInfo:
        result = self._inner.stat(path)
        with self._lock:
            self.snapshot.stats[path] = _drop_none(
                {"exists": result.exists, "mode": result.mode, "uid": result.uid,
                 "gid": result.gid, "error": result.error}
            )
        return result

    def can_open(self, path: str, write: bool = False) -> bool:
        result = self._inner.can_open(path, write)
        with self._lock:
            self.snapshot.access[_access_key(path, write)] = result
        return result

    def realpath(self, path: str) -> str:
        result = self._inner.realpath(path)
        with self._lock:
            self.snapshot.realpaths[path] = result
        return result

    def which(self, program: str) -> str | None:
        result = self._inner.which(program)
        with self._lock:
            self.snapshot.which[program] = result
        return result

    def run(self, argv: Sequence[str], timeout_s: float = 10.0) -> CommandResult:
        result = self._inner.run(argv, timeout_s)
        with self._lock:
            self.snapshot.commands.append(_drop_none({
                "argv": list(result.argv), "returncode": result.returncode,
                "stdout": result.stdout, "stderr": result.stderr, "error": result.error,
                "duration_s": result.duration_s,
            }))
        return result

    def env(self, name: str) -> str | None:
        result = self._inner.env(name)
        with self._lock:
            self.snapshot.env[name] = result
        return result

    def identity(self) -> Identity:
        result = self._inner.identity()
        with self._lock:
            self.snapshot.identity = {
                "uid": result.uid, "gid": result.gid, "username": result.username,
                "process_gids": list(result.process_gids),
            }
        return result

    def library(self, name: str, collect: Callable[[], JsonValue]) -> JsonValue:
        result = self._inner.library(name, collect)
        # Round-trip through JSON now so replay sees exactly what the file will hold.
        result = cast(JsonValue, json.loads(json.dumps(result)))
        with self._lock:
            self.snapshot.libraries[name] = result
        return result


def _drop_none(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


def _access_key(path: str, write: bool) -> str:
    return f"{path}|{'rw' if write else 'r'}"


NOT_CAPTURED: dict[str, JsonValue] = {
    "status": "not_captured",
    "error": "this snapshot holds no answer from this library",
}


class ReplaySystem:
    """Answers from a snapshot. What the snapshot does not hold reads as absent (a file that
    does not exist, a command not found), except a vendor library, which answers
    `NOT_CAPTURED` so that a probe can say so instead of pretending the library is missing.

    Hand-written fixtures may list only files: directory listings and stats are derived from
    the paths the snapshot holds, and a path under a recorded symlink (`realpaths`) resolves
    through it, as the kernel's sysfs links do."""

    origin_kind = OriginKind.REPLAY

    def __init__(self, snapshot: Snapshot, source: str | None = None) -> None:
        self.snapshot = snapshot
        self.source = source
        self._known_paths = self._collect_known_paths(snapshot)
        self._commands: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for entry in snapshot.commands:
            argv = entry.get("argv")
            if isinstance(argv, list):
                self._commands.setdefault(tuple(str(a) for a in argv), []).append(entry)
        self._command_cursor: dict[tuple[str, ...], int] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_file(cls, path: str | Path) -> ReplaySystem:
        return cls(Snapshot.load(path), source=str(path))

    @staticmethod
    def _collect_known_paths(snapshot: Snapshot) -> set[str]:
        paths: set[str] = set()
        for path, entry in snapshot.files.items():
            if "error" not in entry:
                paths.add(path)
        for path, entry in snapshot.stats.items():
            if entry.get("exists"):
                paths.add(path)
        for path, entry in snapshot.dirs.items():
            if "error" not in entry:
                paths.add(path)
        paths.update(snapshot.realpaths.values())
        return paths

    def _resolve(self, path: str) -> str:
        """Follow the longest recorded symlink prefix of `path` (sysfs's `device` links)."""
        realpaths = self.snapshot.realpaths
        probe = path
        while probe not in ("/", ""):
            target = realpaths.get(probe)
            if target is not None and target != probe:
                return target + path[len(probe):]
            probe = posixpath.dirname(probe)
        return path

    def _lookup(self, table: Mapping[str, Any], path: str) -> Any:
        if path in table:
            return table[path]
        resolved = self._resolve(path)
        return table.get(resolved) if resolved != path else None

    def _exists(self, path: str) -> bool:
        for candidate in (path, self._resolve(path)):
            if candidate in self._known_paths:
                return True
            prefix = candidate.rstrip("/") + "/"
            if any(p.startswith(prefix) for p in self._known_paths):
                return True
        return False

    def open_file(self, path: str) -> OpenFile:
        return RereadFile(self, path)

    def read_text(self, path: str) -> FileRead:
        entry = self._lookup(self.snapshot.files, path)
        if not isinstance(entry, dict):
            return FileRead(error="ENOENT")
        text = entry.get("text")
        error = entry.get("error")
        return FileRead(
            text=str(text) if text is not None else None,
            error=str(error) if error is not None else (None if text is not None else "ENOENT"),
        )

    def list_dir(self, path: str) -> DirListing:
        entry = self._lookup(self.snapshot.dirs, path)
        if isinstance(entry, dict):
            entries = entry.get("entries")
            if isinstance(entries, list):
                return DirListing(entries=tuple(str(e) for e in entries))
            return DirListing(error=str(entry.get("error", "ENOENT")))
        children: set[str] = set()
        for base in {path.rstrip("/"), self._resolve(path).rstrip("/")}:
            prefix = base + "/"
            children.update(
                p[len(prefix):].split("/", 1)[0] for p in self._all_paths() if p.startswith(prefix)
            )
        children.discard("")
        if children:
            return DirListing(entries=tuple(sorted(children)))
        return DirListing(error="ENOENT")

    def _all_paths(self) -> Iterable[str]:
        yield from self._known_paths
        yield from self.snapshot.realpaths.keys()

    def stat(self, path: str) -> StatInfo:
        entry = self._lookup(self.snapshot.stats, path)
        if isinstance(entry, dict):
            return StatInfo(
                exists=bool(entry.get("exists")), mode=_int_or_none(entry.get("mode")),
                uid=_int_or_none(entry.get("uid")), gid=_int_or_none(entry.get("gid")),
                error=entry.get("error"),
            )
        if self._exists(path):
            return StatInfo(exists=True)
        return StatInfo(exists=False, error="ENOENT")

    def can_open(self, path: str, write: bool = False) -> bool:
        recorded = self.snapshot.access.get(_access_key(path, write))
        if recorded is not None:
            return bool(recorded)
        return self._exists(path)

    def realpath(self, path: str) -> str:
        return self._resolve(path)

    def which(self, program: str) -> str | None:
        return self.snapshot.which.get(program)

    def run(self, argv: Sequence[str], timeout_s: float = 10.0) -> CommandResult:
        key = tuple(argv)
        with self._lock:
            entries = self._commands.get(key)
            if not entries:
                return CommandResult(key, error="not_found")
            # The same command run twice replays its answers in order, then the last again.
            cursor = self._command_cursor.get(key, 0)
            self._command_cursor[key] = cursor + 1
            entry = entries[min(cursor, len(entries) - 1)]
        return CommandResult(
            argv=key, returncode=_int_or_none(entry.get("returncode")),
            stdout=str(entry.get("stdout", "")), stderr=str(entry.get("stderr", "")),
            error=entry.get("error"), duration_s=entry.get("duration_s"),
        )

    def env(self, name: str) -> str | None:
        value = self.snapshot.env.get(name)
        return str(value) if value is not None else None

    def identity(self) -> Identity:
        # A hand-written fixture without an identity runs as an ordinary user, uid 1000.
        recorded = self.snapshot.identity or {}
        uid = _int_or_none(recorded.get("uid"))
        gid = _int_or_none(recorded.get("gid"))
        gids = recorded.get("process_gids")
        username = recorded.get("username")
        return Identity(
            uid=1000 if uid is None else uid,
            gid=1000 if gid is None else gid,
            username=str(username) if username is not None else None,
            process_gids=tuple(g for g in gids if isinstance(g, int))
            if isinstance(gids, list) else (),
        )

    def library(self, name: str, collect: Callable[[], JsonValue]) -> JsonValue:
        return self.snapshot.libraries.get(name, dict(NOT_CAPTURED))


def _int_or_none(value: Any) -> int | None:
    return int(value) if isinstance(value, (bool, int)) else None
