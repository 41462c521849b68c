"""Reading the version strings ROCm, HIP and CUDA print, whatever their shape.

Real strings seen: "6.0.2" (a point release), "6.0.2-115" and "6.0.2.60002-115~22.04" (package
builds), "6.0.32831-204d35d16" and "6.2.41133-dd7f95766" (HIP: major.minor.build-githash),
"7.10.0a20251120" (AMD's TheRock nightlies), "12.4.131" and "V12.8.93" (CUDA with a build
number), "rocm6.2.4" and "cu128" (wheel tags). Every function here takes any text and never
raises: what it cannot read is None.
"""

from __future__ import annotations

import re

_MAX_TEXT = 200
_MAX_DIGITS = 9  # a part longer than this is no version number (and int() stays cheap)
_PREFIX = re.compile(r"(?:rocm|hip|cuda|release|version|v)[\s\-_:]*", re.IGNORECASE)
# A third part this large is a build number (HIP's "6.2.41133"), not a point release.
_MAX_POINT_RELEASE = 99
# AMD's TheRock wheels: "7.10.0a20251120", "7.9.0rc20250925" (a pre-release with a date).
_THEROCK = re.compile(r"\d{1,3}\.\d{1,3}\.\d{1,3}(?:a|rc|dev)\d{6,}", re.IGNORECASE)


def version_numbers(text: object, parts: int = 4) -> tuple[int, ...] | None:
    """The leading dotted numbers of a version: "6.0.32831-204d35d16" -> (6, 0, 32831),
    "7.10.0a20251120" -> (7, 10, 0), "V12.8.93" -> (12, 8, 93), "rocm6.2.4" -> (6, 2, 4); at
    most `parts` numbers; None when the text does not start with a number."""
    if not isinstance(text, str):
        return None
    rest = text.strip()[:_MAX_TEXT]
    prefix = _PREFIX.match(rest)
    if prefix is not None:
        rest = rest[prefix.end():]
    numbers: list[int] = []
    position = 0
    while len(numbers) < parts:
        end = position
        while end < len(rest) and rest[end].isascii() and rest[end].isdigit():
            end += 1
        if end == position or end - position > _MAX_DIGITS:
            break
        numbers.append(int(rest[position:end]))
        if end >= len(rest) or rest[end] != ".":
            break
        position = end + 1
    return tuple(numbers) or None


def rocm_release(text: object) -> tuple[int, int, int] | None:
    """The ROCm release a ROCm or HIP version string names: "6.0.2" -> (6, 0, 2);
    "6.0.32831-204d35d16" (HIP, a build number third) -> (6, 0, 0); "7.10.0a20251120" ->
    (7, 10, 0); None without a major and a minor."""
    numbers = version_numbers(text, 3)
    if numbers is None or len(numbers) < 2:
        return None
    patch = numbers[2] if len(numbers) > 2 and numbers[2] <= _MAX_POINT_RELEASE else 0
    return numbers[0], numbers[1], patch


def major_minor(text: object) -> tuple[int, int] | None:
    """"12.4.131" -> (12, 4); "6.2.41133-dd7f95766" -> (6, 2); None without both."""
    numbers = version_numbers(text, 2)
    if numbers is None or len(numbers) < 2:
        return None
    return numbers[0], numbers[1]


def is_therock_build(build_version: object) -> bool:
    """Whether a ROCm version is one of AMD's TheRock nightlies ("7.10.0a20251120"): those
    wheels carry their own ROCm, so their version need not match anything on the host."""
    if not isinstance(build_version, str):
        return False
    return _THEROCK.match(build_version.strip()[:_MAX_TEXT]) is not None


def format_version(numbers: tuple[int, ...]) -> str:
    return ".".join(str(n) for n in numbers)
