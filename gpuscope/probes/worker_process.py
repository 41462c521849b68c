"""A worker script run by path in a process group of its own, talking JSON lines on stdout.

Shared by the framework probe (`frameworks.py`) and the benchmark runner (`gpuscope.bench`):
both start a standalone script with an interpreter the user picked, read versioned JSON lines
from its stdout (logs go to stderr), and must survive the script hanging, crashing or leaving
children behind.

- The script runs in a new session (POSIX) or a new process group (Windows), so that one kill
  takes it with every child it started.
- stdout is read on a thread by `JsonLineReader`, which keeps a partial line until its newline
  arrives and treats a line that is not a JSON object with a `type` as log text.
- stderr is read on a thread too and only its tail is kept.
- The process is waited for without being reaped (`waitid(..., WNOWAIT)`), so that its process
  group id stays reserved until stragglers in the group have been swept.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gpuscope.i18n import N_, message
from gpuscope.model import ProbeState

# Why an interpreter could not be started (recorded in English, read back translatable).
REASON_NOT_FOUND = N_("Python interpreter not found: {python}")
REASON_NOT_ALLOWED = N_("not allowed to run {python}")
REASON_CANNOT_RUN = N_("cannot run {python}: {error}")
START_REASONS = (REASON_NOT_FOUND, REASON_NOT_ALLOWED, REASON_CANNOT_RUN)

MAX_MESSAGES = 1000
MAX_LOG_LINES = 50
STDERR_KEEP_BYTES = 64 * 1024
STDERR_TAIL_CHARS = 4000

Message = dict[str, Any]


class JsonLineReader:
    """Splits a byte stream into JSON messages. A line arrives in pieces: the partial line is
    kept until its newline comes; a line that is not a JSON object with a `type` is log text.

    With `on_message`, each message is handed over as it completes (on the feeding thread)
    instead of being kept in `messages`."""

    def __init__(self, on_message: Callable[[Message], None] | None = None,
                 max_messages: int = MAX_MESSAGES) -> None:
        self._pending = b""
        self._on_message = on_message
        self._max_messages = max_messages
        self.messages: list[Message] = []
        self.log_lines: deque[str] = deque(maxlen=MAX_LOG_LINES)
        self.dropped = 0

    def feed(self, data: bytes) -> None:
        self._pending += data
        *lines, self._pending = self._pending.split(b"\n")
        for line in lines:
            self._take(line)

    def close(self) -> None:
        """End of stream: a last line without its newline still counts."""
        pending, self._pending = self._pending, b""
        if pending:
            self._take(pending)

    def _take(self, raw: bytes) -> None:
        text = raw.decode("utf-8", errors="replace").strip()
        if not text:
            return
        try:
            message = json.loads(text)
        except (ValueError, RecursionError):  # RecursionError: "[[[[..." nested too deep
            message = None
        if isinstance(message, dict) and isinstance(message.get("type"), str):
            if self._on_message is not None:
                self._on_message(message)
            elif len(self.messages) < self._max_messages:
                self.messages.append(message)
            else:
                self.dropped += 1
        else:
            self.log_lines.append(text[:500])


# ----------------------------------------------------------------------------- stderr text


def signal_name(returncode: int | None) -> str | None:
    """`SIGSEGV` for a process killed by signal 11 (returncode -11); None for an exit."""
    if returncode is None or returncode >= 0 or os.name == "nt":
        return None
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def last_error_line(stderr: str) -> str | None:
    """The last line that mentions an error, or else the last line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in reversed(lines):
        if "Error" in line or "error" in line:
            return line[:300]
    return lines[-1][:300] if lines else None


# The line that names what went wrong, most telling first: a GPU runtime's own words beat
# Python's "Fatal Python error: Aborted" that faulthandler prints after them.
_KEY_LINE_PATTERNS = (
    re.compile(r"hipErrorNoBinaryForGpu|no kernel image is available|invalid device function"
               r"|rocBLAS error|hipBLASLt error|TensileLibrary|Cannot find Symbol"),
    re.compile(r"HIP error|CUDA error|HSA_STATUS_ERROR|hipError\w+|cudaError\w+|out of memory"
               r"|can't allocate memory", re.IGNORECASE),
    re.compile(r"^\w*(Error|Exception)\b.*:"),
    re.compile(r"error|fatal|abort|segmentation fault|illegal instruction", re.IGNORECASE),
)


def key_error_line(stderr: str) -> str | None:
    """The line of a worker's stderr that says best what failed: a known GPU runtime failure,
    else an exception line, else any line mentioning an error, else the last line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    if not lines:
        return None
    for pattern in _KEY_LINE_PATTERNS:
        for line in reversed(lines):
            if pattern.search(line):
                return line[:300]
    return lines[-1][:300]


# ----------------------------------------------------------------------------- the process


class WorkerStartError(Exception):
    """The interpreter could not be started; `state` says how (library_missing,
    permission_denied, error) and the message names the interpreter."""

    def __init__(self, state: ProbeState, message: str) -> None:
        super().__init__(message)
        self.state = state
        self.message = message


class WorkerProcess:
    """One running worker. Start with `WorkerProcess.start`; always end with `finish()`."""

    def __init__(self, process: subprocess.Popen[bytes], reader: JsonLineReader,
                 name: str) -> None:
        self.process = process
        self.reader = reader
        self.name = name
        self.started_monotonic = time.monotonic()
        self.last_output_monotonic = self.started_monotonic
        self.stdout_closed = threading.Event()
        self._stderr_chunks: deque[bytes] = deque()
        self._stderr_size = 0
        self._stderr_lock = threading.Lock()
        self._finished = False
        self._finish_lock = threading.Lock()
        self._threads = [
            threading.Thread(target=self._read_stdout, daemon=True, name=f"{name}-stdout"),
            threading.Thread(target=self._read_stderr, daemon=True, name=f"{name}-stderr"),
        ]
        for thread in self._threads:
            thread.start()

    @classmethod
    def start(
        cls,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        on_message: Callable[[Message], None] | None = None,
        name: str = "worker",
    ) -> WorkerProcess:
        """Start `argv` (interpreter, script, arguments) in a process group of its own.
        Raises WorkerStartError when the interpreter cannot be run."""
        python = argv[0]
        popen_options: dict[str, Any] = {}
        if os.name == "nt":
            popen_options["creationflags"] = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
        else:
            popen_options["start_new_session"] = True
        try:
            process = subprocess.Popen(
                list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, env=dict(env) if env is not None else None,
                **popen_options,
            )
        except FileNotFoundError as exc:
            raise WorkerStartError(ProbeState.LIBRARY_MISSING,
                                   message(REASON_NOT_FOUND, python=python)) from exc
        except PermissionError as exc:
            raise WorkerStartError(ProbeState.PERMISSION_DENIED,
                                   message(REASON_NOT_ALLOWED, python=python)) from exc
        except OSError as exc:
            raise WorkerStartError(ProbeState.ERROR,
                                   message(REASON_CANNOT_RUN, python=python,
                                           error=str(exc.strerror or exc))) from exc
        return cls(process, JsonLineReader(on_message), name)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    def _read_stdout(self) -> None:
        stream = self.process.stdout
        try:
            if stream is not None:
                fd = stream.fileno()
                while chunk := os.read(fd, 65536):
                    self.last_output_monotonic = time.monotonic()
                    self.reader.feed(chunk)
        except (OSError, ValueError):  # the stream was closed under us by finish()
            pass
        finally:
            self.stdout_closed.set()

    def _read_stderr(self) -> None:
        stream = self.process.stderr
        if stream is None:
            return
        with contextlib.suppress(OSError, ValueError):
            fd = stream.fileno()
            while chunk := os.read(fd, 65536):
                with self._stderr_lock:
                    self._stderr_chunks.append(chunk)
                    self._stderr_size += len(chunk)
                    while (self._stderr_size > STDERR_KEEP_BYTES
                           and len(self._stderr_chunks) > 1):
                        self._stderr_size -= len(self._stderr_chunks.popleft())

    def stderr_tail(self) -> str:
        with self._stderr_lock:
            data = b"".join(self._stderr_chunks)
        return data.decode("utf-8", errors="replace").rstrip()[-STDERR_TAIL_CHARS:]

    def wait_exit(self, timeout_s: float) -> bool:
        """Wait up to `timeout_s` for the process to exit, without reaping it where the OS
        allows (its group id then stays reserved until `finish` sweeps the group). True if
        it exited."""
        process = self.process
        waitid = getattr(os, "waitid", None)
        if waitid is None or os.name == "nt" or process.returncode is not None:
            try:
                process.wait(timeout=max(0.0, timeout_s))
            except subprocess.TimeoutExpired:
                return False
            return True
        deadline = time.monotonic() + timeout_s
        flags = os.WEXITED | os.WNOHANG | os.WNOWAIT
        while True:
            try:
                if waitid(os.P_PID, process.pid, flags) is not None:
                    return True
            except ChildProcessError:  # already reaped
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            time.sleep(min(0.02, remaining))

    def terminate(self) -> None:
        """Ask the whole group to stop (SIGTERM); `kill` after a grace period."""
        if self.process.returncode is not None:
            return
        if os.name == "nt":
            with contextlib.suppress(OSError):
                self.process.terminate()
            return
        self._signal_group(signal.SIGTERM)

    def kill(self) -> None:
        """Kill the process and every process of its group."""
        if self.process.returncode is not None:
            return
        if os.name == "nt":
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                subprocess.run(["taskkill", "/F", "/T", "/PID", str(self.process.pid)],
                               capture_output=True, timeout=10, check=False)
        else:
            self._signal_group(signal.SIGKILL)
        with contextlib.suppress(OSError):
            self.process.kill()

    def stop(self, grace_s: float) -> None:
        """terminate, wait up to `grace_s`, then kill."""
        self.terminate()
        if not self.wait_exit(grace_s):
            self.kill()

    def _signal_group(self, signum: signal.Signals) -> None:
        killpg = getattr(os, "killpg", None)
        # Only while the leader is unreaped: its group id cannot have been reused.
        if killpg is not None and self.process.returncode is None:
            with contextlib.suppress(OSError):
                killpg(self.process.pid, signum)

    def finish(self) -> int | None:
        """Make sure the worker and every straggler of its group are gone, reap it, collect
        the rest of its output. Returns the exit status (negative: killed by that signal).
        Safe to call more than once and from any thread."""
        with self._finish_lock:
            if self._finished:
                return self.process.returncode
            # Stragglers (a child whose parent exited) go with the group; a worker still
            # running at this point is killed with them.
            self.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=10)
            for thread in self._threads:
                thread.join(timeout=5)
            for stream in (self.process.stdout, self.process.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
            self.reader.close()
            self._finished = True
            return self.process.returncode
