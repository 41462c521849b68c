"""CPU model names that only a hypervisor gives: a guest's trace in any output that names the
CPU (/proc/cpuinfo's "model name", lscpu, rocminfo's CPU agent, PyTorch's collect_env).

QEMU's built-in x86 CPU models carry their own model ids (target/i386/cpu.c in
https://gitlab.com/qemu-project/qemu): "Common KVM processor" (kvm64), "Common 32-bit KVM
processor" (kvm32), "QEMU Virtual CPU version 2.5+" (qemu64, qemu32, athlon), and the named
models such as "Intel Xeon Processor (Icelake)" or "AMD EPYC-Rome Processor". Real CPUs'
brand strings carry "(R)", "(TM)" or a model number instead, and a guest given `-cpu host`
sees the host's real name (it then shows only in other traces).
"""

from __future__ import annotations

import re

_MAX_MODEL_CHARS = 200

# Each pattern is anchored at both ends and has no nested repetition: linear on any text.
_QEMU_MODELS: tuple[re.Pattern[str], ...] = (
    re.compile(r"Common (?:32-bit )?KVM processor"),
    re.compile(r"QEMU (?:Virtual|TCG) CPU(?: version [\w.+-]{1,20})?"),
    # Intel's named QEMU models: "Intel Core Processor (Skylake, IBRS)", "Intel Xeon
    # Processor (Cascadelake)", "Intel Atom Processor (SnowRidge)".
    re.compile(r"Intel (?:Core|Xeon|Atom) Processor \([A-Za-z][\w ,-]{0,40}\)"),
    # AMD's and Hygon's: "AMD EPYC Processor", "AMD EPYC-Rome Processor", "AMD EPYC Processor
    # (with IBPB)", "Hygon Dhyana Processor".
    re.compile(r"AMD EPYC(?:-[A-Za-z]{1,20})? Processor(?: \(with IBPB\))?"),
    re.compile(r"Hygon Dhyana Processor"),
    # The older named models: "Intel Xeon E312xx (Sandy Bridge)", "Westmere E56xx/L56xx/X56xx
    # (Nehalem-C)", "Intel Core i7 9xx (Nehalem Class Core i7)", "AMD Opteron 62xx class CPU".
    re.compile(r"Intel Xeon E3-?12xx(?: v2)? \([\w ,-]{1,40}\)"),
    re.compile(r"Westmere E56xx/L56xx/X56xx \([\w ,-]{1,40}\)"),
    re.compile(r"Intel Core i7 9xx \(Nehalem Class Core i7\)"),
    re.compile(r"Intel Core 2 Duo P9xxx \(Penryn Class Core 2\)"),
    re.compile(r"Intel Celeron_4x0 \(Conroe/Merom Class Core 2\)"),
    re.compile(r"AMD Opteron (?:240 \(Gen 1 Class Opteron\)|22xx \(Gen 2 Class Opteron\)|"
               r"23xx \(Gen 3 Class Opteron\)|62xx class CPU|63xx class CPU)"),
)


def hypervisor_of_cpu_model(cpu_model: str | None) -> str | None:
    """"QEMU/KVM" when the CPU's model name is one of QEMU's virtual CPU models, else None."""
    if not cpu_model:
        return None
    name = " ".join(cpu_model[:_MAX_MODEL_CHARS].split())
    if any(pattern.fullmatch(name) for pattern in _QEMU_MODELS):
        return "QEMU/KVM"
    return None
