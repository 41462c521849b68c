"""The device-index table: how each layer numbers each GPU (PCI bus, DRM card, KFD node, SMI,
HIP and CUDA index), as the Overview and every report format show it, and as the report's
JSON stores it under "device_index".

One row type for both: the window makes rows from the inventory's `DeviceIndexEntry`s, the
report reads them back from its document (never trusting it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpuscope.i18n import N_, Message, message
from gpuscope.model import DeviceIndexEntry, to_jsonable
from gpuscope.model import json_dict as _dict
from gpuscope.model import json_int as _int
from gpuscope.model import json_list as _list

# Column headings, English (the window translates them, a report shows them with
# `localise`); "HIP" and "CUDA" are the indices a framework uses after the *_VISIBLE_DEVICES
# variables.
COLUMNS: tuple[str, ...] = ("GPU", N_("PCI bus"), "DRM", N_("KFD node"), "SMI", "HIP", "CUDA")
MISSING = "–"
_MAX_TEXT = 300


@dataclass(frozen=True, slots=True)
class IndexRow:
    gpu: int | None  # gpuscope's own index, as on the GPU cards
    name: str | None = None
    pci_bus: str | None = None
    kind: str | None = None
    drm_card: str | None = None  # "card1"
    drm_render_minor: int | None = None
    kfd_node: int | None = None
    smi_index: int | None = None
    hip_index: int | None = None
    cuda_index: int | None = None
    hidden_by: str | None = None  # "HIP_VISIBLE_DEVICES=1": the framework cannot see it
    note: str | None = None

    @property
    def framework_index(self) -> int | None:
        return self.hip_index if self.hip_index is not None else self.cuda_index

    def cells(self) -> tuple[str, ...]:
        """The row's cells under COLUMNS; "–" where a layer gives no number."""

        def cell(value: object) -> str:
            return MISSING if value is None else str(value)

        drm = self.drm_card
        if self.drm_render_minor is not None:
            render = f"renderD{self.drm_render_minor}"
            drm = f"{drm} / {render}" if drm else render
        return (cell(self.gpu), cell(self.pci_bus), cell(drm), cell(self.kfd_node),
                cell(self.smi_index), cell(self.hip_index), cell(self.cuda_index))

    @property
    def remarks(self) -> tuple[str, ...]:
        """What the numbers do not say: hidden by a variable, or a note of the layer."""
        out = []
        if self.hidden_by:
            out.append(message("hidden by {variable}", variable=self.hidden_by))
        if self.note:
            out.append(self.note)
        return tuple(out)


def rows_of(entries: Sequence[DeviceIndexEntry]) -> tuple[IndexRow, ...]:
    return tuple(IndexRow(
        gpu=e.gpu_index, name=e.name, pci_bus=e.pci_bus,
        kind=e.kind.value, drm_card=e.drm_card,
        drm_render_minor=e.drm_render_minor, kfd_node=e.kfd_node, smi_index=e.smi_index,
        hip_index=e.hip_index, cuda_index=e.cuda_index, hidden_by=e.hidden_by, note=e.note)
        for e in entries)


def indices_disagree(rows: Sequence[IndexRow]) -> bool:
    """Whether a reader could pick the wrong GPU by its number: one is hidden from the
    frameworks or carries a note, or its HIP or CUDA index differs from gpuscope's own or
    from its SMI index."""
    for row in rows:
        if row.hidden_by or row.note:
            return True
        index = row.framework_index
        if index is None:
            continue
        if (row.gpu is not None and index != row.gpu) or (
                row.smi_index is not None and index != row.smi_index):
            return True
    return False


def index_json(entries: Sequence[DeviceIndexEntry]) -> list[Any]:
    """The report document's "device_index": the inventory's entries as JSON."""
    doc = to_jsonable(tuple(entries))
    assert isinstance(doc, list)
    return doc


def _text(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    text = value.strip()[:_MAX_TEXT]
    # A note of this gpuscope (a message) stays one, so it can be shown translated.
    return (value if text == value and isinstance(value, Message) else text) or None


def index_from_json(raw: Any) -> tuple[IndexRow, ...]:
    """The rows of a report's "device_index"; what is not an entry is left out."""
    rows: list[IndexRow] = []
    for item in _list(raw)[:64]:
        data = _dict(item)
        if not data:
            continue
        rows.append(IndexRow(
            gpu=_int(data.get("gpu_index")), name=_text(data.get("name")),
            pci_bus=_text(data.get("pci_bus")), kind=_text(data.get("kind")),
            drm_card=_text(data.get("drm_card")),
            drm_render_minor=_int(data.get("drm_render_minor")),
            kfd_node=_int(data.get("kfd_node")), smi_index=_int(data.get("smi_index")),
            hip_index=_int(data.get("hip_index")), cuda_index=_int(data.get("cuda_index")),
            hidden_by=_text(data.get("hidden_by")), note=_text(data.get("note"))))
    return tuple(rows)


def remark_lines(rows: Sequence[IndexRow]) -> list[str]:
    """"GPU 1: hidden by HIP_VISIBLE_DEVICES=0", one line per remark (rows sharing a remark
    share the line: "GPUs 0, 1: CUDA numbers the fastest GPU first ...")."""
    by_text: dict[str, list[str]] = {}
    for row in rows:
        for text in row.remarks:
            by_text.setdefault(text, []).append(MISSING if row.gpu is None else str(row.gpu))
    return [message("GPUs {gpus}: {remark}", gpus=", ".join(gpus), remark=text)
            if len(gpus) > 1 else message("GPU {gpus}: {remark}", gpus=gpus[0], remark=text)
            for text, gpus in by_text.items()]
