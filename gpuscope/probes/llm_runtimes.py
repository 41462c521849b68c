"""Local LLM runtimes: Ollama, llama.cpp, LM Studio, vLLM and SGLang, each found or not with
why, read through the evidence layer so that snapshots keep the answers.

- Ollama: the binary, `ollama --version`, the backends its install carries (`lib/ollama/`:
  `cuda_v12`, `rocm`, `vulkan`), the gfx targets of its bundled rocBLAS, and, when its server
  answers (127.0.0.1:11434 or OLLAMA_HOST), `/api/version` and `/api/ps` (loaded models with
  `size` and `size_vram`).
- llama.cpp: `llama-cli`, `llama-server`, `llama-bench` on PATH, `--version` and the devices
  of `llama-cli --list-devices`.
- LM Studio: the `lms` CLI and the runtimes under `~/.lmstudio/extensions/backends/`.
- vLLM and SGLang: the packages the framework probe found in each inspected interpreter.

Which GPU each runtime would use is decided later, against the inventory
(`gpuscope.inventory.llm_runtimes`); this module only reads.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gpuscope.evidence import System
from gpuscope.i18n import message
from gpuscope.model import (
    EvidenceRef,
    Framework,
    Interpreter,
    JsonValue,
    LlmDevice,
    LlmModel,
    LlmRuntime,
)
from gpuscope.parsers.llama_cpp_log import parse_list_devices, parse_llama_version

PROBED_MARKER = "llm-runtimes"  # a library entry saying the runtimes were looked for
HTTP_PREFIX = "http:GET "
OLLAMA_DEFAULT_HOST = "127.0.0.1"
OLLAMA_DEFAULT_PORT = 11434
HTTP_TIMEOUT_S = 1.0
MAX_HTTP_BYTES = 1_000_000
LLAMA_CPP_PROGRAMS = ("llama-cli", "llama-server", "llama-bench")
PYTHON_RUNTIMES = ("vllm", "sglang")

_OLLAMA_VERSION = re.compile(r"version is\s+v?(\d[\w.+-]*)")
_TENSILE_TARGET = re.compile(r"(gfx[0-9a-f]{3,4})", re.IGNORECASE)


# ----------------------------------------------------------------------------- evidence


def http_get_json(url: str) -> JsonValue:
    """GET `url` with a short timeout; the answer as evidence JSON, never raising."""
    try:
        with urllib.request.urlopen(url, timeout=HTTP_TIMEOUT_S) as response:
            raw = response.read(MAX_HTTP_BYTES)
            status = int(getattr(response, "status", 200))
    except urllib.error.HTTPError as exc:
        return {"status": "error", "error": f"HTTP {exc.code}"}
    except urllib.error.URLError as exc:
        reason = exc.reason
        why = reason.strerror if isinstance(reason, OSError) and reason.strerror else reason
        return {"status": "error", "error": str(why)}
    except (OSError, ValueError) as exc:
        return {"status": "error", "error": f"{type(exc).__name__}: {exc}"}
    text = raw.decode("utf-8", errors="replace")
    try:
        body: JsonValue = json.loads(text)
    except ValueError:
        return {"status": "error", "error": message("not JSON"), "http_status": status}
    return {"status": "ok", "http_status": status, "body": body}


def _http(system: System, url: str) -> Mapping[str, Any]:
    answer = system.library(HTTP_PREFIX + url, lambda: http_get_json(url))
    return answer if isinstance(answer, dict) else {"status": "error",
                                                    "error": message("malformed answer")}


def ollama_base_url(ollama_host: str | None) -> str:
    """The address the `ollama` CLI talks to, as Ollama reads OLLAMA_HOST: scheme, host and
    port each optional; a listen-everywhere host is reached on the loopback address."""
    value = (ollama_host or "").strip()
    scheme = "http"
    if "://" in value:
        scheme, _, value = value.partition("://")
    value = value.split("/", 1)[0]
    host, port = value, ""
    if value.startswith("["):
        host, _, rest = value[1:].partition("]")
        port = rest.removeprefix(":")
    elif value.count(":") == 1:
        host, _, port = value.partition(":")
    if host in ("", "0.0.0.0", "::"):
        host = OLLAMA_DEFAULT_HOST
    if ":" in host:
        host = f"[{host}]"
    if not port.isdigit():
        port = str(OLLAMA_DEFAULT_PORT)
    return f"{scheme}://{host}:{port}"


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def ollama_models(body: Any) -> tuple[LlmModel, ...]:
    """The `models` of an `/api/ps` answer."""
    models = body.get("models") if isinstance(body, dict) else None
    found = []
    for raw in models if isinstance(models, list) else ():
        if not isinstance(raw, dict):
            continue
        name = _str(raw.get("name")) or _str(raw.get("model"))
        if name is None:
            continue
        size = _int(raw.get("size"))
        # Servers before mid-2024 left a zero size_vram out (Go's omitempty): all on the CPU
        # (https://github.com/ollama/ollama/issues/4840).
        in_vram = _int(raw.get("size_vram")) if "size_vram" in raw else (
            0 if size is not None else None)
        found.append(LlmModel(name, size, in_vram, _int(raw.get("context_length"))))
    return tuple(found)


def _lib_dir(system: System, binary: str) -> str:
    """`<prefix>/lib/ollama` beside `<prefix>/bin/ollama`, as Ollama's installers lay it out."""
    real = system.realpath(binary)
    prefix = real.rsplit("/", 2)[0] if real.count("/") >= 2 else ""
    return f"{prefix}/lib/ollama"


def ollama_backends(entries: Iterable[str]) -> tuple[str, ...]:
    """The backends an Ollama install carries, from the folders of its `lib/ollama`."""
    found = []
    for entry in entries:
        name = entry.lower()
        if name.startswith("cuda"):
            found.append("cuda")
        elif name.startswith("rocm"):
            found.append("rocm")
        elif name.startswith("vulkan"):
            found.append("vulkan")
    return tuple(dict.fromkeys([*found, "cpu"]))


def _rocm_targets(system: System, lib_dir: str) -> tuple[str, ...]:
    for folder in (f"{lib_dir}/rocm/rocblas/library", f"{lib_dir}/rocblas/library"):
        listing = system.list_dir(folder)
        if listing.entries is not None:
            targets = {m.group(1).lower() for e in listing.entries
                       if (m := _TENSILE_TARGET.search(e))}
            return tuple(sorted(targets))
    return ()


def probe_ollama(system: System) -> LlmRuntime:
    binary = system.which("ollama")
    base = ollama_base_url(system.env("OLLAMA_HOST"))
    version_answer = _http(system, f"{base}/api/version")
    evidence: list[EvidenceRef] = []
    version = None
    backends: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    if binary:
        result = system.run([binary, "--version"], timeout_s=5.0)
        text = f"{result.stdout}\n{result.stderr}"
        if (found := _OLLAMA_VERSION.search(text)) is not None:
            version = found.group(1)
            evidence.append(EvidenceRef(f"{binary} --version", text=found.group(0)))
        lib_dir = _lib_dir(system, binary)
        listing = system.list_dir(lib_dir)
        if listing.entries is not None:
            backends = ollama_backends(listing.entries)
            evidence.append(EvidenceRef(lib_dir, text=" ".join(listing.entries[:12])))
            if "rocm" in backends:
                targets = _rocm_targets(system, lib_dir)
    address = base.split("://", 1)[-1]  # as people write it: 127.0.0.1:11434
    if version_answer.get("status") != "ok":
        why = str(version_answer.get("error") or message("no answer"))
        if not binary:
            return LlmRuntime("ollama", False, reason=message(
                "ollama is not on PATH and no Ollama server answers on {address} ({why})",
                address=address, why=why))
        return LlmRuntime("ollama", True, version, reason=message(
            "the Ollama server does not answer on {address} ({why}): loaded models unknown",
            address=address, why=why), rocm_targets=targets, backends=backends, path=binary,
            evidence=tuple(evidence))
    body = version_answer.get("body")
    server_version = _str(body.get("version")) if isinstance(body, dict) else None
    ps = _http(system, f"{base}/api/ps")
    reason = None
    models: tuple[LlmModel, ...] = ()
    if ps.get("status") == "ok":
        models = ollama_models(ps.get("body"))
        evidence.append(EvidenceRef(f"{base}/api/ps", text=", ".join(
            f"{m.name} size={m.size_bytes} size_vram={m.size_vram_bytes}" for m in models)
            or message("no model loaded")))
    else:
        reason = message("{address}/api/ps did not answer: {why}", address=address,
                         why=str(ps.get("error") or message("no answer")))
    return LlmRuntime("ollama", True, server_version or version, reason=reason, models=models,
                      rocm_targets=targets, backends=backends, path=binary, server=base,
                      evidence=tuple(evidence))


def probe_llama_cpp(system: System, extra_programs: Sequence[str] = ()) -> LlmRuntime:
    found = [(name, path) for name in LLAMA_CPP_PROGRAMS if (path := system.which(name))]
    found += [(p.rsplit("/", 1)[-1], p) for p in extra_programs if system.stat(p).exists]
    if not found:
        return LlmRuntime("llama.cpp", False, reason=message(
            "none of {programs} is on PATH", programs=", ".join(LLAMA_CPP_PROGRAMS)))
    evidence: list[EvidenceRef] = []
    version = None
    devices: tuple[LlmDevice, ...] = ()
    reason = None
    name, path = next(((n, p) for n, p in found if "cli" in n or "server" in n), found[0])
    result = system.run([path, "--version"], timeout_s=10.0)
    version = parse_llama_version(f"{result.stdout}\n{result.stderr}")
    if version:
        evidence.append(EvidenceRef(f"{name} --version", text=f"version: {version}"))
    backends: tuple[str, ...] = ()  # unknown unless the build lists its devices
    if "bench" not in name:
        listed = system.run([path, "--list-devices"], timeout_s=15.0)
        devices = parse_list_devices(f"{listed.stdout}\n{listed.stderr}")
        if devices:
            evidence.append(EvidenceRef(f"{name} --list-devices", text="; ".join(
                f"{d.backend}{d.index if d.index is not None else ''}: {d.name}"
                for d in devices)))
        if listed.ok:
            backends = tuple(dict.fromkeys([*(d.backend for d in devices), "cpu"]))
        else:
            reason = message("{program} --list-devices failed: {why}", program=name,
                             why=listed.error or f"exit {listed.returncode}")
    return LlmRuntime("llama.cpp", True, version, reason=reason, devices=devices,
                      backends=backends, path=path, evidence=tuple(evidence))


def lmstudio_backend(folder: str) -> str:
    """The backend of an LM Studio runtime folder
    ("llama.cpp-linux-x86_64-amd-rocm-avx2-1.67.0" -> "rocm")."""
    name = folder.lower()
    for word, backend in (("rocm", "rocm"), ("cuda", "cuda"), ("vulkan", "vulkan"),
                          ("metal", "metal"), ("mlx", "metal")):
        if word in name:
            return backend
    return "cpu"


def probe_lmstudio(system: System) -> LlmRuntime:
    home = system.env("HOME") or ""
    cli = system.which("lms")
    bundled = f"{home}/.lmstudio/bin/lms" if home else ""
    if cli is None and bundled and system.stat(bundled).exists:
        cli = bundled
    folder = f"{home}/.lmstudio/extensions/backends" if home else ""
    listing = system.list_dir(folder) if folder else None
    runtimes = tuple(e for e in listing.entries or () if not e.startswith(".")) \
        if listing is not None else ()
    if cli is None and not runtimes:
        return LlmRuntime("lmstudio", False, reason=message(
            "lms is not on PATH and there is no {folder}",
            folder=folder or "~/.lmstudio/extensions/backends"))
    backends = tuple(dict.fromkeys([*(lmstudio_backend(r) for r in runtimes), "cpu"]))
    evidence = (EvidenceRef(folder, text=" ".join(runtimes[:12])),) if runtimes else ()
    return LlmRuntime("lmstudio", True, backends=backends, path=cli, evidence=evidence,
                      reason=None if runtimes else message(
                          "no runtime is installed under {folder}", folder=folder))


def python_runtimes(interpreters: Sequence[Interpreter],
                    frameworks: Sequence[Framework]) -> tuple[LlmRuntime, ...]:
    """vLLM and SGLang as the framework probe found them, in the first interpreter that has
    each; not found (with the interpreters looked in) otherwise."""
    found = []
    inspected = [i for i in interpreters if i.inspected]
    for name in PYTHON_RUNTIMES:
        holder = next((i for i in inspected if i.packages.get(name)), None)
        if holder is None:
            where = ", ".join(i.python for i in inspected)
            found.append(LlmRuntime(name, False, reason=message(
                "not installed in {interpreters}", interpreters=where) if where
                else message("no Python interpreter was inspected")))
            continue
        torch = next((f for f in frameworks if f.name == "torch" and f.python == holder.python),
                     None)
        build = torch.build if torch is not None else None
        found.append(LlmRuntime(
            name, True, holder.packages[name], path=holder.python, torch_build=build,
            backends=(build,) if build in ("rocm", "cuda", "cpu") else (),
            reason=None if torch is not None else message("torch is not importable there"),
            evidence=(EvidenceRef(f"{holder.python}: importlib.metadata",
                                  text=f"{name} {holder.packages[name]}"),)))
    return tuple(found)


def probe_llm_runtimes(system: System, interpreters: Sequence[Interpreter] = (),
                       frameworks: Sequence[Framework] = (),
                       llama_programs: Sequence[str] = ()) -> tuple[LlmRuntime, ...]:
    """Every runtime of LLM_RUNTIME_NAMES, found or not with why. A snapshot taken before
    gpuscope looked for them says so rather than "not found"."""
    marker = system.library(PROBED_MARKER, lambda: {"status": "ok"})
    if not isinstance(marker, dict) or marker.get("status") != "ok":
        why = message("not recorded in this snapshot (taken before gpuscope looked for LLM "
                      "runtimes)")
        return tuple(LlmRuntime(name, False, reason=why)
                     for name in ("ollama", "llama.cpp", "lmstudio", *PYTHON_RUNTIMES))
    return (probe_ollama(system), probe_llama_cpp(system, llama_programs),
            probe_lmstudio(system), *python_runtimes(interpreters, frameworks))
