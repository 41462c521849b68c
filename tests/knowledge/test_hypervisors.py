"""QEMU's virtual CPU model names (a VM guest's trace in any output naming the CPU) against
real CPUs' brand strings."""

from __future__ import annotations

import pytest

from gpuscope.knowledge.hypervisors import hypervisor_of_cpu_model


@pytest.mark.parametrize("name", [
    "Common KVM processor",  # kvm64: the CPU agent of rocminfo in a Proxmox guest (corpus)
    "Common 32-bit KVM processor",
    "QEMU Virtual CPU version 2.5+",
    "QEMU TCG CPU version 8.2.0",
    "Intel Core Processor (Skylake, IBRS)",
    "Intel Xeon Processor (Cascadelake)",
    "Intel Xeon Processor (Icelake)",
    "AMD EPYC Processor",
    "AMD EPYC Processor (with IBPB)",
    "AMD EPYC-Rome Processor",
    "Intel Xeon E312xx (Sandy Bridge)",
    "Westmere E56xx/L56xx/X56xx (Nehalem-C)",
    "AMD Opteron 62xx class CPU",
    "  Common KVM processor               ",  # rocminfo pads its values
])
def test_qemu_models(name: str) -> None:
    assert hypervisor_of_cpu_model(name) == "QEMU/KVM"


@pytest.mark.parametrize("name", [
    "AMD EPYC 7763 64-Core Processor",
    "AMD Ryzen 9 7950X 16-Core Processor",
    "AMD RYZEN AI MAX+ 395 w/ Radeon 8060S",
    "Intel(R) Xeon(R) CPU E5-2680 v2 @ 2.80GHz",
    "Intel(R) Core(TM) i7-4790K CPU @ 4.00GHz",
    "AMD Eng Sample: 100-000000314-08_35/20_N",
    "",
    None,
    "Common KVM processor" + "x" * 100_000,
])
def test_real_cpus(name: str | None) -> None:
    assert hypervisor_of_cpu_model(name) is None
