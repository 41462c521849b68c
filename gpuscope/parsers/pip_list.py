"""What pip (or conda) says is installed in a Python environment: ``pip show torch`` (one or
more packages, ``---`` between them), ``pip list`` (the ``Package Version`` table, or lines of
it cut out with grep), ``pip freeze`` (``name==version``, ``name @ url``) and ``conda list``
(``# packages in environment at ...``), as people paste them.

Only PyTorch becomes a `Framework` (named ``torch``; conda calls it ``pytorch``): its version
string, and the build read from the wheel's local tag (``2.6.0+rocm6.2.4`` is a ROCm 6.2.4
build, ``+cu121`` CUDA 12.1, ``+cpu`` none), else from what it requires (``pytorch-triton-rocm``
means a ROCm build, ``nvidia-*-cu12`` a CUDA 12 build) or from conda's build string
(``py3.10_cuda11.8_cudnn8.7.0_0``). A package list never says whether torch can reach a GPU:
``gpu_available`` stays unknown. The interpreter is named only by where the list came from
("pasted pip show"); `python_version` comes from a site-packages path (``lib/python3.12/``),
and a site-packages path on a drive (``D:\\...``) is the host fact ``os`` = windows.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from gpuscope.model import EvidenceRef, Framework, ParsedOutput
from gpuscope.parsers._common import (
    MAX_LINE_CHARS,
    MAX_LINES,
    SNIFF_CHARS,
    Collector,
    LineReads,
    never_raises,
    none_on_error,
)

FORMATS: tuple[str, ...] = ("pip-show", "pip-list", "pip-freeze", "pip-conda-list")

_SNIFF_LINES = 2000

# A distribution name and a version as pip prints them (PEP 508 names, PEP 440 versions with a
# local part); both single tokens, so a line is split on whitespace, not matched by a pattern.
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,100}$")
_VERSION = re.compile(r"^v?\d{1,6}(?:\.\d{1,10}){0,5}[A-Za-z0-9._+!-]{0,80}$")
_FREEZE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]{0,100})[ \t]*===?[ \t]*(\S{1,100})$")
_FREEZE_URL = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]{0,100})[ \t]+@[ \t]+(\S{1,500})$")
_SHOW_KEY = re.compile(r"^(Name|Version|Location|Requires|Required-by|Summary|Home-page"
                       r"|Author|Author-email|License|Editable project location):(.*)$")
_SHOW_READ = ("Name", "Version", "Location", "Requires")  # the keys of pip show that are read
_SITE_PYTHON = re.compile(r"[/\\]python(\d\.\d{1,2})[/\\](?:site|dist)-packages", re.IGNORECASE)
_CONDA_CUDA = re.compile(r"cuda(\d{1,2})(?:\.?(\d))?", re.IGNORECASE)
_WINDOWS_PATH = re.compile(r"^[A-Za-z]:\\")
_WHEEL_VERSION = re.compile(r"/torch-(\d[^-/]{0,60})-cp\d")

# Names people list beside torch; a grep of pip list shows a few of them and nothing else.
_PYTHON_NAMES = frozenset({
    "torch", "torchvision", "torchaudio", "torchtext", "torchdata", "pytorch-triton-rocm",
    "pytorch-triton", "triton", "numpy", "pip", "setuptools", "wheel", "transformers",
    "accelerate", "xformers", "bitsandbytes", "onnxruntime", "onnxruntime-gpu", "jax",
    "jaxlib", "tensorflow", "tensorflow-rocm", "torch-directml", "safetensors", "sympy",
    "filelock", "fsspec", "jinja2", "networkx", "typing-extensions", "typing_extensions",
})
_TORCH_NAMES = ("torch", "pytorch")


@dataclass(frozen=True, slots=True)
class _Entry:
    name: str  # lower-case, "_" as "-"
    version: str | None
    line: int
    requires: str = ""  # pip show's "Requires:", as printed
    location: str | None = None
    conda_build: str | None = None


def _norm(name: str) -> str:
    return name.strip().lower().replace("_", "-")


def _lines(text: str, limit: int = MAX_LINES) -> list[str]:
    lines = text.split("\n", limit)
    del lines[limit:]
    if "\r" in text:
        lines = [line.rstrip("\r") for line in lines]
    if max(map(len, lines)) > MAX_LINE_CHARS:
        lines = [line[:MAX_LINE_CHARS] for line in lines]
    return lines


def _firsts(lines: list[str], read: Callable[[str], tuple[str, str | None, str | None] | None],
            ) -> list[_Entry]:
    """The entries of a one-package-a-line list: `read` gives a line's (name, version, conda
    build) or None. Only the first entry of each name (all that `parse` uses: the first torch
    and the names), and each distinct line read once."""
    entries: list[_Entry] = []
    names: set[str] = set()
    reads = LineReads(read)
    for number, raw in enumerate(lines, start=1):
        found = reads[raw]
        if found is not None and found[0] not in names:
            names.add(found[0])
            entries.append(_Entry(found[0], found[1], number, conda_build=found[2]))
    return entries


# ----------------------------------------------------------------------------- sniff


@none_on_error
def sniff(text: str) -> tuple[str, float] | None:
    """pip show by its `Name:`/`Version:` pairs, pip list by its header (or by lines that
    name Python packages), pip freeze by `name==version` lines, conda list by its header."""
    lines = [line.strip() for line in _lines(text[:SNIFF_CHARS], _SNIFF_LINES * 4)
             if line.strip()][:_SNIFF_LINES]
    if not lines:
        return None
    names = sum(1 for line in lines if line.startswith("Name: "))
    versions = sum(1 for line in lines if line.startswith("Version: "))
    if names and versions and any(line.startswith(("Location:", "Requires:", "Summary:"))
                                  for line in lines):
        return ("pip-show", 0.9)
    if any(line.startswith("# packages in environment at") for line in lines):
        return ("pip-conda-list", 0.9)
    if _list_header(lines) is not None:
        return ("pip-list", 0.9)
    frozen = [_frozen_name(line) for line in lines]
    freeze = [name for name in frozen if name is not None]
    if len(freeze) >= 2 and len(freeze) >= len(lines) * 0.6:
        return ("pip-freeze", 0.8)
    if "torch" in freeze:
        return ("pip-freeze", 0.6)
    pairs = [_pair(line) for line in lines]
    python = [_norm(p[0]) for p in pairs if p is not None and _norm(p[0]) in _PYTHON_NAMES]
    if "torch" in python and len(python) >= len(lines) / 2:
        return ("pip-list", 0.7)
    return None


def _frozen_name(line: str) -> str | None:
    match = _FREEZE.match(line) or _FREEZE_URL.match(line)
    return _norm(match.group(1)) if match else None


def _list_header(lines: list[str]) -> int | None:
    """The index of pip list's `Package Version` header (with its dashes under it)."""
    for index, line in enumerate(lines[:-1]):
        words = line.split()
        if words[:2] == ["Package", "Version"] and set(lines[index + 1]) <= {"-", " "}:
            return index
    return None


def _pair(line: str) -> tuple[str, str] | None:
    """`name version` (pip list's row, extra columns allowed) or None."""
    words = line.split()
    if len(words) < 2 or not _NAME.match(words[0]) or not _VERSION.match(words[1]):
        return None
    return words[0], words[1]


# ----------------------------------------------------------------------------- parse


@never_raises("pip-list")
def parse(text: str, source: str) -> ParsedOutput:
    """pip show / list / freeze or conda list to a torch `Framework`; never raises."""
    found = sniff(text)
    fmt = found[0] if found else "pip-list"
    lines = _lines(text)
    out = Collector(source, lines, max_evidence=20)
    if len(lines) >= MAX_LINES:
        out.problems.append(f"{source}: only the first {MAX_LINES:,} lines were read")
    if fmt == "pip-show":
        entries = _read_show(lines)
    else:
        entries = _firsts(lines, {"pip-freeze": _freeze_line,
                                  "pip-conda-list": _conda_line}.get(fmt, _list_line))
    torch = next((e for e in entries if e.name in _TORCH_NAMES), None)
    if torch is None:
        if found is None:
            out.problems.append(f"{source}: not pip or conda output")
        return out.result(fmt)
    names = {e.name for e in entries}
    framework = _framework(torch, names, source, out, fmt)
    if torch.location and _WINDOWS_PATH.match(torch.location):
        out.host_fact("os", "windows", out.where(torch.line))
    return out.result(fmt, frameworks=(framework,))


def _show_pair(raw: str) -> tuple[str, str] | None:
    """A line of pip show that is read: (key, value), ("---", "") between packages, or None."""
    line = raw.strip()
    if line == "---":
        return "---", ""
    match = _SHOW_KEY.match(line)
    return (match.group(1), match.group(2).strip()) if match and match.group(1) in _SHOW_READ \
        else None


def _read_show(lines: list[str]) -> list[_Entry]:
    """`pip show a b c`: blocks of `Key: value` lines, `---` between them (the first block of
    each name, as `_firsts`)."""
    entries: list[_Entry] = []
    names: set[str] = set()
    block: dict[str, tuple[str, int]] = {}
    reads = LineReads(_show_pair)

    def close() -> None:
        if "Name" in block:
            name, line = _norm(block["Name"][0]), block["Name"][1]
            if name not in names:
                names.add(name)
                entries.append(_Entry(name, block.get("Version", ("", 0))[0] or None, line,
                                      block.get("Requires", ("", 0))[0],
                                      block.get("Location", ("", 0))[0] or None))
        block.clear()

    for number, raw in enumerate(lines, start=1):
        pair = reads[raw]
        if pair is None:
            continue
        key, value = pair
        if key == "---":
            close()
            continue
        if key == "Name" and "Name" in block:
            close()  # a paste that lost the separators
        block.setdefault(key, (value, number))
    close()
    return entries


def _list_line(raw: str) -> tuple[str, str | None, str | None] | None:
    pair = _pair(raw.strip())
    return (_norm(pair[0]), pair[1], None) if pair is not None and pair[0] != "Package" \
        else None


def _freeze_line(raw: str) -> tuple[str, str | None, str | None] | None:
    line = raw.strip()
    if (match := _FREEZE.match(line)) is not None:
        return _norm(match.group(1)), match.group(2), None
    if (match := _FREEZE_URL.match(line)) is not None:
        # torch @ https://download.pytorch.org/whl/rocm6.2/torch-2.5.1%2Brocm6.2-cp312-...
        url = match.group(2).replace("%2B", "+").replace("%2b", "+")
        wheel = _WHEEL_VERSION.search(url)
        return _norm(match.group(1)), wheel.group(1) if wheel else None, None
    return None


def _conda_line(raw: str) -> tuple[str, str | None, str | None] | None:
    """conda list: `name version build channel`, comments start with '#'."""
    words = raw.split()
    if len(words) < 2 or words[0].startswith("#") or not _NAME.match(words[0]) \
            or not _VERSION.match(words[1]):
        return None
    return _norm(words[0]), words[1], words[2] if len(words) > 2 else None


# ----------------------------------------------------------------------------- the framework


def _framework(torch: _Entry, names: set[str], source: str, out: Collector,
               fmt: str) -> Framework:
    build, build_version = _build(torch, names)
    python_version = None
    if torch.location and (match := _SITE_PYTHON.search(torch.location)):
        python_version = match.group(1)
    refs: list[EvidenceRef] = [out.ref(torch.line)]
    label = {"pip-show": "pip show", "pip-freeze": "pip freeze",
             "pip-conda-list": "conda list"}.get(fmt, "pip list")
    where = f" ({torch.location})" if torch.location else ""
    return Framework(
        name="torch", version=torch.version, build=build, build_version=build_version,
        gpu_available=None, python=f"pasted {label} of {source}{where}",
        python_version=python_version,
        error=None if torch.version else f"{label} names torch without a version",
        evidence=tuple(refs))


def _build(torch: _Entry, names: set[str]) -> tuple[str, str | None]:
    """(build, build_version) from the local version tag, then conda's build string, then
    the packages torch pulls in."""
    version = torch.version or ""
    local = version.split("+", 1)[1].lower() if "+" in version else ""
    if local.startswith("rocm"):
        digits = re.match(r"rocm(\d{1,2}(?:\.\d{1,3}){0,3})", local)
        # AMD's own builds (+rocmsdk20251116) carry a date, not a ROCm version.
        return "rocm", digits.group(1) if digits and not local.startswith("rocmsdk") else None
    if (cuda := re.match(r"cu(\d{1,2})(\d)$", local)) is not None:
        return "cuda", f"{cuda.group(1)}.{cuda.group(2)}"
    for prefix, build in (("cpu", "cpu"), ("xpu", "xpu")):
        if local.startswith(prefix):
            return build, None
    conda = (torch.conda_build or "").lower()
    if conda:
        if (match := _CONDA_CUDA.search(conda)) is not None:
            minor = match.group(2)
            return "cuda", f"{match.group(1)}.{minor}" if minor else None
        if "rocm" in conda:
            return "rocm", None
        if conda.startswith("cpu") or "_cpu" in conda or "cpu_" in conda:
            return "cpu", None
    related = names | {_norm(r) for r in torch.requires.split(",") if r.strip()}
    if "pytorch-triton-rocm" in related:
        return "rocm", None
    cuda_libs = [n for n in related if n.startswith("nvidia-") and "-cu" in n]
    if cuda_libs:
        return "cuda", None  # nvidia-cublas-cu12 says CUDA 12, not which 12.x
    return "unknown", None
