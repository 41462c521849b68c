"""Reading gpuscope's packaged TOML tables (resources/, installed as gpuscope.resources)."""

from __future__ import annotations

import importlib.resources
import sys
from collections.abc import Mapping
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10; tomli is a dependency there only
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]


def load_toml_resource(name: str) -> dict[str, Any]:
    resource = importlib.resources.files("gpuscope.resources").joinpath(name)
    with resource.open("rb") as handle:
        table: dict[str, Any] = tomllib.load(handle)
    return table


def table_rows(doc: Mapping[str, Any], key: str,
               error: type[ValueError]) -> list[Mapping[str, Any]]:
    """The document's `[[key]]` array of tables (empty when absent); `error` (the table's own
    error type) when it is something else."""
    rows = doc.get(key, [])
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise error(f"[[{key}]] is not an array of tables")
    return rows
