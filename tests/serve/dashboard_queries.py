"""What the Grafana dashboards and the Prometheus alert rules in resources/ query, for the tests
(test_dashboards.py, test_prometheus.py): every PromQL expression with where it is, the metric
names an expression selects, the names `gpuscope serve` emits, and a reader of the plain YAML
subset the rules file keeps to (PyYAML is not a dependency)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuscope.serve import families as F

RESOURCES = Path(__file__).resolve().parents[2] / "resources"
DASHBOARD_DIR = RESOURCES / "grafana"
DASHBOARDS = ("gpuscope-overview.json", "gpuscope-gpu.json", "gpuscope-fleet.json")
RULES_FILE = RESOURCES / "prometheus" / "gpuscope-alerts.yml"
EXAMPLE_CONFIG = RESOURCES / "prometheus" / "prometheus-example.yml"

# Prometheus' own series that a query may use beside the exporter's: `up` (set per target on
# each scrape; https://prometheus.io/docs/concepts/jobs_instances/).
PROMETHEUS_OWN = frozenset({"up"})


def emitted_names() -> frozenset[str]:
    """The sample names `gpuscope serve` writes: each family of families.ALL_FAMILIES (the
    table and the fixed families alike); a counter's samples end in `_total`."""
    names = set()
    for family in F.ALL_FAMILIES:
        names.add(family.name + "_total" if family.type == "counter" else family.name)
    return frozenset(names)


# ------------------------------------------------------------------ dashboards


@dataclass(frozen=True, slots=True)
class Query:
    where: str  # "gpuscope-gpu.json: panel 'Power' target B"
    expr: str  # as written, Grafana variables and all
    variable: bool = False  # a template variable's query (label_values(...))


def load_dashboard(name: str) -> dict[str, Any]:
    with open(DASHBOARD_DIR / name, encoding="utf-8") as handle:
        document = json.load(handle)
    assert isinstance(document, dict)
    return document


def _panels(panels: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for panel in panels:
        yield panel
        yield from _panels(panel.get("panels") or [])  # a collapsed row keeps its panels


def panels_of(dashboard: dict[str, Any]) -> list[dict[str, Any]]:
    return list(_panels(dashboard.get("panels") or []))


def queries_of(name: str, dashboard: dict[str, Any]) -> list[Query]:
    found: list[Query] = []
    for panel in panels_of(dashboard):
        for target in panel.get("targets") or []:
            found.append(Query(f"{name}: panel {panel.get('title')!r} target "
                               f"{target.get('refId')}", target["expr"]))
    for variable in dashboard.get("templating", {}).get("list", []):
        if variable.get("type") != "query":
            continue
        query = variable.get("query")
        text = query.get("query") if isinstance(query, dict) else query
        found.append(Query(f"{name}: variable {variable.get('name')}", str(text), True))
    return found


_GRAFANA_INTERVALS = {"__rate_interval": "1m", "__interval": "15s", "__range": "1h",
                      "__range_s": "3600", "__interval_ms": "15000"}
_VARIABLE = re.compile(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]")


def substitute(expr: str, values: dict[str, str]) -> str:
    """`expr` with Grafana's variables replaced: the built-in intervals by fixed durations,
    the dashboard's own by `values` (a KeyError for one not given)."""
    def replace(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2) or match.group(3)
        return _GRAFANA_INTERVALS.get(name) or values[name]
    return _VARIABLE.sub(replace, expr)


_LABEL_VALUES = re.compile(r"\s*label_values\((.*),\s*(\w+)\s*\)\s*", re.S)


def variable_selector(query: str) -> str:
    """The series selector of a `label_values(selector, label)` variable query; a ValueError
    for any other form (`label_values(label)` would read every series of every job)."""
    match = _LABEL_VALUES.fullmatch(query)
    if match is None:
        raise ValueError(f"not label_values(selector, label): {query!r}")
    return match.group(1)


# ------------------------------------------------------------------ PromQL metric names

_KEYWORDS = frozenset({"and", "or", "unless", "bool", "offset", "inf", "nan", "atan2"})
_LABEL_LISTS = frozenset({"by", "without", "on", "ignoring", "group_left", "group_right"})
_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)
  | (?P<number>0x[0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[a-zA-Z]*)
  | (?P<ident>[a-zA-Z_:][a-zA-Z0-9_:]*)
  | (?P<open>[({\[])
  | (?P<close>[)}\]])
  | (?P<op>==|!=|=~|!~|>=|<=|[-+*/%^<>=,@])
""", re.X)


def _tokens(expr: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    position = 0
    while position < len(expr):
        match = _TOKEN.match(expr, position)
        if match is None:
            raise ValueError(f"cannot read PromQL at {expr[position:position + 20]!r}")
        kind = match.lastgroup or ""
        if kind != "space":
            tokens.append((kind, match.group()))
        position = match.end()
    return tokens


def _skip_group(tokens: list[tuple[str, str]], start: int) -> int:
    """The index after the bracket group opening at `start`."""
    depth = 0
    for index in range(start, len(tokens)):
        kind, _ = tokens[index]
        if kind == "open":
            depth += 1
        elif kind == "close":
            depth -= 1
            if depth == 0:
                return index + 1
    raise ValueError("unbalanced brackets")


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression selects. Label matchers, label lists (by, on,
    group_left ...), ranges, strings, numbers, functions and keywords are not names. A
    selector by `__name__` is refused: its names cannot be checked."""
    tokens = _tokens(expr)
    names: set[str] = set()
    index = 0
    while index < len(tokens):
        kind, text = tokens[index]
        following = tokens[index + 1] if index + 1 < len(tokens) else ("", "")
        if kind == "open" and text in "{[":
            inside = tokens[index:_skip_group(tokens, index)]
            if text == "{" and any(t == "__name__" for k, t in inside if k == "ident"):
                raise ValueError(f"a selector by __name__ in {expr!r}")
            index = _skip_group(tokens, index)
            continue
        if kind == "ident":
            if text in _LABEL_LISTS:
                index = _skip_group(tokens, index + 1) if following == ("open", "(") else (
                    index + 1)
                continue
            # A function or an aggregation: `rate(`, `max(`, `max by (`.
            call = following == ("open", "(") or (
                following[0] == "ident" and following[1] in ("by", "without"))
            if not call and text.lower() not in _KEYWORDS:
                names.add(text)
        index += 1
    return names


# ------------------------------------------------------------------ the rules' YAML subset


class YamlSubsetError(ValueError):
    pass


_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):(?: (.*))?$")


def read_yaml_subset(text: str) -> Any:
    """Read the YAML subset of the rules file: block mappings and sequences by indentation,
    plain scalars, single-quoted scalars, `|`/`|-` literal blocks and whole-line comments.
    Anything else (flow collections, anchors, tags, folded blocks, inline comments,
    duplicate keys, tabs) is a YamlSubsetError, never a silent misreading. Scalars stay
    strings: promtool types them."""
    lines = [(number, line) for number, line in enumerate(text.splitlines(), 1)]
    reader = _Reader(lines)
    value = reader.block(0)
    reader.skip_blank()
    if reader.position < len(lines):
        number, line = lines[reader.position]
        raise YamlSubsetError(f"line {number}: unexpected {line.strip()!r}")
    return value


class _Reader:
    def __init__(self, lines: list[tuple[int, str]]) -> None:
        self.lines = lines
        self.position = 0

    def skip_blank(self) -> None:
        while self.position < len(self.lines):
            _, line = self.lines[self.position]
            if line.strip() and not line.lstrip().startswith("#"):
                return
            self.position += 1

    def peek(self) -> tuple[int, int, str] | None:
        """(line number, indent, content) of the next meaningful line."""
        self.skip_blank()
        if self.position >= len(self.lines):
            return None
        number, line = self.lines[self.position]
        if "\t" in line[:len(line) - len(line.lstrip())]:
            raise YamlSubsetError(f"line {number}: a tab in the indentation")
        content = line.strip()
        return number, len(line) - len(line.lstrip(" ")), content

    def block(self, indent: int) -> Any:
        head = self.peek()
        if head is None:
            raise YamlSubsetError("a value is missing at the end")
        number, found, content = head
        if found < indent:
            raise YamlSubsetError(f"line {number}: a value is missing")
        if content == "-" or content.startswith("- "):
            return self.sequence(found)
        return self.mapping(found)

    def sequence(self, indent: int) -> list[Any]:
        items: list[Any] = []
        while (head := self.peek()) is not None:
            number, found, content = head
            if found != indent or not (content == "-" or content.startswith("- ")):
                break
            rest = content[1:].lstrip(" ")
            if not rest:
                self.position += 1
                items.append(self.block(indent + 1))
            elif _KEY.match(rest):
                # "- key: value": a mapping whose first line starts after the dash.
                offset = indent + (len(content) - len(rest))
                self.lines[self.position] = (number, " " * offset + rest)
                items.append(self.mapping(offset))
            else:
                self.position += 1
                items.append(_scalar(rest, number))
        return items

    def mapping(self, indent: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        while (head := self.peek()) is not None:
            number, found, content = head
            if found < indent:
                break
            if found > indent:
                raise YamlSubsetError(f"line {number}: unexpected indentation")
            if content.startswith("- "):
                break
            match = _KEY.match(content)
            if match is None:
                raise YamlSubsetError(f"line {number}: not 'key: value': {content!r}")
            key, rest = match.group(1), (match.group(2) or "").strip()
            if key in result:
                raise YamlSubsetError(f"line {number}: the key {key!r} twice")
            self.position += 1
            if rest in ("|", "|-"):
                result[key] = self.literal(indent, keep_last_newline=rest == "|")
            elif rest:
                result[key] = _scalar(rest, number)
            else:
                following = self.peek()
                if following is None:
                    raise YamlSubsetError(f"line {number}: {key!r} has no value")
                # A sequence may sit at its key's own indentation.
                if following[1] <= indent and not following[2].startswith("- "):
                    raise YamlSubsetError(f"line {number}: {key!r} has no value")
                result[key] = self.block(indent if following[1] == indent else indent + 1)
        return result

    def literal(self, indent: int, *, keep_last_newline: bool) -> str:
        body: list[str] = []
        block_indent: int | None = None
        while self.position < len(self.lines):
            _, line = self.lines[self.position]
            if line.strip():
                found = len(line) - len(line.lstrip(" "))
                if found <= indent:
                    break
                if block_indent is None:
                    block_indent = found
                if found < block_indent:
                    raise YamlSubsetError(f"line {self.lines[self.position][0]}: a literal "
                                          "block line less indented than its first")
                body.append(line[block_indent:])
            else:
                body.append("")
            self.position += 1
        while body and not body[-1]:
            body.pop()
        if not body:
            raise YamlSubsetError("an empty literal block")
        return "\n".join(body) + ("\n" if keep_last_newline else "")


def _scalar(text: str, number: int) -> str:
    if text.startswith("'"):
        if len(text) < 2 or not text.endswith("'") or "'" in text[1:-1].replace("''", ""):
            raise YamlSubsetError(f"line {number}: a malformed single-quoted scalar")
        return text[1:-1].replace("''", "'")
    if text[0] in "\"{[&*!|>%@`#?":
        raise YamlSubsetError(f"line {number}: {text!r} is outside the subset (quote it "
                              "with single quotes)")
    if ": " in text or " #" in text or text.endswith(":"):
        raise YamlSubsetError(f"line {number}: {text!r} is outside the subset (quote it "
                              "with single quotes)")
    return text
