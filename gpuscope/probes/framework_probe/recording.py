"""What an inspection records beside its findings (each failed call, each warning), and small
readers of what the frameworks return."""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Callable
from typing import Any

from ...child.jsonlines import describe

log = logging.getLogger("gpuscope.framework_probe")

MAX_RECORDED = 20  # warnings or errors kept per framework


class Recorder:
    """Per-call failures and warnings of one framework's inspection."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.warnings: list[str] = []

    def call(self, label: str, function: Callable[..., Any], *args: Any,
             default: Any = None) -> Any:
        try:
            return function(*args)
        except Exception as exc:  # each failed call is a fact about the framework
            if len(self.errors) < MAX_RECORDED:
                self.errors.append(f"{label}: {describe(exc)}")
            return default

    def warn(self, text: str) -> None:
        text = text.strip().splitlines()[0][:300] if text.strip() else ""
        if text and text not in self.warnings and len(self.warnings) < MAX_RECORDED:
            self.warnings.append(text)


class LogCapture(logging.Handler):
    def __init__(self, recorder: Recorder) -> None:
        super().__init__(logging.WARNING)
        self.recorder = recorder

    def emit(self, record: logging.LogRecord) -> None:
        if record.name == log.name:  # the probe's own messages are not the framework's
            return
        # A bad log record must not break the probe.
        with contextlib.suppress(Exception):
            self.recorder.warn(f"{record.name}: {record.getMessage()}")


def as_text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def as_int(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def distributions(names: tuple[str, ...], prefix: str | None = None) -> list[dict[str, str]]:
    """Installed distributions (pip packages) among `names`, or whose name starts with
    `prefix`; read from metadata, without importing anything."""
    try:
        from importlib import metadata
    except ImportError:
        return []
    found: list[dict[str, str]] = []
    seen: set[str] = set()
    for name in names:
        try:
            version = metadata.version(name)
        except Exception:  # PackageNotFoundError, or broken metadata
            continue
        found.append({"name": name, "version": str(version)})
        seen.add(name)
    if prefix:
        try:
            for dist in metadata.distributions():
                raw = dist.metadata["Name"] or ""
                name = re.sub(r"[-_.]+", "-", str(raw)).lower()
                if name.startswith(prefix) and name not in seen:
                    seen.add(name)
                    found.append({"name": name, "version": str(dist.version)})
        except Exception as exc:  # a broken dist-info must not hide the framework
            log.warning("could not list distributions: %s", describe(exc))
    return found


def cudnn_version_string(value: int) -> str:
    # cuDNN 9 encodes MAJOR*10000 + MINOR*100 + PATCH; cuDNN 8 and older MAJOR*1000 + MINOR*100.
    if value >= 10000:
        return f"{value // 10000}.{(value % 10000) // 100}.{value % 100}"
    return f"{value // 1000}.{(value % 1000) // 100}.{value % 100}"


def miopen_version_string(value: int) -> str:
    # torch's cudnn.version() on ROCm is MIOpen's MAJOR*1000000 + MINOR*1000 + PATCH
    # (torch/csrc/cuda/shared/cudnn.cpp, getVersionInt).
    return f"{value // 1000000}.{(value // 1000) % 1000}.{value % 1000}"


def pci_bus(domain: Any, bus: Any, device: Any) -> str | None:
    d, b, s = as_int(domain), as_int(bus), as_int(device)
    if b is None or s is None:
        return None
    # The properties carry no PCI function; a GPU is function 0.
    return f"{d or 0:04x}:{b:02x}:{s:02x}.0"
