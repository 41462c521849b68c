"""What `gpuscope serve` listens on, kept light (the CLI's parser imports its options): the
refused-configuration error, the TLS files, and which addresses only this machine reaches."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass


class ServeConfigError(Exception):
    """A configuration `gpuscope serve` refuses (one line, exit 2)."""


@dataclass(frozen=True, slots=True)
class TlsFiles:
    cert: str
    key: str
    client_ca: str | None = None


def is_loopback(host: str) -> bool:
    """True for an address only this machine reaches: 127.0.0.0/8, ::1, "localhost"."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


__all__ = ["ServeConfigError", "TlsFiles", "is_loopback"]
