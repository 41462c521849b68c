"""`gpuscope bench --import FILE [FILE...]`: llama.cpp's own numbers (llama-bench output in any
format, llama-cli and llama-server timing lines) read and kept in the run history, labelled
"imported"; and the imported part of `gpuscope bench --history`.

Exit status: 0 when every file gave results, 1 when a file cannot be read or holds none (one
line on stderr each; the results of the other files are still kept) or the history cannot be
written. Imported results are listed with ids "i1", "i2", ...: `--delete i3` removes one.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from gpuscope.bench.history import HistoryError, RunHistory, StoredImport
from gpuscope.bench.imported import (
    FileImport,
    ImportedResult,
    format_words,
    imported_header,
    imported_heading,
    imported_id,
    imported_row,
    imported_to_json,
)
from gpuscope.doctor.text import display_width, padded
from gpuscope.i18n import N_, Message, localise, message
from gpuscope.model import JsonValue
from gpuscope.parsers.llama_bench import MAX_INPUT_CHARS, LlamaBenchResult, parse_llama_bench
from gpuscope.safe_write import write_text

EXIT_OK = 0
EXIT_FAILED = 1
IMPORTED_ID_PREFIX = "i"


def imported_results(results: Sequence[LlamaBenchResult], source_file: str,
                     now: float | None = None) -> tuple[ImportedResult, ...]:
    when = time.time() if now is None else now
    return tuple(ImportedResult(imported_id(r), source_file, when, r) for r in results)


def read_import(path: str, now: float | None = None) -> FileImport:
    """Parse one file (up to 10 MB) into imported results; never raises."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_INPUT_CHARS + 1)
    except OSError as exc:
        return FileImport(path, error=message("cannot read {path}: {why}", path=path,
                                              why=exc.strerror or str(exc)))
    text = raw.decode("utf-8", errors="replace")
    if "\x00" in text[:4096]:
        return FileImport(path, error=message("{path} is not text", path=path))
    parsed = parse_llama_bench(text)
    results = imported_results(parsed.results, Path(path).name, now)
    if not results:
        why = parsed.problems[-1] if parsed.problems else message("nothing found")
        return FileImport(path, (), parsed.formats, parsed.problems, message(
            "no llama.cpp results in {path}: {why}", path=path, why=why))
    return FileImport(path, results, parsed.formats, parsed.problems)


def imported_ident(row_id: int) -> str:
    """How an imported result's row id is shown and given back: "i12"."""
    return f"{IMPORTED_ID_PREFIX}{row_id}"


def parse_imported_ident(text: str) -> int | None:
    """12 for "i12"; None for anything else (a run id)."""
    value = text.strip().lower()
    if value.startswith(IMPORTED_ID_PREFIX) and value[1:].isdigit():
        return int(value[1:])
    return None


def table(rows: Sequence[Sequence[str]], indent: str = "") -> list[str]:
    widths = [max(display_width(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return [(indent + "  ".join([*(padded(cell, width) for cell, width
                                   in zip(row, widths, strict=False)), row[-1]])).rstrip()
            for row in rows]


def say(err: TextIO, text: str) -> None:
    """One line on stderr, "gpuscope bench: " and `text` in the language chosen."""
    err.write(f"gpuscope bench: {localise(text)}\n")


def keep_imported(store: RunHistory, results: Sequence[ImportedResult], err: TextIO
                  ) -> tuple[tuple[int, ...], str | Message | None]:
    """Keep imported results in the history: their ids, or () and why not (said on stderr)."""
    try:
        return store.save_imported(results), None
    except HistoryError as exc:
        first = exc.args[0] if exc.args else str(exc)
        not_saved = first if isinstance(first, Message) else str(exc)
        say(err, message("the results were not kept: {why}", why=not_saved))
        return (), not_saved


def write_json_file(path: str, document: JsonValue, err: TextIO) -> bool:
    """`document` as indented JSON in `path` (`-o`); False, said on stderr, when it cannot be."""
    try:
        write_text(path, json.dumps(document, indent=2) + "\n")
    except OSError as exc:
        say(err, message("cannot write {path}: {why}", path=path, why=exc.strerror or str(exc)))
        return False
    return True


def results_json(results: Sequence[ImportedResult], ids: Sequence[int]) -> list[JsonValue]:
    """Each result as JSON with the id the history gave it (None: not kept)."""
    idents: list[str | None] = [imported_ident(i) for i in ids] if ids else \
        [None] * len(results)
    return [dict(imported_to_json(item), history_id=ident)
            for item, ident in zip(results, idents, strict=True)]


def _file_json(found: FileImport, ids: Sequence[int]) -> JsonValue:
    return {"path": found.path, "formats": list(found.formats), "error": found.error,
            "problems": list(found.problems), "results": results_json(found.results, ids)}


def import_command(
    files: Sequence[str],
    *,
    as_json: bool = False,
    save: bool = True,
    history: RunHistory | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """What `gpuscope bench --import FILE ...` does; returns the exit status."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    store = history or RunHistory()
    now = time.time()
    status = EXIT_OK
    documents: list[JsonValue] = []
    text: list[str] = []
    not_saved: str | Message | None = None
    for path in files:
        found = read_import(path, now)
        if found.error is not None:
            say(err, found.error)
            status = EXIT_FAILED
            documents.append(_file_json(found, ()))
            continue
        ids: tuple[int, ...] = ()
        if save:
            ids, why_not = keep_imported(store, found.results, err)
            if why_not is not None:
                not_saved = why_not
                status = EXIT_FAILED
        documents.append(_file_json(found, ids))
        text.extend(_file_text(found, ids))
    if as_json:
        json.dump({"kind": "imported", "files": documents,
                   "history": {"path": str(store.path), "saved": save and not_saved is None,
                               "not_saved": not_saved}}, out, indent=2)
        out.write("\n")
    else:
        out.write("\n".join(text))
        if save and not_saved is None and text:
            out.write(localise(message(
                "Kept in {path} as imported results ({command} lists them)",
                path=str(store.path), command="gpuscope bench --history")) + "\n")
    return status


def _file_text(found: FileImport, ids: Sequence[int]) -> list[str]:
    lines = [localise(message("{path} ({formats}):", path=found.path,
                              formats=format_words(found.formats))),
             "  " + localise(imported_heading(len(found.results)))]
    idents = [imported_ident(i) for i in ids] or ["-"] * len(found.results)
    rows = [imported_header()] + [imported_row(item, ident)
                                  for item, ident in zip(found.results, idents, strict=False)]
    lines.extend(table(rows, "  "))
    lines.extend("  " + localise(message("note: {problem}", problem=p)) for p in found.problems)
    return [*lines, ""]


def imported_history_json(stored: Sequence[StoredImport]) -> list[JsonValue]:
    return [dict(imported_to_json(s.item), history_id=imported_ident(s.id)) for s in stored]


def imported_history_text(stored: Sequence[StoredImport]) -> str:
    """The imported part of `--history`: a table under a heading that says "imported"."""
    if not stored:
        return ""
    rows = [[*imported_header(), localise(N_("imported at"))]]
    for entry in stored:
        item: ImportedResult = entry.item
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(item.imported_unix_s))
        row = imported_row(item, imported_ident(entry.id))
        rows.append([*row[:-1], row[-1], when])
    lines = ["", localise(imported_heading(len(stored))), ""]
    lines.extend(table(rows))
    return "\n".join(lines) + "\n"
