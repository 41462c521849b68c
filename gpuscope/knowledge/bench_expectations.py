"""Microbenchmark results against the card's datasheet: the peak a result is a fraction of, and
a verdict from realistic bands of published measurements (resources/bench_expectations.toml),
each with the public sources it rests on.

`datasheet_peak` (bench_peaks.py, re-exported here) finds the figure to compare a benchmark
against (PyTorch fp16 matmul against the FP32-accumulate rate, a copy against the memory
bandwidth, a PCIe transfer against the negotiated link); `judge` says whether a measured value
is normal for the card and stack, low (a sign of trouble, or a known bug it names), high (above
what was published: not trouble), or unknown (no datasheet entry, or no published measurement
to compare with).
"""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpuscope.i18n import join, message, prose
from gpuscope.knowledge._resources import load_toml_resource, table_rows
from gpuscope.knowledge.bench_peaks import BENCHMARKS as DATASHEET_BENCHMARKS
from gpuscope.knowledge.bench_peaks import PCIE_SOURCE as PCIE_SOURCE
from gpuscope.knowledge.bench_peaks import BenchmarkInfo as BenchmarkInfo
from gpuscope.knowledge.bench_peaks import Peak as Peak
from gpuscope.knowledge.bench_peaks import datasheet_peak as datasheet_peak
from gpuscope.knowledge.bench_peaks import pcie_theoretical_gb_s as pcie_theoretical_gb_s
from gpuscope.knowledge.bench_peaks import short_number
from gpuscope.knowledge.sources import Citations, Source, sources_text
from gpuscope.knowledge.specs import GpuSpec, all_specs

# The LLM benchmarks have no datasheet peak: decode is judged against the bandwidth ceiling the
# worker measures in the same run (gpuscope.bench.assess), prefill against nothing.
LLM_BENCHMARKS: Mapping[str, BenchmarkInfo] = {
    "llm.prefill": BenchmarkInfo("tokens/s", message("LLM prefill")),
    "llm.decode": BenchmarkInfo("tokens/s", message("LLM decode")),
    "llm.decode_long": BenchmarkInfo("tokens/s", message("LLM decode, long context")),
}
# Every benchmark id gpuscope knows (the worker's and the catalogue's; a test keeps them equal).
BENCHMARKS: Mapping[str, BenchmarkInfo] = {**DATASHEET_BENCHMARKS, **LLM_BENCHMARKS}

RESOURCE = "bench_expectations.toml"
SCHEMA_VERSION = 1
# A table's reference_peak must be the computed peak of its measured_on within this fraction
# (sources round: MI300X MAMF uses 1300 for the 1307.4 datasheet figure).
REFERENCE_TOLERANCE = 0.01
# Far above the datasheet: more likely a wrong card identification or a timing error than boost.
IMPLAUSIBLE_PCT = 150.0


class ExpectationTableError(ValueError):
    """resources/bench_expectations.toml does not have the expected shape."""


class VerdictLevel(str, enum.Enum):
    """How a result compares with published measurements. For latencies (lower is better)
    "low" still means worse than expected."""

    NORMAL = "normal"
    LOW = "low"
    HIGH = "high"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Point:
    """One published measurement: a value in the benchmark's unit, or only a percentage."""

    value: float | None
    pct: float
    build: str | None
    ref: str


@dataclass(frozen=True, slots=True)
class Scope:
    """Which cards a row is for: named cards, an architecture, a vendor, or any (all None)."""

    cards: tuple[str, ...] = ()
    architecture: str | None = None
    vendor: str | None = None

    def matches(self, spec: GpuSpec | None) -> bool:
        if self.cards:
            return spec is not None and spec.name in self.cards
        if self.architecture is not None:
            return spec is not None and spec.architecture == self.architecture
        if self.vendor is not None:
            return spec is not None and spec.vendor == self.vendor
        return True

    @property
    def rank(self) -> int:
        """Higher is more specific: a card row wins over an architecture row."""
        if self.cards:
            return 3
        if self.architecture is not None:
            return 2
        return 1 if self.vendor is not None else 0


@dataclass(frozen=True, slots=True)
class Band:
    """Published measurements for a scope, as % of the datasheet peak."""

    benchmarks: tuple[str, ...]
    scope: Scope
    measured_on: str
    reference_peak: float
    stack: str
    points: tuple[Point, ...]
    sources: tuple[Source, ...]
    hint: str = ""

    @property
    def low_pct(self) -> float:
        return min(p.pct for p in self.points)

    @property
    def high_pct(self) -> float:
        return max(p.pct for p in self.points)


@dataclass(frozen=True, slots=True)
class Note:
    benchmarks: tuple[str, ...]
    scope: Scope
    when: str  # "always" / "above_peak"
    text: str
    sources: tuple[Source, ...]


@dataclass(frozen=True, slots=True)
class KnownIssue:
    """A published pathological result; a measurement in its range is named as this issue."""

    benchmarks: tuple[str, ...]
    scope: Scope
    below_pct: float | None
    above_value: float | None
    title: str
    issue: str
    text: str
    sources: tuple[Source, ...]

    def matches(self, measured: float, percent: float | None) -> bool:
        if self.below_pct is not None:
            return percent is not None and percent < self.below_pct
        return self.above_value is not None and measured > self.above_value


@dataclass(frozen=True, slots=True)
class ExpectationTable:
    margin_fraction: float
    bands: tuple[Band, ...]
    notes: tuple[Note, ...]
    known_issues: tuple[KnownIssue, ...]


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a measured value means for this card: a level and a sentence a user understands."""

    level: VerdictLevel
    percent_of_peak: float | None
    band_pct: tuple[float, float] | None  # the published range, % of the peak
    text: str
    sources: tuple[Source, ...]  # the published measurements or known issue it rests on
    peak: Peak | None = None
    known_issue: str | None = None  # the upstream issue, "ROCm/rocm-libraries #10861"

    @property
    def source(self) -> str:
        """The sources as one line: "label (https://...); ..."; "" when there are none."""
        return sources_text(self.sources)


# ----------------------------------------------------------------------------- verdicts


def band_for(spec: GpuSpec | None, benchmark_id: str, *,
             table: ExpectationTable | None = None) -> Band | None:
    """The most specific published band for this card and benchmark (card over architecture
    over vendor), or None. `table` defaults to the packaged one."""
    table = expectation_table() if table is None else table
    rows = [b for b in table.bands
            if benchmark_id in b.benchmarks and b.scope.matches(spec)]
    return max(rows, key=lambda b: b.scope.rank) if rows else None


def judge(benchmark_id: str, measured: float, spec: GpuSpec | None, peak: Peak | None, *,
          build: str | None = None, table: ExpectationTable | None = None) -> Verdict:
    """A verdict for one result. `peak` is normally `datasheet_peak(spec, benchmark_id, ...)`;
    `build` the torch version of the worker ("2.7.1+rocm6.3") to point at a published
    measurement of the same stack; `table` defaults to the packaged one. Never raises on odd
    input: it becomes an unknown verdict."""
    info = BENCHMARKS.get(benchmark_id)
    if info is None:
        return Verdict(VerdictLevel.UNKNOWN, None, None,
                       message("unknown benchmark {id}: no expectations",
                               id=repr(benchmark_id)), (), peak)
    if isinstance(measured, bool) or not isinstance(measured, (int, float)) or \
            not math.isfinite(measured) or measured <= 0:
        return Verdict(VerdictLevel.UNKNOWN, None, None,
                       message("{value} is not a valid measurement", value=repr(measured)),
                       (), peak)
    try:
        table = expectation_table() if table is None else table
    except (OSError, ValueError) as exc:  # ExpectationTableError, SpecTableError, TOML errors
        return Verdict(VerdictLevel.UNKNOWN, None, None,
                       message("the benchmark expectations table is unreadable: {reason}",
                               reason=str(exc)), (), peak)
    percent = measured / peak.value * 100 if peak is not None and peak.value > 0 else None
    if percent is not None and not math.isfinite(percent):  # 1e307 GB/s: no measurement
        return Verdict(VerdictLevel.UNKNOWN, None, None,
                       message("{value} is not a valid measurement", value=repr(measured)),
                       (), peak)
    notes = [n for n in table.notes if benchmark_id in n.benchmarks and n.scope.matches(spec)]
    always_notes = [n for n in notes if n.when == "always"]
    always = join(" ", [n.text for n in always_notes])

    for issue in table.known_issues:
        if (benchmark_id in issue.benchmarks and issue.scope.matches(spec)
                and issue.matches(float(measured), percent)):
            values = {"title": issue.title, "issue": issue.issue}
            matched = (message("{pct} of the {peak}: low; this matches {title} ({issue}).",
                               pct=_pct(percent), peak=_peak_words(peak), **values)
                       if percent is not None and peak is not None else
                       message("{value} {unit}: low; this matches {title} ({issue}).",
                               value=short_number(measured), unit=info.unit, **values))
            text = join(" ", [matched, issue.text])
            return Verdict(VerdictLevel.LOW, percent, None, text, issue.sources, peak,
                           issue.issue)

    if peak is None or percent is None:
        return Verdict(VerdictLevel.UNKNOWN, None, None,
                       _join(_no_peak_words(benchmark_id, info, spec), always),
                       _sources(always_notes), None)

    head = message("{pct} of the {peak}", pct=_pct(percent), peak=_peak_words(peak))
    band = band_for(spec, benchmark_id, table=table)
    above = [n for n in notes if n.when == "above_peak"]
    if band is None:
        if percent > 100 and above:
            return Verdict(VerdictLevel.HIGH, percent, None,
                           _join(message("{head}.", head=head), *(n.text for n in above)),
                           _sources(above), peak)
        if percent > 100:
            return Verdict(VerdictLevel.HIGH, percent, None,
                           _join(message("{head}: above the datasheet peak.", head=head),
                                 _above_words(percent)),
                           peak.sources, peak)
        text = message("{head}; no published reference for this card/precision, so gpuscope "
                       "cannot say whether that is normal.", head=head)
        return Verdict(VerdictLevel.UNKNOWN, percent, None, _join(text, always),
                       _sources(always_notes), peak)

    low, high = band.low_pct, band.high_pct
    margin = table.margin_fraction
    values = {"head": head, "who": _who(band, spec),
              "published": message("{range} {measured}", range=_range(low, high),
                                   measured=_measured_words(band))}
    same_stack = _same_stack(band, build)
    if percent < low * (1 - margin):
        text = _join(message("{head}: low for {who} (published: {published}).", **values),
                     _trouble(benchmark_id), band.hint, same_stack)
        level = VerdictLevel.LOW
    elif percent > high * (1 + margin):
        if percent > 100 and above:
            reason = join(" ", [n.text for n in above])
        else:
            reason = join(" ", [message("not a sign of trouble."), _above_words(percent)])
        text = _join(message("{head}: above what is published for {who} ({published}); "
                             "{reason}", reason=reason, **values), same_stack)
        level = VerdictLevel.HIGH
    else:
        text = _join(message("{head}: normal for {who} (published: {published}).", **values),
                     same_stack)
        level = VerdictLevel.NORMAL
    return Verdict(level, percent, (low, high), text, band.sources, peak)


def _trouble(benchmark_id: str) -> str:
    if benchmark_id.startswith("transfer."):
        return message("A sign of trouble: look for other traffic on the bus, and check that "
                       "the link gpuscope read is the slot's (on Radeon cards the GPU's own link "
                       "fields describe the on-board PCIe switch, not the slot).")
    return message("A sign of trouble: look at the clocks, power and temperature recorded "
                   "during the run (throttling, a power cap) and at other work sharing the GPU.")


def _who(band: Band, spec: GpuSpec | None) -> str:
    name = message("this {name}", name=spec.name) if spec is not None else message(
        "this device")
    if band.scope.architecture is not None:
        return message("{architecture} cards like {name}", architecture=band.scope.architecture,
                       name=name)
    return name


def _measured_words(band: Band) -> str:
    if band.scope.cards:
        return message("with {stack}", stack=band.stack)
    if band.measured_on.startswith("PCIe "):
        return message("on a {link} link with {stack}", link=band.measured_on,
                       stack=band.stack)
    return message("on an {card} with {stack}", card=band.measured_on, stack=band.stack)


def _same_stack(band: Band, build: str | None) -> str:
    local = _local_version(build)
    if local is None:
        return ""
    for point in band.points:
        if _local_version(point.build) == local:
            return message("A published {build} run reached {pct} ({ref}).", build=point.build,
                           pct=_pct(point.pct), ref=point.ref)
    return ""


def _local_version(build: str | None) -> str | None:
    """"2.7.1+rocm6.3" -> "rocm6.3"; "2.10 nightly+rocm7.0" -> "rocm7.0"."""
    if not build or "+" not in build:
        return None
    local = build.rsplit("+", 1)[1].strip().lower()
    return local or None


def _no_peak_words(benchmark_id: str, info: BenchmarkInfo, spec: GpuSpec | None) -> str:
    if benchmark_id.startswith("latency."):
        return message("no datasheet entry: GPU datasheets give no {label}.", label=info.label)
    if benchmark_id.startswith("transfer."):
        return message("no datasheet entry: the negotiated PCIe link is not known.")
    if spec is None:
        return message("no datasheet entry: this device is not a GPU in gpuscope's spec table.")
    if (benchmark_id == "matmul.fp16" or benchmark_id.startswith("attention.")) and \
            spec.fp16_accumulate == "fp16" and spec.fp16_tflops is not None:
        return message("no datasheet entry: the {name}'s published FP16 figure ({value} TFLOPS) "
                       "is the FP16-accumulate rate; the FP32-accumulate rate PyTorch uses is "
                       "not published.", name=spec.name, value=short_number(spec.fp16_tflops))
    return message("no datasheet entry: the spec table has no {label} figure for the {name}.",
                   label=info.label, name=spec.name)


def _above_words(percent: float) -> str:
    if percent > IMPLAUSIBLE_PCT:
        return message("So far above it that the card may be identified wrongly or the timing "
                       "may be off.")
    return message("Boost clocks above the rated clock, or a faster library, can do this.")


def _peak_words(peak: Peak | None) -> str:
    if peak is None:
        return message("datasheet peak")
    values = {"value": short_number(peak.value), "unit": peak.unit, "label": peak.label}
    if peak.figure == "pcie_theoretical_gb_s":
        return message("{value} {unit} {label} theoretical rate", **values)
    return message("{value} {unit} {label} peak", **values)


def _range(low: float, high: float) -> str:
    if round(low) == round(high):
        return message("about {pct}", pct=_pct(low))
    return f"{round(low)}-{_pct(high)}"


def _pct(value: float | None) -> str:
    if value is None:
        return "?"
    return f"{value:.1f}%" if value < 10 else f"{round(value)}%"



def _join(*parts: str) -> str:
    return join(" ", [p if p == p.strip() else p.strip() for p in parts if p and p.strip()])


def _sources(notes: Sequence[Note]) -> tuple[Source, ...]:
    return tuple(dict.fromkeys(s for n in notes for s in n.sources))


# ----------------------------------------------------------------------------- the table


def parse_expectation_table(doc: Mapping[str, Any],
                            specs: Sequence[GpuSpec] | None = None) -> ExpectationTable:
    """The TOML document to an ExpectationTable, checked against the spec table (`specs`,
    default the packaged one): every card and architecture exists, every benchmark id is
    known, every band's reference peak is the datasheet peak gpuscope computes for the card
    or link it was measured on, every source is a public URL and no text a user reads cites
    internal notes. Raises ExpectationTableError on any mismatch."""
    specs = all_specs() if specs is None else tuple(specs)
    if doc.get("schema_version") != SCHEMA_VERSION:
        raise ExpectationTableError(f"schema_version must be {SCHEMA_VERSION}")
    judgement = doc.get("judgement")
    margin = judgement.get("margin_fraction") if isinstance(judgement, dict) else None
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or \
            not 0 <= margin < 0.5:
        raise ExpectationTableError("[judgement] margin_fraction must be a number in 0..0.5")
    by_name = {s.name: s for s in specs}
    cited = Citations.of(doc, ExpectationTableError)
    bands = tuple(_band(row, by_name, specs, cited)
                  for row in table_rows(doc, "band", ExpectationTableError))
    notes = tuple(_note(row, by_name, specs, cited)
                  for row in table_rows(doc, "note", ExpectationTableError))
    issues = tuple(_issue(row, by_name, specs, cited)
                   for row in table_rows(doc, "known_issue", ExpectationTableError))
    cited.check_all_used()
    if not bands:
        raise ExpectationTableError("no [[band]] rows")
    seen: set[tuple[str, Scope]] = set()
    for band in bands:
        for benchmark in band.benchmarks:
            if (benchmark, band.scope) in seen:
                raise ExpectationTableError(f"two bands for {benchmark} and {band.scope}")
            seen.add((benchmark, band.scope))
    return ExpectationTable(margin_fraction=float(margin), bands=bands, notes=notes,
                            known_issues=issues)


def _text(row: Mapping[str, Any], key: str, what: str, cited: Citations, *,
          required: bool = True) -> str:
    """A string a user reads: present when `required`, and citing no internal notes."""
    value = row.get(key, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise ExpectationTableError(f"{what}: {key} must be a non-empty string")
    return cited.public(value, f"{what}: {key}")


def _benchmarks(row: Mapping[str, Any]) -> tuple[str, ...]:
    values = row.get("benchmarks")
    if not isinstance(values, list) or not values:
        raise ExpectationTableError(f"a row without benchmarks: {dict(row)!r:.100}")
    unknown = [v for v in values if v not in BENCHMARKS]
    if unknown:
        raise ExpectationTableError(f"unknown benchmark ids {unknown}")
    return tuple(values)


def _scope(row: Mapping[str, Any], what: str, by_name: Mapping[str, GpuSpec],
           specs: Sequence[GpuSpec]) -> Scope:
    given = [k for k in ("cards", "architecture", "vendor") if k in row]
    if len(given) > 1:
        raise ExpectationTableError(f"{what}: give one of cards, architecture, vendor")
    cards = row.get("cards", [])
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards) or (
            "cards" in row and not cards):
        raise ExpectationTableError(f"{what}: cards must be a non-empty list of names")
    missing = [c for c in cards if c not in by_name]
    if missing:
        raise ExpectationTableError(f"{what}: cards not in gpu_specs.toml: {missing}")
    architecture, vendor = row.get("architecture"), row.get("vendor")
    if architecture is not None and architecture not in {s.architecture for s in specs}:
        raise ExpectationTableError(f"{what}: no card of architecture {architecture!r}")
    if vendor is not None and vendor not in {s.vendor for s in specs}:
        raise ExpectationTableError(f"{what}: unknown vendor {vendor!r}")
    return Scope(cards=tuple(cards), architecture=architecture, vendor=vendor)


def _band(row: Mapping[str, Any], by_name: Mapping[str, GpuSpec],
          specs: Sequence[GpuSpec], cited: Citations) -> Band:
    benchmarks = _benchmarks(row)
    what = f"band {benchmarks}"
    scope = _scope(row, what, by_name, specs)
    measured_on = row.get("measured_on", scope.cards[0] if scope.cards else None)
    if not isinstance(measured_on, str) or not measured_on:
        raise ExpectationTableError(f"{what}: measured_on is required without cards")
    reference = row.get("reference_peak")
    if isinstance(reference, bool) or not isinstance(reference, (int, float)) or \
            reference <= 0:
        raise ExpectationTableError(f"{what}: reference_peak must be a positive number")
    for benchmark in benchmarks:
        computed = _reference_peak(measured_on, benchmark, by_name)
        if computed is None:
            raise ExpectationTableError(
                f"{what}: no datasheet peak for {benchmark} on {measured_on!r}")
        if abs(computed - reference) > REFERENCE_TOLERANCE * computed:
            raise ExpectationTableError(
                f"{what}: reference_peak {reference} is not the {measured_on} peak {computed}")
    # A row no card can reach is a typo or a spec-table gap: refuse it rather than keep it dead.
    for card in scope.cards:
        for benchmark in benchmarks:
            if datasheet_peak(by_name[card], benchmark) is None:
                raise ExpectationTableError(f"{what}: {card} has no peak for {benchmark}")
    if scope.architecture is not None:
        for benchmark in benchmarks:
            if not any(datasheet_peak(s, benchmark) is not None for s in specs
                       if s.architecture == scope.architecture):
                raise ExpectationTableError(
                    f"{what}: no {scope.architecture} card has a peak for {benchmark}")
    points_raw = row.get("points")
    if not isinstance(points_raw, list) or not points_raw:
        raise ExpectationTableError(f"{what}: points must be a non-empty list")
    points = tuple(_point(p, float(reference), what, cited) for p in points_raw)
    return Band(benchmarks=benchmarks, scope=scope, measured_on=measured_on,
                reference_peak=float(reference), stack=prose(_text(row, "stack", what, cited)),
                points=points, sources=cited.sources(row.get("sources"), what),
                hint=prose(_text(row, "hint", what, cited, required=False)))


def _reference_peak(measured_on: str, benchmark: str,
                    by_name: Mapping[str, GpuSpec]) -> float | None:
    if measured_on.startswith("PCIe "):
        parts = measured_on.split()
        try:
            generation = int(parts[1].split(".")[0])
            width = int(parts[2].removeprefix("x"))
        except (IndexError, ValueError):
            return None
        peak = datasheet_peak(None, benchmark, pcie_generation=generation, pcie_width=width)
    else:
        spec = by_name.get(measured_on)
        peak = datasheet_peak(spec, benchmark) if spec is not None else None
    return peak.value if peak is not None else None


def _point(raw: Any, reference: float, what: str, cited: Citations) -> Point:
    if not isinstance(raw, dict) or set(raw) - {"value", "pct", "build", "ref"}:
        raise ExpectationTableError(f"{what}: a point is {{value | pct, build, ref}}")
    value, pct = raw.get("value"), raw.get("pct")
    if (value is None) == (pct is None):
        raise ExpectationTableError(f"{what}: a point needs value or pct, not both")
    number = value if value is not None else pct
    if isinstance(number, bool) or not isinstance(number, (int, float)) or number <= 0:
        raise ExpectationTableError(f"{what}: a point's value must be a positive number")
    percent = float(number) / reference * 100 if value is not None else float(number)
    if percent > 200:
        raise ExpectationTableError(f"{what}: a point at {percent:.0f}% of the peak")
    build, ref = raw.get("build"), raw.get("ref")
    if build is not None and not isinstance(build, str):
        raise ExpectationTableError(f"{what}: a point's build must be a string")
    if not isinstance(ref, str) or not ref:
        raise ExpectationTableError(f"{what}: every point needs its ref")
    cited.public(f"{build or ''} {ref}", f"{what}: a point")
    return Point(value=float(value) if value is not None else None, pct=percent, build=build,
                 ref=ref)


def _note(row: Mapping[str, Any], by_name: Mapping[str, GpuSpec],
          specs: Sequence[GpuSpec], cited: Citations) -> Note:
    benchmarks = _benchmarks(row)
    what = f"note {benchmarks}"
    when = row.get("when")
    if when not in ("always", "above_peak"):
        raise ExpectationTableError(f"{what}: when must be 'always' or 'above_peak'")
    return Note(benchmarks=benchmarks, scope=_scope(row, what, by_name, specs), when=when,
                text=prose(_text(row, "text", what, cited)),
                sources=_note_sources(row, what, cited))


def _note_sources(row: Mapping[str, Any], what: str, cited: Citations) -> tuple[Source, ...]:
    value = row.get("sources")
    if value == []:
        return ()  # a note whose text says that no public source gives a figure
    return cited.sources(value, what)


def _issue(row: Mapping[str, Any], by_name: Mapping[str, GpuSpec],
           specs: Sequence[GpuSpec], cited: Citations) -> KnownIssue:
    benchmarks = _benchmarks(row)
    what = f"known_issue {benchmarks}"
    below, above = row.get("below_pct"), row.get("above_value")
    if (below is None) == (above is None):
        raise ExpectationTableError(f"{what}: give below_pct or above_value")
    for value in (below, above):
        if value is not None and (isinstance(value, bool)
                                  or not isinstance(value, (int, float)) or value <= 0):
            raise ExpectationTableError(f"{what}: thresholds must be positive numbers")
    return KnownIssue(benchmarks=benchmarks, scope=_scope(row, what, by_name, specs),
                      below_pct=float(below) if below is not None else None,
                      above_value=float(above) if above is not None else None,
                      title=prose(_text(row, "title", what, cited)),
                      issue=_text(row, "issue", what, cited),
                      text=prose(_text(row, "text", what, cited)),
                      sources=cited.sources(row.get("sources"), what))


@functools.cache
def expectation_table() -> ExpectationTable:
    """The packaged table, loaded and checked once."""
    return parse_expectation_table(load_toml_resource(RESOURCE))
