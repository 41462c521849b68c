"""AMD support rules of the second held-out round: the ROCm release an amdgpu-dkms driver gives
when nothing else names it, GPUs AMD's WSL list never names, and an iGPU beside a dGPU whose
target the installed ROCm does not support (corpus 263, 265, 266)."""

from __future__ import annotations

from fixture_paths import CORPUS_DIR

from gpuscope.doctor import DoctorInput, diagnose
from gpuscope.doctor.rules_amd import driver_rocm_release, target_support
from gpuscope.importer import import_files
from gpuscope.inventory import build_device_index
from gpuscope.model import (
    Finding,
    Gpu,
    GpuKind,
    Host,
    Inventory,
    Layer,
    Origin,
    OriginKind,
    Severity,
    Signal,
    Stack,
    Vendor,
)


def gpu(index: int, gfx: str, name: str, kind: GpuKind = GpuKind.DISCRETE,
        seen_by: tuple[Layer, ...] = (Layer.ROCM,), **more: object) -> Gpu:
    return Gpu(index=index, vendor=Vendor.AMD, name=name, gfx_target=gfx, kind=kind,
               kfd_node=index + 1, seen_by=seen_by, **more)  # type: ignore[arg-type]


def machine(gpus: list[Gpu], stack: Stack, host: Host | None = None,
            signals: tuple[Signal, ...] = ()) -> DoctorInput:
    inventory = Inventory(gpus=tuple(gpus), stack=stack, host=host or Host(os="linux"),
                          probes=(), device_index=build_device_index(gpus, stack.environment),
                          origin=Origin(kind=OriginKind.IMPORTED))
    return DoctorInput(inventory, (), signals)


def of(findings: tuple[Finding, ...], finding_id: str) -> list[Finding]:
    return [f for f in findings if f.id == finding_id]


def corpus(number: str, *files: str) -> DoctorInput:
    folder = next(CORPUS_DIR.glob(f"{number}-*"))
    imported = import_files([str(folder / name) for name in files])
    return DoctorInput(imported.inventory, imported.frameworks, imported.signals)


# ----------------------------------------------------------------------------- the driver


def test_the_dkms_driver_names_the_rocm_release_when_nothing_else_does() -> None:
    phoenix = gpu(0, "gfx1103", "AMD Radeon 780M", GpuKind.INTEGRATED)
    data = machine([phoenix], Stack(amdgpu_driver_version="6.12.12", kfd_loaded=True))
    release = driver_rocm_release(data)
    assert release is not None and release.rocm == "6.4"
    finding = of(diagnose(data), "rocm.gfx_unsupported")[0]
    assert finding.title == "gfx1103 is not officially supported by ROCm 6.4"
    assert "amdgpu-dkms 6.12.12" in finding.detail
    assert "https://repo.radeon.com/amdgpu/6.4/ubuntu/pool/main/a/amdgpu-dkms/" in (
        finding.sources)
    # Without the driver the newest release gpuscope knows is checked instead.
    bare = of(diagnose(machine([phoenix], Stack(kfd_loaded=True))), "rocm.gfx_unsupported")[0]
    assert "up to 7.2" in bare.title


def test_a_release_that_names_itself_wins_over_the_driver() -> None:
    r9700 = gpu(0, "gfx1201", "AMD Radeon AI PRO R9700")
    stack = Stack(rocm_version="6.2.4", amdgpu_driver_version="6.12.12", kfd_loaded=True)
    data = machine([r9700], stack)
    assert driver_rocm_release(data) is None
    assert "ROCm 6.2.4" in of(diagnose(data), "rocm.gfx_unsupported")[0].title


def test_a_driver_series_is_unsupported_only_where_no_release_of_it_lists_the_target() -> None:
    # gfx1201 came with 6.4.1, and driver 6.12.12 ships with every 6.4.x: no claim.
    r9700 = gpu(0, "gfx1201", "AMD Radeon AI PRO R9700")
    data = machine([r9700], Stack(amdgpu_driver_version="6.12.12", kfd_loaded=True))
    verdict = target_support(data, "gfx1201")
    assert verdict is not None and verdict.supported is True
    assert not of(diagnose(data), "rocm.gfx_unsupported")
    # With driver 6.8.5 (ROCm 6.2) it is flagged, judged against ROCm 6.2.
    older = machine([r9700], Stack(amdgpu_driver_version="6.8.5", kfd_loaded=True))
    assert "ROCm 6.2" in of(diagnose(older), "rocm.gfx_unsupported")[0].title


def test_corpus_263_makes_no_claim_where_amds_ryzen_pages_may_list_gfx1151() -> None:
    # Strix Halo is missing from the 6.4 Linux GPU list but AMD's separate Radeon-and-Ryzen
    # pages are reported to list it from 6.4.4: the 6.4 series is uncertain, so no warning.
    data = corpus("263", "dkms-status.txt", "amd-smi-static.txt")
    assert data.inventory.stack.amdgpu_driver_version == "6.12.12"
    verdict = target_support(data, "gfx1151")
    assert verdict is None or verdict.supported is not False
    assert not of(diagnose(data), "rocm.gfx_unsupported")


# ----------------------------------------------------------------------------- WSL


def test_a_gpu_amds_wsl_list_never_names_is_not_usable_under_wsl() -> None:
    navi21 = gpu(0, "gfx1030", "AMD Radeon RX 6800 XT", seen_by=(Layer.ROCM, Layer.TORCH))
    data = machine([navi21], Stack(hip_runtime_version="6.1.40093"),
                   Host(os="wsl", distro="Ubuntu 22.04.4 LTS"))
    findings = diagnose(data)
    per_gpu = [f for f in of(findings, "rocm.wsl") if f.gpu == 0]
    assert len(per_gpu) == 1 and per_gpu[0].severity is Severity.ERROR
    assert "not supported by ROCm on WSL" in per_gpu[0].title
    assert per_gpu[0].sources == (
        "https://rocm.docs.amd.com/projects/radeon/en/latest/docs/compatibility/wsl/"
        "wsl_compatibility.html",)
    assert not of(findings, "gpu.usable")
    # The native Linux list is not applied under WSL (gfx1030 is on it).
    assert not of(findings, "rocm.gfx_unsupported")


def test_rdna3_under_wsl_stays_usable() -> None:
    navi31 = gpu(0, "gfx1100", "AMD Radeon RX 7900 XTX", seen_by=(Layer.ROCM, Layer.TORCH))
    findings = diagnose(machine([navi31], Stack(hip_runtime_version="6.1.40093"),
                                Host(os="wsl", distro="Ubuntu 22.04.4 LTS")))
    assert not [f for f in of(findings, "rocm.wsl") if f.severity is Severity.ERROR]
    assert [f.gpu for f in of(findings, "gpu.usable")] == [0]


def test_corpus_265_rx6800xt_under_wsl() -> None:
    findings = diagnose(corpus("265", "collect_env.txt", "rocminfo.txt"))
    assert [f.severity for f in of(findings, "rocm.wsl")] == [Severity.ERROR, Severity.INFO]
    assert not of(findings, "gpu.usable")
    assert not of(findings, "amdgpu.driver_not_loaded") and not of(findings, "kfd.missing")


# ----------------------------------------------------------------------------- iGPU


def test_an_unsupported_igpu_beside_a_dgpu_is_not_called_usable() -> None:
    rx6800 = gpu(0, "gfx1030", "AMD Radeon RX 6800")
    cezanne = gpu(1, "gfx90c", "AMD Radeon Graphics", GpuKind.INTEGRATED)
    findings = diagnose(machine([rx6800, cezanne], Stack(rocm_version="5.4.3",
                                                         kfd_loaded=True)))
    igpu = of(findings, "rocm.igpu_enumerated")[0]
    assert igpu.severity is Severity.ERROR and igpu.gpu == 1
    assert igpu.fix_commands == ("export HIP_VISIBLE_DEVICES=0",)
    assert "gfx90c" in igpu.title and "ROCm 5.4" in igpu.detail
    assert "https://rocm.docs.amd.com/en/docs-5.4.3/release/gpu_os_support.html" in (
        igpu.sources)
    assert [f.gpu for f in of(findings, "gpu.usable")] == [0]
    # The override advice stays off the iGPU: hiding it is the advice.
    assert not of(findings, "rocm.gfx_unsupported")


def test_a_supported_igpu_beside_a_dgpu_is_only_a_warning() -> None:
    # MI300A-like integrated GPU whose target the release lists: enumerated, still usable.
    dgpu = gpu(0, "gfx942", "AMD Instinct MI300X")
    apu = gpu(1, "gfx942", "AMD Instinct MI300A", GpuKind.INTEGRATED)
    findings = diagnose(machine([dgpu, apu], Stack(rocm_version="6.2.4", kfd_loaded=True)))
    assert of(findings, "rocm.igpu_enumerated")[0].severity is Severity.WARNING
    assert [f.gpu for f in of(findings, "gpu.usable")] == [0, 1]


def test_an_igpu_kfd_refused_is_not_enumerated_by_rocm() -> None:
    # The SMI tools list every amdgpu device; KFD's "DID 15d8 is missing in supported_devices"
    # says ROCm never sees this one.
    dgpu = gpu(0, "gfx803", "Radeon RX 560X", seen_by=(Layer.ROCM_SMI, Layer.PCI),
               pci_vendor_id="0x1002", pci_device_id="0x67ef")
    picasso = gpu(1, "gfx902", "Picasso", GpuKind.INTEGRATED,
                  seen_by=(Layer.ROCM_SMI, Layer.PCI), pci_vendor_id="0x1002",
                  pci_device_id="0x15d8")
    stack = Stack(rocm_version="2.1", kfd_loaded=True)
    refused = Signal("kfd.device_unsupported", "1002:15d8")
    assert not of(diagnose(machine([dgpu, picasso], stack, signals=(refused,))),
                  "rocm.igpu_enumerated")
    assert of(diagnose(machine([dgpu, picasso], stack)), "rocm.igpu_enumerated")


def test_corpus_266_one_usable_gpu_the_rx6800() -> None:
    findings = diagnose(corpus("266", "rocminfo.txt", "dpkg-l-grep-rocm.txt"))
    assert [f.gpu for f in of(findings, "gpu.usable")] == [0]
    assert of(findings, "rocm.igpu_enumerated")[0].gpu == 1
