"""Which GPU a PCI id is: family, architecture, gfx target or compute capability, and the
retail card, from resources/gpu_devices.toml.

One PCI device id often covers several retail cards (0x744c: RX 7900 XTX, XT and GRE). The
VRAM size, the compute-unit count or a board id that pci.ids ties to one card tells them
apart; where nothing does, the name lists the candidates.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpuscope.knowledge._resources import load_toml_resource
from gpuscope.knowledge.sources import Citations, sources_text
from gpuscope.model import GpuKind

RESOURCE = "gpu_devices.toml"
GIB = 1 << 30
# sysfs and the runtimes report a little less than the nominal size (25753026560 bytes for a
# 24 GiB RX 7900 XTX: firmware reserves some), so the nearest nominal size within this wins.
VRAM_TOLERANCE_GIB = 1.0


@dataclass(frozen=True, slots=True)
class Card:
    name: str
    vram_gib: float | None = None
    compute_units: int | None = None


@dataclass(frozen=True, slots=True)
class Board:
    subsystem_vendor_id: str
    subsystem_device_id: str
    card: str
    pci_ids_name: str


@dataclass(frozen=True, slots=True)
class DeviceEntry:
    vendor_id: str
    device_id: str
    family: str | None
    architecture: str | None
    gfx_target: str | None
    compute_capability: str | None
    kind: GpuKind | None
    source: str
    cards: tuple[Card, ...]
    boards: tuple[Board, ...] = ()
    also: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DeviceIdentity:
    """What gpuscope's device table says about one PCI id, narrowed by the evidence given:
    the chip's facts are its table entry's."""

    name: str
    candidates: tuple[str, ...]  # the cards still possible; one when the card is known
    entry: DeviceEntry
    how: str  # how the name was chosen, for field_sources

    @property
    def family(self) -> str | None:
        return self.entry.family

    @property
    def architecture(self) -> str | None:
        return self.entry.architecture

    @property
    def gfx_target(self) -> str | None:
        return self.entry.gfx_target

    @property
    def compute_capability(self) -> str | None:
        return self.entry.compute_capability

    @property
    def kind(self) -> GpuKind | None:
        return self.entry.kind

    @property
    def source(self) -> str:
        return self.entry.source


class DeviceTableError(ValueError):
    """resources/gpu_devices.toml does not have the expected shape."""


def normalise_id(value: str) -> str | None:
    """`0x744C` / `744c` -> `0x744c`; not a 16-bit hex id -> None."""
    text = value.strip().lower()
    if text.startswith("0x"):
        text = text[2:]
    if not 1 <= len(text) <= 4 or any(c not in "0123456789abcdef" for c in text):
        return None
    return "0x" + text.zfill(4)


# ----------------------------------------------------------------------------- loading


def parse_device_table(doc: Mapping[str, Any]) -> dict[tuple[str, str], DeviceEntry]:
    """The TOML document to entries keyed by (vendor id, device id); raises
    DeviceTableError on a malformed or duplicated row."""
    rows = doc.get("device")
    if not isinstance(rows, list):
        raise DeviceTableError("no [[device]] rows")
    cited = Citations.of(doc, DeviceTableError)
    table: dict[tuple[str, str], DeviceEntry] = {}
    for row in rows:
        entry = _entry(row, cited)
        key = (entry.vendor_id, entry.device_id)
        if key in table:
            raise DeviceTableError(f"duplicate row for {key[0]}:{key[1]}")
        table[key] = entry
    return table


def _entry(row: Any, cited: Citations) -> DeviceEntry:
    if not isinstance(row, dict):
        raise DeviceTableError(f"a [[device]] row is not a table: {row!r:.60}")
    vendor = normalise_id(str(row.get("vendor_id", "")))
    device = normalise_id(str(row.get("device_id", "")))
    if vendor is None or device is None:
        raise DeviceTableError(f"bad ids in row {row!r:.80}")
    where = f"{vendor}:{device}"
    source = sources_text(cited.sources(row.get("sources"), where))  # as one line
    kind = row.get("kind")
    try:
        gpu_kind = GpuKind(kind) if kind is not None else None
    except ValueError as exc:
        raise DeviceTableError(f"{where}: unknown kind {kind!r}") from exc
    cards = tuple(_card(where, c) for c in _list(row.get("card"), where, "card"))
    if not cards:
        raise DeviceTableError(f"{where}: no [[device.card]]")
    names = {c.name for c in cards}
    boards = tuple(_board(where, b) for b in _list(row.get("board"), where, "board"))
    for board in boards:
        if board.card not in names:
            raise DeviceTableError(f"{where}: board names unknown card {board.card!r}")
    also = row.get("also", [])
    return DeviceEntry(
        vendor_id=vendor, device_id=device, family=_opt_str(row, "family", where),
        architecture=_opt_str(row, "architecture", where),
        gfx_target=_opt_str(row, "gfx_target", where),
        compute_capability=_opt_str(row, "compute_capability", where),
        kind=gpu_kind, source=source, cards=cards, boards=boards,
        also=tuple(str(a) for a in also) if isinstance(also, list) else (),
    )


def _list(value: Any, where: str, what: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise DeviceTableError(f"{where}: {what} is not an array of tables")
    return value


def _opt_str(row: Mapping[str, Any], key: str, where: str) -> str | None:
    value = row.get(key)
    if value is not None and not isinstance(value, str):
        raise DeviceTableError(f"{where}: {key} is not a string")
    return value


def _card(where: str, row: Any) -> Card:
    if not isinstance(row, dict) or not isinstance(row.get("name"), str):
        raise DeviceTableError(f"{where}: a card without a name")
    vram = row.get("vram_gib")
    units = row.get("compute_units")
    if vram is not None and (isinstance(vram, bool) or not isinstance(vram, (int, float))):
        raise DeviceTableError(f"{where}: vram_gib is not a number")
    if units is not None and (isinstance(units, bool) or not isinstance(units, int)):
        raise DeviceTableError(f"{where}: compute_units is not an integer")
    return Card(row["name"], float(vram) if vram is not None else None, units)


def _board(where: str, row: Any) -> Board:
    if not isinstance(row, dict):
        raise DeviceTableError(f"{where}: a board is not a table")
    vendor, _, device = str(row.get("subsystem", "")).partition(":")
    sub_vendor, sub_device = normalise_id(vendor), normalise_id(device)
    card, name = row.get("card"), row.get("pci_ids")
    if sub_vendor is None or sub_device is None or not isinstance(card, str):
        raise DeviceTableError(f"{where}: a board needs subsystem 'vvvv:dddd' and card")
    return Board(sub_vendor, sub_device, card, str(name or ""))


@functools.cache
def device_table() -> dict[tuple[str, str], DeviceEntry]:
    """The packaged table, loaded once."""
    return parse_device_table(load_toml_resource(RESOURCE))


# ----------------------------------------------------------------------------- identify


def identify_device(
    vendor_id: str,
    device_id: str,
    *,
    vram_total_bytes: int | None = None,
    compute_units: int | None = None,
    subsystem_device_id: str | None = None,
    revision: str | None = None,
    subsystem_vendor_id: str | None = None,
) -> DeviceIdentity | None:
    """The card behind a PCI id, or None when the id is not in the table. `revision` is
    accepted for callers that have it but not used: no primary source maps revision ids to
    SKUs."""
    del revision
    vendor, device = normalise_id(vendor_id), normalise_id(device_id)
    if vendor is None or device is None:
        return None
    entry = device_table().get((vendor, device))
    if entry is None:
        return None
    return _narrow(entry, vram_total_bytes, compute_units,
                   normalise_id(subsystem_vendor_id) if subsystem_vendor_id else None,
                   normalise_id(subsystem_device_id) if subsystem_device_id else None)


def _narrow(entry: DeviceEntry, vram_total_bytes: int | None, compute_units: int | None,
            sub_vendor: str | None, sub_device: str | None) -> DeviceIdentity:
    cards = list(entry.cards)
    notes: list[str] = []  # what narrowed the candidates
    unhelpful: list[str] = []  # evidence that was given but could not narrow them
    shared = joined_names([c.name for c in cards])

    if len(cards) > 1 and vram_total_bytes is not None and vram_total_bytes > 0:
        measured = vram_total_bytes / GIB
        known = [c for c in cards if c.vram_gib is not None]
        if known:
            nearest = min(abs(measured - (c.vram_gib or 0.0)) for c in known)
            matched = [c for c in known if abs(measured - (c.vram_gib or 0.0)) == nearest]
            if nearest > VRAM_TOLERANCE_GIB:
                unhelpful.append(f"{measured:.1f} GiB of VRAM matches none of them")
            elif len(matched) < len(cards):
                cards = matched
                notes.append(f"{_gib(matched[0].vram_gib)} GiB of VRAM "
                             f"({vram_total_bytes} bytes)")
            else:
                unhelpful.append(f"{_gib(matched[0].vram_gib)} GiB of VRAM fits all of them")

    if len(cards) > 1 and compute_units is not None:
        matched = [c for c in cards if c.compute_units == compute_units]
        if matched and len(matched) < len(cards):
            cards = matched
            notes.append(f"{compute_units} compute units")
        elif any(c.compute_units is not None for c in cards):
            unhelpful.append(f"{compute_units} compute units "
                             + ("fit all of them" if matched else "match none of them"))

    if len(cards) > 1 and sub_device is not None:
        boards = [b for b in entry.boards if b.subsystem_device_id == sub_device
                  and (sub_vendor is None or b.subsystem_vendor_id == sub_vendor)]
        names = {b.card for b in boards}
        matched = [c for c in cards if c.name in names]
        if len(names) == 1 and matched:
            board = boards[0]
            cards = matched
            notes.append(f"board {board.subsystem_vendor_id[2:]}:{board.subsystem_device_id[2:]}"
                         f" is '{board.pci_ids_name}' in pci.ids")

    candidates = tuple(c.name for c in cards)
    name = joined_names(list(candidates))
    if len(entry.cards) == 1:
        how = f"{entry.device_id} is the {name}; no other card has this id"
    elif len(cards) == 1:
        how = f"{entry.device_id} is shared by {shared}; {' and '.join(notes)} means the {name}"
    else:
        why = "; ".join(notes + unhelpful) or "no VRAM size, compute-unit count or board id"
        how = f"{entry.device_id} is shared by {shared}; {why}: still {name}"
    return DeviceIdentity(name=name, candidates=candidates, entry=entry, how=how)


def joined_names(names: Sequence[str]) -> str:
    """["AMD Radeon RX 7900 XTX", "AMD Radeon RX 7900 XT"] -> "AMD Radeon RX 7900 XTX / 7900
    XT": the brand words all names share (words without a digit) are written once."""
    if not names:
        return ""
    split = [n.split() for n in names]
    prefix = 0
    while (
        all(len(words) > prefix + 1 for words in split)
        and len({words[prefix] for words in split}) == 1
        and not any(ch.isdigit() for ch in split[0][prefix])
    ):
        prefix += 1
    rest = [" ".join(words[prefix:]) for words in split[1:]]
    return " / ".join([names[0], *rest])


def _gib(value: float | None) -> str:
    if value is None:
        return "?"
    return f"{value:g}"
