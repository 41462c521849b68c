"""The report in the language chosen: its messages survive redaction and reading, every format
but the JSON is written in that language, and the JSON is the same English in every one."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fixture_paths import SNAPSHOTS_DIR

from gpuscope.doctor import DoctorInput, diagnose
from gpuscope.evidence import ReplaySystem
from gpuscope.i18n import (
    ENGLISH,
    SIMPLIFIED_CHINESE,
    Message,
    language,
    localise,
    message,
    set_language,
)
from gpuscope.inventory import collect_frameworks, collect_inventory
from gpuscope.report.export_html import report_html
from gpuscope.report.export_markdown import report_markdown
from gpuscope.report.inventory_text import format_inventory_text
from gpuscope.report.redact import Identity, Redactor
from gpuscope.report.share import prepare_report, report_json_text
from gpuscope.report.view_model import ShareReport

NO_ACCESS = SNAPSHOTS_DIR / "amd_kfd_no_access.json"  # user "bob" cannot open /dev/kfd
GENERATED_UNIX_S = 1_795_000_000.0


def has_chinese(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


@pytest.fixture
def chinese() -> Iterator[None]:
    assert set_language(SIMPLIFIED_CHINESE)
    yield
    set_language(ENGLISH)


def _report(redact: bool = True) -> ShareReport:
    system = ReplaySystem.from_file(NO_ACCESS)
    data = DoctorInput(collect_inventory(system), collect_frameworks(system, []))
    return prepare_report(data, diagnose(data), redact=redact,
                          identity_sources=(system.snapshot.to_json(),),
                          generated_unix_s=GENERATED_UNIX_S).report


def test_a_redacted_message_stays_translatable_and_its_english_is_unchanged() -> None:
    redactor = Redactor(Identity.of(user_names=["bob"]))
    original = message("permission denied: {path} is {mode} and user {user} is not in group "
                       "{group}", path="/dev/kfd", mode="crw-rw----", user="bob",
                       group="render")
    whole = Redactor(Identity.of(user_names=["bob"])).redact_text(str(original))
    redacted = redactor.redact_json({"reason": original})["reason"]
    assert redacted == whole and "bob" not in redacted
    assert isinstance(redacted, Message) and redacted.params["user"] == "<user-1>"
    (entry,) = redactor.preview()
    assert entry.occurrences == 1  # the trial on the values is not counted
    # A name the template itself spells (no value holds it) is redacted in the whole text.
    spelled = message("bob's GPU {name}", name="RX 7900")
    assert redactor.redact_json([spelled]) == ["<user-1>'s GPU RX 7900"]


def test_the_report_keeps_its_messages_through_redaction_and_reading() -> None:
    report = _report()
    assert report.redacted
    error = next(f for f in report.findings if f.severity == "error")
    assert isinstance(error.title, Message) and "bob" not in error.detail
    assert isinstance(report.layers[0].rows[0].name, Message)
    nodes = dict(report.device_nodes)
    assert isinstance(nodes["/dev/kfd"], Message) and "<user-1>" in nodes["/dev/kfd"]


def test_every_format_but_the_json_is_written_in_the_language_chosen(chinese: None) -> None:
    report = _report()
    markdown, html = report_markdown(report), report_html(report)
    with language(ENGLISH):
        english_markdown, english_html = report_markdown(report), report_html(report)
    assert markdown.startswith("# GPU 报告：AMD Radeon RX 6700 XT（回放）")
    assert "## 机器" in markdown and "## 诊断结果" in markdown
    error = next(f for f in report.findings if f.severity == "error")
    body = markdown.split("```json", 1)[0]  # the raw JSON after it is English
    assert localise(error.title) in body and error.title not in body
    assert "&lt;user-1&gt;" in body and "bob" not in markdown  # redacted, escaped
    assert '<html lang="zh-CN">' in html and "<h2>机器</h2>" in html
    assert english_markdown.startswith("# GPU report: AMD Radeon RX 6700 XT (replay)")
    assert '<html lang="en">' in english_html
    # The raw JSON at the end is the English document in both.
    raw = json.dumps(report.document, indent=1, ensure_ascii=False)
    assert not has_chinese(raw)
    assert markdown.split("```json", 1)[1] == english_markdown.split("```json", 1)[1]
    for text in (english_markdown, english_html):
        assert not has_chinese(text)
    # The commands stay as they are.
    assert "sudo usermod -aG render,video $USER" in markdown


def test_the_json_is_the_same_english_in_every_language(chinese: None) -> None:
    chinese_json = report_json_text(_report())
    with language(ENGLISH):
        english_json = report_json_text(_report())
    assert chinese_json == english_json and not has_chinese(chinese_json)


def test_gpuscope_info_follows_the_language(chinese: None) -> None:
    inventory = collect_inventory(ReplaySystem.from_file(NO_ACCESS))
    text = format_inventory_text(inventory)
    with language(ENGLISH):
        english = format_inventory_text(inventory)
    assert "\n主机\n" in text and "    操作系统      Ubuntu" in text  # two columns a character
    assert "\nHost\n" in english and "    OS            Ubuntu" in english
    assert not has_chinese(english)
