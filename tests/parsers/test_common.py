"""The line helpers every parser shares (`gpuscope.parsers._common`)."""

from __future__ import annotations

import re

from gpuscope.parsers._common import LineReads, anchored_lines, line_around, matching_lines


def test_line_reads_reads_each_distinct_line_once_and_remembers_at_most_its_bound() -> None:
    calls: list[str] = []

    def read(line: str) -> int:
        calls.append(line)
        return len(line)

    reads = LineReads(read, max_lines=2)
    assert [reads[line] for line in ["a", "bb", "a", "bb", "ccc", "ccc"]] == [1, 2, 1, 2, 3, 3]
    assert calls == ["a", "bb", "ccc", "ccc"]  # "ccc" came past the bound: read each time
    assert dict(reads) == {"a": 1, "bb": 2}
    assert reads.get("ccc") is None  # `get` reads nothing


def test_line_around_is_the_line_or_a_window_of_a_long_one() -> None:
    text = "first\nsecond line\r\nthird"
    start, end = line_around(text, text.index("line"))
    assert text[start:end] == "second line\r"
    long_line = "x" * 50 + "needle" + "y" * 50
    start, end = line_around(long_line, 50, max_chars=20)
    assert (start, end) == (40, 60)


def test_matching_and_anchored_lines_count_lines_and_cut_long_ones() -> None:
    text = "a gpu\r\nnothing\n" + "z" * 30 + "gpu" + "z" * 30 + "\nGPU again\nlast gpu"
    lowered = text.lower()
    found, cut = matching_lines(text, lowered, re.compile("gpu"), max_lines=10, max_chars=20)
    assert not cut
    assert [(index, line) for index, line, _ in found] == [
        (0, "a gpu"), (2, "z" * 10 + "gpu" + "z" * 7), (3, "GPU again"), (4, "last gpu")]
    assert all(text[:end].rstrip("\r").endswith(line) for _, line, end in found)
    assert [line for _, line, _ in anchored_lines(text, lowered, ("gpu",), 10, 20)] == [
        line for _, line, _ in found]
    found, cut = matching_lines(text, lowered, re.compile("gpu"), max_lines=2, max_chars=20)
    assert cut and len(found) == 2
