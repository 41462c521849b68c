"""Every text of a finding that the doctor writes itself can be shown translated.

A finding's title, detail and fix are `gpuscope.i18n.Message`s (English strs that remember
their template and values), so the views can show them in the language chosen while `--json`
keeps the English. The only plain texts allowed are a machine's own words passed through
verbatim (a kernel log's detail, the probes' reason for a device node) and the knowledge
modules' notes, each checked to be exactly that.

The findings are those of every fixture snapshot replayed, every pasted output and corpus case
imported, and the hand-made machines of test_fix_commands (which reach the rules no fixture
reaches).
"""

from __future__ import annotations

from fixture_paths import SNAPSHOTS_DIR
from test_fix_commands import all_findings

from gpuscope.doctor import DoctorInput, diagnose
from gpuscope.evidence import ReplaySystem
from gpuscope.i18n import Message, localise, message, set_language
from gpuscope.inventory import collect_frameworks, collect_inventory
from gpuscope.knowledge.cuda import driver_supports
from gpuscope.model import Finding

# Findings whose detail may be the evidence's own words rather than the doctor's.
_VERBATIM_DETAIL = frozenset({"kfd.pcie_atomics_missing", "kfd.device_unsupported",
                              "amdgpu.init_failed", "kfd.permission_denied",
                              "nvidia.driver_too_old"})


def _machine_words(data: DoctorInput) -> set[str]:
    """What the evidence itself says: the signals' details, the device nodes' reasons (one by
    one and as the rule joins them) and, for a PyTorch against the NVIDIA driver, the CUDA
    table's note."""
    stack = data.inventory.stack
    words = {s.detail for s in data.signals if s.detail}
    reasons = [n.reason for n in stack.device_nodes if n.exists and n.can_open is False
               and n.reason]
    words |= set(reasons) | {"; ".join(reasons)}
    driver = stack.nvidia_driver_version
    for torch in data.frameworks:
        if driver and torch.build == "cuda" and torch.build_version:
            for os_name in ("linux", "windows"):
                words.add(driver_supports(driver, torch.build_version, os_name).note)
    return words


def _plain_texts(data: DoctorInput, finding: Finding) -> list[tuple[str, str]]:
    """(field, text) of every non-empty text of `finding` that is not a Message and is not
    the evidence's own words."""
    plain = []
    for field in ("title", "detail", "fix"):
        text = getattr(finding, field)
        if not text or isinstance(text, Message):
            continue
        if field == "detail" and finding.id in _VERBATIM_DETAIL and text in _machine_words(data):
            continue
        plain.append((field, text))
    return plain


def test_every_snapshot_finding_text_is_a_message() -> None:
    paths = sorted(SNAPSHOTS_DIR.glob("*.json"))
    assert paths
    plain, count = [], 0
    for path in paths:
        system = ReplaySystem.from_file(path)
        data = DoctorInput(collect_inventory(system), collect_frameworks(system, []))
        for finding in diagnose(data):
            count += 1
            plain += [(path.name, finding.id, field, text[:80])
                      for field, text in _plain_texts(data, finding)]
    assert count >= len(paths)
    assert not plain, plain


def test_every_finding_text_is_a_message() -> None:
    found = all_findings()
    assert len(found) >= 100  # snapshots, pasted outputs, corpus cases and hand-made machines
    plain = [(name, finding.id, field, text[:80]) for name, data, finding in found
             for field, text in _plain_texts(data, finding)]
    assert not plain, plain


def test_a_plain_text_is_caught() -> None:
    """The check above can fail: a title written as an f-string is not a Message."""
    data, finding = next((d, f) for _, d, f in all_findings() if f.fix)
    doctored = Finding(finding.id, finding.severity, f"{finding.title}", detail=finding.detail,
                       fix=str(finding.fix))
    assert [field for field, _ in _plain_texts(data, doctored)] == ["title", "fix"]
    assert not _plain_texts(data, finding)


def test_the_english_stays_english() -> None:
    """A Message is its English text: what --json, the tests and the corpus compare."""
    set_language("en")
    for _, _, finding in all_findings():
        for text in (finding.title, finding.detail, finding.fix or ""):
            assert localise(text) == str.__str__(text)
    text = message("{target} is not officially supported by ROCm {version}",
                   target="gfx1031", version="6.0.2")
    assert text == "gfx1031 is not officially supported by ROCm 6.0.2"
