"""The core's translations (gpuscope.i18n): English messages that views show in the language
chosen, from the same gettext catalogue the window reads, and the CLI in Chinese."""

from __future__ import annotations

import gettext
import json
import os
import pickle
import re
import subprocess
import sys
from collections.abc import Iterator

import pytest
from fixture_paths import SNAPSHOTS_DIR

from gpuscope import i18n
from gpuscope.i18n import (
    ENGLISH,
    SIMPLIFIED_CHINESE,
    Message,
    choose_language,
    join,
    localise,
    message,
    prose,
    sentences,
    set_language,
)

NO_ACCESS = SNAPSHOTS_DIR / "amd_kfd_no_access.json"


@pytest.fixture
def chinese() -> Iterator[None]:
    assert set_language(SIMPLIFIED_CHINESE)
    yield
    set_language(ENGLISH)


def has_chinese(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def test_a_message_is_its_english_text() -> None:
    text = message("sees {target}", target="gfx1100")
    assert text == "sees gfx1100" and isinstance(text, str) and isinstance(text, Message)
    assert json.dumps({"title": text}) == '{"title": "sees gfx1100"}'
    assert pickle.loads(pickle.dumps(text)) == text
    assert localise(text) == "sees gfx1100"  # English until a language is chosen


def test_localise_translates_the_template_and_keeps_the_values(chinese: None) -> None:
    assert localise(message("sees {target}", target="gfx1100")) == "能看到 gfx1100"
    assert localise(message("No GPU found.")) == "未找到 GPU。"
    assert localise("No GPU found.") == "未找到 GPU。"  # a marked constant, looked up whole
    # A value is put in as it is, even when it happens to be a catalogue entry...
    assert localise(message("sees {target}", target="No GPU found.")) == "能看到 No GPU found."
    # ...unless it is a message itself.
    nested = message("fix: {fix}", fix=message("No GPU found."))
    assert localise(nested) == "修复：未找到 GPU。"
    assert localise(message("a text nobody translated {x}", x=1)) == "a text nobody translated 1"
    assert localise("sudo usermod -aG render,video $USER") == (
        "sudo usermod -aG render,video $USER")


def test_join_keeps_each_part_translatable(chinese: None) -> None:
    joined = join(" ", [message("No GPU found."), "gfx1031 {x}", message("sees it")])
    assert joined == "No GPU found. gfx1031 {x} sees it"
    assert localise(joined) == "未找到 GPU。 gfx1031 {x} 能看到它"
    assert join(", ", ["a", "b"]) == "a, b" and not isinstance(join(", ", ["a"]), Message)


def test_a_broken_translation_falls_back_to_english(chinese: None,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken(gettext.NullTranslations):
        def gettext(self, text: str) -> str:
            return "坏了 {nope" if text == "sees {target}" else text

    monkeypatch.setattr(i18n._state, "catalogue", Broken())
    assert localise(message("sees {target}", target="gfx1100")) == "sees gfx1100"


def test_an_unknown_language_leaves_english() -> None:
    assert not set_language("de")
    assert i18n.current_language() == ENGLISH
    assert localise(message("No GPU found.")) == "No GPU found."


@pytest.mark.parametrize(("environ", "setting", "expected"), [
    ({"LANG": "zh_CN.UTF-8"}, None, SIMPLIFIED_CHINESE),
    ({"LANG": "zh_TW.UTF-8"}, None, ENGLISH),
    ({"LANG": "C", "LANGUAGE": "zh_CN"}, None, ENGLISH),
    ({"LANG": "en_US.UTF-8", "LANGUAGE": "zh_CN:en"}, None, SIMPLIFIED_CHINESE),
    ({"GPUSCOPE_LANG": "zh_CN", "LANG": "en_US.UTF-8"}, "en", SIMPLIFIED_CHINESE),
    ({"LANG": "en_US.UTF-8"}, "zh_CN", SIMPLIFIED_CHINESE),
    ({}, None, ENGLISH),
])
def test_choose_language(environ: dict[str, str], setting: str | None, expected: str) -> None:
    assert choose_language(environ, setting) == expected


# ----------------------------------------------------------------------------- the CLI


def run_cli(*args: str, lang: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("GPUSCOPE_LANG", "LANG", "LC_ALL", "LC_MESSAGES", "LANGUAGE")}
    if lang:
        env["GPUSCOPE_LANG"] = lang
    return subprocess.run([sys.executable, "-m", "gpuscope", *args], capture_output=True,
                          text=True, env=env, timeout=120, check=False)


def test_doctor_in_chinese_translates_every_title_and_fix_and_keeps_the_commands() -> None:
    english = run_cli("--replay", str(NO_ACCESS), "doctor", "--json")
    document = json.loads(english.stdout)
    findings = [f for f in document["findings"] if f["severity"] in ("error", "warning")]
    assert findings
    result = run_cli("--replay", str(NO_ACCESS), "doctor", lang="zh_CN")
    assert result.stdout and not result.stderr, result.stderr
    text = result.stdout
    for finding in findings:
        line = next(line for line in text.splitlines() if f"[{finding['id']}]" in line)
        assert has_chinese(line), line
        assert finding["title"] not in text, finding["title"]
        if finding.get("fix"):
            assert finding["fix"] not in text, finding["fix"]
        for command in finding.get("fix_commands", []):
            assert command in text  # unchanged
            checked = subprocess.run(["bash", "-n", "-c", command], capture_output=True,
                                     text=True, check=False)
            assert checked.returncode == 0, (command, checked.stderr)
    fix_lines = [line for line in text.splitlines() if line.strip().startswith("修复")]
    assert fix_lines and all(has_chinese(line.split("：", 1)[1]) for line in fix_lines)


def test_json_stays_english_in_every_language() -> None:
    english = run_cli("--replay", str(NO_ACCESS), "doctor", "--json")
    chinese = run_cli("--replay", str(NO_ACCESS), "--lang", "zh_CN", "doctor", "--json")
    assert chinese.stdout == english.stdout
    assert not has_chinese(chinese.stdout)


def test_the_lang_option_wins_and_is_checked() -> None:
    english = run_cli("--lang", "en", "--replay", str(NO_ACCESS), "doctor", lang="zh_CN")
    assert not has_chinese(english.stdout)
    chinese = run_cli("--lang", "zh_CN", "--replay", str(NO_ACCESS), "doctor")
    assert has_chinese(chinese.stdout)
    wrong = run_cli("--lang", "klingon", "doctor")
    assert wrong.returncode == 2 and re.search(r"--lang klingon: not one of", wrong.stderr)


def test_chinese_sentences_are_joined_without_a_space(chinese: None) -> None:
    joined = join(" ", [message("No GPU found."), message("sees it"), "gfx1031"])
    assert localise(joined) == "未找到 GPU。能看到它 gfx1031"
    assert pickle.loads(pickle.dumps(joined)) == joined
    assert localise(pickle.loads(pickle.dumps(joined))) == localise(joined)


def test_prose_is_translated_sentence_by_sentence(chinese: None,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    class Catalogue(gettext.NullTranslations):
        def gettext(self, text: str) -> str:
            return {"It only works.": "只在此时有效。"}.get(text, text)

    monkeypatch.setattr(i18n._state, "catalogue", Catalogue())
    text = prose("It only works. Nobody translated this one.")
    assert text == "It only works. Nobody translated this one."
    assert localise(text) == "只在此时有效。 Nobody translated this one."
    assert sentences("Set it, e.g. to v1.2. Then (again) run it.") == [
        "Set it, e.g. to v1.2.", "Then (again) run it."]


def test_a_language_can_be_chosen_for_a_block_and_the_one_before_comes_back(
        chinese: None) -> None:
    title = message("No GPU found.")
    with i18n.language("en") as chosen:
        assert chosen == "en" and i18n.current_language() == "en"
        assert localise(title) == "No GPU found."
    assert i18n.current_language() == "zh_CN" and localise(title) == "未找到 GPU。"
    with pytest.raises(RuntimeError), i18n.language("en"):
        raise RuntimeError("the block fails")
    assert localise(title) == "未找到 GPU。"  # restored after an error too
    with i18n.language("klingon") as chosen:  # no catalogue: English
        assert chosen == "en" and localise(title) == "No GPU found."
    with i18n.language("zh_CN") as chosen:
        assert chosen == "zh_CN" and localise(title) == "未找到 GPU。"
