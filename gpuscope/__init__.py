"""gpuscope: which GPUs this machine has, and which layer of the stack can use each one."""

from __future__ import annotations

__version__ = "0.1.0"
