"""Reading gpuscope's packaged TOML tables (resources/, installed as gpuscope.resources)."""

from __future__ import annotations

import importlib.resources
import sys
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
