#!/usr/bin/env python3
"""Extract every text gpuscope shows into its gettext catalogues, and compile them.

    python tools/update_translations.py                 # update the .po, compile the .mo
    python tools/update_translations.py --check         # is everything extracted, translated
                                                        # and compiled? (exit 1 if not)
    python tools/update_translations.py --unfinished-json todo.json
                                                        # what still needs a translation
    python tools/update_translations.py --fill done.json   # merge translations, then update
    python tools/update_translations.py --fill-tsv done.tsv   # the same from
                                                        # "context<TAB>source<TAB>translation"

One catalogue per language, `resources/i18n/<language>.po`, serves the window and the Qt-free
core alike; Babel compiles it into the `<language>.mo` that ships (gpuscope.i18n reads it with
the standard library's gettext; the window through a QTranslator over the same catalogue).

Where the texts come from:
- the window (gpuscope/ui/**/*.py and the Qt-free modules in QT_STYLE_SOURCES): Qt's own
  extractor (pyside6-lupdate) finds `self.tr("...")` (the class is the context),
  `translate("Context", "...")`, `QT_TRANSLATE_NOOP("Context", "...")`; the context becomes
  the entry's msgctxt ("core" means the core's, no msgctxt);
- the core (every gpuscope module, views included): `message("...", ...)`, `N_("...")`,
  `gettext("...")` and `pgettext("context", "...")` calls, found by parsing the sources.

Translations of texts that did not change are kept, texts that are gone are dropped, and the
.po carries no line numbers, so it changes only when a text does. The JSON files of
--unfinished-json and --fill are lists of {"context", "source", "translation"}; "" or no
context is the core's.

Besides, the sources are checked for calls whose text cannot be translated: an f-string, a
concatenation or a call as the text (mark the template, then format it).
"""

from __future__ import annotations

import argparse
import ast
import datetime
import gettext
import io
import json
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import tomllib
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

REPO = Path(__file__).resolve().parents[1]
PACKAGE_DIR = REPO / "gpuscope"
UI_DIR = PACKAGE_DIR / "ui"
I18N_DIR = REPO / "resources" / "i18n"
LANGUAGES = ("zh_CN",)
PLACEHOLDER = re.compile(r"\{[A-Za-z0-9_]*(?:[!:][^{}]*)?\}")
QT_CORE_CONTEXT = "core"
# Fixed, so that the .po changes only when a text does.
_CATALOGUE_DATE = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)

# Qt-free modules whose texts the window shows through a translator it passes in (the
# Compare table's rows): lupdate finds their `translate("Context", "...")` calls too.
QT_STYLE_SOURCES = ("gpuscope/report/compare_table.py", "gpuscope/report/compare_rows.py")


def po_path(language: str) -> Path:
    return I18N_DIR / f"{language}.po"


def mo_path(language: str) -> Path:
    return I18N_DIR / f"{language}.mo"


def qt_sources() -> list[Path]:
    return sorted([*UI_DIR.rglob("*.py"), *(REPO / path for path in QT_STYLE_SOURCES)])


def core_sources() -> list[Path]:
    """Every gpuscope module: a view may build a core message too (`message(...)`)."""
    qt_style = {REPO / path for path in QT_STYLE_SOURCES}
    return sorted(path for path in PACKAGE_DIR.rglob("*.py") if path not in qt_style)


@dataclass(frozen=True)
class Entry:
    context: str | None  # None: a text of the core
    source: str
    translation: str = ""

    @property
    def key(self) -> tuple[str | None, str]:
        return (self.context, self.source)


def _where(context: str | None) -> str:
    return context or "(core)"


# ----------------------------------------------------------------------------- extracting


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


def qt_entries() -> list[Entry]:
    """The window's texts, as Qt's extractor finds them."""
    with tempfile.TemporaryDirectory() as scratch:
        ts = Path(scratch) / "extracted.ts"
        command = [find_tool("lupdate"), *map(str, qt_sources()), "-ts", str(ts),
                   "-locations", "none", "-no-obsolete", "-source-language", "en"]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            sys.exit(f"lupdate failed ({result.returncode}):\n{result.stdout}{result.stderr}")
        entries = []
        for context in ET.parse(ts).getroot().iter("context"):
            name = context.findtext("name") or ""
            for item in context.iter("message"):
                entries.append(Entry(None if name == QT_CORE_CONTEXT else name,
                                     item.findtext("source") or ""))
        return entries


_CORE_MARKERS = {"message": 0, "N_": 0, "gettext": 0, "pgettext": 1}


def _call_name(node: ast.Call) -> str | None:
    func = node.func
    return (func.attr if isinstance(func, ast.Attribute)
            else func.id if isinstance(func, ast.Name) else None)


def core_entries(paths: Iterable[Path]) -> list[Entry]:
    """The core's texts: the literal text of every marker call."""
    entries = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = _call_name(node)
            if name not in _CORE_MARKERS or len(node.args) <= _CORE_MARKERS[name]:
                continue
            if name == "gettext" and isinstance(node.func, ast.Attribute) and not (
                    isinstance(node.func.value, ast.Name) and node.func.value.id == "i18n"):
                continue  # another object's gettext
            text = node.args[_CORE_MARKERS[name]]
            if not (isinstance(text, ast.Constant) and isinstance(text.value, str)):
                continue  # reported by untranslatable_calls
            context = None
            if name == "pgettext":
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    context = first.value
            entries.append(Entry(context, text.value))
    return entries


_QT_TEXT_ARGUMENT = {"tr": 0, "translate": 1, "QT_TRANSLATE_NOOP": 1, "QT_TR_NOOP": 0}


def untranslatable_calls(qt_paths: Sequence[Path], core_paths: Sequence[Path]) -> list[str]:
    """Marker calls whose text is built at run time, so no translation can match it: an
    f-string, a concatenation, a call (a .format() inside the tr())."""
    problems = []
    for paths, markers in ((qt_paths, _QT_TEXT_ARGUMENT), (core_paths, _CORE_MARKERS)):
        for path in paths:
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call):
                    continue
                name = _call_name(node)
                if name not in markers or len(node.args) <= markers[name]:
                    continue
                if isinstance(node.func, ast.Attribute) and not (
                        isinstance(node.func.value, ast.Name)
                        and node.func.value.id in ("QCoreApplication", "QApplication",
                                                   "QGuiApplication", "i18n", "self")):
                    continue  # str.translate, another object's gettext, ...
                text = node.args[markers[name]]
                if isinstance(text, (ast.JoinedStr, ast.BinOp, ast.Call)):
                    where = f"{path.relative_to(REPO)}:{node.lineno}"
                    problems.append(f"{where}: {name}() of a text built at run time; mark "
                                    "the template and format the result")
    return problems


# The prose of the knowledge files that users read (caveats and notes shown in findings and on
# the Compare page): file -> the keys whose text is shown through gpuscope.i18n.prose, which
# translates it sentence by sentence.
RESOURCE_PROSE: dict[str, tuple[str, ...]] = {
    "hsa_overrides.toml": ("caveat", "text"),
    "bench_expectations.toml": ("text", "title", "hint", "stack"),
    "cuda_drivers.toml": ("windows_note",),
    "rocm_distros.toml": ("scope",),
    "windows_support.toml": ("title", "caveat", "status"),
        "rocm_support.toml": ("note", "target_notes"),
}


def _prose_values(node: object, keys: tuple[str, ...]) -> Iterable[str]:
    """The strings of the listed keys: a string value of such a key, or the string values
    of a table under it (target notes keyed by gfx target)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in keys and isinstance(value, str):
                yield value
            elif key in keys and isinstance(value, dict) and all(
                    isinstance(item, str) for item in value.values()):
                yield from value.values()
            else:
                yield from _prose_values(value, keys)
    elif isinstance(node, list):
        for item in node:
            yield from _prose_values(item, keys)


def resource_entries() -> list[Entry]:
    """The sentences of the knowledge files' prose, as gpuscope.i18n.prose cuts them."""
    from gpuscope.i18n import sentences

    entries = []
    for name, keys in RESOURCE_PROSE.items():
        with (REPO / "resources" / name).open("rb") as handle:
            document = tomllib.load(handle)
        for text in _prose_values(document, keys):
            entries += [Entry(None, sentence) for sentence in sentences(text)]
    return entries


def extracted() -> list[Entry]:
    seen: dict[tuple[str | None, str], Entry] = {}
    for entry in [*qt_entries(), *core_entries(core_sources()), *resource_entries()]:
        if entry.source:
            seen.setdefault(entry.key, entry)
    return sorted(seen.values(), key=lambda e: (e.context or "", e.source))


# ----------------------------------------------------------------------------- the catalogue


def read_catalogue(path: Path) -> dict[tuple[str | None, str], str]:
    """(context, source) -> translation ("" when untranslated) of a .po file."""
    if not path.exists():
        return {}
    with path.open("rb") as handle:
        catalog = read_po(handle)
    return {(m.context, str(m.id)): str(m.string or "") for m in catalog if m.id}


def build_catalogue(language: str, entries: Sequence[Entry]) -> Catalog:
    catalog = Catalog(locale=language, domain="gpuscope", project="gpuscope",
                      version="", copyright_holder="the gpuscope authors",
                      creation_date=_CATALOGUE_DATE, revision_date=_CATALOGUE_DATE,
                      last_translator="the gpuscope authors",
                      language_team=f"gpuscope {language}", fuzzy=False)
    for entry in entries:
        catalog.add(entry.source, entry.translation, context=entry.context)
    return catalog


def po_text(catalog: Catalog) -> bytes:
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=100, no_location=True, omit_header=False,
             sort_output=True, include_previous=False)
    # The generator's version is not part of the catalogue.
    return re.sub(rb'"Generated-By: Babel [^"\\]*\\n"\n', b"", buffer.getvalue())


def mo_bytes(catalog: Catalog) -> bytes:
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def mo_messages(data: bytes) -> dict[str, str]:
    """What a compiled catalogue says, as gettext reads it (its header left out)."""
    translations = gettext.GNUTranslations(io.BytesIO(data))
    return {key: value for key, value in translations._catalog.items()  # type: ignore[attr-defined]
            if key}


def placeholder_problems(entries: Iterable[Entry]) -> list[str]:
    problems = []
    for entry in entries:
        if not entry.translation:
            continue
        wanted = sorted(PLACEHOLDER.findall(entry.source))
        found = sorted(PLACEHOLDER.findall(entry.translation))
        if wanted != found:
            problems.append(f"{_where(entry.context)}: {entry.source!r}: the translation has "
                            f"{found or 'no placeholders'}, the source {wanted or 'none'}")
    return problems


def merged(language: str, extra: dict[tuple[str | None, str], str] | None = None
           ) -> list[Entry]:
    known = read_catalogue(po_path(language))
    known.update({key: text for key, text in (extra or {}).items() if text})
    return [Entry(e.context, e.source, known.get(e.key, "")) for e in extracted()]


# ----------------------------------------------------------------------------- commands


def check(language: str) -> list[str]:
    """What is out of date or untranslated; empty when all is well."""
    po, mo = po_path(language), mo_path(language)
    if not po.exists():
        return [f"{po.relative_to(REPO)} is missing: run tools/update_translations.py"]
    problems: list[str] = []
    committed = read_catalogue(po)
    fresh = merged(language)
    current = {e.key for e in fresh}
    for context, source in sorted(current - committed.keys(), key=str):
        problems.append(f"not extracted yet: {_where(context)}: {source!r}")
    for context, source in sorted(committed.keys() - current, key=str):
        problems.append(f"no longer in the sources: {_where(context)}: {source!r}")
    for entry in fresh:
        if entry.key in committed and not entry.translation:
            problems.append(f"not translated: {_where(entry.context)}: {entry.source!r}")
    if not mo.exists():
        problems.append(f"{mo.relative_to(REPO)} is missing: run tools/update_translations.py")
    else:
        with po.open("rb") as handle:
            compiled = mo_messages(mo_bytes(read_po(handle)))
        if mo_messages(mo.read_bytes()) != compiled:
            problems.append(f"{mo.relative_to(REPO)} is not compiled from the .po: run "
                            "tools/update_translations.py")
    problems += placeholder_problems(fresh)
    problems += untranslatable_calls(qt_sources(), core_sources())
    return problems


def read_fill(path: Path) -> dict[tuple[str | None, str], str]:
    if path.suffix == ".tsv":
        wanted = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            parts = line.split("\t")
            if len(parts) == 3 and parts[1] and parts[2]:
                wanted[(parts[0] or None, parts[1])] = parts[2]
        return wanted
    entries = json.loads(path.read_text(encoding="utf-8"))
    return {(e.get("context") or None, e["source"]): e["translation"]
            for e in entries if e.get("translation")}


def update(language: str, fills: Sequence[Path], unfinished_json: str | None) -> None:
    extra: dict[tuple[str | None, str], str] = {}
    for path in fills:
        extra.update(read_fill(path))
    entries = merged(language, extra)
    catalog = build_catalogue(language, entries)
    po, mo = po_path(language), mo_path(language)
    po.parent.mkdir(parents=True, exist_ok=True)
    po.write_bytes(po_text(catalog))
    mo.write_bytes(mo_bytes(catalog))
    unfinished = [e for e in entries if not e.translation]
    print(f"{po.relative_to(REPO)}: {len(entries)} messages, {len(unfinished)} without a "
          "translation")
    for problem in placeholder_problems(entries) + untranslatable_calls(qt_sources(),
                                                                         core_sources()):
        print(f"warning: {problem}")
    if unfinished_json:
        Path(unfinished_json).write_text(json.dumps(
            [{"context": e.context or "", "source": e.source, "translation": ""}
             for e in unfinished], ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {len(unfinished)} to {unfinished_json}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 listing what is out of date")
    parser.add_argument("--unfinished-json", metavar="FILE",
                        help="after updating, write the messages without a translation")
    parser.add_argument("--fill", metavar="FILE", action="append", default=[],
                        help="merge these translations (JSON) before updating")
    parser.add_argument("--fill-tsv", metavar="FILE", action="append", default=[],
                        help="merge these translations (context, source, translation "
                             "separated by tabs) before updating")
    args = parser.parse_args(argv)

    if args.check:
        failed = False
        for language in LANGUAGES:
            problems = check(language)
            for problem in problems:
                print(f"{language}: {problem}")
            failed = failed or bool(problems)
            if not problems:
                count = len(read_catalogue(po_path(language)))
                print(f"{language}: {count} messages, all extracted, translated and compiled")
        return 1 if failed else 0
    for language in LANGUAGES:
        update(language, [Path(p) for p in [*args.fill, *args.fill_tsv]],
               args.unfinished_json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
