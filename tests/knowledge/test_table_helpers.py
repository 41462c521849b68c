"""The helpers every knowledge table's loader shares: its `[[key]]` rows and its citations,
each failure raised as the table's own error type."""

from __future__ import annotations

import pytest

from gpuscope.knowledge._resources import table_rows
from gpuscope.knowledge.sources import Citations, Source


class TableError(ValueError):
    """A table's own error type."""


DOC = {
    "sources": {
        "rocm": {"url": "https://rocm.docs.amd.com/en/latest/", "label": "ROCm documentation"},
        "cuda": {"url": "https://docs.nvidia.com/cuda/", "label": "CUDA documentation"},
    },
    "row": [{"name": "a"}, {"name": "b"}],
}


def test_table_rows_are_the_array_of_tables_or_none() -> None:
    assert table_rows(DOC, "row", TableError) == [{"name": "a"}, {"name": "b"}]
    assert table_rows(DOC, "absent", TableError) == []
    for bad in ({"row": {"name": "a"}}, {"row": [{"name": "a"}, "b"]}):
        with pytest.raises(TableError, match=r"\[\[row\]\] is not an array of tables"):
            table_rows(bad, "row", TableError)


def test_citations_track_what_rows_cite_and_raise_the_tables_error() -> None:
    cited = Citations.of(DOC, TableError)
    assert cited.sources(["rocm"], "row a") == (
        Source("https://rocm.docs.amd.com/en/latest/", "ROCm documentation"),)
    assert cited.used == {"rocm"}
    with pytest.raises(TableError, match=r"entries no row cites: \['cuda'\]"):
        cited.check_all_used()
    cited.sources(["cuda", "https://example.com/page"], "row b")
    cited.check_all_used()
    with pytest.raises(TableError, match="neither a \\[sources\\] key nor an https URL"):
        cited.sources(["nope"], "row c")
    assert cited.public("plain words", "row d") == "plain words"
    with pytest.raises(TableError, match="internal notes"):
        cited.public("see facts.md", "row e")
    with pytest.raises(TableError, match="is not an https URL"):
        Citations.of({"sources": {"bad": {"url": "http://example.com"}}}, TableError)
