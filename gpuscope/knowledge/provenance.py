"""Keep the knowledge base's provenance notes out of what users read.

The TOML tables record where each fact comes from in the maintainers' own shorthand (a section
of the project's notes, a reliability tag such as "[V]", a corpus case number). That shorthand
is for maintainers: user-facing text carries public URLs instead (`urls` on each row)."""

from __future__ import annotations

import re

# What must never reach a title, detail, fix, command or evidence label.
INTERNAL_MARK_RE = re.compile(r"facts\.md|§|\[[SKV]\]|corpus \d")

_SECTION = re.compile(r"facts\.md(?:\s*§\s*[\d.]+(?:\s*(?:,|and)\s*§?\s*[\d.]+)*)?\s*[:;]?\s*")
_BARE_SECTION = re.compile(r"§\s*[\d.]+")
_TAG = re.compile(r"\s*\[(?:[VSKD?](?:[\s\-:,][^\]]*)?|S-of-official)\]")
_CORPUS = re.compile(r"\s*\(?corpus \d+\)?")
_EMPTY_PARENS = re.compile(r"\(\s*[;,]?\s*\)")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([;,.)])")
_REPEATED_PUNCT = re.compile(r"([;,])\s*[;,]")


def public_text(text: str) -> str:
    """`text` without provenance shorthand: "facts.md §1.4: pci.ids 'Raphael' [V], gfx1036
    [K]; 2 CUs (corpus 013)" -> "pci.ids 'Raphael', gfx1036; 2 CUs"."""
    cleaned = _SECTION.sub("", text)
    cleaned = _BARE_SECTION.sub("", cleaned)
    cleaned = _TAG.sub("", cleaned)
    cleaned = _CORPUS.sub("", cleaned)
    cleaned = _EMPTY_PARENS.sub("", cleaned)
    cleaned = _REPEATED_PUNCT.sub(r"\1", cleaned)
    cleaned = _SPACE_BEFORE_PUNCT.sub(r"\1", cleaned)
    cleaned = re.sub(r"\s{2,}", " ", cleaned).strip(" ;,:")
    return cleaned


def has_internal_marks(text: str) -> bool:
    return INTERNAL_MARK_RE.search(text) is not None
