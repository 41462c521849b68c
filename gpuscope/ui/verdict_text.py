"""The doctor's framework verdicts (`gpuscope.doctor.verdicts`) in the language installed:
one translation for the Frameworks page and the Stack page, so that both say the same.

The verdict engine gives a reason code, its parameters and the English template; the templates
are listed here for the extraction (`tools/update_translations.py`) and looked up at run time
under the "Verdict" context.
"""

from __future__ import annotations

from gpuscope.doctor.verdicts import FrameworkVerdict, VerdictReason
from gpuscope.ui.i18n import QT_TRANSLATE_NOOP, core_text, translate

CONTEXT = "Verdict"
# Every template the engine uses (REASON_TEXTS, DEVICE_TEXTS, BELOW_TEXTS), marked for the
# extraction; a test checks that none is missing.
TEMPLATES: tuple[str, ...] = (
    QT_TRANSLATE_NOOP("Verdict", "yes"),
    QT_TRANSLATE_NOOP("Verdict", "yes, but: {warning}"),
    QT_TRANSLATE_NOOP("Verdict", "yes as device {device}"),
    QT_TRANSLATE_NOOP("Verdict", "yes as device {device}, but: {warning}"),
    QT_TRANSLATE_NOOP("Verdict",
                      "it sees the GPU, not yet confirmed: the smoke test {result}"),
    QT_TRANSLATE_NOOP("Verdict", "it sees the GPU as device {device}, not yet confirmed: the "
                                 "smoke test {result}"),
    QT_TRANSLATE_NOOP("Verdict", "not known: the framework could not be inspected"),
    QT_TRANSLATE_NOOP("Verdict", "no: PyTorch is not installed in {python}"),
    QT_TRANSLATE_NOOP("Verdict",
                      "not checked: gpuscope checks AMD and NVIDIA GPUs, this is {vendor}"),
    QT_TRANSLATE_NOOP("Verdict", "no: a CPU-only build never uses a GPU"),
    QT_TRANSLATE_NOOP("Verdict", "no: a {build} build cannot use {vendor} GPUs"),
    QT_TRANSLATE_NOOP("Verdict", "not known: a {build} build"),
    QT_TRANSLATE_NOOP("Verdict", "no: the framework has no kernels for {target}"),
    QT_TRANSLATE_NOOP("Verdict", "no: the smoke test {result}"),
    QT_TRANSLATE_NOOP("Verdict", "no: the NVIDIA driver is too old for its CUDA {cuda}"),
    QT_TRANSLATE_NOOP("Verdict", "no: {reason}"),
    QT_TRANSLATE_NOOP("Verdict", "no: the build sees no GPU"),
    QT_TRANSLATE_NOOP("Verdict", "no: the build sees no GPU (a layer below it blocks it)"),
    QT_TRANSLATE_NOOP("Verdict", "not among the devices it lists (hidden by a "
                                 "*_VISIBLE_DEVICES variable?)"),
    QT_TRANSLATE_NOOP("Verdict", "not known: it did not say whether it sees a GPU"),
    QT_TRANSLATE_NOOP("Verdict",
                      "not known: it did not say whether it sees a GPU; the layers below it "
                      "work"),
)
# Parameters that are words of gpuscope's own (vendor and build names), not machine data.
_CORE_PARAMS = ("vendor", "build")


class _Defaulting(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "?"


def verdict_text(verdict: FrameworkVerdict) -> str:
    """The verdict's words ("yes as device 0", "no: the smoke test failed: ...") in the
    language installed."""
    params = {key: core_text(value) if key in _CORE_PARAMS else value
              for key, value in verdict.params.items()}
    return translate(CONTEXT, verdict.template).format_map(_Defaulting(params))


def verdict_row_text(verdict: FrameworkVerdict) -> str:
    """The Stack page's framework layer: the framework it judges, then the verdict's words
    (the same words as on the Frameworks page)."""
    words = verdict_text(verdict)
    if verdict.reason is VerdictReason.NOT_INSTALLED or verdict.framework.version is None:
        return words  # not installed, or known only from a pasted error
    ref = verdict.framework
    if ref.python:
        return translate("Verdict", "PyTorch {version} in {python}: {verdict}").format(
            version=ref.version or "?", python=ref.python, verdict=words)
    return translate("Verdict", "PyTorch {version}: {verdict}").format(
        version=ref.version or "?", verdict=words)
