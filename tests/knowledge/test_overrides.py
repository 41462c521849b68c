"""resources/hsa_overrides.toml and hsa_override_for."""

from __future__ import annotations

import importlib.resources
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuscope.knowledge.overrides import (
    OverrideTableError,
    general_caveats,
    gfx_for_override_value,
    hsa_override_for,
    override_table,
    parse_override_table,
)
from gpuscope.knowledge.sources import has_internal_marks

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


@pytest.mark.parametrize("target", ["gfx1031", "gfx1032", "gfx1034", "gfx1035", "gfx1036"])
def test_rdna2_targets_pretend_to_be_gfx1030(target: str) -> None:
    advice = hsa_override_for(target)
    assert advice is not None
    assert advice.gfx_target == target
    assert advice.value == "10.3.0"
    assert advice.pretends_to_be == "gfx1030"
    assert advice.assignment == "HSA_OVERRIDE_GFX_VERSION=10.3.0"
    assert "ollama/ollama docs/gpu.md" in advice.provenance and "[V]" in advice.provenance
    # What users see is the public pages, never the provenance note.
    assert advice.urls == ("https://github.com/ollama/ollama/blob/main/docs/gpu.mdx",
                           "https://github.com/ROCm/ROCm/issues/2353")
    assert advice.source == ", ".join(advice.urls)


@pytest.mark.parametrize("target", ["gfx1101", "gfx1102", "gfx1103"])
def test_rdna3_targets_pretend_to_be_gfx1100(target: str) -> None:
    advice = hsa_override_for(target)
    assert advice is not None
    assert (advice.value, advice.pretends_to_be) == ("11.0.0", "gfx1100")


@pytest.mark.parametrize(("target", "value"), [
    ("gfx1150", "11.5.0"), ("gfx1151", "11.5.1"), ("gfx1152", "11.5.2")])
def test_rdna35_apus_use_their_own_value(target: str, value: str) -> None:
    advice = hsa_override_for(target)
    assert advice is not None
    assert advice.value == value
    assert advice.pretends_to_be == target
    assert "[S]" in advice.provenance
    assert "https://github.com/mudler/LocalAI/pull/9229" in advice.urls


@pytest.mark.parametrize("target", ["gfx1030", "gfx1100", "gfx1200", "gfx1201", "gfx942",
                                    "gfx90a", "gfx906", "gfx900", "gfx1033", "", "nonsense"])
def test_native_or_unknown_targets_get_none(target: str) -> None:
    assert hsa_override_for(target) is None


def test_torch_arch_name_and_case_are_accepted() -> None:
    advice = hsa_override_for("GFX1031:xnack-")
    assert advice is not None and advice.value == "10.3.0"


def test_caveats_are_plain_words_from_facts() -> None:
    advice = hsa_override_for("gfx1031")
    assert advice is not None
    caveat = advice.caveat
    assert "segmentation fault" in caveat  # PyTorch sees the GPU, crashes on the first op
    assert "Linux only" in caveat
    assert "before `import torch`" in caveat
    assert "HSA_OVERRIDE_GFX_VERSION_<index>" in caveat  # mixed GPUs
    assert "gcnArchName" in caveat  # the reported target is the spoofed one
    assert len(general_caveats()) == 4
    assert all(c in caveat for c in general_caveats())


def test_value_decoding() -> None:
    assert gfx_for_override_value("10.3.0") == "gfx1030"
    assert gfx_for_override_value("11.5.1") == "gfx1151"
    assert gfx_for_override_value("9.0.10") == "gfx90a"
    assert gfx_for_override_value("10.3") is None
    assert gfx_for_override_value("10.16.0") is None


def test_table_validation() -> None:
    resource = importlib.resources.files("gpuscope.resources").joinpath("hsa_overrides.toml")
    with resource.open("rb") as handle:
        doc = tomllib.load(handle)
    assert doc["schema_version"] == 1
    for row in doc["override"]:
        assert row["targets"] and row["caveat"] and row["source"] and row["urls"]
        assert ("value" in row) != ("values" in row)
        assert row["urls"] and all(u.startswith("https://") for u in row["urls"])
        assert not has_internal_marks(row["caveat"])  # users read it
    for row in doc["caveat"]:
        assert row["text"] and row["source"] and "facts.md" not in row["source"]
        assert not has_internal_marks(row["text"])
    table = override_table()
    assert sorted(table.advice) == [
        "gfx1031", "gfx1032", "gfx1034", "gfx1035", "gfx1036", "gfx1101", "gfx1102", "gfx1103",
        "gfx1150", "gfx1151", "gfx1152"]


def _doc(**row: Any) -> dict[str, Any]:
    base = {"targets": ["gfx1031"], "value": "10.3.0", "pretends_to_be": "gfx1030",
            "caveat": "c", "source": "s"}
    base.update(row)
    return {"env_var": "HSA_OVERRIDE_GFX_VERSION", "override": [base]}


@pytest.mark.parametrize(("doc", "message"), [
    ({"override": []}, "no env_var"),
    ({"env_var": "X", "override": []}, "no \\[\\[override"),
    (_doc(value="10.3.1"), "does not name gfx1030"),
    (_doc(targets=["RX 6700"]), "bad targets"),
    (_doc(source=""), "source and caveat"),
    (_doc(values={"gfx1031": "10.3.0"}), "both value and values"),
    (_doc(pretends_to_be="rx6800"), "bad pretends_to_be"),
])
def test_malformed_tables_are_rejected(doc: dict[str, Any], message: str) -> None:
    with pytest.raises(OverrideTableError, match=message):
        parse_override_table(doc)


@given(st.text(max_size=40))
def test_lookup_never_raises(text: str) -> None:
    advice = hsa_override_for(text)
    assert advice is None or advice.value.count(".") == 2
