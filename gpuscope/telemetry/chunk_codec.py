"""The compact encoding of a recording's chunks (format version 3): a minute or so of ticks,
every series of it, in one zlib blob. Pure numpy and the standard library.

A chunk is a block of values, shape (series, ticks), NaN where a sample is missing, and its
tick times in whole microseconds. Each series (a row) is stored in the cheapest of three
classes, chosen per chunk:

- integers (clocks in MHz, bytes, fan rpm, throttle bits): the differences between
  consecutive values as zigzag integers in the narrowest unsigned type that holds them;
- float32, where it keeps every value within half the metric's resolution (a temperature
  to 1/1000 °C, power to 1 mW: `FLOAT32_RESOLUTION`);
- float64 otherwise, exact.

The rows of a class are stored together, byte-shuffled (all first bytes, then all second
bytes...) before zlib, which is what makes slowly changing sensor values compress: their
high bytes repeat. Missing samples of integer rows are a bit mask; float rows keep NaN.
Tick times are stored as differences of differences of microseconds: a steady sampling rate
makes them almost all zero.

Decoding a chunk is a few numpy calls whatever its series count: no loop over samples and
only a short one over classes. A blob that does not decode (a damaged file) raises
`ChunkError`.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

CODEC_VERSION = 1
_HEADER = struct.Struct("<BII")  # codec version, series (rows), ticks (columns)
_PART = struct.Struct("<BI")  # dtype code, byte length
_INT, _FLOAT32, _FLOAT64, _EMPTY = 0, 1, 2, 3
_UNSIGNED: tuple[type[np.unsignedinteger], ...] = (np.uint8, np.uint16, np.uint32, np.uint64)
_MAX_EXACT_INT = float(2**53)
_ZLIB_LEVEL = 6
# Decoded blocks bigger than this are not chunks gpuscope wrote: a damaged or crafted file.
MAX_CHUNK_VALUES = 64_000_000

# Half of this is the most a float32 may differ from the value read: the finest step the
# sensors behind each unit report (hwmon gives millidegrees and microwatts but amdgpu's power
# moves in whole watts and NVML's in milliwatts). A unit not listed is kept exact.
# Units are the stored ones (`gpuscope.metrics.stored_unit`).
FLOAT32_RESOLUTION: dict[str, float] = {
    "°C": 1e-3, "W": 1e-3, "%": 1e-3, "MHz": 1e-3, "RPM": 1e-2, "B": 1.0, "B/s": 1.0,
}


class ChunkError(ValueError):
    """A chunk blob that does not decode."""


def resolution_of(unit: str | None) -> float:
    """The largest error float32 may make for a metric of `unit`, doubled (0: exact)."""
    return FLOAT32_RESOLUTION.get(unit or "", 0.0)


# ----------------------------------------------------------------------------- values


def _shuffled(array: npt.NDArray[np.generic]) -> bytes:
    flat = np.ascontiguousarray(array).reshape(-1)
    return bytes(flat.view(np.uint8).reshape(-1, flat.itemsize).T.tobytes())


def _unshuffled(payloads: Sequence[bytes | memoryview], dtype: np.dtype[np.generic],
                count: int) -> npt.NDArray[np.generic]:
    """Payloads of `count` byte-shuffled values each, as an array (payloads, count)."""
    joined = b"".join(payloads)
    if len(joined) != len(payloads) * count * dtype.itemsize:
        raise ChunkError(f"a part does not hold {count} values of {dtype}")
    planes = np.frombuffer(joined, dtype=np.uint8).reshape(len(payloads), dtype.itemsize, count)
    out: npt.NDArray[np.generic] = planes.transpose(0, 2, 1).copy().view(dtype).reshape(
        len(payloads), count)
    return out


def _zigzag(deltas: IntArray) -> npt.NDArray[np.uint64]:
    return ((deltas << 1) ^ (deltas >> 63)).view(np.uint64)


def _unzigzag(encoded: npt.NDArray[np.uint64]) -> IntArray:
    unsigned = encoded.astype(np.uint64)
    out: IntArray = ((unsigned >> np.uint64(1)).view(np.int64)
                     ^ -(unsigned & np.uint64(1)).view(np.int64))
    return out


def _unzigzag_narrow(encoded: npt.NDArray[np.generic]) -> npt.NDArray[np.generic]:
    """`_unzigzag` in the encoded width: the same bits, without widening to 64 bits first."""
    one = encoded.dtype.type(1)
    signed = np.dtype(encoded.dtype.str.replace("u", "i"))
    out: npt.NDArray[np.generic] = ((encoded >> one) ^ (-(encoded & one))).view(signed)
    return out


def _narrowest(values: npt.NDArray[np.uint64]) -> npt.NDArray[np.unsignedinteger]:
    top = int(values.max()) if values.size else 0
    for dtype in _UNSIGNED:
        if top <= np.iinfo(dtype).max:
            return values.astype(dtype)
    return values  # pragma: no cover - uint64 holds every uint64


def _forward_filled(rows: FloatArray, present: npt.NDArray[np.bool_]) -> FloatArray:
    """Each missing value replaced by the last present one before it (the row's first present
    value before any): differences stay zero across gaps."""
    ticks = rows.shape[1]
    index = np.where(present, np.arange(ticks), 0)
    np.maximum.accumulate(index, axis=1, out=index)
    first = present.argmax(axis=1)
    index = np.where(present.cumsum(axis=1) == 0, first[:, np.newaxis], index)
    return np.take_along_axis(rows, index, axis=1)


def _classes(block: FloatArray, resolutions: FloatArray) -> npt.NDArray[np.uint8]:
    present = ~np.isnan(block)
    kinds = np.full(block.shape[0], _FLOAT64, dtype=np.uint8)
    filled = np.where(present, block, 0.0)
    with np.errstate(invalid="ignore", over="ignore"):
        integral = (np.all(filled == np.round(filled), axis=1)
                    & np.all(np.abs(filled) < _MAX_EXACT_INT, axis=1))
        as32 = filled.astype(np.float32).astype(np.float64)
        error = np.abs(as32 - filled)
        fits32 = np.all((error == 0) | (error <= resolutions[:, np.newaxis] / 2.0), axis=1)
        fits32 &= np.all(np.isfinite(as32) | ~present, axis=1)
    kinds[fits32] = _FLOAT32
    kinds[integral] = _INT
    kinds[~present.any(axis=1)] = _EMPTY
    return kinds


def encode_block(block: FloatArray, resolutions: FloatArray | None = None) -> bytes:
    """`block` (series, ticks), NaN where missing, as one blob. `resolutions` (per series,
    see `resolution_of`) says where float32 is close enough; None keeps every value exact."""
    block = np.asarray(block, dtype=np.float64)
    if block.ndim != 2:
        raise ValueError("a chunk is a 2-D block (series, ticks)")
    series, ticks = block.shape
    if resolutions is None:
        resolutions = np.zeros(series)
    kinds = _classes(block, np.asarray(resolutions, dtype=np.float64))
    parts = [_HEADER.pack(CODEC_VERSION, series, ticks), kinds.tobytes()]
    for kind in (_INT, _FLOAT32, _FLOAT64):
        rows = block[kinds == kind]
        if not len(rows):
            continue
        if kind == _INT:
            present = ~np.isnan(rows)
            mask = np.packbits(present, axis=1).tobytes() if not present.all() else b""
            values = _forward_filled(rows, present).astype(np.int64)
            deltas = np.diff(values, axis=1, prepend=np.zeros((len(rows), 1), np.int64))
            narrow = _narrowest(_zigzag(deltas))
            code = _UNSIGNED.index(narrow.dtype.type)
            payload = struct.pack("<I", len(mask)) + mask + _shuffled(narrow)
        else:
            code = 0
            payload = _shuffled(rows.astype(np.float32 if kind == _FLOAT32 else np.float64))
        data = zlib.compress(payload, _ZLIB_LEVEL)
        parts.append(_PART.pack(code, len(data)))
        parts.append(data)
    return b"".join(parts)


def decode_block(blob: bytes) -> FloatArray:
    """The block `encode_block` stored, as float64 (series, ticks) with NaN where missing."""
    return decode_blocks([blob])[0]


# ------------------------------------------------------------------------------ times


def encode_times(times_us: IntArray) -> bytes:
    """Tick times (whole microseconds, ascending) as differences of differences."""
    times_us = np.asarray(times_us, dtype=np.int64)
    deltas = np.diff(times_us, prepend=times_us[:1])
    second = np.diff(deltas, prepend=np.int64(0))
    narrow = _narrowest(_zigzag(second))
    return (struct.pack("<BI", _UNSIGNED.index(narrow.dtype.type), len(times_us))
            + zlib.compress(_shuffled(narrow), _ZLIB_LEVEL))


def decode_times(blob: bytes, first_us: int) -> IntArray:
    """The tick times `encode_times` stored, in microseconds, the first being `first_us`."""
    return decode_times_many([blob], [first_us])[0]


# ----------------------------------------------------------------------------- many at once


def decode_blocks(blobs: Sequence[bytes]) -> list[FloatArray]:
    """`decode_block` of each blob, with the numpy work done once per group of parts of one
    layout (chunks of a recording mostly share theirs): opening a day of recording decodes
    thousands of small blobs. Any damage raises `ChunkError` without saying which blob:
    decode them one by one to find it."""
    try:
        return _decode_blocks([memoryview(blob) for blob in blobs])
    except ChunkError:
        raise
    except (struct.error, zlib.error, ValueError, IndexError, TypeError, OverflowError,
            MemoryError) as exc:
        raise ChunkError(f"a chunk does not decode ({exc})") from None


@dataclass(frozen=True, slots=True)
class _Layout:
    """Which rows of a block are in which class (blocks of a recording mostly share one)."""

    present: tuple[tuple[int, IntArray], ...]  # (class, its rows) for the classes stored
    empty: IntArray  # rows without a sample

    @classmethod
    def of(cls, kinds_bytes: bytes) -> _Layout:
        kinds = np.frombuffer(kinds_bytes, dtype=np.uint8)
        if np.any(kinds > _EMPTY):
            raise ChunkError("a chunk names an unknown value class")
        present = tuple((kind, where) for kind in (_INT, _FLOAT32, _FLOAT64)
                        if len(where := np.flatnonzero(kinds == kind)))
        return cls(present, np.flatnonzero(kinds == _EMPTY))


# A stored class of one block: (integer width code, its values' bytes, its missing-sample mask).
_Part = tuple[int, bytes | memoryview, bytes]


def _decode_blocks(blobs: Sequence[memoryview]) -> list[FloatArray]:
    layouts: dict[bytes, _Layout] = {}
    parsed: list[list[_Part]] = []
    groups: dict[tuple[bytes, int], list[int]] = {}  # (layout, ticks) -> blob numbers
    for number, blob in enumerate(blobs):
        version, series, ticks = _HEADER.unpack_from(blob, 0)
        if version != CODEC_VERSION:
            raise ChunkError(f"chunk codec {version} is not one this gpuscope reads")
        if series * ticks > MAX_CHUNK_VALUES:
            raise ChunkError(f"a chunk of {series} x {ticks} values is larger than any written")
        offset = _HEADER.size
        key = bytes(blob[offset:offset + series])
        if len(key) != series:
            raise ChunkError("a chunk's value classes are cut short")
        layout = layouts.get(key)
        if layout is None:
            layout = layouts[key] = _Layout.of(key)
        offset += series
        parts: list[_Part] = []
        for kind, _ in layout.present:
            code, length = _PART.unpack_from(blob, offset)
            offset += _PART.size
            payload = zlib.decompress(blob[offset:offset + length])
            offset += length
            if kind != _INT:
                parts.append((0, payload, b""))
                continue
            if code >= len(_UNSIGNED):
                raise ChunkError(f"unknown integer width {code}")
            (mask_length,) = struct.unpack_from("<I", payload, 0)
            mask = payload[4:4 + mask_length]
            if len(mask) != mask_length:
                raise ChunkError("a chunk's mask is cut short")
            parts.append((code, memoryview(payload)[4 + mask_length:], mask))
        parsed.append(parts)
        groups.setdefault((key, ticks), []).append(number)
    outputs: list[FloatArray] = [np.empty((0, 0))] * len(blobs)
    for (key, ticks), numbers in groups.items():
        layout = layouts[key]
        # Blocks of one layout are decoded into one array, a class at a time.
        block = np.empty((len(numbers), len(key), ticks))
        block[:, layout.empty] = np.nan
        for slot, (kind, where) in enumerate(layout.present):
            by_code: dict[int, list[int]] = {}
            for member, number in enumerate(numbers):
                by_code.setdefault(parsed[number][slot][0], []).append(member)
            for code, members in by_code.items():
                _decode_class(block, members, where, kind, code, ticks,
                              [parsed[numbers[m]][slot] for m in members])
        for member, number in enumerate(numbers):
            outputs[number] = block[member]
    return outputs


def _decode_class(block: FloatArray, members: Sequence[int], where: IntArray, kind: int,
                  code: int, ticks: int, parts: Sequence[_Part]) -> None:
    """The rows `where` of blocks `members` of `block`, from their parts of class `kind`."""
    dtype = np.dtype(_UNSIGNED[code] if kind == _INT
                     else np.float32 if kind == _FLOAT32 else np.float64)
    stacked = _unshuffled([values for _, values, _ in parts], dtype,
                          len(where) * ticks).reshape(len(parts), len(where), ticks)
    if kind == _INT:
        deltas = _unzigzag_narrow(stacked)
        # Sums of whole numbers below 2**53 are exact in float64: one pass, no int64 copy.
        decoded = np.cumsum(deltas, axis=2, dtype=np.int64 if code == 3 else np.float64)
        decoded = decoded.astype(np.float64, copy=False)
        for number, (_, _, mask) in enumerate(parts):
            if mask:
                present = np.unpackbits(np.frombuffer(mask, dtype=np.uint8).reshape(
                    len(where), -1), axis=1, count=ticks).astype(bool)
                decoded[number][~present] = np.nan
    else:
        decoded = stacked.astype(np.float64)
    block[np.asarray(members)[:, np.newaxis], where[np.newaxis, :]] = decoded


def decode_times_many(blobs: Sequence[bytes], firsts_us: Sequence[int]) -> list[IntArray]:
    """`decode_times` of each blob, grouped as `decode_blocks` groups (and like it, damage
    raises `ChunkError` without saying which)."""
    try:
        groups: dict[tuple[int, int], list[tuple[int, bytes]]] = {}
        for number, blob in enumerate(blobs):
            code, count = struct.unpack_from("<BI", blob, 0)
            if code >= len(_UNSIGNED) or count > MAX_CHUNK_VALUES:
                raise ChunkError("a chunk's times do not decode")
            groups.setdefault((code, count), []).append((number, zlib.decompress(blob[5:])))
        outputs: list[IntArray] = [np.empty(0, np.int64)] * len(blobs)
        for (code, count), parts in groups.items():
            try:
                narrow = _unshuffled([payload for _, payload in parts],
                                     np.dtype(_UNSIGNED[code]), count)
            except ChunkError:
                raise ChunkError("a chunk's times do not decode") from None
            second = _unzigzag(narrow.astype(np.uint64))
            firsts = np.array([firsts_us[number] for number, _ in parts], dtype=np.int64)
            times = firsts[:, np.newaxis] + np.cumsum(np.cumsum(second, axis=1), axis=1)
            for row, (number, _) in enumerate(parts):
                outputs[number] = times[row]
        return outputs
    except ChunkError:
        raise
    except (struct.error, zlib.error, ValueError, TypeError, OverflowError,
            MemoryError) as exc:
        raise ChunkError(f"a chunk's times do not decode ({exc})") from None
