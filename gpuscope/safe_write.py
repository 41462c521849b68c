"""Writing a file so that nothing is lost or clobbered: the one writer of every file gpuscope
writes (snapshot, report, CSV export, benchmark results, settings, the desktop entry).

The bytes go to a temporary file in the target's folder, created exclusively (O_CREAT|O_EXCL,
O_NOFOLLOW where there is one) under a random name, so a symlink planted there by someone else
is never written through; it is flushed to disk and then renamed over the target. A failure
at any step (disk full, a killed writer, an exception while producing the content) removes
the temporary and leaves the old file as it was, or no file: never a 0-byte or half target,
never a stray temporary. A target that is itself a symlink is replaced, not written through.

Standard library only: this is the bottom layer.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Literal, cast, overload

# The temporary's name: hidden, beside the target, random; the target's name is shortened so
# that the temporary's stays within the 255 bytes most file systems allow.
_NAME_KEEP_CHARS = 80
_TRIES = 32
_CREATE_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                 | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0))


def _temporary_name(target: Path, suffix: str = "") -> Path:
    return target.with_name(
        f".{target.name[:_NAME_KEEP_CHARS]}.{secrets.token_hex(6)}.tmp{suffix[:16]}")


def _permissions(target: Path, mode: int | None) -> int | None:
    """The permission bits the written file gets: `mode`; else those of the file it replaces;
    else None (0o666 less the umask, as for any new file)."""
    if mode is not None:
        return mode
    with contextlib.suppress(OSError):
        existing = os.lstat(target)
        if stat.S_ISREG(existing.st_mode):
            return existing.st_mode & 0o777
    return None


def create_temporary(target: str | os.PathLike[str], suffix: str = "") -> tuple[Path, int]:
    """A new, empty temporary file beside `target`, created exclusively, its name ending in
    `suffix`: (its path, an open descriptor for writing). Raises OSError when none can be."""
    target_path = Path(target)
    last: OSError | None = None
    for _ in range(_TRIES):
        candidate = _temporary_name(target_path, suffix)
        try:
            return candidate, os.open(candidate, _CREATE_FLAGS, 0o666)
        except FileExistsError as exc:  # taken, by chance or by someone's planted link
            last = exc
    raise last or FileExistsError(f"no free temporary name beside {target_path}")


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX); a folder cannot be opened on Windows."""
    if os.name == "nt":
        return
    with contextlib.suppress(OSError):
        handle = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


def _finish(temporary: Path, target: Path, mode: int | None) -> None:
    permissions = _permissions(target, mode)
    if permissions is not None and hasattr(os, "chmod"):
        os.chmod(temporary, permissions)
    os.replace(temporary, target)
    _sync_folder(target.parent)


@overload
def atomic_output(target: str | os.PathLike[str], *, text: Literal[True] = ...,
                  encoding: str = ..., newline: str | None = ...,
                  mode: int | None = ...) -> contextlib.AbstractContextManager[IO[str]]: ...


@overload
def atomic_output(target: str | os.PathLike[str], *, text: Literal[False],
                  encoding: str = ..., newline: str | None = ...,
                  mode: int | None = ...) -> contextlib.AbstractContextManager[IO[bytes]]: ...


def atomic_output(target: str | os.PathLike[str], *, text: bool = True, encoding: str = "utf-8",
                  newline: str | None = None, mode: int | None = None,
                  ) -> contextlib.AbstractContextManager[IO[str]] | \
        contextlib.AbstractContextManager[IO[bytes]]:
    """A file object to write `target` through, for content streamed in pieces (a CSV of a
    long recording): the target changes only when the `with` block ends without an exception.
    `mode`: the permission bits (default: those of the file replaced, or the umask's)."""
    return cast(contextlib.AbstractContextManager[IO[str]],
                _atomic_output(Path(target), text, encoding, newline, mode))


def _not_a_file(target: Path) -> bool:
    """A target that exists and is no regular file (/dev/stdout, a FIFO): written in place,
    since replacing it would put a file where the device or pipe was."""
    try:
        return not stat.S_ISREG(os.stat(target).st_mode)
    except OSError:
        return False


@contextlib.contextmanager
def _atomic_output(target: Path, text: bool, encoding: str, newline: str | None,
                   mode: int | None) -> Iterator[IO[str] | IO[bytes]]:
    if _not_a_file(target):
        with (open(target, "w", encoding=encoding, newline=newline) if text
              else open(target, "wb")) as direct:
            yield direct
        return
    temporary, descriptor = create_temporary(target)
    try:
        if text:
            handle: IO[str] | IO[bytes] = os.fdopen(descriptor, "w", encoding=encoding,
                                                   newline=newline)
        else:
            handle = os.fdopen(descriptor, "wb")
    except BaseException:
        os.close(descriptor)
        _remove(temporary)
        raise
    try:
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        _finish(temporary, target, mode)
    except BaseException:
        _remove(temporary)
        raise


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike[str], *, mode: int | None = None,
                ) -> Iterator[Path]:
    """A temporary path to give a library that writes by file name (Qt's image save): it
    exists, empty, created exclusively and with the target's suffix, so the library picks the
    same format. It replaces `target` when the block ends without an exception and the file
    is no longer empty; otherwise it is removed and the target left as it was."""
    target_path = Path(target)
    if _not_a_file(target_path):
        yield target_path
        return
    named, descriptor = create_temporary(target_path, target_path.suffix)
    os.close(descriptor)
    try:
        yield named
        if os.path.getsize(named) == 0:
            raise OSError(f"nothing was written to {target_path}")
        with open(named, "rb+") as handle:
            os.fsync(handle.fileno())
        _finish(named, target_path, mode)
    except BaseException:
        _remove(named)
        raise


def write_bytes(target: str | os.PathLike[str], data: bytes, *, mode: int | None = None,
                ) -> None:
    """Replace `target` with `data`, all or nothing. Raises OSError (the target unchanged)."""
    with atomic_output(target, text=False, mode=mode) as handle:
        handle.write(data)


def write_text(target: str | os.PathLike[str], text: str, *, encoding: str = "utf-8",
               mode: int | None = None) -> None:
    """Replace `target` with `text`, all or nothing. Raises OSError (the target unchanged)."""
    write_bytes(target, text.encode(encoding), mode=mode)


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def same_file(first: str | os.PathLike[str], second: str | os.PathLike[str]) -> bool:
    """Whether two paths name the same file: the same inode when both exist, else the same
    path once links and `..` are resolved."""
    with contextlib.suppress(OSError):
        return os.path.samefile(first, second)
    return os.path.normcase(os.path.realpath(first)) == os.path.normcase(
        os.path.realpath(second))


# ----------------------------------------------------------------------------- writer lock


class FileLockedError(OSError):
    """Another process holds the writer lock; `pid` is its process id when it could be read."""

    def __init__(self, path: Path, pid: int | None) -> None:
        super().__init__(f"{path} is locked by process {pid if pid is not None else '?'}")
        self.pid = pid


class WriterLock:
    """`<file>.lock` beside a file, holding the PID of the one process that writes the file.

    The lock itself is the operating system's (flock on POSIX, msvcrt.locking on Windows), so
    it ends with its process however that process ends, and a `.lock` left by a killed writer
    is taken over. `acquire` raises FileLockedError (naming the holder's PID) while another
    process holds it, OSError when the lock file cannot be made.

    `reserve_bytes` pads the lock file with that much disk space, which `free_reserve` gives
    back: room for a writer to say "incomplete: the disk is full" in a file on a full disk."""

    def __init__(self, target: str | os.PathLike[str], reserve_bytes: int = 0) -> None:
        self.path = Path(f"{os.fspath(target)}.lock")
        self.reserve_bytes = reserve_bytes
        self._descriptor: int | None = None
        self._pid_line = f"{os.getpid()}\n".encode("ascii")

    @property
    def held(self) -> bool:
        return self._descriptor is not None

    def acquire(self) -> None:
        if self._descriptor is not None:
            return
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(
            os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
        for _ in range(_TRIES):
            descriptor = os.open(self.path, flags, 0o644)
            try:
                taken = _lock(descriptor)
                if not taken:
                    raise FileLockedError(self.path, _read_pid(descriptor))
                # A holder that was ending may have removed the name after we opened it:
                # the lock counts only on the file that still has the name.
                current = os.stat(self.path, follow_symlinks=False)
                opened = os.fstat(descriptor)
                if (current.st_dev, current.st_ino) != (opened.st_dev, opened.st_ino):
                    os.close(descriptor)
                    continue
            except FileNotFoundError:
                os.close(descriptor)
                continue
            except BaseException:
                os.close(descriptor)
                raise
            with contextlib.suppress(OSError):  # a full disk: the lock holds without the PID
                os.ftruncate(descriptor, 0)
                os.lseek(descriptor, 0, os.SEEK_SET)
                os.write(descriptor, self._pid_line + b" " * self.reserve_bytes)
                os.fsync(descriptor)
            self._descriptor = descriptor
            return
        raise FileLockedError(self.path, None)

    def free_reserve(self) -> None:
        """Give back the reserved space (the disk is full): the PID stays."""
        if self._descriptor is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._descriptor, len(self._pid_line))

    def release(self) -> None:
        descriptor, self._descriptor = self._descriptor, None
        if descriptor is None:
            return
        if os.name == "nt":
            with contextlib.suppress(OSError):
                _unlock_windows(descriptor)
            os.close(descriptor)
            _remove(self.path)
        else:
            _remove(self.path)  # while still held, so no one takes a name about to vanish
            os.close(descriptor)

    def __enter__(self) -> WriterLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


# Windows locks a byte past the PID, so that others can still read the PID.
_WINDOWS_LOCK_OFFSET = 64


def _lock(descriptor: int) -> bool:
    """Take the lock without waiting: True, or False when another process holds it."""
    if os.name == "nt":
        import msvcrt

        os.lseek(descriptor, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(descriptor, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _unlock_windows(descriptor: int) -> None:
    import msvcrt

    os.lseek(descriptor, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
    msvcrt.locking(descriptor, msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]


def _read_pid(descriptor: int) -> int | None:
    try:
        os.lseek(descriptor, 0, os.SEEK_SET)
        text = os.read(descriptor, 32).decode("ascii", errors="replace").strip()
        return int(text) if text.isdigit() else None
    except OSError:
        return None


# Files SQLite keeps beside a database, and the writer lock: writing onto one ruins the file.
SIDE_FILE_SUFFIXES = ("-wal", "-shm", "-journal", ".lock")


def input_overwritten(output: str | os.PathLike[str],
                      inputs: Iterable[str | os.PathLike[str] | None]) -> str | None:
    """The input (or the side file of one: its -wal, -shm, -journal or .lock) that writing
    `output` would replace, or None. Compared by inode where both exist, else by resolved
    path, so a symlink or `./a/../R` naming an input counts as that input."""
    for given in inputs:
        if given is None or os.fspath(given) == "":
            continue
        for suffix in ("", *SIDE_FILE_SUFFIXES):
            if same_file(output, f"{os.fspath(given)}{suffix}"):
                return os.fspath(given)
    return None
