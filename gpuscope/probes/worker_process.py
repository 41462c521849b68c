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

No child outlives gpuscope (issue #13). `start_child` is the one way to start any child, a
worker script or an external program such as `llama-bench`; `WorkerProcess.start` uses it:

- On Linux the child gets the parent-death signal (SIGKILL) before it execs the program (see
  `gpuscope/child/lifetime.py`), so even `kill -9` of gpuscope ends it at once. The kernel ties
  that signal to the *thread* that forked, so every child is forked by one thread that lives as
  long as gpuscope (`_Spawner`): a child may outlive the thread that asked for it.
- Its stdin is a pipe that gpuscope holds open and never writes to; a worker run by
  `child/launch.py` ends itself (and its group) when that pipe closes, on every system.
- Every live child is in a registry: `end_children` stops them (SIGTERM to each group, SIGKILL
  after a grace period), and `children_end_first` makes SIGTERM, SIGHUP and SIGINT do that
  before gpuscope goes (the CLI's `main` holds it).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import FrameType
from typing import Any, TypeVar

from gpuscope.child.lifetime import PARENT_PID_ENV, WATCH_STDIN_ENV, guarded_argv
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


# ----------------------------------------------------------------------------- children


T = TypeVar("T")


class _Spawner:
    """Runs every start of a child on one daemon thread that lives until gpuscope exits.

    Linux sends the parent-death signal when the *thread* that forked the child ends, not the
    process (prctl(2)): a child started from a pool thread that then retires would be killed
    under a runner still reading it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], list[Any], threading.Event]]
        self._jobs = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._pid = -1

    def run(self, start: Callable[[], T]) -> T:
        with self._lock:
            # A forked copy of gpuscope has no spawner thread: it starts its own.
            if self._thread is None or not self._thread.is_alive() or self._pid != os.getpid():
                self._jobs = queue.SimpleQueue()
                self._thread = threading.Thread(target=self._serve, args=(self._jobs,),
                                                name="gpuscope-spawner", daemon=True)
                self._thread.start()
                self._pid = os.getpid()
            jobs, thread = self._jobs, self._thread
        if threading.current_thread() is thread:
            return start()
        outcome: list[Any] = []
        done = threading.Event()
        jobs.put((start, outcome, done))
        done.wait()
        result, error = outcome
        if error is not None:
            raise error
        return result  # type: ignore[no-any-return]

    @staticmethod
    def _serve(jobs: queue.SimpleQueue[tuple[Callable[[], Any], list[Any],
                                             threading.Event]]) -> None:
        while True:
            start, outcome, done = jobs.get()
            try:
                outcome[:] = [start(), None]
            except BaseException as exc:  # handed to the caller, raised there
                outcome[:] = [None, exc]
            finally:
                done.set()


_SPAWNER = _Spawner()
_LIVE: dict[int, subprocess.Popen[bytes]] = {}  # id(process) -> process, until `forget`
_LIVE_LOCK = threading.RLock()  # re-entrant: signal handlers read it on the main thread


def start_child(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    stdout: int | None = subprocess.PIPE,
    stderr: int | None = subprocess.PIPE,
    cwd: str | None = None,
) -> subprocess.Popen[bytes]:
    """Start `argv` (a program and its arguments: a worker script's interpreter, `llama-bench`)
    so that it does not outlive gpuscope, whatever ends gpuscope:

    - in a session (POSIX) or process group (Windows) of its own: `os.killpg(process.pid, ...)`
      reaches whatever it starts;
    - on Linux with the parent-death signal (SIGKILL), set before the program runs;
    - with stdin a pipe that gpuscope holds open: never write to `process.stdin`, close it only
      when the child is to end (a worker run by `child/launch.py` ends when it closes);
    - in the registry that `end_children` and gpuscope's signal handlers stop, until `forget`.

    `env` replaces the inherited environment. Raises what `subprocess.Popen` raises when the
    program cannot be run (FileNotFoundError, PermissionError, OSError)."""
    argv = list(argv)
    child_env = dict(os.environ if env is None else env)
    child_env[PARENT_PID_ENV] = str(os.getpid())
    child_env[WATCH_STDIN_ENV] = "1"
    popen_options: dict[str, Any] = {}
    if os.name == "nt":
        popen_options["creationflags"] = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
    else:
        popen_options["start_new_session"] = True
    # The forking thread is the spawner's, which lives as long as gpuscope.
    argv = guarded_argv(argv, child_env, cwd)

    def start() -> subprocess.Popen[bytes]:
        process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=stdout, stderr=stderr,
                                   env=child_env, cwd=cwd, **popen_options)
        with _LIVE_LOCK:
            for key in [k for k, p in _LIVE.items() if p.returncode is not None]:
                del _LIVE[key]  # reaped by whoever started them and never forgotten
            _LIVE[id(process)] = process
        return process

    return _SPAWNER.run(start)


def forget(process: subprocess.Popen[bytes]) -> None:
    """`process` is gone (reaped): drop it from the registry and close its stdin pipe."""
    with _LIVE_LOCK:
        _LIVE.pop(id(process), None)
    if process.stdin is not None:
        with contextlib.suppress(OSError):
            process.stdin.close()


def live_children() -> list[subprocess.Popen[bytes]]:
    """The children started by `start_child` and not reaped yet."""
    with _LIVE_LOCK:
        return [p for p in _LIVE.values() if p.returncode is None]


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
        """Start `argv` (interpreter, script, arguments) with `start_child`: in a process group
        of its own, ending with gpuscope. Raises WorkerStartError when the interpreter cannot
        be run (its message names `argv[0]` as a Python interpreter).

        Another program (`llama-bench`) is started with `start_child` and handed to
        `WorkerProcess(process, reader, name)` with a reader of its own: the same waiting,
        stopping and stderr tail."""
        python = argv[0]
        try:
            process = start_child(argv, env=env)
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
            forget(self.process)
            self.reader.close()
            self._finished = True
            return self.process.returncode


# ----------------------------------------------------------------------------- ending children

END_GRACE_S = 0.5  # SIGTERM to SIGKILL when gpuscope itself is going: well under a second
_END_POLL_S = 0.02


def _exited(process: subprocess.Popen[bytes]) -> bool:
    """Whether `process` has exited, without reaping it (its owner does that)."""
    if process.returncode is not None:
        return True
    waitid = getattr(os, "waitid", None)
    if waitid is None:
        return process.poll() is not None
    try:
        return waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:  # reaped meanwhile
        return True


def _signal_group(process: subprocess.Popen[bytes], signum: int) -> None:
    # Only while the leader is unreaped: its group id cannot have been reused.
    if process.returncode is None:
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signum)


def end_children(grace_s: float = END_GRACE_S,
                 processes: Sequence[subprocess.Popen[bytes]] | None = None) -> int:
    """Stop `processes` (default: every live child of `start_child`): SIGTERM to each one's
    process group, then, after up to `grace_s`, SIGKILL to every group (stragglers of a leader
    that exited too). They are not reaped: their owners do that. Returns how many there were.
    Safe in a signal handler."""
    targets = [p for p in (live_children() if processes is None else processes)
               if p.returncode is None]
    if os.name == "nt":
        for process in targets:
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                subprocess.run(["taskkill", "/F", "/T", "/PID", str(process.pid)],
                               capture_output=True, timeout=10, check=False)
        return len(targets)
    for process in targets:
        _signal_group(process, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while not all(_exited(p) for p in targets) and time.monotonic() < deadline:
        time.sleep(_END_POLL_S)
    for process in targets:
        _signal_group(process, signal.SIGKILL)
    return len(targets)


Handler = Callable[[int, FrameType | None], Any] | int | None


def _ending_children_first(previous: Handler) -> Callable[[int, FrameType | None], None]:
    def handler(signum: int, _frame: FrameType | None) -> None:
        end_children()
        if previous is signal.default_int_handler:
            raise KeyboardInterrupt
        # As without this handler: the default action, gpuscope ends by this signal.
        signal.signal(signum, signal.SIG_DFL)
        signal.raise_signal(signum)
        os._exit(128 + signum)  # not reached where the default action is to terminate

    return handler


@contextlib.contextmanager
def children_end_first(catch_signals: bool = True) -> Iterator[None]:
    """While held on the main thread, SIGTERM, SIGHUP and SIGINT first end every child
    (`end_children`), then do what they did before: SIGTERM and SIGHUP end gpuscope by that
    signal, SIGINT raises KeyboardInterrupt. A signal that was ignored (SIGHUP under `nohup`)
    or had a handler of its own is left alone, and a handler installed meanwhile (the bench's
    Ctrl-C that cancels the run, the window's close on SIGTERM) takes its turn while it is
    there. On leaving, the handlers are put back and the children started meanwhile ended.
    With `catch_signals` False (the window, which closes on these signals itself once it is
    up), only the ending on leaving; children still die with gpuscope by their own means."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = live_children()
    previous: dict[int, Handler] = {}
    for name in ("SIGTERM", "SIGHUP", "SIGINT") if catch_signals else ():
        signum = getattr(signal, name, None)
        if signum is None:
            continue
        current = signal.getsignal(signum)
        if current is signal.SIG_DFL or current is signal.default_int_handler:
            previous[signum] = current
            signal.signal(signum, _ending_children_first(current))
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        end_children(processes=[p for p in live_children()
                                if not any(p is q for q in before)])
