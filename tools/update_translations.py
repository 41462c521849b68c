#!/usr/bin/env python3
"""Extract the UI's strings into the Qt translation source, and compile it.

    python tools/update_translations.py                 # update the .ts, compile the .qm
    python tools/update_translations.py --check         # is everything extracted, translated
                                                        # and compiled? (exit 1 if not)
    python tools/update_translations.py --unfinished-json todo.json
                                                        # what still needs a translation
    python tools/update_translations.py --fill done.json
                                                        # merge translations, then update

Strings are found by Qt's own extractor (pyside6-lupdate) in every gpuscope/ui/**/*.py and
the Qt-free modules named in CORE_SOURCES:
`self.tr("...")` (the class is the context), `translate("Context", "...")` and
`QCoreApplication.translate("Context", "...")`, `QT_TRANSLATE_NOOP("Context", "...")`. A new
UI module is picked up by its path; nothing to register. lupdate keeps the translations of
strings that did not change, drops the strings that are gone (-no-obsolete), and writes no
line numbers (-locations none), so the .ts changes only when a string does.

resources/i18n/gpuscope_zh_CN.ts is the source of truth (Qt Linguist can edit it);
gpuscope_zh_CN.qm is compiled from it by lrelease (unfinished entries left out) and is what
ships. The JSON files of --unfinished-json and --fill are lists of
{"context", "source", "comment"?, "translation"}.

Besides, the sources are checked for tr() calls that cannot be translated: an f-string, a
concatenation or a call as the text (translate the template, then .format() it).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCE_DIR = REPO / "gpuscope" / "ui"
I18N_DIR = REPO / "resources" / "i18n"
LANGUAGES = ("zh_CN",)
PLACEHOLDER = re.compile(r"\{[A-Za-z0-9_]*(?:[!:][^{}]*)?\}")


def ts_path(language: str) -> Path:
    return I18N_DIR / f"gpuscope_{language}.ts"


def qm_path(language: str) -> Path:
    return I18N_DIR / f"gpuscope_{language}.qm"


# Qt-free modules whose texts the window shows through a translator it passes in (the
# Compare table's rows): lupdate finds their `translate("Context", "...")` calls too.
CORE_SOURCES = ("gpuscope/report/compare_table.py", "gpuscope/report/compare_rows.py")


def sources() -> list[Path]:
    return sorted([*SOURCE_DIR.rglob("*.py"), *(REPO / path for path in CORE_SOURCES)])


def find_tool(name: str) -> str:
    """pyside6-NAME beside this interpreter, on PATH, or the bare binary in PySide6."""
    beside = Path(sys.executable).parent / f"pyside6-{name}"
    if beside.exists():
        return str(beside)
    found = shutil.which(f"pyside6-{name}")
    if found:
        return found
    try:
        import PySide6
    except ImportError:
        sys.exit(f"cannot find pyside6-{name}: install PySide6 (or PySide6-Essentials)")
    bare = Path(PySide6.__file__).parent / name
    if bare.exists():
        return str(bare)
    sys.exit(f"cannot find pyside6-{name} or {bare}")


def run(command: Sequence[str], quiet: bool = False) -> None:
    result = subprocess.run(list(command), capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command[:1])} failed ({result.returncode}):\n"
                 f"{result.stdout}{result.stderr}")
    if not quiet:
        sys.stdout.write(result.stdout)
        sys.stderr.write(result.stderr)


def lupdate(ts: Path, language: str, quiet: bool = False) -> None:
    run([find_tool("lupdate"), *map(str, sources()), "-ts", str(ts), "-locations", "none",
         "-no-obsolete", "-source-language", "en", "-target-language", language], quiet)


def lrelease(ts: Path, qm: Path, quiet: bool = False) -> None:
    run([find_tool("lrelease"), "-nounfinished", "-removeidentical", str(ts), "-qm", str(qm)],
        quiet)


# ----------------------------------------------------------------------------- the .ts


@dataclass(frozen=True)
class Message:
    context: str
    source: str
    comment: str
    translation: str
    finished: bool

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.context, self.source, self.comment)


def read_ts(path: Path) -> list[Message]:
    messages: list[Message] = []
    root = ET.parse(path).getroot()
    for context in root.iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            translation = message.find("translation")
            text = translation.text or "" if translation is not None else ""
            kind = translation.get("type", "") if translation is not None else "unfinished"
            messages.append(Message(name, message.findtext("source") or "",
                                    message.findtext("comment") or "", text,
                                    finished=bool(text) and kind not in ("unfinished",
                                                                        "obsolete",
                                                                        "vanished")))
    return messages


def fill_ts(path: Path, translations: dict[tuple[str, str, str], str]) -> int:
    """Put `translations` ((context, source, comment) -> text) into the .ts; how many."""
    tree = ET.parse(path)
    filled = 0
    for context in tree.getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            key = (name, message.findtext("source") or "", message.findtext("comment") or "")
            text = translations.get(key)
            if not text:
                continue
            translation = message.find("translation")
            if translation is None:
                translation = ET.SubElement(message, "translation")
            translation.text = text
            translation.attrib.pop("type", None)
            filled += 1
    body = ET.tostring(tree.getroot(), encoding="unicode")
    path.write_text('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n' + body + "\n",
                    encoding="utf-8")
    return filled


def placeholder_problems(messages: Sequence[Message]) -> list[str]:
    problems = []
    for message in messages:
        if not message.translation:
            continue
        wanted = sorted(PLACEHOLDER.findall(message.source))
        found = sorted(PLACEHOLDER.findall(message.translation))
        if wanted != found:
            problems.append(f"{message.context}: {message.source!r}: the translation has "
                            f"{found or 'no placeholders'}, the source {wanted or 'none'}")
    return problems


# ----------------------------------------------------------------------------- sources

_TEXT_ARGUMENT = {"tr": 0, "translate": 1, "QT_TRANSLATE_NOOP": 1, "QT_TR_NOOP": 0}


def untranslatable_calls(paths: Sequence[Path]) -> list[str]:
    """tr()/translate() calls whose text is built at run time, so no translation can match
    it: an f-string, a concatenation, a call (a .format() inside the tr())."""
    problems = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = (func.attr if isinstance(func, ast.Attribute)
                    else func.id if isinstance(func, ast.Name) else None)
            if name not in _TEXT_ARGUMENT or len(node.args) <= _TEXT_ARGUMENT[name]:
                continue
            if name == "translate" and isinstance(func, ast.Attribute) and not (
                    isinstance(func.value, ast.Name)
                    and func.value.id in ("QCoreApplication", "QApplication",
                                          "QGuiApplication")):
                continue  # str.translate and friends
            text = node.args[_TEXT_ARGUMENT[name]]
            if isinstance(text, (ast.JoinedStr, ast.BinOp, ast.Call)):
                where = f"{path.relative_to(REPO)}:{node.lineno}"
                problems.append(f"{where}: {name}() of a text built at run time; translate "
                                "the template and .format() the result")
    return problems


# ----------------------------------------------------------------------------- commands


def check(language: str) -> list[str]:
    """What is out of date or untranslated; empty when all is well."""
    problems: list[str] = []
    ts, qm = ts_path(language), qm_path(language)
    if not ts.exists():
        return [f"{ts.relative_to(REPO)} is missing: run tools/update_translations.py"]
    committed = read_ts(ts)
    with tempfile.TemporaryDirectory() as scratch:
        fresh_ts = Path(scratch) / ts.name
        shutil.copy(ts, fresh_ts)
        lupdate(fresh_ts, language, quiet=True)
        fresh = read_ts(fresh_ts)
        fresh_qm = Path(scratch) / qm.name
        lrelease(ts, fresh_qm, quiet=True)
        if not qm.exists():
            problems.append(f"{qm.relative_to(REPO)} is missing: run "
                            "tools/update_translations.py")
        elif fresh_qm.read_bytes() != qm.read_bytes():
            problems.append(f"{qm.relative_to(REPO)} is not compiled from the .ts: run "
                            "tools/update_translations.py")
    known = {m.key for m in committed}
    current = {m.key for m in fresh}
    for context, source, _comment in sorted(current - known):
        problems.append(f"not extracted yet: {context}: {source!r}")
    for context, source, _comment in sorted(known - current):
        problems.append(f"no longer in the sources: {context}: {source!r}")
    for message in committed:
        if message.key in current and not message.finished:
            problems.append(f"not translated: {message.context}: {message.source!r}")
    problems += placeholder_problems(committed)
    problems += untranslatable_calls(sources())
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 listing what is out of date")
    parser.add_argument("--unfinished-json", metavar="FILE",
                        help="after updating, write the messages without a translation")
    parser.add_argument("--fill", metavar="FILE",
                        help="merge these translations into the .ts before updating")
    args = parser.parse_args(argv)

    if args.check:
        failed = False
        for language in LANGUAGES:
            problems = check(language)
            for problem in problems:
                print(f"{language}: {problem}")
            failed = failed or bool(problems)
            if not problems:
                count = len(read_ts(ts_path(language)))
                print(f"{language}: {count} messages, all extracted, translated and compiled")
        return 1 if failed else 0

    for language in LANGUAGES:
        ts, qm = ts_path(language), qm_path(language)
        ts.parent.mkdir(parents=True, exist_ok=True)
        if args.fill:
            entries = json.loads(Path(args.fill).read_text(encoding="utf-8"))
            wanted = {(e["context"], e["source"], e.get("comment", "")): e["translation"]
                      for e in entries if e.get("translation")}
            if ts.exists():
                print(f"{ts.relative_to(REPO)}: {fill_ts(ts, wanted)} translations merged")
        lupdate(ts, language)
        lrelease(ts, qm)
        messages = read_ts(ts)
        unfinished = [m for m in messages if not m.finished]
        print(f"{ts.relative_to(REPO)}: {len(messages)} messages, "
              f"{len(unfinished)} without a translation")
        for problem in placeholder_problems(messages) + untranslatable_calls(sources()):
            print(f"warning: {problem}")
        if args.unfinished_json:
            Path(args.unfinished_json).write_text(json.dumps(
                [{"context": m.context, "source": m.source, "comment": m.comment,
                  "translation": ""} for m in unfinished], ensure_ascii=False, indent=1)
                + "\n", encoding="utf-8")
            print(f"wrote {len(unfinished)} to {args.unfinished_json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
