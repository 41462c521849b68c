"""NVIDIA rules: the driver, NVML, MIG and a CUDA toolkit newer than the driver."""

from __future__ import annotations

from collections.abc import Sequence

from gpuscope.doctor.inputs import DoctorInput, refs, version_tuple
from gpuscope.model import (
    EvidenceRef,
    Finding,
    Layer,
    Severity,
    Signal,
    Vendor,
)


def rule_nvidia(data: DoctorInput) -> list[Finding]:
    findings: list[Finding] = []
    mismatch = data.signals_of("nvml.driver_library_mismatch")
    if mismatch:
        findings.append(Finding(
            "nvidia.driver_library_mismatch", Severity.ERROR,
            "NVIDIA driver and library versions do not match",
            detail=("The NVIDIA kernel module that is loaded is not the version of the "
                    "installed user-space libraries (libnvidia-ml): usually a driver update "
                    "without a reboot."),
            fix="sudo reboot  # or unload and reload the nvidia modules: sudo rmmod nvidia_uvm "
                "nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia",
            evidence=refs(mismatch),
        ))
    not_loaded = data.signals_of("nvidia.driver_not_loaded")
    unbound = [g for g in data.gpus_of(Vendor.NVIDIA)
               if g.kernel_driver not in (None, "nvidia") and Layer.NVML not in g.seen_by]
    if (not_loaded or unbound) and not mismatch:
        findings.append(Finding(
            "nvidia.driver_not_loaded", Severity.ERROR, "The NVIDIA driver is not loaded",
            detail=("nvidia-smi cannot talk to the driver" if not_loaded else
                    f"{unbound[0].name} is bound to {unbound[0].kernel_driver}, not nvidia"),
            fix="sudo modprobe nvidia  # if that fails: reinstall the driver for the running "
                "kernel (e.g. sudo ubuntu-drivers install) and check Secure Boot module signing",
            gpu=unbound[0].index if unbound else None,
            evidence=refs(not_loaded),
        ))
    mig = data.signals_of("nvidia.mig_enabled")
    # Live NVML records MIG as a stack extra per bus; pasted nvidia-smi as a signal.
    # Compare buses by "bb:dd.f": nvidia-smi writes 8-digit domains, sysfs 4.
    mig_buses = {(s.detail or "").lower()[-7:] for s in mig} | {
        key.split(":", 1)[1].lower()[-7:]
        for key, on in data.inventory.stack.extras.items()
        if key.startswith("nvml_mig_enabled:") and on is True
    }
    mig_buses.discard("")
    for gpu in data.gpus_of(Vendor.NVIDIA):
        if gpu.pci_bus and gpu.pci_bus.lower()[-7:] in mig_buses:
            findings.append(_mig_finding(gpu.index, mig))
    if mig and not any(f.id == "nvidia.mig_enabled" for f in findings):
        findings.append(_mig_finding(None, mig))
    findings += _toolkit_newer_than_driver(data)
    return findings


def _mig_finding(gpu: int | None, signals: Sequence[Signal]) -> Finding:
    return Finding(
        "nvidia.mig_enabled", Severity.INFO, "MIG mode is on",
        detail=("The GPU is split into MIG instances: CUDA programs see an instance, not the "
                "whole GPU, and must be pointed at one (CUDA_VISIBLE_DEVICES=MIG-...)."),
        fix="nvidia-smi -L  # lists the MIG instances and their UUIDs",
        gpu=gpu, evidence=refs(signals),
    )


def _toolkit_newer_than_driver(data: DoctorInput) -> list[Finding]:
    """nvcc's CUDA above the driver's CUDA: programs built with it need minor-version
    compatibility (same major) or fail outright (newer major)."""
    stack = data.inventory.stack
    toolkit = stack.extras.get("cuda_toolkit_version")
    driver_cuda = version_tuple(stack.cuda_driver_version)
    toolkit_version = version_tuple(str(toolkit)) if toolkit is not None else None
    if driver_cuda is None or toolkit_version is None or toolkit_version[:2] <= driver_cuda[:2]:
        return []
    newer_major = toolkit_version[0] > driver_cuda[0]
    return [Finding(
        "nvidia.driver_too_old", Severity.ERROR if newer_major else Severity.WARNING,
        f"The CUDA toolkit ({toolkit}) is newer than the driver's CUDA "
        f"({stack.cuda_driver_version})",
        detail=("Programs built with this toolkit need a driver that supports its CUDA "
                "version" + ("." if newer_major else "; within one major version they run "
                             "through minor-version compatibility, without newer features.")),
        fix="Update the NVIDIA driver to one that lists CUDA "
            f"{'.'.join(str(p) for p in toolkit_version[:2])} in nvidia-smi",
        evidence=(EvidenceRef(stack.field_sources.get("cuda_toolkit_version", "nvcc")),),
    )]

