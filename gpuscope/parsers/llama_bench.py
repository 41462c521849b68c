"""llama.cpp's benchmark numbers as people paste them: `llama-bench` output in each format it
writes, and the timing lines `llama-cli` and `llama-server` print. Pure: text in, results out.

Formats, as tools/llama-bench/llama-bench.cpp prints them (`-o md|csv|json|jsonl|sql`):

- ``md`` (the default): a table ``| model | size | params | backend | ngl | ... | test | t/s |``
  whose t/s cell is "105.23 ± 0.51" (mean ± sample standard deviation); columns beyond the
  defaults (threads, fa, n_ubatch, type_k, ...) appear when a value differs from its default;
  "build: <commit> (<number>)" follows the table. Older builds wrote "pp 512", "mostly Q4_0".
- ``csv``: the field names of `test::get_fields()` as a header (``build_commit,build_number,
  cpu_info,gpu_info,backends,...,avg_ts,stddev_ts``), each value double-quoted.
- ``json``: an array of objects with those fields plus ``samples_ns`` and ``samples_ts``;
  ``jsonl``: one such object per line.
- ``sql``: ``INSERT INTO test (...) VALUES ('...', ...);`` (the table is ``llama_bench`` since
  mid-2025), every value single-quoted.
- ``llama-cli`` timings: ``llama_perf_context_print: prompt eval time = 88.24 ms / 9 tokens
  (9.80 ms per token, 102.00 tokens per second)`` and ``eval time = ... runs``; older builds
  prefix ``llama_print_timings:``. ``llama-server`` prints the same two lines without a prefix.

The GPU comes from ``gpu_info`` (csv/json/jsonl/sql) or, for a pasted table or timing lines,
from the start-up lines around it (``ggml_cuda_init: found 1 ROCm devices`` then ``Device 0:
AMD Radeon RX 7900 XTX, gfx1100 ...``; ``ggml_vulkan: 0 = AMD Radeon RX 7900 XT (RADV NAVI31)
(radv) | ...``). `parse_llama_bench` never raises: what it cannot read is a problem.
"""

from __future__ import annotations

import csv
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from gpuscope.i18n import message
from gpuscope.model import LlamaBenchResult as LlamaBenchResult  # re-exported: its record
from gpuscope.parsers._common import MAX_PROBLEMS, read_lines

FORMATS: tuple[str, ...] = ("md", "csv", "json", "jsonl", "sql", "llama-cli", "llama-server")
TOOLS: tuple[str, ...] = ("llama-bench", "llama-cli", "llama-server")
MAX_INPUT_CHARS = 10_000_000
MAX_RESULTS = 10_000
_MAX_JSON_STARTS = 50

_SIZE_UNITS = {"B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3, "TiB": 1024**4}
_PARAM_UNITS = {"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}
_NUMBER = r"(?:\d+(?:\.\d*)?|inf|nan|-?nan)"
_TS_CELL = re.compile(rf"^({_NUMBER})\s*(?:±|\+/-|\+-)\s*({_NUMBER})$", re.IGNORECASE)
_SIZE_CELL = re.compile(r"^(\d+(?:\.\d+)?)\s*(B|KiB|MiB|GiB|TiB)$")
_PARAMS_CELL = re.compile(r"^(\d+(?:\.\d+)?)\s*([KMBT])$")
_TEST_NAME = re.compile(r"^(?:pp\s*(\d+))?(\+)?(?:tg\s*(\d+))?(?:\s*@\s*d(\d+))?$")
_MD_HEADER = re.compile(r"^\s*\|\s*model\s*\|.*\|\s*t/s\s*\|", re.MULTILINE)
_SEPARATOR_CELL = re.compile(r"^:?-+:?$")
_BUILD = re.compile(r"^\s*build: ([0-9a-f]{6,40}) \((\d+)\)\s*$")
_SQL_INSERT = re.compile(r"^\s*INSERT INTO ([\w\"]+) \(([^)]*)\) VALUES \((.*)\);?\s*$",
                         re.IGNORECASE)
_SQL_VALUE = re.compile(r"'([^']*)'")
_TIMING = re.compile(
    rf"(?P<what>prompt eval|eval) time\s*=\s*(?P<ms>{_NUMBER}) ms /\s*(?P<count>\d+) "
    rf"(?:tokens|runs)\s*\(\s*{_NUMBER} ms per token,\s*(?P<tps>{_NUMBER}) tokens per second\)",
    re.IGNORECASE)
_DEVICE_INIT = re.compile(r"ggml_cuda_init: found (\d+) (ROCm|CUDA|MUSA) devices")
_VULKAN_INIT = re.compile(r"ggml_vulkan: Found (\d+) Vulkan devices")
_CUDA_DEVICE = re.compile(r"^\s*Device (\d+): ([^,]{1,200})")
_VULKAN_DEVICE = re.compile(r"^\s*ggml_vulkan: (\d+) = ([^|]{1,200})")
_DRIVER_SUFFIX = re.compile(r"\) \([^()]*\)$")
_GENERAL_NAME = re.compile(r"general\.name\s+str\s+=\s+(.{1,200})$")
_FILE_TYPE = re.compile(r"(?:file type|model ftype)\s+=\s+(.{1,100})$")
_MODEL_ARG = re.compile(r"(?:^|\s)(?:-m|--model)\s+(\S{1,500}\.gguf)\b")
_FILE_QUANT = re.compile(r"[._-]((?:I?Q\d\w*|MXFP4|[BF]F16|F32|F16))(?:-\d{5}-of-\d{5})?\.gguf$",
                         re.IGNORECASE)
_KQUANT = re.compile(r"^(\S+) - (Small|Medium|Large|Extra Small|Extra Large)$")
_KQUANT_LETTER = {"Small": "S", "Medium": "M", "Large": "L", "Extra Small": "XS",
                  "Extra Large": "XL"}
_BPW = re.compile(r"^(\S+) - \d+(?:\.\d+)? bpw$")

# Markdown column titles (markdown_printer::get_field_display_name), old names too.
_MD_COLUMNS = {
    "model": "model_type", "size": "model_size", "model_size": "model_size",
    "params": "model_n_params", "model_n_params": "model_n_params", "backend": "backends",
    "ngl": "n_gpu_layers", "n_gpu_layers": "n_gpu_layers", "threads": "n_threads",
    "n_threads": "n_threads", "fa": "flash_attn", "test": "test", "t/s": "t/s",
    "n_prompt": "n_prompt", "n_gen": "n_gen",
}
# Fields held in their own attributes; every other field goes to `settings`.
_OWN_FIELDS = frozenset({
    "build_commit", "build_number", "cpu_info", "gpu_info", "backends", "model_filename",
    "model_type", "model_size", "model_n_params", "n_gpu_layers", "n_prompt", "n_gen",
    "n_depth", "test_time", "avg_ts", "stddev_ts", "samples_ts", "samples_ns", "avg_ns",
    "stddev_ns", "test", "t/s",
})
# Backend names of ggml (ggml_backend_reg_name) to the runtime's backend ids (model.py's
# LLM_BACKENDS); the first GPU one in "ROCm,RPC" or "BLAS,MTL" wins.
_BACKEND_IDS = {"rocm": "rocm", "hip": "rocm", "cuda": "cuda", "vulkan": "vulkan",
                "metal": "metal", "mtl": "metal", "sycl": "sycl"}
_CPU_BACKENDS = frozenset({"cpu", "blas", "accelerate", "zendnn", "amx"})
# Backend flags of llama-bench before the `backends` field (2023-2024 json/csv).
_OLD_BACKEND_FLAGS = (("cuda", "CUDA"), ("vulkan", "Vulkan"), ("metal", "Metal"),
                      ("sycl", "SYCL"), ("kompute", "Kompute"), ("opencl", "OpenCL"))


@dataclass(frozen=True, slots=True)
class LlamaBenchParse:
    """What one text held: its results, the formats seen, and what could not be read."""

    results: tuple[LlamaBenchResult, ...] = ()
    formats: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()


def sniff(text: str) -> bool:
    """Whether `text` looks like llama-bench output or llama.cpp timing lines."""
    head = text[:200_000] if isinstance(text, str) else ""
    return bool(_MD_HEADER.search(head) or ("build_commit" in head and "avg_ts" in head) or
                _TIMING.search(head))


def parse_llama_bench(text: str) -> LlamaBenchParse:
    """Every llama.cpp throughput in `text`, whatever the format (several may be mixed in one
    paste). Never raises."""
    try:
        return _parse(text)
    except Exception as exc:  # the promise of every parser: a problem, never an exception
        return LlamaBenchParse(problems=(message("parser error: {error}",
                                                 error=f"{type(exc).__name__}: {exc}"),))


# ----------------------------------------------------------------------------- the whole text


@dataclass(slots=True)
class _Context:
    """What the start-up lines of a paste say: the backend, the GPUs, build lines, the model."""

    backend: str | None = None
    gpus_by_line: list[tuple[int, str]] = field(default_factory=list)
    builds: list[tuple[int, str, int]] = field(default_factory=list)
    model_name: str | None = None
    file_type: str | None = None
    model_filename: str | None = None

    def gpus_before(self, index: int) -> str | None:
        names = [name for at, name in self.gpus_by_line if at < index] or \
            [name for _, name in self.gpus_by_line]
        return ", ".join(dict.fromkeys(names)) or None

    def build_for(self, start: int, end: int, next_start: int) -> tuple[str, int] | None:
        """The build line after a table (before the next one), else the last one before it."""
        after = [(c, n) for at, c, n in self.builds if end <= at < next_start]
        if after:
            return after[0]
        before = [(c, n) for at, c, n in self.builds if at < start]
        return before[-1] if before else None


def _parse(text: str) -> LlamaBenchParse:
    problems: list[str] = []
    if len(text) > MAX_INPUT_CHARS:
        problems.append(message("only the first {count} characters were read",
                                count=f"{MAX_INPUT_CHARS:,}"))
        text = text[:MAX_INPUT_CHARS]
    text = text.lstrip("\ufeff")
    if not text.strip():
        return LlamaBenchParse(problems=(message("the text is empty"),))
    lines, cut = read_lines(text)
    if cut:
        problems.append(cut)
    context = _context(lines)
    results: list[LlamaBenchResult] = []
    formats: list[str] = []
    for found in (_markdown(lines, context, problems), _csv(lines, problems),
                  _json_arrays(text, problems), _jsonl(lines, problems), _sql(lines, problems),
                  _timings(lines, context, problems)):
        if found:
            results.extend(found)
            formats.extend(dict.fromkeys(r.format for r in found))
    if len(results) > MAX_RESULTS:
        problems.append(message("only the first {count} results were kept", count=MAX_RESULTS))
        del results[MAX_RESULTS:]
    if not results:
        problems.append(message("no llama-bench results or llama.cpp timing lines found"))
    if len(problems) > MAX_PROBLEMS:
        more = len(problems) - MAX_PROBLEMS
        problems = [*problems[:MAX_PROBLEMS], message("and {count} more problems", count=more)]
    return LlamaBenchParse(tuple(results), tuple(dict.fromkeys(formats)), tuple(problems))


def _context(lines: Sequence[str]) -> _Context:
    context = _Context()
    for index, line in enumerate(lines):
        if "ggml_" in line:
            init = _DEVICE_INIT.search(line)
            if init:
                context.backend = context.backend or init.group(2)
            elif _VULKAN_INIT.search(line):
                context.backend = context.backend or "Vulkan"
            elif context.backend is None and ("ggml_metal" in line):
                context.backend = "Metal"
            elif context.backend is None and "ggml_sycl" in line:
                context.backend = "SYCL"
            vulkan = _VULKAN_DEVICE.match(line)
            if vulkan:
                name = vulkan.group(2).strip()
                if _DRIVER_SUFFIX.search(name):  # "(RADV NAVI31) (radv)": drop the driver
                    name = name[:name.rfind(" (")]
                context.gpus_by_line.append((index, name))
            continue
        device = _CUDA_DEVICE.match(line)
        if device:
            context.gpus_by_line.append((index, device.group(2).strip()))
            continue
        build = _BUILD.match(line)
        if build:
            context.builds.append((index, build.group(1), int(build.group(2))))
            continue
        if context.model_name is None and "general.name" in line:
            name = _GENERAL_NAME.search(line)
            context.model_name = name.group(1).strip() if name else None
        if context.file_type is None and "type" in line and "=" in line:
            file_type = _FILE_TYPE.search(line)
            if file_type and (line.lstrip().startswith(("print_info", "llm_load_print_meta"))):
                context.file_type = file_type.group(1).strip()
        if context.model_filename is None and ".gguf" in line:
            model = _MODEL_ARG.search(line)
            context.model_filename = model.group(1).strip("\"'") if model else None
    return context


# ----------------------------------------------------------------------------- values


def _int(value: object) -> int | None:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if math.isfinite(value) else None
    if isinstance(value, str):
        text = value.strip()
        if re.fullmatch(r"-?\d{1,20}", text):
            return int(text)
        if text.lower() in ("true", "false"):
            return int(text.lower() == "true")
    return None


def _float(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def _text(value: object) -> str | None:
    if value is None or isinstance(value, (list, dict)):
        return None
    text = str(value).strip()
    return text or None


def bench_test_name(n_prompt: int | None, n_gen: int | None, n_depth: int | None) -> str | None:
    """llama-bench's name of a test (markdown_printer::print_test): "pp512", "tg128",
    "pp512+tg128", with " @ d4096" for a prefilled context."""
    prompt, gen = n_prompt or 0, n_gen or 0
    if prompt > 0 and gen == 0:
        name = f"pp{prompt}"
    elif gen > 0 and prompt == 0:
        name = f"tg{gen}"
    elif prompt > 0 and gen > 0:
        name = f"pp{prompt}+tg{gen}"
    else:
        return None
    return f"{name} @ d{n_depth}" if n_depth else name


def quantisation_of(model_type: str | None) -> str | None:
    """The weights' type in llama_model_desc's words, shortened as GGUF file names say it:
    "llama 8B Q4_K - Medium" -> "Q4_K_M", "gemma4 ?B IQ4_NL - 4.5 bpw" -> "IQ4_NL",
    "llama 7B mostly Q4_0" -> "Q4_0", "gpt-oss 20B MXFP4 MoE" -> "MXFP4"."""
    if not model_type:
        return None
    parts = model_type.split(" ", 2)
    if len(parts) < 3 or not re.fullmatch(r"[\d?][\w.?]{0,30}", parts[1]):
        return None
    return short_ftype(parts[2])


def short_ftype(ftype: str) -> str | None:
    """A llama.cpp file type ("Q4_K - Medium", "mostly Q4_0", "IQ4_NL - 4.5 bpw", "MXFP4 MoE")
    as GGUF file names say it ("Q4_K_M", "Q4_0", "IQ4_NL", "MXFP4")."""
    ftype = ftype.strip()
    ftype = re.sub(r"\s*\(guessed\)$", "", ftype)
    ftype = re.sub(r"^(?:mostly|all)\s+", "", ftype)
    kquant = _KQUANT.match(ftype)
    if kquant:
        return f"{kquant.group(1)}_{_KQUANT_LETTER[kquant.group(2)]}"
    bpw = _BPW.match(ftype)
    if bpw:
        return bpw.group(1)
    return ftype.split(" ", 1)[0] or None


def _quantisation_of_file(filename: str | None) -> str | None:
    if not filename:
        return None
    found = _FILE_QUANT.search(filename.rsplit("/", 1)[-1])
    return found.group(1).upper() if found else None


def backend_id(backend: str | None) -> str | None:
    """"ROCm,RPC" -> "rocm", "BLAS,MTL" -> "metal", "CPU" -> "cpu"; None for one gpuscope does
    not know (CANN, OpenCL, Kompute)."""
    if not backend:
        return None
    names = [name.strip().lower() for name in backend.split(",") if name.strip()]
    for name in names:
        if name in _BACKEND_IDS:
            return _BACKEND_IDS[name]
    if names and all(name in _CPU_BACKENDS or name == "rpc" for name in names):
        return "cpu"
    return None


def _size_bytes(cell: str) -> int | None:
    match = _SIZE_CELL.match(cell.strip())
    return round(float(match.group(1)) * _SIZE_UNITS[match.group(2)]) if match else None


def _params(cell: str) -> int | None:
    match = _PARAMS_CELL.match(cell.strip())
    return round(float(match.group(1)) * _PARAM_UNITS[match.group(2)]) if match else None


def _test_numbers(test: str) -> tuple[str, int | None, int | None, int | None]:
    """(canonical name, n_prompt, n_gen, n_depth) of a test cell ("pp 512" is "pp512")."""
    match = _TEST_NAME.match(test.strip())
    if not match or not (match.group(1) or match.group(3)):
        return test.strip(), None, None, None
    prompt = int(match.group(1)) if match.group(1) else 0
    gen = int(match.group(3)) if match.group(3) else 0
    depth = int(match.group(4)) if match.group(4) else 0
    return (bench_test_name(prompt, gen, depth) or test.strip(), prompt, gen, depth)


# ----------------------------------------------------------------------------- markdown


def _cells(line: str) -> list[str] | None:
    stripped = line.strip()
    if not stripped.startswith("|") or stripped.count("|") < 3:
        return None
    return [cell.strip() for cell in stripped.strip("|").split("|")]


def _markdown(lines: Sequence[str], context: _Context,
              problems: list[str]) -> list[LlamaBenchResult]:
    tables: list[tuple[int, int, list[str], list[tuple[int, list[str]]]]] = []
    index = 0
    while index < len(lines):
        header = _cells(lines[index]) if "t/s" in lines[index] else None
        if header is None or "t/s" not in header or "model" not in header or not (
                "test" in header or "n_prompt" in header):
            index += 1
            continue
        start = index
        index += 1
        if index < len(lines):
            separator = _cells(lines[index])
            if separator and all(_SEPARATOR_CELL.match(c) for c in separator if c):
                index += 1
        rows: list[tuple[int, list[str]]] = []
        while index < len(lines):
            cells = _cells(lines[index])
            if cells is None:
                break
            rows.append((index, cells))
            index += 1
        tables.append((start, index, header, rows))
    results: list[LlamaBenchResult] = []
    for position, (start, end, header, rows) in enumerate(tables):
        next_start = tables[position + 1][0] if position + 1 < len(tables) else len(lines)
        build = context.build_for(start, end, next_start)
        gpu = context.gpus_before(start)
        for at, cells in rows:
            if len(cells) != len(header):
                problems.append(message("line {line}: {count} cells under a header of "
                                        "{columns}; row skipped", line=at + 1,
                                        count=len(cells), columns=len(header)))
                continue
            result = _markdown_row(dict(zip(header, cells, strict=True)), at, problems)
            if result is not None:
                results.append(replace(
                    result, gpu_name=gpu, build_commit=build[0] if build else None,
                    build_number=build[1] if build else None))
    return results


def _markdown_row(row: Mapping[str, str], at: int,
                  problems: list[str]) -> LlamaBenchResult | None:
    throughput = _TS_CELL.match(row.get("t/s", ""))
    value = _float(throughput.group(1)) if throughput else None
    if value is None or value <= 0:
        problems.append(message("line {line}: no throughput in {cell}; row skipped",
                                line=at + 1, cell=repr(row.get("t/s", ""))))
        return None
    fields = {_MD_COLUMNS.get(name, name): cell for name, cell in row.items()}
    if "test" in fields:
        test, prompt, gen, depth = _test_numbers(fields["test"])
    else:
        prompt, gen, depth = _int(fields.get("n_prompt")), _int(fields.get("n_gen")), None
        test = bench_test_name(prompt, gen, depth) or "?"
    model_type = _text(fields.get("model_type"))
    backend = _text(fields.get("backends"))
    settings = {name: cell for name, cell in fields.items() if name not in _OWN_FIELDS
                and name != "model_type"}
    return LlamaBenchResult(
        tool="llama-bench", format="md", test=test, tokens_per_s=value,
        tokens_per_s_stddev=_float(throughput.group(2)) if throughput else None,
        n_prompt=prompt, n_gen=gen, n_depth=depth, model_type=model_type,
        quantisation=quantisation_of(model_type),
        model_size_bytes=_size_bytes(fields.get("model_size", "")),
        model_params=_params(fields.get("model_n_params", "")), backend=backend,
        backend_id=backend_id(backend), n_gpu_layers=_int(fields.get("n_gpu_layers")),
        settings=settings, line=at + 1)


# ----------------------------------------------------------------------------- field records


def _from_fields(fields: Mapping[str, Any], fmt: str, at: int,
                 problems: list[str]) -> LlamaBenchResult | None:
    """A result from llama-bench's named fields (csv, json, jsonl, sql)."""
    value = _float(fields.get("avg_ts"))
    if value is None or value <= 0:
        problems.append(message("line {line}: no avg_ts in a {format} record; skipped",
                                line=at + 1, format=fmt))
        return None
    prompt, gen = _int(fields.get("n_prompt")), _int(fields.get("n_gen"))
    depth = _int(fields.get("n_depth"))
    backend = _text(fields.get("backends"))
    if backend is None:
        flags = [name for key, name in _OLD_BACKEND_FLAGS if _int(fields.get(key))]
        backend = ",".join(flags) or ("CPU" if any(k in fields for k, _ in _OLD_BACKEND_FLAGS)
                                      else None)
    raw_samples = fields.get("samples_ts")
    samples = tuple(s for s in (_float(v) for v in raw_samples) if s is not None) \
        if isinstance(raw_samples, list) else ()
    model_type = _text(fields.get("model_type"))
    filename = _text(fields.get("model_filename"))
    settings = {str(k): str(int(v)) if isinstance(v, bool) else str(v)  # as csv writes it
                for k, v in fields.items()
                if k not in _OWN_FIELDS and v is not None and not isinstance(v, (list, dict))}
    return LlamaBenchResult(
        tool="llama-bench", format=fmt, test=bench_test_name(prompt, gen, depth) or "?",
        tokens_per_s=value, tokens_per_s_stddev=_float(fields.get("stddev_ts")),
        samples_tokens_per_s=samples, n_prompt=prompt, n_gen=gen, n_depth=depth,
        model_type=model_type, model_filename=filename,
        quantisation=quantisation_of(model_type) or _quantisation_of_file(filename),
        model_size_bytes=_int(fields.get("model_size")),
        model_params=_int(fields.get("model_n_params")), backend=backend,
        backend_id=backend_id(backend), n_gpu_layers=_int(fields.get("n_gpu_layers")),
        gpu_name=_text(fields.get("gpu_info")), cpu_info=_text(fields.get("cpu_info")),
        build_commit=_text(fields.get("build_commit")),
        build_number=_int(fields.get("build_number")), test_time=_text(fields.get("test_time")),
        settings=settings, line=at + 1)


def _csv(lines: Sequence[str], problems: list[str]) -> list[LlamaBenchResult]:
    results: list[LlamaBenchResult] = []
    index = 0
    while index < len(lines):
        stripped = lines[index].strip()
        if not (stripped.startswith("build_commit,") and "avg_ts" in stripped):
            index += 1
            continue
        header = next(csv.reader([stripped]))
        index += 1
        while index < len(lines) and lines[index].strip().startswith('"'):
            values = next(csv.reader([lines[index].strip()]), [])
            if len(values) != len(header):
                problems.append(message("line {line}: {count} values under a header of "
                                        "{columns}; row skipped", line=index + 1,
                                        count=len(values), columns=len(header)))
            else:
                found = _from_fields(dict(zip(header, values, strict=True)), "csv", index,
                                     problems)
                if found is not None:
                    results.append(found)
            index += 1
    return results


def _records(value: object) -> Iterable[Mapping[str, Any]]:
    if isinstance(value, list):
        return [item for item in value if isinstance(item, dict) and "avg_ts" in item]
    return []


def _json_arrays(text: str, problems: list[str]) -> list[LlamaBenchResult]:
    """The arrays `-o json` prints ("[" alone on a line, objects, "]"), wherever they start
    (llama-bench's own device lines may come first)."""
    if '"avg_ts"' not in text:
        return []
    results: list[LlamaBenchResult] = []
    decoder = json.JSONDecoder()
    position = 0
    for _ in range(_MAX_JSON_STARTS):
        start = text.find("[", position)
        if start < 0:
            break
        line_start = text.rfind("\n", 0, start) + 1
        if text[line_start:start].strip():  # "[" inside a line: not the printer's array
            position = start + 1
            continue
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError as exc:
            if '"avg_ts"' in text[start:start + 5000]:
                problems.append(message("line {line}: a JSON array that cannot be read: "
                                        "{error}", line=text.count("\n", 0, start) + 1,
                                        error=str(exc)))
            position = start + 1
            continue
        line = text.count("\n", 0, start)
        results.extend(r for r in (_from_fields(item, "json", line, problems)
                                   for item in _records(value)) if r is not None)
        position = end
    return results


def _jsonl(lines: Sequence[str], problems: list[str]) -> list[LlamaBenchResult]:
    results: list[LlamaBenchResult] = []
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not (stripped.startswith("{") and stripped.endswith("}") and "avg_ts" in stripped):
            continue
        try:
            value = json.loads(stripped)
        except ValueError as exc:
            problems.append(message("line {line}: a JSON line that cannot be read: {error}",
                                    line=index + 1, error=str(exc)))
            continue
        if isinstance(value, dict):
            found = _from_fields(value, "jsonl", index, problems)
            if found is not None:
                results.append(found)
    return results


def _sql(lines: Sequence[str], problems: list[str]) -> list[LlamaBenchResult]:
    results: list[LlamaBenchResult] = []
    for index, line in enumerate(lines):
        if "INSERT" not in line.upper() or "avg_ts" not in line:
            continue
        match = _SQL_INSERT.match(line)
        if not match:
            continue
        names = [name.strip() for name in match.group(2).split(",")]
        values = _SQL_VALUE.findall(match.group(3))
        if len(values) != len(names):
            problems.append(message("line {line}: {count} values for {columns} columns in an "
                                    "INSERT; skipped", line=index + 1, count=len(values),
                                    columns=len(names)))
            continue
        found = _from_fields(dict(zip(names, values, strict=True)), "sql", index, problems)
        if found is not None:
            results.append(found)
    return results


# ----------------------------------------------------------------------------- timing lines


def _timings(lines: Sequence[str], context: _Context,
             problems: list[str]) -> list[LlamaBenchResult]:
    results: list[LlamaBenchResult] = []
    for index, line in enumerate(lines):
        if "tokens per second" not in line or "eval time" not in line:
            continue
        match = _TIMING.search(line)
        if not match:
            continue
        prefix = line[:match.start()]
        if "llama_perf_context_print" in prefix or "llama_print_timings" in prefix:
            tool, fmt = "llama-cli", "llama-cli"
        else:
            tool, fmt = "llama-server", "llama-server"
        count = int(match.group("count"))
        value = _float(match.group("tps"))
        if value is None or value <= 0 or count == 0:
            problems.append(message("line {line}: a timing without a throughput; skipped",
                                    line=index + 1))
            continue
        prompt = match.group("what").lower() == "prompt eval"
        filename = context.model_filename
        results.append(LlamaBenchResult(
            tool=tool, format=fmt, test="prompt eval" if prompt else "eval",
            tokens_per_s=value, n_prompt=count if prompt else None,
            n_gen=None if prompt else count, model_type=context.model_name,
            model_filename=filename,
            quantisation=short_ftype(context.file_type) if context.file_type
            else _quantisation_of_file(filename),
            backend=context.backend, backend_id=backend_id(context.backend),
            gpu_name=context.gpus_before(index), settings={"elapsed_ms": match.group("ms")},
            line=index + 1))
    return results
