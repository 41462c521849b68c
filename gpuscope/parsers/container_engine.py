"""What a container engine (Docker, Podman, nerdctl, docker compose) says when it starts a
container with a GPU, wherever people paste it: the daemon's errors about a GPU device it could
not add, and the traces of an engine that runs on Windows (Docker Desktop).

Read by `scan` inside text of any format (`parse_any` runs it over every paste):

- ``error gathering device information while adding custom device "/dev/kfd": no such file or
  directory`` (docker's ``--device`` and compose's ``devices:``, also the older JSON-escaped
  ``... \\"/dev/nvidia0\\": lstat /dev/nvidia0: no such file or directory``) and CDI's
  ``failed to stat CDI host device "/dev/dri/renderD129": no such file or directory``
  (Podman): the engine's host has no such device node;
- ``could not select device driver "" with capabilities: [[gpu]]`` (also ``"nvidia"``, and the
  2019 wording without a driver name) and ``unknown or invalid runtime name: nvidia``: the
  engine has no GPU support installed for ``--gpus`` or ``--runtime=nvidia``;
- an engine on Windows: a container command on a Windows prompt (``C:\\Users\\me>docker run``,
  ``PS C:\\work> docker run``), a bind mount from a drive (``-v C:\\Users\\me\\data:/data``,
  ``--mount type=bind,source=D:/models,...``) or from a cmd variable (``%cd%``,
  ``%USERPROFILE%``), Docker Desktop's named pipe (``//./pipe/docker_engine``,
  ``dockerDesktopLinuxEngine``), or ``docker version``'s client ``OS/Arch: windows/amd64``.

Signal kinds emitted:

- ``container.device_missing`` (detail = the device paths, space-separated in order of first
  sight: ``/dev/kfd /dev/dri``; also ``/dev/dri/renderD128``, ``/dev/nvidia0``, ``/dev/dxg``);
  devices of no GPU (``/dev/kvm``, a camera) are not reported;
- ``container.gpu_request_failed`` (detail = the driver or runtime named first, or None);
- ``container.windows_host`` (detail = how it shows first: "a Windows prompt", "a bind mount
  from a Windows path", "Docker Desktop's named pipe").

One signal of each kind per paste, with every line that shows it (`parse_any` keeps one signal
per kind from a scanner).

Every line is found by a lower-case anchor (`str.find` over the whole paste) and read at most
`MAX_LINE_CHARS` around it, with bounded expressions: linear in the size of the paste.
"""

from __future__ import annotations

import re

from gpuscope.model import ParsedOutput, Signal
from gpuscope.parsers._common import MAX_EVIDENCE, Collector, anchored_lines, lowered_text

FORMATS: tuple[str, ...] = ("container-engine",)

_MAX_LINES_PER_ANCHOR = 200
_MAX_SHOWN_CHARS = 400

_DEVICE = r"/dev/[\w.:/-]{1,80}?"
# docker/runc: 'adding custom device "/dev/kfd": no such file or directory', the quotes
# JSON-escaped in old daemons' answers; CDI (Podman, docker with CDI): 'failed to stat CDI
# host device "/dev/dri/renderD129": no such file or directory'.
_DEVICE_MISSING = re.compile(
    rf'(?:adding custom device|cdi host device) \\?"(?P<device>{_DEVICE})\\?"', re.IGNORECASE)
_NOT_FOUND = "no such file or directory"
# Device nodes of GPUs, the only ones reported (their paths, lower-case).
_GPU_DEVICES = ("/dev/kfd", "/dev/dri", "/dev/nvidia", "/dev/dxg")
_DRIVER_NOT_SELECTED = re.compile(
    r'could not select device driver (?:"(?P<driver>[\w.-]{0,40})" )?with capabilities: '
    r"\[\[gpu")
_UNKNOWN_RUNTIME = re.compile(r"unknown or invalid runtime name: (?P<runtime>[\w.-]{1,40})")
# A container engine's command (docker run, docker compose up, podman run, docker-compose).
_ENGINE_COMMAND = re.compile(
    r"(?:^|[\s>\"'`$#;&|(])(?:sudo )?(?:docker|podman|nerdctl)(?:-compose|\.exe)?"
    r"(?: container)? (?:run|create|exec|start|compose|up)\b", re.IGNORECASE)
# A Windows prompt before the command: "C:\Users\me>", "PS C:\work>", "(.venv) C:\x>".
_WINDOWS_PROMPT = re.compile(r"^(?:\([^()\s]{1,60}\) )?(?:PS )?[A-Za-z]:\\[^>\"<|]{0,300}>\s?\S")
# A bind mount whose source is on a Windows drive, or in a cmd variable (%cd%, %USERPROFILE%).
_WINDOWS_MOUNT = re.compile(
    r"(?:\s-v|--volume|\bsource=|\bsrc=)(?:\s{1,4}|=)?[\"']?(?:[A-Za-z]:[\\/]|%\w{2,30}%)",
    re.IGNORECASE)
# docker version's (and podman version's) client platform.
_CLIENT_PLATFORM = re.compile(r"^\s{0,8}OS/Arch:\s{1,30}windows/", re.IGNORECASE)
_DESKTOP_PIPE = ("//./pipe/docker_engine", "//./pipe/dockerdesktop", "npipe:",
                 "dockerdesktoplinuxengine", "%2f%2f.%2fpipe%2fdocker")

_ANCHORS = ("custom device", "cdi host device", "could not select device driver",
            "invalid runtime name", "docker", "podman", "nerdctl", "pipe", "os/arch")


def _gpu_device(device: str) -> str | None:
    """The device path when it is a GPU's node ("/dev/dri/" -> "/dev/dri"), else None."""
    path = device.rstrip("/")
    lowered = path.lower()
    return path if lowered.startswith(_GPU_DEVICES) else None


class _Reader:
    def __init__(self, source: str) -> None:
        self.read: dict[int, str] = {}
        self.out = Collector(source, [], read=self.read, max_line_chars=_MAX_SHOWN_CHARS)
        # kind -> (details in order of first sight, the lines that show it)
        self.found: dict[str, tuple[list[str | None], list[int]]] = {}

    def note(self, kind: str, detail: str | None, number: int) -> None:
        details, lines = self.found.setdefault(kind, ([], []))
        if detail not in details and len(details) < 8:
            details.append(detail)
        if number not in lines and len(lines) < MAX_EVIDENCE:
            lines.append(number)

    def line(self, line: str, number: int) -> None:
        self.read[number] = line
        lowered = lowered_text(line)
        if _NOT_FOUND in lowered and ("custom device" in lowered or "cdi host device" in lowered):
            found = _DEVICE_MISSING.search(line)
            device = _gpu_device(found.group("device")) if found else None
            if device is not None:
                self.note("container.device_missing", device, number)
        if "could not select device driver" in lowered:
            selected = _DRIVER_NOT_SELECTED.search(lowered)
            if selected is not None:
                self.note("container.gpu_request_failed", selected.group("driver") or None,
                          number)
        if "invalid runtime name" in lowered:
            runtime = _UNKNOWN_RUNTIME.search(lowered)
            if runtime is not None:
                self.note("container.gpu_request_failed", runtime.group("runtime").rstrip("."),
                          number)
        if "pipe" in lowered and any(words in lowered for words in _DESKTOP_PIPE):
            self.note("container.windows_host", "Docker Desktop's named pipe", number)
        if "os/arch" in lowered and _CLIENT_PLATFORM.match(line) is not None:
            self.note("container.windows_host", "the engine's client is a Windows program",
                      number)
        if ("docker" in lowered or "podman" in lowered or "nerdctl" in lowered) and (
                _ENGINE_COMMAND.search(line) is not None):
            if _WINDOWS_PROMPT.match(line.lstrip()):
                self.note("container.windows_host", "a Windows prompt", number)
            elif _WINDOWS_MOUNT.search(line) is not None:
                self.note("container.windows_host", "a bind mount from a Windows path", number)

    def signals(self) -> tuple[Signal, ...]:
        for kind, (details, lines) in self.found.items():
            named = [d for d in details if d]
            detail = " ".join(named) if kind == "container.device_missing" else (
                named[0] if named else None)
            self.out.signal(kind, detail, *(self.out.ref(n) for n in lines))
        return self.out.built_signals()


def scan(text: str, source: str) -> ParsedOutput:
    """The container engine's words on GPU devices and its Windows traces inside text of any
    format. Never raises."""
    try:
        reader = _Reader(source)
        lowered = lowered_text(text)
        for index, line, _end in anchored_lines(text, lowered, _ANCHORS,
                                                max_per_anchor=_MAX_LINES_PER_ANCHOR):
            reader.line(line, index + 1)
        return ParsedOutput(format="container-engine", source=source,
                            signals=reader.signals())
    except Exception:  # a scanner bug must not lose the file's parse
        return ParsedOutput(format="container-engine", source=source)
