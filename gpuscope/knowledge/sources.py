"""Where a figure of the knowledge base comes from: a public URL and a short label a user reads.

The data tables (gpu_specs.toml, gpu_devices.toml, bench_expectations.toml) name their sources
once, in a top-level `[sources]` table of `key = { url = "https://...", label = "..." }`, and
cite them from their rows by key (or by a full https URL). How sure a figure is lives in a
separate word, `confidence`, never as a marker inside the text.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

# How sure a figure is: read in the vendor's own documents or code, read in a review or a
# spec database, worked out from published figures, a widely published vendor figure no public
# source was re-read for, or sources that disagree (the row's note says how).
CONFIDENCE = ("primary", "secondary", "derived", "unverified", "conflicting")

# What must never reach a user: the project's private notes and their markers.
INTERNAL_PROVENANCE = re.compile(r"facts\.md|§|\[[SKVD?]\]|corpus \d")
_URL = re.compile(r"https://[A-Za-z0-9.-]+\.[A-Za-z]{2,}(?:[/?#]\S*)?")
_KEY = re.compile(r"[a-z0-9_]+")
LABEL_MAX_CHARS = 120


class SourceError(ValueError):
    """A source that is no public https URL, or a label or text that cites internal notes."""


@dataclass(frozen=True, slots=True)
class Source:
    url: str  # "https://rocm.docs.amd.com/en/latest/reference/gpu-specs.html"
    label: str = ""  # "AMD ROCm documentation: GPU specifications"

    def __str__(self) -> str:
        return f"{self.label} ({self.url})" if self.label else self.url


@contextlib.contextmanager
def _raised_as(error: type[ValueError]) -> Iterator[None]:
    """Inside: a SourceError comes out as `error`, the table's own error type, with the same
    message."""
    try:
        yield
    except SourceError as exc:
        raise error(str(exc)) from exc


def sources_text(sources: Iterable[Source]) -> str:
    """Sources as one line for a tooltip or a JSON string: "label (url); label (url)"."""
    return "; ".join(str(s) for s in dict.fromkeys(sources))


def has_internal_marks(text: str) -> bool:
    """Whether `text` cites the project's private notes (a user must never read that)."""
    return INTERNAL_PROVENANCE.search(text) is not None


def check_public_text(text: str, where: str) -> str:
    """`text` unchanged, or SourceError when it cites the project's private notes."""
    found = INTERNAL_PROVENANCE.search(text)
    if found:
        raise SourceError(f"{where}: {found.group(0)!r} points at internal notes; cite the "
                          "public source instead")
    return text


def _source(url: Any, label: Any, where: str) -> Source:
    if not isinstance(url, str) or not _URL.fullmatch(url):
        raise SourceError(f"{where}: {url!r} is not an https URL")
    if not isinstance(label, str) or len(label) > LABEL_MAX_CHARS:
        raise SourceError(f"{where}: a source label is a string of at most "
                          f"{LABEL_MAX_CHARS} characters")
    return Source(url, check_public_text(label.strip(), where))


def named_sources(doc: Mapping[str, Any]) -> dict[str, Source]:
    """The document's `[sources]` table: key -> Source. Raises SourceError on a malformed
    entry."""
    table = doc.get("sources", {})
    if not isinstance(table, dict):
        raise SourceError("[sources] must be a table of key = { url, label }")
    named: dict[str, Source] = {}
    for key, entry in table.items():
        if not _KEY.fullmatch(key) or not isinstance(entry, dict) or \
                set(entry) - {"url", "label"}:
            raise SourceError(f"[sources] {key!r}: an entry is key = {{ url, label }}")
        named[key] = _source(entry.get("url"), entry.get("label", ""), f"[sources] {key}")
    return named


def parse_sources(value: Any, named: Mapping[str, Source], where: str, *,
                  used: set[str] | None = None) -> tuple[Source, ...]:
    """A row's `sources`: a non-empty list of keys of `named` or https URLs. Keys found are
    added to `used` (to report entries nothing cites). Raises SourceError."""
    if not isinstance(value, list) or not value:
        raise SourceError(f"{where}: sources must be a non-empty list of source keys or URLs")
    out: list[Source] = []
    for item in value:
        if isinstance(item, str) and item in named:
            out.append(named[item])
            if used is not None:
                used.add(item)
        elif isinstance(item, str) and item.startswith("https://"):
            out.append(_source(item, "", where))
        else:
            raise SourceError(f"{where}: {item!r} is neither a [sources] key nor an https URL")
    if len(set(out)) != len(out):
        raise SourceError(f"{where}: a source is cited twice")
    return tuple(out)


def check_all_used(named: Mapping[str, Source], used: set[str]) -> None:
    """SourceError naming the `[sources]` entries no row cites (dead entries)."""
    unused = sorted(set(named) - used)
    if unused:
        raise SourceError(f"[sources] entries no row cites: {unused}")


@dataclass
class Citations:
    """A table's `[sources]` and the keys its rows cite (to report entries nothing cites).
    Every SourceError comes out as `error`, the table's own error type."""

    named: Mapping[str, Source]
    error: type[ValueError]
    used: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, doc: Mapping[str, Any], error: type[ValueError]) -> Citations:
        with _raised_as(error):
            return cls(named_sources(doc), error)

    def sources(self, value: Any, where: str) -> tuple[Source, ...]:
        """A row's `sources` (see `parse_sources`)."""
        with _raised_as(self.error):
            return parse_sources(value, self.named, where, used=self.used)

    def public(self, text: str, where: str) -> str:
        """`text` unchanged when it cites no internal notes (see `check_public_text`)."""
        with _raised_as(self.error):
            return check_public_text(text, where)

    def check_all_used(self) -> None:
        """The error naming the `[sources]` entries no row cited."""
        with _raised_as(self.error):
            check_all_used(self.named, self.used)
