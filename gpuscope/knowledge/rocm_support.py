"""Whether AMD officially supports a gfx target in a ROCm release on an OS, from
resources/rocm_support.toml.

Official support is a (target, ROCm release, OS) question, never a flag of the GPU: the same
RX 7900 XTX is on the Linux list from 5.7, an RX 6800 XT (gfx1030) never is although its target
is, and Windows lists differ from Linux ones. Notes are user text (plain words); `source` is the
public page of AMD's list, `provenance` the table's note for maintainers.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from gpuscope.i18n import join, message, prose
from gpuscope.knowledge._resources import load_toml_resource
from gpuscope.knowledge.sources import has_internal_marks

RESOURCE = "rocm_support.toml"
OSES = ("linux", "windows")

SupportLevel = Literal[
    "supported", "deprecated", "listed", "runtime_only", "uncertain", "unsupported", "unknown"]
# The levels a release row lists targets under, in the order a target is looked up.
LISTS: tuple[SupportLevel, ...] = (
    "supported", "deprecated", "listed", "runtime_only", "uncertain", "unsupported")
COUNTS_AS_SUPPORTED: frozenset[SupportLevel] = frozenset({"supported", "deprecated", "listed"})

_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")
_GFX = re.compile(r"gfx[0-9a-f]{3,4}")


class RocmTableError(ValueError):
    """resources/rocm_support.toml does not have the expected shape."""


@dataclass(frozen=True, slots=True)
class SupportVerdict:
    """The answer to "is this gfx target officially supported by this ROCm release on this OS"."""

    supported: bool | None  # None: release, OS or target status unknown to the table
    release_checked: str | None  # the table's release the answer comes from
    first_supported_release: str | None  # for this target on this OS, in the table
    last_supported_release: str | None
    note: str
    source: str  # the public page of AMD's list that answers (a URL)
    level: SupportLevel = "unknown"
    gfx_target: str = ""
    os: str = ""
    provenance: str = ""  # the table's source note, for maintainers: never shown to users


@dataclass(frozen=True, slots=True)
class Release:
    version: str
    key: tuple[int, int, int]
    source: str  # for maintainers
    levels: Mapping[str, SupportLevel] = field(hash=False)  # gfx target -> its list
    url: str = ""  # the public page of this release's list
    note: str = ""
    target_notes: Mapping[str, str] = field(hash=False, default_factory=dict)


@dataclass(frozen=True, slots=True)
class OsTable:
    os: str
    source: str  # for maintainers
    note: str
    target_notes: Mapping[str, str] = field(hash=False)
    releases: tuple[Release, ...] = ()  # ascending
    url: str = ""  # the public page of the current list


# ----------------------------------------------------------------------------- parsing


def version_key(text: str) -> tuple[int, int, int] | None:
    """"6.4" -> (6, 4, 0); "rocm-6.2.4" -> (6, 2, 4); "7.0.0-rc1" -> (7, 0, 0); no
    major.minor in it -> None."""
    match = _VERSION.search(text)
    if match is None:
        return None
    major, minor, patch = match.groups()
    return int(major), int(minor), int(patch or 0)


def normalise_gfx(value: str) -> str | None:
    """"GFX1100", "gfx906:sramecc+:xnack-" (torch gcnArchName) -> "gfx1100", "gfx906"; not a
    gfx target -> None."""
    text = value.strip().lower().split(":", 1)[0]
    return text if _GFX.fullmatch(text) else None


def normalise_os(value: str) -> str | None:
    text = value.strip().lower()
    if text.startswith("linux"):
        return "linux"
    if text in ("windows", "win32", "win64", "win", "nt", "cygwin"):
        return "windows"
    return None


def parse_support_table(doc: Mapping[str, Any]) -> dict[str, OsTable]:
    """The TOML document to one table per OS; raises RocmTableError on a malformed row."""
    oses = doc.get("os")
    if not isinstance(oses, dict):
        raise RocmTableError("no [os.*] tables")
    tables: dict[str, OsTable] = {}
    for os_name, body in oses.items():
        if os_name not in OSES:
            raise RocmTableError(f"unknown OS {os_name!r}")
        if not isinstance(body, dict):
            raise RocmTableError(f"[os.{os_name}] is not a table")
        tables[os_name] = _os_table(os_name, body)
    return tables


def _os_table(os_name: str, body: Mapping[str, Any]) -> OsTable:
    source = _str(body, "source", f"os.{os_name}", required=True)
    rows = body.get("release")
    if not isinstance(rows, list) or not rows:
        raise RocmTableError(f"os.{os_name}: no [[release]] rows")
    releases = tuple(_release(os_name, row) for row in rows)
    keys = [r.key for r in releases]
    if keys != sorted(keys) or len(set(keys)) != len(keys):
        raise RocmTableError(f"os.{os_name}: releases are not in strictly ascending order")
    return OsTable(os=os_name, source=source, note=_text(body, "note", os_name),
                   target_notes=_notes(body, f"os.{os_name}"), releases=releases,
                   url=_url(body, f"os.{os_name}"))


def _release(os_name: str, row: Any) -> Release:
    if not isinstance(row, dict):
        raise RocmTableError(f"os.{os_name}: a release row is not a table")
    version = _str(row, "version", f"os.{os_name}", required=True)
    key = version_key(version)
    if key is None:
        raise RocmTableError(f"os.{os_name}: bad version {version!r}")
    where = f"os.{os_name} {version}"
    levels: dict[str, SupportLevel] = {}
    for level in LISTS:
        values = row.get(level)
        if not isinstance(values, list):
            raise RocmTableError(f"{where}: {level} is not a list")
        for value in values:
            target = normalise_gfx(value) if isinstance(value, str) else None
            if target is None or target != value:
                raise RocmTableError(f"{where}: {value!r} in {level} is not a gfx target")
            if target in levels:
                raise RocmTableError(f"{where}: {target} is in {levels[target]} and {level}")
            levels[target] = level
    return Release(version=version, key=key, source=_str(row, "source", where, required=True),
                   levels=levels, note=_text(row, "note", where),
                   target_notes=_notes(row, where), url=_url(row, where))


def _str(row: Mapping[str, Any], key: str, where: str, *, required: bool = False) -> str:
    value = row.get(key, "")
    if not isinstance(value, str) or (required and not value):
        raise RocmTableError(f"{where}: {key} must be a{' non-empty' if required else ''} string")
    return value


def _text(row: Mapping[str, Any], key: str, where: str) -> str:
    """A string users read: provenance shorthand is a table error."""
    value = _str(row, key, where)
    if has_internal_marks(value):
        raise RocmTableError(f"{where}: {key} cites internal notes")
    return value


def _url(row: Mapping[str, Any], where: str) -> str:
    value = _str(row, "url", where)
    if value and not value.startswith("https://"):
        raise RocmTableError(f"{where}: url must be an https:// address")
    return value


def _notes(row: Mapping[str, Any], where: str) -> dict[str, str]:
    notes = row.get("target_notes", {})
    if not isinstance(notes, dict):
        raise RocmTableError(f"{where}: target_notes is not a table")
    for target, text in notes.items():
        if normalise_gfx(target) != target or not isinstance(text, str) or not text:
            raise RocmTableError(f"{where}: bad target note {target!r}")
        if has_internal_marks(text):
            raise RocmTableError(f"{where}: the note of {target} cites internal notes")
    return dict(notes)


@functools.cache
def support_table() -> dict[str, OsTable]:
    """The packaged table, loaded once."""
    return parse_support_table(load_toml_resource(RESOURCE))


# ----------------------------------------------------------------------------- queries


def known_rocm_releases(os: str) -> tuple[str, ...]:
    """The releases the table has rows for on this OS, oldest first; () for an unknown OS."""
    name = normalise_os(os)
    table = support_table().get(name) if name else None
    return tuple(r.version for r in table.releases) if table else ()


def pick_release(releases: tuple[Release, ...], key: tuple[int, int, int]) -> Release | None:
    """The exact row, else the nearest row with the same major.minor (the older one on a tie),
    else the newest row not newer than the version; None when every row is newer."""
    for release in releases:
        if release.key == key:
            return release
    same = [r for r in releases if r.key[:2] == key[:2]]
    if same:
        return min(same, key=lambda r: (abs(r.key[2] - key[2]), r.key[2]))
    older = [r for r in releases if r.key <= key]
    return older[-1] if older else None


def official_support(gfx_target: str, rocm_version: str | None, os: str) -> SupportVerdict:
    """Whether `gfx_target` is on AMD's official list for `rocm_version` on `os` ("linux" or
    "windows"). With rocm_version None the newest release of the table answers. Never raises."""
    target = normalise_gfx(gfx_target)
    os_name = normalise_os(os)
    table = support_table().get(os_name) if os_name else None
    if table is None:
        return SupportVerdict(
            supported=None, release_checked=None, first_supported_release=None,
            last_supported_release=None, source="",
            note=message("ROCm has no official support list for {os} in the table (it knows "
                         "{oses})", os=repr(os), oses=", ".join(OSES)),
            gfx_target=target or gfx_target, os=os)
    if target is None:
        return SupportVerdict(
            supported=None, release_checked=None, first_supported_release=None,
            last_supported_release=None, source=table.url,
            note=message("{value} is not a gfx target name (like gfx1100)",
                         value=repr(gfx_target)),
            gfx_target=gfx_target, os=table.os, provenance=table.source)

    listed = [r for r in table.releases if r.levels.get(target) in COUNTS_AS_SUPPORTED]
    first = listed[0].version if listed else None
    last = listed[-1].version if listed else None
    os_label = table.os.capitalize()
    notes: list[str] = []

    if rocm_version is None:
        release = table.releases[-1]
        notes.append(message("No ROCm version given: answered for the newest release in the "
                             "table ({version}).", version=release.version))
    else:
        key = version_key(rocm_version)
        if key is None:
            return _unknown(target, table, first, last,
                            message("Could not read a ROCm version in {value}.",
                                    value=repr(rocm_version)))
        picked = pick_release(table.releases, key)
        if picked is None:
            return _unknown(target, table, first, last,
                            message("ROCm {version} is older than every {os} release in the "
                                    "table (oldest {oldest}).", version=rocm_version,
                                    os=os_label, oldest=table.releases[0].version))
        release = picked
        if release.key != key:
            values = {"version": rocm_version, "os": os_label, "release": release.version}
            if release.key[:2] == key[:2]:
                notes.append(message("ROCm {version} is not a row of the table; answered with "
                                     "{release} (same major.minor).", **values))
            elif release is table.releases[-1]:
                notes.append(message("ROCm {version} is newer than every {os} release in the "
                                     "table; answered for {release}: newer releases may list "
                                     "more GPUs (check AMD's list for that release).",
                                     **values))
            else:
                notes.append(message("The table has no {os} list for ROCm {version}; answered "
                                     "with {release}, the newest older release.", **values))

    level: SupportLevel = release.levels.get(target, "unsupported")
    supported: bool | None = level in COUNTS_AS_SUPPORTED
    if level == "uncertain":
        supported = None
    notes.insert(0, _headline(target, release.version, os_label, level,
                              explicit=target in release.levels))
    notes.extend(prose(n) for n in (release.target_notes.get(target), release.note,
                                    table.target_notes.get(target)) if n)
    if listed and level not in COUNTS_AS_SUPPORTED:
        notes.append(message("In the table {target} is officially supported on {os} in "
                             "{span}.", target=target, os=os_label, span=_span(first, last)))
    if first == table.releases[0].version:
        notes.append(message("The table starts at ROCm {version}; earlier releases are not "
                             "covered.", version=first))
    return SupportVerdict(
        supported=supported, release_checked=release.version, first_supported_release=first,
        last_supported_release=last, note=join(" ", notes), source=release.url, level=level,
        gfx_target=target, os=table.os, provenance=release.source)


def _headline(target: str, version: str, os_label: str, level: SupportLevel,
              explicit: bool) -> str:
    values = {"target": target, "version": version, "os": os_label}
    if level == "unsupported" and not explicit:
        return message("{target} is not on AMD's official list for ROCm {version} on {os}.",
                       **values)
    if level == "supported":
        return message("{target} is officially supported by ROCm {version} on {os}.", **values)
    if level == "deprecated":
        return message("{target} is listed by ROCm {version} on {os}, but deprecated "
                       "(maintenance mode).", **values)
    if level == "listed":
        return message("{target} is on AMD's GPU and APU list for ROCm {version} on {os} "
                       "(support level not captured).", **values)
    if level == "runtime_only":
        return message("{target} gets only the HIP runtime in ROCm {version} on {os}, not the "
                       "HIP SDK libraries that PyTorch needs.", **values)
    if level == "uncertain":
        return message("The status of {target} in ROCm {version} on {os} could not be read "
                       "from AMD's list.", **values)
    if level == "unsupported":
        return message("{target} is listed as unsupported by ROCm {version} on {os}.",
                       **values)
    return message("The status of {target} in ROCm {version} on {os} is unknown.", **values)


def _span(first: str | None, last: str | None) -> str:
    return f"ROCm {first}" if first == last else message("ROCm {first} to {last}",
                                                         first=first, last=last)


def _unknown(target: str, table: OsTable, first: str | None, last: str | None,
             note: str) -> SupportVerdict:
    return SupportVerdict(
        supported=None, release_checked=None, first_supported_release=first,
        last_supported_release=last, note=note, source=table.url, level="unknown",
        gfx_target=target, os=table.os, provenance=table.source)
