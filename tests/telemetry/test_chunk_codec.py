"""The chunk codec: blocks and tick times decoded many at once come back as encoded, and
damage anywhere in a batch is a `ChunkError`."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscope.telemetry.chunk_codec import (
    ChunkError,
    decode_block,
    decode_blocks,
    decode_times,
    decode_times_many,
    encode_block,
    encode_times,
)


def random_block(rng: np.random.Generator, series: int, ticks: int) -> np.ndarray:
    """Rows of each class: integers (some past 2**53 / 2**32), floats that fit float32 at
    1 mW, exact floats, missing samples, and empty rows."""
    block = np.empty((series, ticks))
    for row in range(series):
        kind = rng.integers(0, 5)
        if kind == 0:
            block[row] = np.cumsum(rng.integers(-3, 4, ticks)) + 1500
        elif kind == 1:
            block[row] = rng.integers(0, 2**62, ticks).astype(np.float64)
        elif kind == 2:
            block[row] = np.round(rng.uniform(20, 400, ticks), 3)
        elif kind == 3:
            block[row] = rng.standard_normal(ticks)
        else:
            block[row] = np.nan
    block[rng.random((series, ticks)) < 0.1] = np.nan
    return block


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.lists(st.tuples(st.integers(1, 6), st.integers(1, 9)),
                                          min_size=1, max_size=30))
def test_blocks_decoded_together_are_the_blocks_encoded(seed: int,
                                                        shapes: list[tuple[int, int]]) -> None:
    """Blocks of several layouts in one call (grouped inside): each comes back with every
    missing sample missing, exact where no resolution allows float32, and within half the
    resolution where one does."""
    rng = np.random.default_rng(seed)
    blocks, resolutions, blobs = [], [], []
    for series, ticks in shapes:
        blocks.append(random_block(rng, series, ticks))
        resolutions.append(rng.choice([0.0, 1e-3], series))
        blobs.append(encode_block(blocks[-1], resolutions[-1]))
    for block, allowed, decoded in zip(blocks, resolutions, decode_blocks(blobs), strict=True):
        assert decoded.shape == block.shape
        assert np.array_equal(np.isnan(decoded), np.isnan(block))
        error = np.abs(np.nan_to_num(decoded) - np.nan_to_num(block))
        assert np.all(error <= allowed[:, np.newaxis] / 2.0)
        assert np.array_equal(decode_block(encode_block(block)), block, equal_nan=True)


def test_times_decoded_together_are_the_times_encoded() -> None:
    rng = np.random.default_rng(4)
    stamps = [np.cumsum(rng.integers(1, 600_000, n)).astype(np.int64) + 1_800_000_000_000_000
              for n in (120, 121, 120, 1, 7, 120)]
    blobs = [encode_times(t) for t in stamps]
    firsts = [int(t[0]) for t in stamps]
    for times, blob, first, expected in zip(decode_times_many(blobs, firsts), blobs, firsts,
                                            stamps, strict=True):
        assert np.array_equal(times, expected)
        assert np.array_equal(times, decode_times(blob, first))


def test_damage_anywhere_in_a_batch_is_a_chunk_error() -> None:
    rng = np.random.default_rng(5)
    good = [encode_block(random_block(rng, 4, 8)) for _ in range(5)]
    for damaged in (good[2][:-3], good[2][:12] + b"\xff" * 20, b"", b"\x07" + good[2][1:]):
        with pytest.raises(ChunkError):
            decode_blocks([*good[:2], damaged, *good[3:]])
    times = [encode_times(np.arange(1, 9, dtype=np.int64) * 1000) for _ in range(3)]
    with pytest.raises(ChunkError):
        decode_times_many([times[0], times[1][:-2], times[2]], [1000] * 3)
