"""The usual HSA_OVERRIDE_GFX_VERSION for a gfx target, from resources/hsa_overrides.toml."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpuscope.i18n import prose
from gpuscope.knowledge._resources import load_toml_resource, table_rows
from gpuscope.knowledge.sources import has_internal_marks

RESOURCE = "hsa_overrides.toml"
_GFX = re.compile(r"gfx[0-9a-f]{3,4}")
_VALUE = re.compile(r"\d{1,2}\.\d{1,2}\.\d{1,2}")


class OverrideTableError(ValueError):
    """resources/hsa_overrides.toml does not have the expected shape."""


@dataclass(frozen=True, slots=True)
class OverrideAdvice:
    """What to set for one gfx target, and what to tell the user about it."""

    gfx_target: str
    value: str  # "10.3.0"
    pretends_to_be: str  # "gfx1030"; the target itself when the override only exposes it
    caveat: str  # the row's caveat, then the general ones, in plain words
    provenance: str  # the row's source note, for maintainers: never shown to users
    urls: tuple[str, ...] = ()  # public pages the advice comes from
    env_var: str = "HSA_OVERRIDE_GFX_VERSION"

    @property
    def source(self) -> str:
        """Where the advice comes from, as users may read it: its public URLs."""
        return ", ".join(self.urls)

    @property
    def assignment(self) -> str:
        """"HSA_OVERRIDE_GFX_VERSION=10.3.0"."""
        return f"{self.env_var}={self.value}"


@dataclass(frozen=True, slots=True)
class OverrideTable:
    env_var: str
    advice: Mapping[str, OverrideAdvice]  # gfx target -> advice
    caveats: tuple[str, ...]
    caveat_urls: tuple[str, ...] = ()


def gfx_for_override_value(value: str) -> str | None:
    """"10.3.0" -> "gfx1030", "11.5.1" -> "gfx1151": minor and stepping are written as hex
    digits in the target name; not a version -> None."""
    if not _VALUE.fullmatch(value.strip()):
        return None
    major, minor, step = (int(p) for p in value.strip().split("."))
    if minor > 15 or step > 15:
        return None
    return f"gfx{major}{minor:x}{step:x}"


def parse_override_table(doc: Mapping[str, Any]) -> OverrideTable:
    """The TOML document to advice per target; raises OverrideTableError on a bad row."""
    env_var = doc.get("env_var")
    if not isinstance(env_var, str) or not env_var:
        raise OverrideTableError("no env_var")
    caveats: list[str] = []
    caveat_urls: list[str] = []
    for row in table_rows(doc, "caveat", OverrideTableError):
        text, source = row.get("text"), row.get("source")
        if not isinstance(text, str) or not text or not isinstance(source, str) or not source:
            raise OverrideTableError("a [[caveat]] needs text and source")
        if has_internal_marks(text):
            raise OverrideTableError(f"a [[caveat]] text cites internal notes: {text:.60}")
        caveats.append(text)
        caveat_urls += _urls(row, "[[caveat]]")
    advice: dict[str, OverrideAdvice] = {}
    for row in table_rows(doc, "override", OverrideTableError):
        for target, item in _row_advice(row, env_var, caveats).items():
            if target in advice:
                raise OverrideTableError(f"{target} is in two [[override]] rows")
            advice[target] = item
    if not advice:
        raise OverrideTableError("no [[override]] rows")
    return OverrideTable(env_var=env_var, advice=advice, caveats=tuple(map(prose, caveats)),
                         caveat_urls=tuple(dict.fromkeys(caveat_urls)))


def _urls(row: Mapping[str, Any], where: str) -> list[str]:
    urls = row.get("urls", [])
    if not isinstance(urls, list) or not all(
            isinstance(u, str) and u.startswith("https://") for u in urls):
        raise OverrideTableError(f"{where}: urls must be a list of https:// addresses")
    return list(urls)


def _row_advice(row: Mapping[str, Any], env_var: str,
                caveats: list[str]) -> dict[str, OverrideAdvice]:
    targets, source, caveat = row.get("targets"), row.get("source"), row.get("caveat")
    if (not isinstance(targets, list) or not targets
            or not all(isinstance(t, str) and _GFX.fullmatch(t) for t in targets)):
        raise OverrideTableError(f"bad targets in {row!r:.80}")
    if not isinstance(source, str) or not source or not isinstance(caveat, str) or not caveat:
        raise OverrideTableError(f"{targets}: source and caveat are required")
    if has_internal_marks(caveat):
        raise OverrideTableError(f"{targets}: the caveat cites internal notes")
    urls = tuple(_urls(row, str(targets)))
    pretends = row.get("pretends_to_be")
    if not isinstance(pretends, str) or not (pretends == "self" or _GFX.fullmatch(pretends)):
        raise OverrideTableError(f"{targets}: bad pretends_to_be {pretends!r}")
    values = row.get("values")
    if "value" in row:
        if values is not None:
            raise OverrideTableError(f"{targets}: both value and values")
        values = dict.fromkeys(targets, row["value"])
    if not isinstance(values, dict) or set(values) != set(targets):
        raise OverrideTableError(f"{targets}: needs value, or values for every target")
    text = prose(" ".join([caveat, *caveats]))  # shown translated, sentence by sentence
    result: dict[str, OverrideAdvice] = {}
    for target in targets:
        value = values[target]
        spoofed = gfx_for_override_value(value) if isinstance(value, str) else None
        wanted = target if pretends == "self" else pretends
        if spoofed != wanted:
            raise OverrideTableError(f"{target}: {value!r} does not name {wanted}")
        result[target] = OverrideAdvice(gfx_target=target, value=value, pretends_to_be=wanted,
                                        caveat=text, provenance=source, urls=urls,
                                        env_var=env_var)
    return result


@functools.cache
def override_table() -> OverrideTable:
    """The packaged table, loaded once."""
    return parse_override_table(load_toml_resource(RESOURCE))


def hsa_override_for(gfx_target: str) -> OverrideAdvice | None:
    """The usual override for a target that official builds do not carry ("gfx1031" ->
    10.3.0, runs as gfx1030); None for a target with native support or no known override.
    Accepts torch's gcnArchName form ("gfx1031:xnack-")."""
    target = gfx_target.strip().lower().split(":", 1)[0]
    return override_table().advice.get(target)


def general_caveats() -> tuple[str, ...]:
    """The caveats that apply to every override, in plain words."""
    return override_table().caveats


def caveat_urls() -> tuple[str, ...]:
    """The public pages the general caveats come from."""
    return override_table().caveat_urls
