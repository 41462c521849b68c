"""The Simplified Chinese translation: the language chosen from the locale, the compiled
catalogue loaded and in step with its .po and with the sources, the bundled CJK font covering every
translated character, and pages built under zh_CN in Chinese with no missing glyph."""

from __future__ import annotations

import ast
import gettext
import io
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po
from fixture_paths import SNAPSHOTS_DIR
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QFont, QFontDatabase, QFontInfo, QGuiApplication, QRawFont, QTextLayout
from PySide6.QtWidgets import (
    QDialogButtonBox,
    QLabel,
    QMenu,
    QPushButton,
    QTableWidget,
    QWidget,
)

from gpuscope.app.report_inputs import telemetry_from_feed
from gpuscope.app.settings import Settings, SettingsStore, settings_from_json, settings_to_json
from gpuscope.bench.assess import LEVEL_WORDS
from gpuscope.bench.catalog import BENCHMARKS
from gpuscope.bench.results import ResultStatus
from gpuscope.evidence import ReplaySystem
from gpuscope.i18n import language as core_language
from gpuscope.inventory import PROBES
from gpuscope.metrics import CATALOGUE, throttle_reason_names
from gpuscope.model import GpuKind, ProbeState, Severity
from gpuscope.report.telemetry_summary import shown as shown_in_report
from gpuscope.telemetry.feed_adapters import recording_label
from gpuscope.ui import i18n
from gpuscope.ui.i18n import (
    CORE_TEXTS,
    ENGLISH,
    FONT_RESOURCES,
    SIMPLIFIED_CHINESE,
    choose_language,
    core_text,
    install_language,
    normalise_language,
    read_resource,
    translate,
)
from gpuscope.ui.telemetry.texts import FEED_TEXTS
from gpuscope.ui.telemetry.texts import shown as shown_text

REPO = Path(__file__).resolve().parents[2]
PO_PATH = REPO / "resources" / "i18n" / "zh_CN.po"
MO_PATH = REPO / "resources" / "i18n" / "zh_CN.mo"
UPDATE_SCRIPT = REPO / "tools" / "update_translations.py"
CJK_FAMILY = "gpuscope CJK SC"


def missing_glyphs(text: str, font: QFont) -> str:
    """The characters of `text` that no font Qt falls back to has: drawn as boxes."""
    layout = QTextLayout(text, font)
    layout.beginLayout()
    while layout.createLine().isValid():
        pass
    layout.endLayout()
    missing = []
    for run in layout.glyphRuns():
        raw = run.rawFont()
        for index in run.glyphIndexes():
            if index == 0:
                missing.append(raw.familyName())
    if not missing:
        return ""
    # Name the characters, not just that some are missing.
    return "".join(ch for ch in text if not ch.isspace() and not _drawn(ch, font))


def _drawn(ch: str, font: QFont) -> bool:
    layout = QTextLayout(ch, font)
    layout.beginLayout()
    layout.createLine()
    layout.endLayout()
    return all(0 not in run.glyphIndexes() for run in layout.glyphRuns())


def texts_of(widget: QWidget) -> list[tuple[str, QFont]]:
    found = [(label.text(), label.font()) for label in widget.findChildren(QLabel)]
    found += [(button.text(), button.font()) for button in widget.findChildren(QPushButton)]
    return [(text, font) for text, font in found if text]


def has_chinese(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def translations() -> list[tuple[str, str, str]]:
    """(context, source, translation) of every message of the catalogue ("" the core's)."""
    with PO_PATH.open("rb") as handle:
        catalog = read_po(handle)
    return [(m.context or "", str(m.id), str(m.string or "")) for m in catalog if m.id]


# ----------------------------------------------------------------------------- choosing


@pytest.mark.parametrize(("environ", "expected"), [
    ({"LANG": "zh_CN.UTF-8"}, SIMPLIFIED_CHINESE),
    ({"LANG": "zh_CN"}, SIMPLIFIED_CHINESE),
    ({"LANG": "zh_SG.UTF-8"}, SIMPLIFIED_CHINESE),
    ({"LANG": "en_US.UTF-8"}, ENGLISH),
    ({"LANG": "C"}, ENGLISH),
    ({"LANG": "C.UTF-8"}, ENGLISH),
    ({"LANG": "POSIX"}, ENGLISH),
    ({"LANG": "de_DE.UTF-8"}, ENGLISH),  # no German translation: the English source
    ({"LANG": "zh_TW.UTF-8"}, ENGLISH),  # Traditional characters: not this translation
    ({"LANG": "en_US.UTF-8", "LC_ALL": "zh_CN.UTF-8"}, SIMPLIFIED_CHINESE),
    ({"LANG": "zh_CN.UTF-8", "LC_MESSAGES": "en_GB.UTF-8"}, ENGLISH),
    ({"LANG": "en_US.UTF-8", "LANGUAGE": "zh_CN:en"}, SIMPLIFIED_CHINESE),
    ({"LANG": "C", "LANGUAGE": "zh_CN"}, ENGLISH),  # gettext ignores LANGUAGE under C
    ({"LANG": "en_US.UTF-8", "GPUSCOPE_LANG": "zh_CN"}, SIMPLIFIED_CHINESE),
    ({"LANG": "zh_CN.UTF-8", "GPUSCOPE_LANG": "en"}, ENGLISH),
    ({"LANG": "zh_CN.UTF-8", "GPUSCOPE_LANG": "klingon"}, SIMPLIFIED_CHINESE),
])
def test_language_from_the_environment(environ: dict[str, str], expected: str) -> None:
    assert choose_language(environ, system_languages=()) == expected


def test_language_setting_overrides_the_locale_but_not_gpuscope_lang() -> None:
    assert choose_language({"LANG": "en_US.UTF-8"}, "zh_CN") == SIMPLIFIED_CHINESE
    assert choose_language({"LANG": "zh_CN.UTF-8"}, "en") == ENGLISH
    assert choose_language({"LANG": "zh_CN.UTF-8"}, "auto") == SIMPLIFIED_CHINESE
    assert choose_language({"LANG": "zh_CN.UTF-8", "GPUSCOPE_LANG": "en"}, "zh_CN") == ENGLISH


def test_without_locale_variables_the_system_ui_languages_decide() -> None:
    # Windows and macOS: no LANG; QLocale.system().uiLanguages() says it.
    assert choose_language({}, system_languages=["zh-Hans-CN", "en-US"]) == SIMPLIFIED_CHINESE
    assert choose_language({}, system_languages=["de-DE", "zh-CN"]) == SIMPLIFIED_CHINESE
    assert choose_language({}, system_languages=["en-US", "zh-CN"]) == ENGLISH
    assert choose_language({}, system_languages=["fr-FR"]) == ENGLISH
    assert choose_language({}, system_languages=[]) == ENGLISH


def test_normalise_language() -> None:
    assert normalise_language("zh-Hans") == SIMPLIFIED_CHINESE
    assert normalise_language("zh_CN.GB18030@stroke") == SIMPLIFIED_CHINESE
    assert normalise_language("zh-Hant-TW") is None
    assert normalise_language("zh_HK") is None
    assert normalise_language("EN") == ENGLISH
    assert normalise_language("") is None


def test_the_language_setting_is_kept_and_checked() -> None:
    settings, problems = settings_from_json(settings_to_json(Settings(language="zh_CN")))
    assert settings.language == "zh_CN" and problems == []
    assert Settings().language == "auto"
    settings, problems = settings_from_json({"schema_version": 1, "language": "fr"})
    assert settings.language == "auto"
    assert any("language 'fr'" in problem for problem in problems)


# ----------------------------------------------------------------------------- loading


def test_the_catalogue_loads_and_translates(chinese: None) -> None:
    assert i18n.installed_language() == SIMPLIFIED_CHINESE
    assert translate("OverviewPage", "Probes") == "探测"
    assert core_text("GPU utilization") == "GPU 利用率"
    assert core_text("a text of the core that has no translation") == (
        "a text of the core that has no translation")
    # Qt's own translation: standard buttons.
    box = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    assert box.button(QDialogButtonBox.StandardButton.Close).text() == "关闭"


def test_english_removes_the_translation(chinese: None) -> None:
    assert install_language(ENGLISH)
    assert translate("OverviewPage", "Probes") == "Probes"
    assert QCoreApplication.translate("QPlatformTheme", "Close") == "Close"
    assert install_language(SIMPLIFIED_CHINESE)
    assert install_language(SIMPLIFIED_CHINESE)  # again: replaces, never stacks
    assert translate("OverviewPage", "Probes") == "探测"


def test_the_cjk_font_follows_the_ui_font(chinese: None) -> None:
    font = QGuiApplication.font()
    assert font.families()[-1] == CJK_FAMILY
    # Latin text keeps the UI font; only what it lacks comes from the CJK font.
    assert QFontInfo(font).family() != CJK_FAMILY
    assert missing_glyphs("探测 GPU 利用率", font) == ""
    fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    assert missing_glyphs("sudo usermod -aG render 用户", fixed) == ""


# ----------------------------------------------------------------------------- files


def test_every_translated_character_is_in_the_bundled_fonts() -> None:
    fonts = []
    for name in FONT_RESOURCES:
        data = read_resource(name)
        assert data is not None, name
        raw = QRawFont(data, 12.0)
        assert raw.isValid() and raw.familyName() == CJK_FAMILY
        fonts.append((name, raw))
    added = set()
    for _context, source, translation in translations():
        added |= set(translation) - set(source)  # a "✓" of the source is the UI font's
    added = {ch for ch in added if not ch.isspace()}
    assert len(added) > 300
    for name, raw in fonts:
        absent = "".join(sorted(ch for ch in added if not raw.supportsCharacter(ord(ch))))
        assert absent == "", f"{name} lacks {absent}: run tools/subset_cjk_font.py"
        # And the common characters of names from the machine (GB 2312 level 1).
        common = [bytes([0xB0, 0xA1]).decode("gb2312"), bytes([0xD7, 0xF9]).decode("gb2312")]
        assert all(raw.supportsCharacter(ord(ch)) for ch in common)


def test_the_fonts_ship_with_their_licence_and_stay_small() -> None:
    fonts_dir = REPO / "resources" / "fonts"
    assert "SIL Open Font License" in (fonts_dir / "OFL.txt").read_text(encoding="utf-8")
    total = sum(path.stat().st_size for path in fonts_dir.glob("*.otf"))
    assert 0 < total < 3_000_000


def test_translations_keep_their_placeholders() -> None:
    placeholder = re.compile(r"\{[A-Za-z0-9_]*(?:[!:][^{}]*)?\}")
    for context, source, translation in translations():
        if translation:
            assert sorted(placeholder.findall(translation)) == sorted(
                placeholder.findall(source)), (context, source, translation)
    for context, source, translation in translations():
        # The telemetry legends cut the short name off at the ASCII colon.
        if source == "GPU {index}: {name}":
            assert translation.startswith("GPU {index}: "), (context, translation)


def test_the_mo_is_compiled_from_the_po() -> None:
    """What gettext reads from the shipped .mo is what the .po says, entry for entry."""
    shipped = gettext.GNUTranslations(io.BytesIO(MO_PATH.read_bytes()))
    entries = translations()
    assert len(entries) > 800
    for context, source, translation in entries:
        found = shipped.pgettext(context, source) if context else shipped.gettext(source)
        assert found == (translation or source), (context, source)  # untranslated: the source


def test_every_ui_string_is_extracted_translated_and_compiled() -> None:
    """The extraction over gpuscope/ finds nothing the .po lacks, nothing is untranslated,
    and no marker is given a text built at run time."""
    result = subprocess.run([sys.executable, str(UPDATE_SCRIPT), "--check"],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_core_texts_the_ui_translates_are_the_cores() -> None:
    """Every metric label, probe title, layer name, throttle reason and state word the UI
    shows through core_text() is listed for the extraction (and nothing stale is)."""
    shown = {info.label for info in CATALOGUE.values()}
    shown |= {info.unit for info in CATALOGUE.values() if info.unit.isalpha()
              and info.unit.islower()}
    shown |= {spec.title for spec in PROBES}
    shown |= {word for bit in range(16) for word in throttle_reason_names(float(1 << bit))}
    shown |= {state.value.replace("_", " ") for state in ProbeState}
    shown |= {kind.value for kind in GpuKind} | {severity.value for severity in Severity}
    shown |= {"compute", "graphics"}
    shown |= {benchmark.title for benchmark in BENCHMARKS}
    shown |= set(LEVEL_WORDS.values()) | {"no datasheet"} | {status.value for status in
                                                             ResultStatus}
    history = ast.parse((REPO / "gpuscope" / "bench" / "history.py").read_text("utf-8"))
    changes = {node.value for node in ast.walk(history) if isinstance(node, ast.Assign)
               and any(isinstance(t, ast.Name) and t.id == "change" for t in node.targets)
               for node in ast.walk(node.value)
               if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    assert {"better", "worse", "within spread"} <= changes
    shown |= changes
    # (Layer names and texts are messages of gpuscope.doctor.layers itself.)
    assert set(shown) - set(CORE_TEXTS) == set()
    missing_from_core = set(CORE_TEXTS) - shown
    assert missing_from_core == set()


def test_the_telemetry_feeds_texts_are_listed_for_the_extraction() -> None:
    """The Qt-free feeds name things with feed_text("..."): every such template is listed
    in ui/telemetry/texts.py FEED_TEXTS (the extraction reads gpuscope/ui/ only), and nothing
    stale is."""
    made = set()
    for path in sorted((REPO / "gpuscope" / "telemetry").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "feed_text"):
                text = node.args[0] if node.args else None
                assert isinstance(text, ast.Constant) and isinstance(text.value, str), (
                    f"{path.name}:{node.lineno}: feed_text() wants a literal template")
                made.add(text.value)
    assert len(made) >= 10
    assert made == set(FEED_TEXTS)
    listed = {source for context, source, _ in translations() if context == "TelemetryFeed"}
    assert made <= listed


# ----------------------------------------------------------------------------- pages


def menu_texts(menu: QMenu) -> list[tuple[str, QFont]]:
    """The title of `menu` and the text of every action in it and its submenus."""
    found = [(menu.title(), menu.font())]
    for action in menu.actions():
        if action.isSeparator():
            continue
        if action.menu() is not None:
            found += menu_texts(action.menu())
        else:
            found.append((action.text(), menu.font()))
    return found


def table_texts(table: QTableWidget) -> list[tuple[str, QFont]]:
    """Every heading and cell text of `table`."""
    found = []
    for column in range(table.columnCount()):
        item = table.horizontalHeaderItem(column)
        if item is not None:
            found.append((item.text(), item.font()))
    for row in range(table.rowCount()):
        item = table.verticalHeaderItem(row)
        if item is not None:
            found.append((item.text(), item.font()))
        for column in range(table.columnCount()):
            item = table.item(row, column)
            if item is not None:
                found.append((item.text(), item.font()))
    return [(text, font) for text, font in found if text]


def assert_drawn(where: str, texts: list[tuple[str, QFont]]) -> None:
    for text, font in texts:
        assert missing_glyphs(text, font) == "", (where, text)


def test_pages_built_under_zh_cn_are_in_chinese_without_missing_glyphs(
        chinese: None, qtbot: Any, make_window: Any) -> None:
    window = make_window(ReplaySystem.from_file(SNAPSHOTS_DIR / "rx7900xtx_rocm.json"))
    qtbot.waitUntil(lambda: not window.loader.is_running, timeout=20000)
    overview, stack = window.overview_page, window.stack_page
    headings = [label.text() for label in overview.findChildren(QLabel)]
    assert "主机" in headings and "探测" in headings
    assert overview.summary_label.text() == "找到 1 块 GPU"
    assert any(text == "软件栈" for text, _font in texts_of(stack))
    assert window.frameworks_page.results_heading.text() == "结果"
    assert window.telemetry_page.findChildren(QPushButton)
    compare, report, bench = window.compare_page, window.report_page, window.bench_page
    qtbot.waitUntil(lambda: compare.catalogue_ready, timeout=20000)
    assert compare.add_card("RTX 4090") is None
    window.select_page("Report")
    qtbot.waitUntil(lambda: report.report is not None and not report.is_busy, timeout=30000)
    for page in (overview, stack, window.frameworks_page, window.telemetry_page, bench,
                 compare, report):
        texts = texts_of(page)
        assert any(has_chinese(text) for text, _font in texts), page
        assert_drawn(type(page).__name__, texts)

    # The window's own chrome: the sidebar (the pages keep their English names in code),
    # the menus, the status bar and the banner.
    shown = [window.sidebar.item(row).text() for row in range(window.sidebar.count())]
    assert shown == ["总览", "软件栈", "框架", "遥测", "基准测试", "比较", "报告"]
    assert window.page_names()[4:] == ("Benchmarks", "Compare", "Report")
    assert window.current_page_name() == "Report"
    menus = [text for menu in window.menus() for text in menu_texts(menu)]
    assert [menu.title() for menu in window.menus()] == ["文件(&F)", "视图(&V)", "帮助(&H)"]
    assert sum(has_chinese(text) for text, _font in menus) >= len(menus) - 1  # "English"
    assert_drawn("menus", menus)
    assert {action.text() for action in window.language_actions.values()} == {
        "自动（跟随系统）", "English", "简体中文"}
    assert "回放" in window.banner.text()
    assert window.progress_label.text() == f"已完成 {len(PROBES)} / {len(PROBES)} 项探测"
    assert_drawn("window", [(window.banner.text(), window.banner.font()),
                            (window.progress_label.text(), window.progress_label.font())])

    # Benchmarks: the run buttons and the results table's headings.
    assert bench.run_buttons["quick"].text() == "快速"
    assert_drawn("BenchPage", table_texts(bench.table))
    assert has_chinese(bench.table.horizontalHeaderItem(0).text())

    # Compare: section and row names, cell words, the what-fits panel and the chart.
    compare_texts = table_texts(compare.table)
    assert {"规格", "生态", "显存带宽", "Linux 上的 ROCm"} <= {t for t, _f in compare_texts}
    assert compare.cell_text("rocm_linux", 0).startswith("✓ 支持")
    assert compare.what_fits.table.item(0, 0).text() == "模型"
    assert_drawn("ComparePage", compare_texts + table_texts(compare.what_fits.table)
                 + [(compare.chart.metric_box.itemText(i), compare.chart.metric_box.font())
                    for i in range(compare.chart.metric_box.count())])

    # Report: the page and the report it writes are Chinese (the window's language; its
    # "Report language" choice gives English); the JSON the report keeps stays English.
    assert report.summary.text().startswith("回放的快照 — 不是实时读数：")
    assert "诊断未发现任何问题。" in report.summary.text()
    assert report.report_language == SIMPLIFIED_CHINESE
    languages = [report.language_box.itemText(i) for i in range(report.language_box.count())]
    assert languages == ["简体中文", "English"]
    assert report.report is not None and report.report.title.startswith("GPU report")
    assert core_text(report.report.title).startswith("GPU 报告：")
    assert_drawn("ReportPage", table_texts(report.preview_table)
                 + [(text, report.language_box.font()) for text in languages])


def test_view_language_keeps_the_choice_for_the_next_start(
        qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    store = SettingsStore(tmp_path / "settings.json")
    window = make_window(ReplaySystem.from_file(SNAPSHOTS_DIR / "rx7900xtx_rocm.json"),
                         probes=(), settings=store)
    assert window.language_actions["auto"].isChecked()
    assert [action.text() for action in window.language_menu.actions()] == [
        "Automatic (from the system)", "English", "简体中文"]
    window.language_actions["zh_CN"].trigger()
    assert window.language_actions["zh_CN"].isChecked()
    assert SettingsStore(store.path).load().language == "zh_CN"
    assert window.statusBar().currentMessage() == (
        "Language: 简体中文. It applies when gpuscope starts again.")
    # The window is still English: the language is chosen when gpuscope starts.
    assert window.sidebar.item(0).text() == "Overview"
    assert choose_language({"LANG": "en_US.UTF-8"}, store.current.language) == (
        SIMPLIFIED_CHINESE)
    window.set_language("auto")
    assert SettingsStore(store.path).load().language == "auto"
    with pytest.raises(ValueError):
        window.set_language("fr")


def test_the_test_session_is_english_whatever_the_locale() -> None:
    """tests/ui/conftest.py pins GPUSCOPE_LANG=en: a machine with LANG=zh_CN.UTF-8 still
    runs the English tests in English."""
    import os

    assert os.environ.get("GPUSCOPE_LANG") == "en"
    assert choose_language({**os.environ, "LANG": "zh_CN.UTF-8"}) == ENGLISH


def test_the_reports_telemetry_strip_is_in_the_reports_language_under_zh_cn(
        chinese: None, qtbot: Any, make_window: Any) -> None:
    """The Telemetry page names its source in Chinese; the share report made from the same
    feed keeps the English (its JSON) and shows it in the report's language: Chinese, or
    English when the report is written in English."""
    window = make_window(ReplaySystem.from_file(SNAPSHOTS_DIR / "rx7900xtx_rocm.json"),
                         live_telemetry_hz=20.0)
    qtbot.waitUntil(lambda: window.telemetry_page.feed is not None, timeout=20000)
    feed = window.telemetry_page.feed
    assert feed is not None and has_chinese(shown_text(feed.label))
    qtbot.waitUntil(lambda: telemetry_from_feed(feed, replayed=True) is not None,
                    timeout=10000)
    strip = telemetry_from_feed(feed, replayed=True)
    assert strip is not None
    assert strip.source.startswith("Replay of ") and not has_chinese(strip.source)
    assert not any(has_chinese(device.label) for device in strip.devices)
    assert shown_in_report(strip.source) == shown_text(feed.label)
    assert any(has_chinese(shown_in_report(stat.label))
               for device in strip.devices for stat in device.metrics)
    with core_language(ENGLISH):
        assert shown_in_report(strip.source) == strip.source
        assert not any(has_chinese(shown_in_report(stat.label))
                       for device in strip.devices for stat in device.metrics)
    span = (1_700_000_000.0, 1_700_000_300.0)
    assert has_chinese(shown_text(recording_label("r.sqlite", span, complete=False)))
    english = recording_label("r.sqlite", span, complete=False).english()
    assert english.startswith("Recording r.sqlite, ") and not has_chinese(english)
    assert english.endswith("(the recorder stopped without closing it)")


# ----------------------------------------------------------------------------- English left


# A word of running English: lower case after its first letter ("ROCm", "RX", "gfx1031",
# "6700" and "HSA_OVERRIDE_GFX_VERSION" are not).
_WORD = re.compile(r"[A-Za-z][a-z]{1,}")
# What stays English by design: commands, paths, URLs, versions, ids and the like.
_NOT_PROSE = re.compile(
    r"https?://\S+|`[^`]*`|\$\w+|\S*[/\\]\S*|\S+\.(?:json|toml|csv|png|md|html|py|so)\b"
    r"|\b(?:sudo|pip|python3?|export|apt|dnf|pacman|zypper|gpuscope|rocminfo|nvidia-smi"
    r"|amd-smi|usermod|newgrp|modprobe|dmesg|journalctl|lspci|dkms|uname)\b[^。；，]*")
# Names that are English words in every language: products, projects, units, file kinds.
_NAME_WORDS = """
    Radeon Instinct GeForce Quadro Tesla Ryzen Threadripper Ubuntu Debian Fedora Arch Linux
    Windows Noto Sans Hugging Face Ollama Python PyTorch Torch Vulkan Llama Mistral Qwen
    Gemma Phi Grafana Prometheus Docker Podman Flatpak Snap Mesa Wayland Nvidia Intel Arc
    Xe Iris Pro Max Mini Super Ti Founders Edition Dual Slot Hellhound Spectral White Red
    Devil Nitro Pulse Sapphire Gigabyte Asus Strix Tuf Gaming Eagle Windforce Aorus Zotac
    Trinity Amp Airo Palit Gainward Phantom Ventus Suprim Liquid Tensor Matrix Core Cores
    Compute Units
"""
_NAMES = frozenset(_NAME_WORDS.split())


def english_runs(text: str, length: int = 3) -> list[str]:
    """Runs of `length` or more words of running English in `text`, outside commands,
    paths, URLs and names."""
    prose = _NOT_PROSE.sub(" | ", text)
    runs, current = [], []
    for token in re.split(r"(\s+)", prose):
        if token.isspace() or not token:
            continue
        word = token.strip(",.;:()[]\"'!?“”")
        if _WORD.fullmatch(word) and word not in _NAMES and word.lower() != word.upper():
            current.append(word)
            if not token.endswith((",", ".", ";", ":", ")", "!", "?")):
                continue
        if len(current) >= length:
            runs.append(" ".join(current))
        current = []
    if len(current) >= length:
        runs.append(" ".join(current))
    return runs


def test_english_runs_finds_prose_and_leaves_commands() -> None:
    assert english_runs("这个用户 cannot open the GPU device nodes") == [
        "cannot open the"]
    assert english_runs("运行：sudo usermod -aG render,video $USER") == []
    assert english_runs("AMD Radeon RX 6700 XT (gfx1031) · ROCm 6.0.2") == []
    assert english_runs("见 https://rocm.docs.amd.com/en/latest/reference/gpu-specs.html") == []


@pytest.mark.parametrize("snapshot", ["amd_kfd_no_access.json", "rx7900xtx_rocm.json"])
def test_no_page_under_zh_cn_shows_running_english(
        chinese: None, qtbot: Any, make_window: Any, snapshot: str) -> None:
    """Every page of the window in zh_CN, with a replay: no run of three or more English
    words outside commands, names and units, in any label, button or table cell."""
    window = make_window(ReplaySystem.from_file(SNAPSHOTS_DIR / snapshot))
    qtbot.waitUntil(lambda: not window.loader.is_running, timeout=20000)
    qtbot.waitUntil(lambda: window.compare_page.catalogue_ready, timeout=20000)
    found: dict[str, list[str]] = {}
    for name in window.page_names():
        window.select_page(name)
        qtbot.wait(50)
        widget = window.pages.currentWidget()
        texts = [text for text, _font in texts_of(widget)]
        for table in widget.findChildren(QTableWidget):
            texts += [text for text, _font in table_texts(table)]
        runs = [run for text in texts for run in english_runs(text)]
        if runs:
            found[name] = sorted(set(runs))
    assert not found, found
