#!/usr/bin/env python3
"""Make the CJK font gpuscope ships: Noto Sans CJK SC, cut down to the characters it needs.

    python tools/subset_cjk_font.py [--regular PATH.ttc] [--bold PATH.ttc]

Needs fontTools (`pip install fonttools`; a tool of this script, not of gpuscope) and the
Noto Sans CJK collections, e.g. Debian's fonts-noto-cjk
(/usr/share/fonts/opentype/noto/NotoSansCJK-{Regular,Bold}.ttc), or NotoSansCJK.ttc.zip from
https://github.com/notofonts/noto-cjk/releases. Writes resources/fonts/gpuscope-cjk-sc-
{regular,bold}.otf.

The characters kept:
- every character of every translation in resources/i18n/*.po (so the UI's own text always
  has its glyphs; tests/ui/test_i18n.py checks it against the fonts shipped);
- the 3,755 hanzi of GB 2312 level 1, the most common characters of Simplified Chinese,
  so that names that come from the machine or from imported files show too;
- CJK punctuation (U+3000-303F), full-width forms (U+FF01-FF5E), and ASCII.

Only the 'kern' layout feature is kept ('locl' alone would pull in the Japanese, Korean and
Traditional forms of thousands of glyphs), and the vertical-writing tables are dropped. The
family is renamed "gpuscope CJK SC" so that it is never taken for a full Noto Sans CJK SC
installed on the system. The output is byte-for-byte reproducible (no new timestamp).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT_DIR = REPO / "resources" / "fonts"
I18N_DIR = REPO / "resources" / "i18n"
SOURCE_FAMILY = "Noto Sans CJK SC"
FAMILY = "gpuscope CJK SC"
DEFAULT_SOURCES = {
    "Regular": Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"),
    "Bold": Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc"),
}


def gb2312_level1() -> set[str]:
    """The hanzi of GB 2312 rows 16-55 (level 1, ordered by pinyin)."""
    chars = set()
    for high in range(0xB0, 0xD8):
        for low in range(0xA1, 0xFF):
            # The few empty cells at the end of row 55 do not decode.
            with contextlib.suppress(UnicodeDecodeError):
                chars.add(bytes([high, low]).decode("gb2312"))
    return chars


def translation_chars() -> set[str]:
    """The characters the translations add to their English sources (a "✓" kept from the
    source is drawn by the UI font, as in English)."""
    from babel.messages.pofile import read_po

    chars: set[str] = set()
    for po in sorted(I18N_DIR.glob("*.po")):
        with po.open("rb") as handle:
            for message in read_po(handle):
                if message.id:
                    chars.update(set(str(message.string or "")) - set(str(message.id)))
    return chars


def wanted_chars() -> set[str]:
    chars = set(map(chr, range(0x20, 0x7F)))
    chars |= set(map(chr, range(0x3000, 0x3040)))  # CJK symbols and punctuation
    chars |= set(map(chr, range(0xFF01, 0xFF5F)))  # full-width forms
    chars |= set("·—–…‘’“”、")
    chars |= gb2312_level1()
    chars |= translation_chars()
    return {c for c in chars if (c.isprintable() and not c.isspace()) or c == " "}


def face_index(path: Path, style: str) -> int:
    from fontTools.ttLib import TTCollection

    collection = TTCollection(str(path), lazy=True)
    for index, font in enumerate(collection.fonts):
        names = font["name"]
        if (names.getDebugName(1) == SOURCE_FAMILY and names.getDebugName(2) == style):
            return index
    sys.exit(f"{path} has no {SOURCE_FAMILY} {style}")


def subset(source: Path, style: str, chars: set[str], out: Path) -> None:
    from fontTools import subset as ft_subset
    from fontTools.ttLib import TTFont

    font = TTFont(str(source), fontNumber=face_index(source, style), recalcTimestamp=False,
                  lazy=False)
    cmap = font.getBestCmap()
    absent = sorted(c for c in chars if ord(c) not in cmap and not c.isspace())
    if absent:
        print(f"{style}: not in {source.name}: {''.join(absent)}", file=sys.stderr)
    options = ft_subset.Options()
    options.layout_features = ["kern"]
    options.drop_tables += ["VORG", "vhea", "vmtx"]
    options.hinting = True
    options.name_IDs = ["*"]
    options.name_languages = [0x0409]
    options.notdef_outline = True
    subsetter = ft_subset.Subsetter(options)
    subsetter.populate(text="".join(sorted(chars)))
    subsetter.subset(font)
    rename(font, style)
    out.parent.mkdir(parents=True, exist_ok=True)
    font.save(str(out))
    print(f"{out.relative_to(REPO)}: {len(font.getBestCmap())} characters, "
          f"{out.stat().st_size / 1e6:.2f} MB")


def rename(font: object, style: str) -> None:
    """The family "gpuscope CJK SC" (name table and CFF), keeping the copyright, the
    trademark notice and the licence of the original."""
    from fontTools.ttLib import TTFont

    assert isinstance(font, TTFont)
    postscript = f"{FAMILY.replace(' ', '')}-{style}"
    version = font["name"].getDebugName(5) or ""
    names = {
        1: FAMILY, 2: style, 4: f"{FAMILY} {style}", 6: postscript,
        3: f"{postscript};subset of {SOURCE_FAMILY} {version.split(';')[0]}",
    }
    table = font["name"]
    table.names = [record for record in table.names if record.nameID not in (16, 17)]
    for record in list(table.names):
        if record.nameID in names:
            table.setName(names[record.nameID], record.nameID, record.platformID,
                          record.platEncID, record.langID)
    cff = font["CFF "].cff
    cff.fontNames = [postscript]
    top = cff.topDictIndex[0]
    for key, value in (("FullName", f"{FAMILY} {style}"), ("FamilyName", FAMILY)):
        if hasattr(top, key):
            setattr(top, key, value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--regular", type=Path, default=DEFAULT_SOURCES["Regular"])
    parser.add_argument("--bold", type=Path, default=DEFAULT_SOURCES["Bold"])
    args = parser.parse_args(argv)
    try:
        import fontTools  # noqa: F401
    except ImportError:
        sys.exit("this script needs fontTools: pip install fonttools")
    chars = wanted_chars()
    for style, source in (("Regular", args.regular), ("Bold", args.bold)):
        if not source.exists():
            sys.exit(f"{source} is missing (apt-get install fonts-noto-cjk, or pass "
                     f"--{style.lower()})")
        subset(source, style, chars, OUT_DIR / f"gpuscope-cjk-sc-{style.lower()}.otf")
    return 0


if __name__ == "__main__":
    sys.exit(main())
