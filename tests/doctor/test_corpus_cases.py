"""Every case of the corpus of real outputs (tests/fixtures/corpus, copied from the shared
corpus) with the checks of its expect.json, evaluated like the corpus scorer evaluates them:
`key` equals, `key~` case-insensitive substring, `key+` list containing every item."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from fixture_paths import FIXTURES_DIR

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from gpuscope.doctor import DoctorInput, diagnose, diagnosis_document
from gpuscope.importer import import_files
from gpuscope.inventory.llm_runtimes import resolve_runtimes

CORPUS = FIXTURES_DIR / "corpus"
KNOWN_GAPS = Path(__file__).with_name("corpus_known_gaps.toml")
CASES = sorted(p for p in CORPUS.iterdir() if (p / "expect.json").is_file())


def _field(doc: Any, dotted: str) -> Any:
    current = doc
    for part in dotted.split("."):
        if isinstance(current, dict):
            current = current.get(part)
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            return None
    return current


def _matches(item: Any, pattern: dict[str, Any]) -> bool:
    if not isinstance(item, dict):
        return False
    for key, want in pattern.items():
        if key.endswith("~"):
            have = item.get(key[:-1])
            if have is None or str(want).lower() not in str(have).lower():
                return False
        elif key.endswith("+"):
            have = [str(h).lower() for h in item.get(key[:-1]) or []]
            if not all(str(w).lower() in have for w in want):
                return False
        elif item.get(key) != want:
            return False
    return True


def check_passes(doc: dict[str, Any], check: dict[str, Any]) -> bool:
    findings = doc.get("findings") or []
    if "count" in check:
        items = _field(doc, check["count"]) or []
        where = check.get("where")
        return sum(1 for i in items if where is None or _matches(i, where)) == check["eq"]
    if "gpu" in check:
        return any(_matches(g, check["gpu"]) for g in doc.get("gpus") or [])
    if "framework" in check:
        return any(_matches(f, check["framework"]) for f in doc.get("frameworks") or [])
    if "field" in check:
        have = _field(doc, check["field"])
        if "eq" in check:
            return bool(have == check["eq"])
        return have is not None and str(check["contains"]).lower() in str(have).lower()
    if "finding" in check:
        pattern = {"id": check["finding"], **{k: v for k, v in check.items()
                                              if k not in ("finding", "what")}}
        return any(_matches(f, pattern) for f in findings)
    if "no_finding" in check:  # as the scorer: an "ok" finding is no alarm
        return not any(f.get("id") == check["no_finding"] and f.get("severity") != "ok"
                       for f in findings)
    raise AssertionError(f"unknown check {check}")


def diagnose_case(case: Path) -> dict[str, Any]:
    expect = json.loads((case / "expect.json").read_text())
    machine = import_files([str(case / name) for name in expect["files"]])
    data = DoctorInput(machine.inventory, machine.frameworks, machine.signals,
                       llm_runtimes=resolve_runtimes(machine.llm_runtimes,
                                                     machine.inventory.gpus))
    return diagnosis_document(data, diagnose(data))


def known_gaps() -> dict[str, dict[str, str]]:
    """case -> {check's what: why gpuscope does not pass it yet}, from corpus_known_gaps.toml."""
    table = tomllib.loads(KNOWN_GAPS.read_text(encoding="utf-8"))
    return {case: dict(checks) for case, checks in table.items()}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_corpus_case(case: Path) -> None:
    """Every check passes, but for the gaps listed (with the reason) in corpus_known_gaps.toml;
    a listed gap that now passes must be taken off the list."""
    expect = json.loads((case / "expect.json").read_text())
    doc = diagnose_case(case)
    assert doc["origin"] == "imported"
    gaps = known_gaps().get(case.name, {})
    whats = [check["what"] for check in expect["checks"]]
    unknown = set(gaps) - set(whats)
    assert not unknown, f"known gaps that are no check of the case: {unknown}"
    failed = [check["what"] for check in expect["checks"]
              if not check_passes(doc, check) and check["what"] not in gaps]
    fixed = [check["what"] for check in expect["checks"]
             if check_passes(doc, check) and check["what"] in gaps]
    assert not fixed, f"these pass now; take them off corpus_known_gaps.toml: {fixed}"
    assert not failed, (f"{len(failed)} of {len(expect['checks'])} checks failed: {failed}\n"
                        + json.dumps({k: doc[k] for k in ("platform", "gpus", "stack",
                                                           "frameworks", "findings")},
                                     indent=1)[:6000])


def test_known_gaps_stay_under_five_percent() -> None:
    """The issue's bar: at least 95% of the corpus's checks pass."""
    total = sum(len(json.loads((c / "expect.json").read_text())["checks"]) for c in CASES)
    gaps = sum(len(checks) for checks in known_gaps().values())
    assert len(CASES) >= 40
    assert gaps <= total * 0.05, f"{gaps} known gaps of {total} checks"
