"""Redaction that keeps a text translatable: a `gpuscope.i18n` message whose values hold a
name, a home path or a serial is redacted value by value, so the report can still show it in
the reader's language. The English never differs from redacting the whole text: when the two
disagree (a name spanning the template and a value), the whole text's redaction is kept."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpuscope.i18n import Message, join

if TYPE_CHECKING:
    from gpuscope.report.redact import Redactor

# The redactor's bookkeeping, put back after the trial: its preview counts each value once.
_STATE = ("_placeholders", "_originals", "_counts", "_next")


def translatable(redactor: Redactor, original: str, redacted: str) -> str:
    """`redacted` (the whole of `original`, redacted), as a message again when `original`
    is one and redacting its values gives the same English."""
    if not isinstance(original, Message) or redacted is original:
        return redacted
    saved = {name: dict(getattr(redactor, name)) for name in _STATE}
    try:
        rebuilt = _rebuild(redactor, original)
    finally:
        for name, value in saved.items():
            setattr(redactor, name, value)
    return rebuilt if rebuilt == redacted else redacted


def _rebuild(redactor: Redactor, original: Message) -> str:
    params = {key: redactor.redact_json(value) if isinstance(value, str) else value
              for key, value in original.params.items()}
    if hasattr(original, "separator"):  # joined parts
        return join(original.separator, [str(part) if not isinstance(part, str) else part
                                         for part in params.values()])
    return Message(original.template, params)
