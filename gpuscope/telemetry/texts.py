"""Texts for people, kept untranslated below the UI.

The telemetry read side names things ("GPU 0: AMD Radeon RX 7900 XTX", "Live, 2 Hz",
"Recording r.sqlite, …") but cannot translate: translations need Qt, which only `gpuscope.ui`
loads. So it hands out a `LabelText`: the English template, the translation context it is
listed under, and the values of its placeholders. The UI translates it where it shows it
(`gpuscope.ui.telemetry.texts.shown`); the share report, which stays English, takes
`english()`.

The templates made here in the "TelemetryFeed" context are listed for the translation
extraction in `gpuscope.ui.telemetry.texts.FEED_TEXTS` (tests/ui/test_i18n.py checks the list
against the `feed_text(...)` calls of this package).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

# translate(context, source) -> the text in the language shown.
Translate = Callable[[str, str], str]
FEED_CONTEXT = "TelemetryFeed"


@dataclass(frozen=True, slots=True)
class LabelText:
    """An English `source` template to translate in `context` ("" for a text shown as it
    is: a name from the machine, a file name), and the values of its {placeholders}, texts
    themselves or plain values."""

    context: str
    source: str
    values: tuple[tuple[str, LabelText | str | int | float], ...] = ()

    def render(self, translate: Translate) -> str:
        """The text, with `translate` applied to this template and to every text value."""
        template = translate(self.context, self.source) if self.context else self.source
        if not self.values:
            return template
        return template.format(**{
            name: value.render(translate) if isinstance(value, LabelText) else value
            for name, value in self.values})

    def english(self) -> str:
        return self.render(_untranslated)


def _untranslated(_context: str, source: str) -> str:
    return source


def verbatim(text: str) -> LabelText:
    """A text shown as it is, in every language."""
    return LabelText("", text)


def feed_text(source: str, **values: LabelText | str | int | float) -> LabelText:
    """`source` in the telemetry feeds' translation context, with its placeholders' values.
    The extraction cannot see these: list every `source` in ui/telemetry/texts.py."""
    return LabelText(FEED_CONTEXT, source, tuple(values.items()))


def joined(*parts: LabelText) -> LabelText:
    """The parts one after another, a space between."""
    names = [f"part{index}" for index in range(len(parts))]
    return LabelText("", " ".join("{" + name + "}" for name in names),
                     tuple(zip(names, parts, strict=True)))
