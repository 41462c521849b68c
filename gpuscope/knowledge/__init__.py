"""gpuscope's knowledge base: sourced tables in resources/*.toml and the typed lookups the
diagnosis rules use. Every table is loaded once, on first use."""

from __future__ import annotations

from gpuscope.knowledge.cuda import (
    ArchitectureInfo,
    DriverRequirement,
    DriverVerdict,
    architecture_for_cc,
    cc_info,
    cuda_dropped,
    driver_supports,
    min_driver_for_cuda,
    sm_name,
)
from gpuscope.knowledge.devices import DeviceIdentity, identify_device
from gpuscope.knowledge.overrides import OverrideAdvice, general_caveats, hsa_override_for
from gpuscope.knowledge.rocm_support import (
    SupportVerdict,
    known_rocm_releases,
    official_support,
)
from gpuscope.knowledge.specs import GpuSpec, all_specs, gpu_spec
from gpuscope.knowledge.torch_builds import (
    TorchRelease,
    TorchVersion,
    default_arch_list,
    install_command,
    official_wheel_has_target,
    parse_torch_version,
    targets_never_in_official_wheels,
    torch_release,
)

__all__ = [
    "ArchitectureInfo",
    "DeviceIdentity",
    "DriverRequirement",
    "DriverVerdict",
    "GpuSpec",
    "OverrideAdvice",
    "SupportVerdict",
    "TorchRelease",
    "TorchVersion",
    "all_specs",
    "architecture_for_cc",
    "cc_info",
    "cuda_dropped",
    "default_arch_list",
    "driver_supports",
    "general_caveats",
    "gpu_spec",
    "hsa_override_for",
    "identify_device",
    "install_command",
    "known_rocm_releases",
    "min_driver_for_cuda",
    "official_support",
    "official_wheel_has_target",
    "parse_torch_version",
    "sm_name",
    "targets_never_in_official_wheels",
    "torch_release",
]
