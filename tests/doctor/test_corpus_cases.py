"""Every case of the corpus of real outputs (tests/fixtures/corpus, copied from the shared
corpus) with the checks of its expect.json, evaluated like the corpus scorer evaluates them:
`key` equals, `key~` case-insensitive substring, `key+` list containing every item."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fixture_paths import FIXTURES_DIR

from gpuscope.doctor import DoctorInput, diagnose, diagnosis_document
from gpuscope.importer import import_files

CORPUS = FIXTURES_DIR / "corpus"
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
    if "no_finding" in check:
        return not any(f.get("id") == check["no_finding"] for f in findings)
    raise AssertionError(f"unknown check {check}")


def diagnose_case(case: Path) -> dict[str, Any]:
    expect = json.loads((case / "expect.json").read_text())
    machine = import_files([str(case / name) for name in expect["files"]])
    data = DoctorInput(machine.inventory, machine.frameworks, machine.signals)
    return diagnosis_document(data, diagnose(data))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_corpus_case(case: Path) -> None:
    expect = json.loads((case / "expect.json").read_text())
    doc = diagnose_case(case)
    assert doc["origin"] == "imported"
    failed = [check["what"] for check in expect["checks"] if not check_passes(doc, check)]
    assert not failed, (f"{len(failed)} of {len(expect['checks'])} checks failed: {failed}\n"
                        + json.dumps({k: doc[k] for k in ("platform", "gpus", "stack",
                                                           "frameworks", "findings")},
                                     indent=1)[:6000])
