"""`gpuscope serve --install-unit [--user]`: a systemd unit that runs this gpuscope's exporter
(https://www.freedesktop.org/software/systemd/man/latest/systemd.service.html), written from
the templates resources/systemd/gpuscope.service (system) and gpuscope-user.service (user).

The unit's ExecStart runs the very interpreter that installed it (`python -m gpuscope serve`
with the same options), so a virtual environment keeps working. A system unit runs as the
account owning that interpreter's environment (DynamicUser=yes when that is root), with the
GPU device groups (video, render) that exist here.
"""

from __future__ import annotations

import grp
import importlib.resources
import os
import pwd
import re
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gpuscope.i18n import message
from gpuscope.safe_write import write_text

UNIT_NAME = "gpuscope.service"
SYSTEM_TEMPLATE = "systemd/gpuscope.service"
USER_TEMPLATE = "systemd/gpuscope-user.service"
SYSTEM_UNIT_DIR = Path("/etc/systemd/system")

# Characters that ExecStart takes literally without quoting.
_PLAIN_ARGUMENT = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")


class UnitError(Exception):
    """The unit cannot be written (one line)."""


@dataclass(frozen=True, slots=True)
class InstalledUnit:
    path: Path
    replaced: bool  # an older unit was there
    next_commands: tuple[str, ...]  # what to run next, each runnable as pasted


def exec_start(arguments: Sequence[str]) -> str:
    """An ExecStart command line: each argument quoted as systemd reads it, `%` and `$`
    doubled so that systemd expands neither."""
    words: list[str] = []
    for argument in arguments:
        escaped = argument.replace("%", "%%").replace("$", "$$")
        if _PLAIN_ARGUMENT.fullmatch(argument):
            words.append(escaped)
        else:
            escaped = escaped.replace("\\", "\\\\").replace('"', '\\"')
            words.append(f'"{escaped}"')
    return " ".join(words)


def serve_arguments(options: Sequence[str]) -> list[str]:
    """This interpreter running `gpuscope serve OPTIONS`."""
    return [sys.executable, "-m", "gpuscope", "serve", *options]


def _template(name: str) -> str:
    try:
        return importlib.resources.files("gpuscope.resources").joinpath(name).read_text(
            "utf-8")
    except (OSError, ModuleNotFoundError) as exc:
        raise UnitError(message("the unit template {name} is missing from this "
                                "installation: {error}", name=name, error=str(exc))) from None


def _group_exists(name: str) -> bool:
    try:
        grp.getgrnam(name)
    except KeyError:
        return False
    return True


def environment_owner(prefix: str | None = None) -> str | None:
    """The account owning this Python environment (sys.prefix), None for root or unknown."""
    try:
        uid = os.stat(prefix or sys.prefix).st_uid
        return None if uid == 0 else pwd.getpwuid(uid).pw_name
    except (OSError, KeyError):
        return None


def unit_text(user: bool, arguments: Sequence[str], *, run_as: str | None = None,
              writable: Sequence[str] = (),
              group_exists: Callable[[str], bool] = _group_exists) -> str:
    """The unit file: the template with ExecStart running `arguments`; a system unit runs
    as `run_as` (DynamicUser=yes when None) with the template's groups that exist, and may
    write only to the folders `writable` (ProtectSystem=strict makes the rest read-only)."""
    text = _template(USER_TEMPLATE if user else SYSTEM_TEMPLATE)
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith("ExecStart="):
            line = "ExecStart=" + exec_start(arguments)
        elif line.startswith("DynamicUser=") and run_as is not None:
            line = f"User={run_as}"
        elif line.startswith("ProtectSystem=") and writable:
            lines.append(line)
            line = "ReadWritePaths=" + exec_start(writable)
        elif line.startswith("SupplementaryGroups="):
            groups = [g for g in line.split("=", 1)[1].split() if group_exists(g)]
            if not groups:
                continue
            line = "SupplementaryGroups=" + " ".join(groups)
        lines.append(line)
    return "\n".join(lines) + "\n"


def unit_path(user: bool, environ: dict[str, str] | None = None) -> Path:
    """Where the unit goes: /etc/systemd/system, or the user's systemd/user folder
    ($XDG_CONFIG_HOME, else ~/.config)."""
    if not user:
        return SYSTEM_UNIT_DIR / UNIT_NAME
    env = os.environ if environ is None else environ
    config = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "systemd" / "user" / UNIT_NAME


def next_commands(user: bool, as_root: bool) -> tuple[str, ...]:
    if user:
        return ("systemctl --user daemon-reload",
                f"systemctl --user enable --now {UNIT_NAME}",
                "loginctl enable-linger $USER")
    sudo = "" if as_root else "sudo "
    return (f"{sudo}systemctl daemon-reload", f"{sudo}systemctl enable --now {UNIT_NAME}")


def install_unit(user: bool, options: Sequence[str], *, path: Path | None = None,
                 run_as: str | None = None, writable: Sequence[str] = ()) -> InstalledUnit:
    """Write the unit for `gpuscope serve OPTIONS` (atomically, mode 0644) and say what to run
    next. UnitError says why it cannot be written, with the command that can."""
    target = path or unit_path(user)
    owner = run_as if run_as is not None or user else environment_owner()
    text = unit_text(user, serve_arguments(options), run_as=None if user else owner,
                     writable=writable)
    replaced = target.exists()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_text(target, text, mode=0o644)
    except OSError as exc:
        if user or not isinstance(exc, PermissionError):
            raise UnitError(message("cannot write {path}: {error}", path=str(target),
                                    error=exc.strerror or str(exc))) from None
        again = shlex.join(["sudo", *serve_arguments([*options, "--install-unit"])])
        raise UnitError(message("cannot write {path}: {error}; run it as root ({command}) "
                                "or install a user unit with --user", path=str(target),
                                error=exc.strerror or str(exc), command=again)) from None
    as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    return InstalledUnit(target, replaced, next_commands(user, as_root))
