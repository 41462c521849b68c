"""What a user reads from the datasheet, device, benchmark-expectation and model tables cites
public sources (https URLs) and never the project's private notes or their markers (issue #10).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest

from gpuscope.bench.assess import assess_result
from gpuscope.bench.results import BenchmarkResult, ResultStatus
from gpuscope.knowledge.bench_expectations import expectation_table, judge
from gpuscope.knowledge.bench_peaks import BENCHMARKS, datasheet_peak
from gpuscope.knowledge.compare import card_profile
from gpuscope.knowledge.devices import device_table, identify_device
from gpuscope.knowledge.model_fit import model_table
from gpuscope.knowledge.sources import INTERNAL_PROVENANCE, Source, check_public_text
from gpuscope.knowledge.specs import all_specs

# The pattern of issue #10, written out here so the test does not trust the code's own copy.
INTERNAL = re.compile(r"facts\.md|§|\[[SKVD?]\]|corpus \d")
URL = re.compile(r"https://[A-Za-z0-9.-]+\.[a-z]{2,}(/\S*)?")


def spec_texts() -> Iterator[tuple[str, str]]:
    for spec in all_specs():
        for text in (spec.name, *spec.aliases, spec.architecture or "", spec.notes,
                     *spec.tags, *spec.field_confidence.values()):
            yield spec.name, text
        for source in spec.sources:
            yield spec.name, str(source)


def device_texts() -> Iterator[tuple[str, str]]:
    for (vendor, device), entry in device_table().items():
        where = f"{vendor}:{device}"
        yield where, entry.source
        yield where, entry.family or ""
        yield from ((where, text) for text in entry.also)
        yield from ((where, card.name) for card in entry.cards)
        yield from ((where, board.pci_ids_name) for board in entry.boards)
        identity = identify_device(vendor, device, vram_total_bytes=24 << 30)
        assert identity is not None
        yield where, identity.source
        yield where, identity.how


def expectation_texts() -> Iterator[tuple[str, str]]:
    table = expectation_table()
    for band in table.bands:
        where = f"band {band.benchmarks}"
        yield where, band.stack
        yield where, band.hint
        yield where, band.measured_on
        for point in band.points:
            yield where, f"{point.build or ''} {point.ref}"
        yield from ((where, str(s)) for s in band.sources)
    for note in table.notes:
        yield f"note {note.benchmarks}", note.text
        yield from ((f"note {note.benchmarks}", str(s)) for s in note.sources)
    for issue in table.known_issues:
        where = f"issue {issue.benchmarks}"
        yield from ((where, text) for text in (issue.title, issue.issue, issue.text))
        yield from ((where, str(s)) for s in issue.sources)


def model_texts() -> Iterator[tuple[str, str]]:
    table = model_table()
    for model in table.models:
        yield model.name, f"{model.name} {model.family} {model.source} {model.checked}"
    for info in table.precisions.values():
        yield info.precision.value, f"{info.label} {info.source}"


def verdict_texts() -> Iterator[tuple[str, str]]:
    """Every verdict the Benchmarks page, the report and `gpuscope bench` can show for a card
    of the table: the peak, its note and source, the verdict and its sources."""
    for spec in all_specs():
        for benchmark, info in BENCHMARKS.items():
            peak = datasheet_peak(spec, benchmark, pcie_generation=4, pcie_width=16)
            for fraction in (0.02, 0.5, 0.85, 1.05, 1.6):
                measured = peak.value * fraction if peak is not None else 3.0 / fraction
                verdict = judge(benchmark, measured, spec, peak, build="2.7.1+rocm6.3")
                where = f"{spec.name} {benchmark} x{fraction}"
                yield where, verdict.text
                yield where, verdict.source
                if verdict.peak is not None:
                    yield where, f"{verdict.peak.label} {verdict.peak.note} {verdict.peak.source}"
                result = BenchmarkResult(benchmark, "cuda:0", ResultStatus.OK, info.unit,
                                         info.higher_is_better, measured)
                judged = assess_result(result, spec, gpu_run=True, pcie_generation=4,
                                       pcie_width=16)
                yield where, f"{judged.title} {judged.text} {judged.peak_missing or ''}"
                yield where, judged.source


@pytest.mark.parametrize("texts", [spec_texts, device_texts, expectation_texts, model_texts,
                                   verdict_texts])
def test_no_user_visible_text_cites_internal_notes(
        texts: Callable[[], Iterator[tuple[str, str]]]) -> None:
    checked = 0
    for where, text in texts():
        assert not INTERNAL.search(text), (where, text)
        checked += 1
    assert checked > 10


def test_every_source_is_a_public_https_url() -> None:
    sources: list[Source] = [s for spec in all_specs() for s in spec.sources]
    table = expectation_table()
    sources += [s for row in (*table.bands, *table.notes, *table.known_issues)
                for s in row.sources]
    for profile in (card_profile(s) for s in all_specs()):
        assert profile is not None
        sources += profile.datasheet.sources
    assert len(sources) > 100
    for source in sources:
        assert URL.fullmatch(source.url), source
        assert not INTERNAL.search(source.label), source
    for entry in device_table().values():
        urls = re.findall(r"\((https://[^)\s]+)\)", entry.source)
        assert urls and all(URL.fullmatch(u) for u in urls), entry
    for model in model_table().models:
        assert URL.fullmatch(model.source), model.name
    for info in model_table().precisions.values():
        assert re.search(r"https://\S+", info.source), info


def test_the_check_and_the_issue_pattern_agree() -> None:
    for bad in ("facts.md", "see §3", "[S]", "[K]", "[V]", "[D]", "[?]", "corpus 013"):
        assert INTERNAL.search(bad) and INTERNAL_PROVENANCE.search(bad), bad
        with pytest.raises(ValueError, match="internal notes"):
            check_public_text(f"a figure ({bad})", "test")
    for good in ("ROCm/rocBLAS #1380", "[1]", "https://example.com/a#b", "corpus of issues"):
        assert check_public_text(good, "test") == good
