"""A child of gpuscope dies with its parent, whatever kills the parent (issue #13, item 6).

Two guards, both armed by gpuscope's side (`gpuscope.probes.worker_process`):

- Linux: the parent-death signal. `prctl(PR_SET_PDEATHSIG, SIGKILL)` makes the kernel kill this
  process when the thread that started it ends, even by `kill -9`. gpuscope sets it in the child
  between fork and exec with `SHIM_SOURCE` (`python -I -S -c SHIM_SOURCE PARENT_PID PROGRAM
  ARGS...`), which then execs the real program: the setting survives `execve` for a program
  that is not set-user-ID, set-group-ID or file-capable. The kernel forgets it on fork, so a
  worker that starts workers of its own (the framework probe) arms its children again
  (`arm_worker` below); `guarded_argv` gives any plain `subprocess` call the same guard.
- Everywhere: gpuscope holds the write end of the worker's stdin pipe and never writes to it.
  When gpuscope dies the pipe reaches end of file and `watch_stdin`'s thread ends the worker
  with its process group (the worker leads a session of its own).

Standard library only, Python 3.9 syntax: this runs in the user's interpreter (see `child`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
import sys
import threading
from collections.abc import Callable, Mapping, Sequence

# Set by gpuscope for its children: the pid the child's parent must have (when it differs,
# the parent died before the child armed its guard) and "1" when stdin is the watched pipe.
PARENT_PID_ENV = "GPUSCOPE_PARENT_PID"
WATCH_STDIN_ENV = "GPUSCOPE_WATCH_STDIN"

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
EXIT_PARENT_GONE = 129  # as a shell reports a death by SIGHUP: the parent hung up

# Run as `python -I -S -c SHIM_SOURCE PARENT_PID PROGRAM ARGS...` with gpuscope's own
# interpreter: arm the parent-death signal, check the parent is still the one that started us
# (it may have died before prctl ran; we would then have been adopted by init or a
# subreaper), then become PROGRAM. Exit 127 when PROGRAM cannot be run, as a shell does.
SHIM_SOURCE = """\
import os, sys
try:
    import ctypes
    if ctypes.CDLL(None, use_errno=True).prctl(1, 9, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
except Exception as exc:
    sys.stderr.write("gpuscope: cannot set the parent-death signal: %s\\n" % (exc,))
if os.getppid() != int(sys.argv[1]):
    os._exit(129)
try:
    os.execvp(sys.argv[2], sys.argv[2:])
except OSError as exc:
    sys.stderr.write("gpuscope: cannot run %s: %s\\n" % (sys.argv[2], exc.strerror or exc))
    sys.stderr.flush()
    os._exit(127)
"""


def set_parent_death_signal(signum: int = 9) -> str | None:
    """Ask the kernel to send `signum` (default SIGKILL) to this process when its parent thread
    ends. None once armed, else why not (not Linux, no prctl in the C library, the call failed)."""
    if not sys.platform.startswith("linux"):
        return "the parent-death signal exists on Linux only"
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0) != 0:
            errno = ctypes.get_errno()
            return f"prctl(PR_SET_PDEATHSIG) failed: {os.strerror(errno)}"
    except (OSError, AttributeError, ImportError) as exc:
        return f"prctl is not available: {exc}"
    return None


def end_own_group() -> None:
    """Kill this process and, where it leads its process group (gpuscope starts each worker
    in a session of its own), every process of the group: what it started goes with it."""
    killpg = getattr(os, "killpg", None)
    if killpg is not None and os.getpgrp() == os.getpid():
        with contextlib.suppress(OSError):
            killpg(os.getpid(), signal.SIGKILL)
    os._exit(EXIT_PARENT_GONE)


def shim_argv(argv: Sequence[str], python: str, parent_pid: int) -> list[str]:
    """`argv` run through `SHIM_SOURCE` by `python` (any Python 3): on Linux the program then
    dies with the thread of `parent_pid` that starts this command line."""
    return [python, "-I", "-S", "-c", SHIM_SOURCE, str(parent_pid), *argv]


def _check_runnable(program: str, env: Mapping[str, str] | None, cwd: str | None) -> None:
    """Raise what Popen raises when `program` cannot be run (FileNotFoundError,
    PermissionError): through the shim, the exec happens after Popen has returned."""
    if os.path.dirname(program):
        candidates = [os.path.join(cwd, program) if cwd is not None else program]
    else:
        candidates = [os.path.join(folder, program) for folder in os.get_exec_path(
            dict(env) if env is not None else None)]
    found = False
    for path in candidates:
        if os.path.exists(path):
            found = True
            if os.path.isfile(path) and os.access(path, os.X_OK):
                return
    if found:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), program)
    raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)


def guarded_argv(argv: Sequence[str], env: Mapping[str, str] | None = None,
                 cwd: str | None = None) -> list[str]:
    """On Linux, `argv` run through the shim by this interpreter, so that the program dies with
    the thread that starts it (keep that thread until the program has ended, as
    `subprocess.run` does); elsewhere `argv` itself. `env` and `cwd` are those the program
    gets. Raises FileNotFoundError or PermissionError as `subprocess.Popen` would."""
    argv = list(argv)
    if not sys.platform.startswith("linux") or getattr(sys, "frozen", False) \
            or not sys.executable:
        return argv
    _check_runnable(argv[0], env, cwd)
    return shim_argv(argv, sys.executable, os.getpid())


def _is_pipe(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def watch_stdin(on_eof: Callable[[], None] = end_own_group, fd: int = 0) -> threading.Thread:
    """Start a daemon thread that reads `fd` (whatever arrives is dropped) and calls `on_eof`
    once it reaches end of file or fails: the parent holding its write end is gone."""

    def watch() -> None:
        try:
            while os.read(fd, 4096):
                pass
        except OSError:
            pass
        on_eof()

    thread = threading.Thread(target=watch, name="gpuscope-parent-watchdog", daemon=True)
    thread.start()
    return thread


def arm_worker() -> None:
    """The first thing a worker does (`launch.run_worker`) when gpuscope started it: die with
    the parent, and pass the guard on to the workers this one starts.

    Without PARENT_PID_ENV (a worker run by hand) nothing is armed."""
    expected = os.environ.pop(PARENT_PID_ENV, "")
    watch = os.environ.pop(WATCH_STDIN_ENV, "") == "1"
    if not expected.strip().isdigit():
        return
    # The shim set this already for a child of gpuscope; a child of a worker (started without
    # the shim) sets it here, and the parent check below closes the window before it.
    why_not = set_parent_death_signal()
    if why_not is not None and sys.platform.startswith("linux"):
        sys.stderr.write(f"gpuscope worker: {why_not}\n")
    if os.getppid() != int(expected):
        sys.stderr.write(f"gpuscope worker: its parent (pid {expected}) is gone; exiting\n")
        sys.stderr.flush()
        os._exit(EXIT_PARENT_GONE)
    # Only a pipe: a worker given /dev/null (a child of a worker) would read end of file at once.
    if watch and _is_pipe(0):
        watch_stdin()
    # Children this worker starts with this folder's launcher check against this process.
    os.environ[PARENT_PID_ENV] = str(os.getpid())
