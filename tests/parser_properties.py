"""What the importers' tests share: reading fixtures and facts, and the hypothesis properties
every importer must have: random text, truncated real outputs and line-shuffled real outputs
never make `sniff` or `parse` raise, and never reach the parser's catch-all ("parser error: ..."
problem).

A test module binds the properties under its own names:

    test_random_text_never_raises, test_truncated_real_output_never_raises, \\
        test_shuffled_real_output_never_raises = property_tests(sniff, parse, REAL_TEXTS)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuscope.model import ParsedOutput, Signal

Sniff = Callable[[str], object]
Parse = Callable[[str, str], ParsedOutput]
Check = Callable[[ParsedOutput], None]
PropertyTest = Callable[..., None]

_SETTINGS = settings(max_examples=200, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def fact(parsed: ParsedOutput, key: str) -> object:
    """The value of the stack or host fact `key` (there is at most one), or "absent"."""
    found = [f for f in (*parsed.stack_facts, *parsed.host_facts) if f.key == key]
    assert len(found) <= 1, found
    return found[0].value if found else "absent"


def signals_of(parsed: ParsedOutput, kind: str) -> list[Signal]:
    return [s for s in parsed.signals if s.kind == kind]


def assert_clean(parsed: ParsedOutput) -> None:
    """A parse result, and not the catch-all's."""
    assert isinstance(parsed, ParsedOutput)
    assert not any(p.startswith("parser error") for p in parsed.problems), parsed.problems


def property_tests(sniff: Sniff, parse: Parse, real_texts: Sequence[str],
                   check: Check = assert_clean,
                   ) -> tuple[PropertyTest, PropertyTest, PropertyTest]:
    """(random text, truncated real output, shuffled real output) tests of one importer.
    `check` runs on every parse result; pass a stricter one that calls `assert_clean`."""
    texts = list(real_texts)

    @_SETTINGS
    @given(st.text(max_size=3000))
    def random_text_never_raises(text: str) -> None:
        sniff(text)
        check(parse(text, "random"))

    @_SETTINGS
    @given(st.sampled_from(texts).flatmap(
        lambda t: st.tuples(st.just(t), st.integers(0, len(t)))))
    def truncated_real_output_never_raises(case: tuple[str, int]) -> None:
        text, cut = case
        sniff(text[:cut])
        check(parse(text[:cut], "cut"))

    @_SETTINGS
    @given(st.data())
    def shuffled_real_output_never_raises(data: st.DataObject) -> None:
        text = data.draw(st.sampled_from(texts))
        lines = data.draw(st.permutations(text.split("\n")))
        shuffled = "\n".join(lines)
        sniff(shuffled)
        check(parse(shuffled, "shuffled"))

    return (random_text_never_raises, truncated_real_output_never_raises,
            shuffled_real_output_never_raises)
