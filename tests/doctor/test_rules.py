"""Rules on live-style inputs: device nodes, framework builds, visible devices."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from gpuscope.doctor import DoctorInput, diagnose
from gpuscope.doctor.layers import LayerState, layers_for
from gpuscope.importer import import_files
from gpuscope.inventory import build_device_index
from gpuscope.model import (
    DeviceNodeAccess,
    EvidenceRef,
    Finding,
    Framework,
    FrameworkDevice,
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

LIVE = Origin(kind=OriginKind.LIVE)


def amd_gpu(index: int = 0, gfx: str = "gfx1100", kind: GpuKind = GpuKind.DISCRETE,
            kfd_node: int | None = 1, name: str = "AMD Radeon RX 7900 XTX") -> Gpu:
    return Gpu(index=index, vendor=Vendor.AMD, name=name, gfx_target=gfx, kind=kind,
               kfd_node=kfd_node, kernel_driver="amdgpu", pci_bus=f"0000:0{index + 3}:00.0",
               seen_by=(Layer.SYSFS, Layer.KFD) if kfd_node is not None else (Layer.SYSFS,))


def machine(gpus: list[Gpu], stack: Stack | None = None, host: Host | None = None,
            frameworks: tuple[Framework, ...] = ()) -> DoctorInput:
    stack = stack or Stack(rocm_version="6.2.4", kfd_loaded=True, device_nodes=(
        DeviceNodeAccess("/dev/kfd", exists=True, mode="crw-rw----", owner_group="render",
                         can_open=True),))
    inventory = Inventory(
        gpus=tuple(gpus), stack=stack, host=host or Host(os="linux", distro="Ubuntu 24.04"),
        probes=(), device_index=build_device_index(gpus, stack.environment), origin=LIVE)
    return DoctorInput(inventory, frameworks)


def ids(findings: tuple[Finding, ...]) -> dict[str, Finding]:
    return {f.id: f for f in findings}


def torch(build: str, version: str = "2.5.1", build_version: str | None = None,
          available: bool | None = None, arch: tuple[str, ...] = (),
          devices: tuple[FrameworkDevice, ...] = ()) -> Framework:
    return Framework(name="torch", version=version, build=build, build_version=build_version,
                     gpu_available=available, arch_list=arch, devices=devices,
                     python="/usr/bin/python3")


def test_a_healthy_rocm_machine_is_usable() -> None:
    data = machine([amd_gpu()], frameworks=(torch("rocm", "2.5.1+rocm6.2", "6.2.41133", True,
                                                   ("gfx90a", "gfx1100")),))
    found = ids(diagnose(data))
    assert found["gpu.usable"].severity is Severity.OK and found["gpu.usable"].gpu == 0
    assert not [f for f in found.values() if f.severity is Severity.ERROR]
    rows = layers_for(data, diagnose(data), data.inventory.gpus[0])
    assert [r.state for r in rows] == [LayerState.OK] * 4


def test_permission_denied_on_kfd_names_the_group_and_blocks_the_gpu() -> None:
    stack = Stack(kfd_loaded=True, device_nodes=(DeviceNodeAccess(
        "/dev/kfd", exists=True, mode="crw-rw----", owner_user="root", owner_group="render",
        can_open=False, reason="permission denied: /dev/kfd is crw-rw---- root:render and "
                               "user bob is not in group render"),))
    found = ids(diagnose(machine([amd_gpu()], stack)))
    denied = found["kfd.permission_denied"]
    assert denied.severity is Severity.ERROR
    # The command runs as pasted: $USER, never the name from the evidence, and no prose.
    assert denied.fix_commands == ("sudo usermod -aG render,video $USER",)
    assert denied.fix is not None and "log out and back in" in denied.fix
    assert "bob" not in " ".join(denied.fix_commands)
    assert denied.sources and all(url.startswith("https://") for url in denied.sources)
    assert "gpu.usable" not in found


def test_a_group_granted_after_login_asks_for_a_new_login() -> None:
    stack = Stack(kfd_loaded=True, device_nodes=(DeviceNodeAccess(
        "/dev/kfd", exists=True, owner_group="render", can_open=False,
        group_granted_not_active=True, reason="... user alice was added to group render"),))
    denied = ids(diagnose(machine([amd_gpu()], stack)))["kfd.permission_denied"]
    assert denied.fix is not None and denied.fix.startswith("Log out and back in")
    assert denied.fix_commands == ("newgrp render",)


def test_missing_kfd_node_with_a_gpu_present() -> None:
    stack = Stack(kfd_loaded=False, device_nodes=(DeviceNodeAccess("/dev/kfd", exists=False),))
    found = ids(diagnose(machine([amd_gpu(kfd_node=None)], stack)))
    assert "--device=/dev/kfd" in (found["kfd.missing"].fix or "")


def test_under_wsl_kfd_and_driver_checks_do_not_apply() -> None:
    stack = Stack(device_nodes=(DeviceNodeAccess("/dev/kfd", exists=False),))
    gpu = Gpu(index=0, vendor=Vendor.AMD, gfx_target="gfx1100", kind=GpuKind.DISCRETE,
              seen_by=(Layer.ROCM,), name="AMD Radeon RX 7900 XTX")
    found = ids(diagnose(machine([gpu], stack, Host(os="wsl"))))
    assert "rocm.wsl" in found and "kfd.missing" not in found
    assert "amdgpu.driver_not_loaded" not in found


def test_unsupported_target_gets_the_override_and_caveat() -> None:
    found = ids(diagnose(machine([amd_gpu(gfx="gfx1031", name="AMD Radeon RX 6700 XT")])))
    unsupported = found["rocm.gfx_unsupported"]
    assert unsupported.fix_commands == ("export HSA_OVERRIDE_GFX_VERSION=10.3.0",)
    assert unsupported.severity is Severity.WARNING and unsupported.gpu == 0
    # The caveat comes from public pages, cited as URLs, never as internal notes.
    assert "https://github.com/ROCm/ROCm/issues/2353" in unsupported.sources
    assert "facts.md" not in unsupported.detail and "[S]" not in unsupported.detail


def test_igpu_beside_dgpu_names_the_visible_devices_to_keep() -> None:
    gpus = [amd_gpu(0, "gfx1201", kfd_node=1, name="AMD Radeon AI PRO R9700"),
            amd_gpu(1, "gfx1036", GpuKind.INTEGRATED, kfd_node=2, name="AMD Radeon Graphics")]
    rocm72 = Stack(rocm_version="7.2.0", kfd_loaded=True)
    found = ids(diagnose(machine(gpus, rocm72)))
    assert found["rocm.igpu_enumerated"].fix_commands == ("export HIP_VISIBLE_DEVICES=0",)
    assert "rocm.gfx_unsupported" not in found  # the iGPU is hidden, not overridden
    # gfx1201 arrived in ROCm 6.4: on 6.2 the R9700 itself is flagged.
    older = ids(diagnose(machine(gpus, Stack(rocm_version="6.2.4", kfd_loaded=True))))
    assert older["rocm.gfx_unsupported"].gpu == 0
    hidden = machine(gpus, Stack(rocm_version="7.2.0", environment={"HIP_VISIBLE_DEVICES": "0"}))
    assert "rocm.igpu_enumerated" not in ids(diagnose(hidden))


def test_torch_without_kernels_for_the_gpu() -> None:
    build = torch("rocm", "2.5.1+rocm6.2", "6.2.41133", True, ("gfx900", "gfx1030", "gfx1100"))
    found = ids(diagnose(machine([amd_gpu(gfx="gfx1031", name="RX 6700 XT")],
                                 frameworks=(build,))))
    missing = found["torch.arch_missing"]
    assert missing.severity is Severity.ERROR and missing.gpu == 0
    assert missing.fix_commands == ("export HSA_OVERRIDE_GFX_VERSION=10.3.0",)
    assert missing.fix is not None and "HSA_OVERRIDE_GFX_VERSION=10.3.0" in missing.fix
    assert missing.framework is not None and missing.framework.matches(build)
    assert "gpu.usable" not in found


def test_cpu_build_on_a_machine_without_gpus_is_information() -> None:
    found = ids(diagnose(machine([], Stack(), frameworks=(torch("cpu", "2.13.0+cpu"),))))
    assert found["torch.cpu_build"].severity is Severity.INFO
    assert not [f for f in found.values() if f.severity is Severity.ERROR]


def test_cpu_build_on_an_amd_machine_says_how_to_get_the_rocm_build() -> None:
    found = ids(diagnose(machine([amd_gpu()], frameworks=(torch("cpu", "2.5.1+cpu"),))))
    cpu = found["torch.cpu_build"]
    assert cpu.severity is Severity.WARNING and "rocm" in (cpu.fix or "")


def test_wrong_vendor_builds() -> None:
    found = ids(diagnose(machine([amd_gpu()], frameworks=(
        torch("cuda", "2.5.1+cu124", "12.4", False),))))
    assert found["torch.cuda_build_on_amd"].severity is Severity.ERROR
    nvidia = Gpu(index=0, vendor=Vendor.NVIDIA, name="RTX 4090", kind=GpuKind.DISCRETE,
                 seen_by=(Layer.NVML,), kernel_driver="nvidia", pci_bus="0000:01:00.0")
    found = ids(diagnose(machine([nvidia], Stack(nvidia_driver_version="550.54.14",
                                                 cuda_driver_version="12.4"),
                                 frameworks=(torch("rocm", "2.5.1+rocm6.2", "6.2", False),))))
    assert "torch.rocm_build_on_nvidia" in found


def test_gpu_build_that_sees_no_gpu() -> None:
    found = ids(diagnose(machine([amd_gpu()], frameworks=(
        torch("rocm", "2.5.1+rocm6.2", "6.2.41133", False, ("gfx1100",)),))))
    assert found["torch.no_gpu"].severity is Severity.ERROR


def test_live_mig_extra_becomes_a_finding_on_that_gpu() -> None:
    gpu = Gpu(index=0, vendor=Vendor.NVIDIA, name="A100", kind=GpuKind.DISCRETE,
              seen_by=(Layer.NVML,), pci_bus="0000:01:00.0", kernel_driver="nvidia")
    stack = Stack(nvidia_driver_version="535.54.03", cuda_driver_version="12.2",
                  extras={"nvml_mig_enabled:0000:01:00.0": True})
    found = ids(diagnose(machine([gpu], stack)))
    assert found["nvidia.mig_enabled"].gpu == 0 and "gpu.usable" in found


def test_nvidia_gpu_on_nouveau_means_the_driver_is_not_loaded() -> None:
    gpu = Gpu(index=0, vendor=Vendor.NVIDIA, name="RTX 3060", kind=GpuKind.DISCRETE,
              seen_by=(Layer.SYSFS,), pci_bus="0000:01:00.0", kernel_driver="nouveau")
    found = ids(diagnose(machine([gpu], Stack())))
    assert found["nvidia.driver_not_loaded"].gpu == 0
    # nouveau holds the GPU: the fix names it, and loading nvidia is no command to give.
    assert "nouveau" in (found["nvidia.driver_not_loaded"].fix or "")
    assert found["nvidia.driver_not_loaded"].fix_commands == ()


def test_a_driver_library_mismatch_names_the_versions_it_saw() -> None:
    gpu = Gpu(index=0, vendor=Vendor.NVIDIA, name="RTX 3060", kind=GpuKind.DISCRETE,
              seen_by=(Layer.PCI,), pci_bus="0000:01:00.0", kernel_driver="nvidia")
    stack = Stack(nvidia_driver_version="580.173.02", nvml_library_version="580.178")
    data = with_signals(machine([gpu], stack), signal("nvml.driver_library_mismatch"))
    mismatch = ids(diagnose(data))["nvidia.driver_library_mismatch"]
    assert "580.173.02" in mismatch.detail and "580.178" in mismatch.detail
    assert mismatch.fix_commands == ("sudo reboot",)


def test_wsl_with_only_nvidia_says_nothing_about_rocm() -> None:
    gpu = Gpu(index=0, vendor=Vendor.NVIDIA, name="RTX 3060", kind=GpuKind.DISCRETE,
              seen_by=(Layer.NVML,), pci_bus="0000:01:00.0")
    found = ids(diagnose(machine([gpu], Stack(nvidia_driver_version="511.79",
                                              cuda_driver_version="11.6"), Host(os="wsl"))))
    assert "rocm.wsl" not in found and "gpu.usable" in found


def test_radeon_on_an_unlisted_distribution_from_rocm_6_4_1() -> None:
    gpu = amd_gpu(gfx="gfx1100")
    debian = ids(diagnose(machine([gpu], Stack(rocm_version="6.4.1", kfd_loaded=True),
                                  Host(os="linux", distro="Debian GNU/Linux 12 (bookworm)"))))
    finding = debian["os.unsupported_distro"]
    assert finding.severity is Severity.WARNING and "Ubuntu 24.04" in (finding.fix or "")
    ubuntu = ids(diagnose(machine([gpu], Stack(rocm_version="6.4.1", kfd_loaded=True),
                                  Host(os="linux", distro="Ubuntu 22.04.5 LTS"))))
    assert "os.unsupported_distro" not in ubuntu
    # ROCm 6.2 documents no distribution restriction for Radeon: nothing is claimed.
    older = ids(diagnose(machine([gpu], Stack(rocm_version="6.2.4", kfd_loaded=True),
                                 Host(os="linux", distro="Debian GNU/Linux 12 (bookworm)"))))
    assert "os.unsupported_distro" not in older


def test_every_finding_id_of_the_schema_has_a_rule() -> None:
    from pathlib import Path

    from fixture_paths import CORPUS_DIR

    schema = (CORPUS_DIR / "diagnosis-schema.md").read_text()
    documented = {line.split("`")[1] for line in schema.splitlines()
                  if line.startswith("| `") and "." in line.split("`")[1]}
    doctor_dir = Path(__import__("gpuscope.doctor", fromlist=["x"]).__file__).parent
    rules_source = "".join(p.read_text() for p in sorted(doctor_dir.glob("*.py")))
    # llm.* and windows.* belong to other issues (LLM runtimes, Windows routes).
    missing = sorted(i for i in documented if f'"{i}"' not in rules_source
                     and not i.startswith(("llm.", "windows.")))
    assert not missing, missing
    assert "gpu.not_passed_through" in documented  # the schema copy has the additions


# ----------------------------------------------------------------------------- platforms

CONTAINER = Host(os="linux", container=True, container_hint="docker (/.dockerenv)")
VM = Host(os="linux", virtual_machine=True, virtual_machine_hint="KVM")


def signal(kind: str, detail: str | None = None) -> Signal:
    return Signal(kind, detail, (EvidenceRef("pasted.txt", 1),))


def with_signals(data: DoctorInput, *signals: Signal) -> DoctorInput:
    return DoctorInput(data.inventory, data.frameworks, signals)


def test_a_container_without_dev_kfd_is_one_pass_through_finding() -> None:
    host_gpu = replace(amd_gpu(kfd_node=None), kernel_driver=None)  # the host's, in sysfs
    stack = Stack(kfd_loaded=True, device_nodes=(DeviceNodeAccess("/dev/kfd", exists=False),))
    found = ids(diagnose(machine([host_gpu], stack, CONTAINER)))
    passed = found["gpu.not_passed_through"]
    assert passed.severity is Severity.ERROR
    assert "--device=/dev/kfd --device=/dev/dri" in passed.fix_commands[0]
    assert passed.fix_commands[0].startswith("docker run ") and "..." not in passed.fix_commands[0]
    # One sentence, not two opposite ones: no "/dev/kfd missing on the host" beside it.
    assert "kfd.missing" not in found and "amdgpu.driver_not_loaded" not in found
    assert "gpu.usable" not in found


def test_rocminfo_from_a_container_says_no_gpu_once(tmp_path: Path) -> None:
    paste = tmp_path / "rocminfo.txt"
    paste.write_text("ROCk module version 6.10.5 is loaded\n"
                     "Unable to open /dev/kfd read-write: No such file or directory\n"
                     "Failed to get user name to check for video group membership\n")
    machine_ = import_files([str(paste)])
    findings = diagnose(DoctorInput(machine_.inventory, machine_.frameworks, machine_.signals))
    assert [f.id for f in findings] == ["gpu.not_passed_through"]
    assert "GPU is present" not in findings[0].detail
    assert "/dev/kfd" in (findings[0].fix or "")


def test_container_with_nvidia_host_gpu_gets_the_toolkit_and_gpus_all() -> None:
    gpu = Gpu(index=0, vendor=Vendor.NVIDIA, name="RTX 4090", kind=GpuKind.DISCRETE,
              seen_by=(Layer.PCI,), pci_bus="0000:01:00.0")
    found = ids(diagnose(machine([gpu], Stack(), CONTAINER)))
    passed = found["gpu.not_passed_through"]
    assert any("--gpus all" in c for c in passed.fix_commands)
    assert "nvidia-ctk runtime configure" in " ".join(passed.fix_commands)
    assert "nvidia.driver_not_loaded" not in found


def test_a_vm_whose_stack_finds_no_gpu_gets_the_vfio_note_not_a_driver_to_load() -> None:
    data = with_signals(machine([], Stack(), VM), signal("kfd.not_loaded"),
                        signal("nvidia.no_devices"))
    found = ids(diagnose(data))
    passed = found["gpu.not_passed_through"]
    assert passed.severity is Severity.WARNING  # nothing here proves the host has a GPU
    assert "vfio" in (passed.fix or "").lower() and not passed.fix_commands
    assert "amdgpu.driver_not_loaded" not in found and "nvidia.driver_not_loaded" not in found


def test_a_vm_guest_with_its_gpu_is_named_virtual_and_gets_hypervisor_advice() -> None:
    data = with_signals(machine([amd_gpu()], host=VM),
                        signal("kfd.pcie_atomics_missing", "PCI rejects atomics"))
    found = ids(diagnose(data))
    assert found["gpu.virtual_function"].severity is Severity.INFO
    assert "gpu.not_passed_through" not in found
    fix = found["kfd.pcie_atomics_missing"].fix or ""
    assert "hypervisor" in fix and "Move the card" not in fix
    vf = replace(amd_gpu(), kind=GpuKind.VIRTUAL)
    assert "SR-IOV" in ids(diagnose(machine([vf], host=VM)))["gpu.virtual_function"].title


def test_no_evidence_of_a_gpu_anywhere_claims_nothing() -> None:
    for host in (CONTAINER, VM, Host(os="linux")):
        findings = diagnose(machine([], Stack(), host))
        assert not [f for f in findings if f.severity in (Severity.ERROR, Severity.WARNING)]


def test_wsl_without_a_gpu_adapter_points_at_wsl_not_at_a_linux_driver() -> None:
    data = with_signals(machine([], Stack(), Host(os="wsl")), signal("platform.wsl"),
                        signal("wsl.no_gpu_adapter"), signal("nvidia.driver_not_loaded"))
    found = ids(diagnose(data))
    passed = found["gpu.not_passed_through"]
    assert "WSL 2" in (passed.fix or "") and not passed.fix_commands
    assert "nvidia.driver_not_loaded" not in found


def test_wsl_fixes_never_load_modules_or_change_kfd_groups() -> None:
    nvidia = Gpu(index=0, vendor=Vendor.NVIDIA, name="RTX 3060", kind=GpuKind.DISCRETE,
                 seen_by=(Layer.PCI,), kernel_driver="nouveau", pci_bus="0000:01:00.0")
    data = with_signals(machine([nvidia], denied_stack(), Host(os="wsl")),
                        signal("platform.wsl"), signal("kfd.not_loaded"),
                        signal("kfd.permission_denied"), signal("nvml.driver_library_mismatch"),
                        signal("rocm.runtime_missing"))
    findings = diagnose(data)
    assert {"rocm.wsl", "nvidia.driver_library_mismatch", "rocm.runtime_missing"} <= {
        f.id for f in findings}
    for finding in findings:
        for text in (finding.fix or "", *finding.fix_commands):
            assert not re.search(r"modprobe|amdgpu-dkms|usermod|/dev/kfd", text), (finding.id,
                                                                                  text)
    runtime = ids(findings)["rocm.runtime_missing"]
    assert runtime.fix_commands == ("sudo amdgpu-install -y --usecase=wsl,rocm --no-dkms",)


def denied_stack() -> Stack:
    return Stack(kfd_loaded=True, device_nodes=(DeviceNodeAccess(
        "/dev/kfd", exists=True, owner_group="render", can_open=False),))


def test_a_target_is_judged_against_the_installed_rocm() -> None:
    r9700 = amd_gpu(gfx="gfx1201", name="AMD Radeon AI PRO R9700")
    old = ids(diagnose(machine([r9700], Stack(rocm_version="6.2.4", kfd_loaded=True))))
    unsupported = old["rocm.gfx_unsupported"]
    assert "ROCm 6.2.4" in unsupported.title and "6.4.1" in (unsupported.fix or "")
    assert "rocm.gfx_unsupported" not in ids(diagnose(machine([r9700], Stack(
        rocm_version="7.2.0", kfd_loaded=True))))
    # Only the HIP runtime names the release: HIP 6.2 ships with ROCm 6.2.
    by_hip = ids(diagnose(machine([r9700], Stack(hip_runtime_version="6.2.41133",
                                                 kfd_loaded=True))))
    assert "ROCm 6.2" in by_hip["rocm.gfx_unsupported"].title
    # Nothing names it: the newest release gpuscope knows lists gfx1201, so nothing is claimed.
    assert "rocm.gfx_unsupported" not in ids(diagnose(machine([r9700], Stack(kfd_loaded=True))))


def test_an_apu_beside_a_dgpu_in_smi_output_is_enumerated_too() -> None:
    dgpu = Gpu(index=0, vendor=Vendor.AMD, name="AMD Radeon RX 7900 XTX", gfx_target="gfx1100",
               kind=GpuKind.DISCRETE, seen_by=(Layer.AMDSMI,), smi_index=0)
    igpu = Gpu(index=1, vendor=Vendor.AMD, name="AMD Radeon Graphics", gfx_target="gfx1036",
               kind=GpuKind.INTEGRATED, seen_by=(Layer.AMDSMI,), smi_index=1)
    finding = ids(diagnose(machine([dgpu, igpu], Stack(rocm_version="6.4.1"))))[
        "rocm.igpu_enumerated"]
    assert finding.fix_commands == ("export HIP_VISIBLE_DEVICES=0",) and finding.gpu == 1


# ---------------------------------------------------------- AMD held-out kinds (issue #10)

def corpus_case(number: str, *files: str) -> DoctorInput:
    from fixture_paths import CORPUS_DIR

    folder = next(CORPUS_DIR.glob(f"{number}-*"))
    imported = import_files([str(folder / name) for name in files])
    return DoctorInput(imported.inventory, imported.frameworks, imported.signals)


def test_kfd_adding_an_igpu_and_a_dgpu_is_rocm_enumerating_both() -> None:
    # Corpus 236: a kernel log whose only GPU lines are "kfd kfd: added device 1002:xxxx".
    data = corpus_case("236", "dmesg.txt")
    finding = ids(diagnose(data))["rocm.igpu_enumerated"]
    # KFD added the Navi 14 first: HIP numbers it 0.
    assert finding.fix_commands == ("export HIP_VISIBLE_DEVICES=0",)
    assert [ref.label() for ref in finding.evidence] == ["dmesg.txt:2", "dmesg.txt:4"]
    # Corpus 113: KFD skipped the APU ("missing in supported_devices"), so ROCm lists one GPU.
    skipped = corpus_case("113", "dmesg.txt", "uname.txt", "lspci-tv.txt", "rocminfo.txt")
    assert "rocm.igpu_enumerated" not in ids(diagnose(skipped))


def test_kfd_order_decides_which_index_the_dgpu_keeps() -> None:
    dgpu = Gpu(index=0, vendor=Vendor.AMD, name="AMD Radeon RX 5500M", gfx_target="gfx1012",
               kind=GpuKind.DISCRETE, seen_by=(Layer.PCI,), pci_vendor_id="0x1002",
               pci_device_id="0x7340")
    igpu = Gpu(index=1, vendor=Vendor.AMD, name="Renoir", gfx_target="gfx90c",
               kind=GpuKind.INTEGRATED, seen_by=(Layer.PCI,), pci_vendor_id="0x1002",
               pci_device_id="0x1636")
    base = machine([dgpu, igpu], Stack(kfd_loaded=True))
    igpu_first = with_signals(base, signal("kfd.loaded", "1002:1636"),
                              signal("kfd.loaded", "1002:7340"))
    assert ids(diagnose(igpu_first))["rocm.igpu_enumerated"].fix_commands == (
        "export HIP_VISIBLE_DEVICES=1",)
    only_dgpu = with_signals(base, signal("kfd.loaded", "1002:7340"))
    assert "rocm.igpu_enumerated" not in ids(diagnose(only_dgpu))


def test_a_dkms_driver_that_was_never_built_is_a_driver_not_loaded() -> None:
    # Corpus 237: dkms "amdgpu, 1.9-307: added", kernel 4.4, rocminfo's 4104.
    data = corpus_case("237", "uname.txt", "dmesg.txt", "lspci-vga.txt", "dkms-status.txt",
                       "rocminfo.txt")
    found = ids(diagnose(data))
    driver = found["amdgpu.driver_not_loaded"]
    assert "kernel" in (driver.fix or "") and "4.4.0-139-generic" in (driver.fix or "")
    assert driver.fix_commands == ('sudo dkms install amdgpu/1.9-307 -k "$(uname -r)"',
                                   "cat /var/lib/dkms/amdgpu/1.9-307/build/make.log")
    assert "modprobe" not in " ".join(driver.fix_commands)
    assert "kfd.permission_denied" not in found and "gpu.usable" not in found
    # The same dkms line where ROCk is loaded: the in-tree driver runs, nothing to build.
    loaded = with_signals(machine([], Stack(kfd_loaded=True)),
                          signal("dkms.not_installed", "amdgpu/1.9-307: added"),
                          signal("kfd.loaded"))
    assert "amdgpu.driver_not_loaded" not in ids(diagnose(loaded))
    # A module name that is no dkms name gives words, not a command.
    odd = with_signals(machine([], Stack()), signal("dkms.not_installed", "amdgpu/x;y: added"),
                       signal("hsa.error", "HSA_STATUS_ERROR_OUT_OF_RESOURCES"))
    assert ids(diagnose(odd))["amdgpu.driver_not_loaded"].fix_commands == ()


def test_old_rocminfo_out_of_resources_with_rock_loaded_is_a_kfd_permission() -> None:
    # Corpus 202: ROCm 3.3's rocminfo says nothing but OUT_OF_RESOURCES for an EACCES.
    found = ids(diagnose(corpus_case("202", "rocminfo.txt")))
    denied = found["kfd.permission_denied"]
    assert "render" in (denied.fix or "") and denied.fix_commands == (
        "sudo usermod -aG render,video $USER",)
    assert any("rocminfo" in url for url in denied.sources)
    assert "rocm.runtime_missing" not in found and "amdgpu.driver_not_loaded" not in found
    signals = (signal("kfd.loaded"), signal("hsa.error", "HSA_STATUS_ERROR_OUT_OF_RESOURCES"))
    # From ROCm 3.5 rocminfo names the open error itself: this status alone says nothing.
    newer = with_signals(machine([], Stack(rocm_version="3.5", kfd_loaded=True)), *signals)
    assert "kfd.permission_denied" not in ids(diagnose(newer))
    # A device KFD does not support gives the same status: that finding explains it.
    unsupported = with_signals(machine([], Stack(rocm_version="2.1", kfd_loaded=True)),
                               *signals, signal("kfd.device_unsupported", "1002:15d8"))
    found = ids(diagnose(unsupported))
    assert "kfd.permission_denied" not in found and "kfd.device_unsupported" in found


def test_wsl_on_a_distribution_amd_does_not_list_for_wsl() -> None:
    # Corpus 235: Oracle Linux 9.4 as a WSL 2 distribution.
    found = ids(diagnose(corpus_case("235", "rocminfo.txt", "etc-release.txt")))
    distro = found["os.unsupported_distro"]
    assert "WSL" in distro.title and "Oracle Linux 9.4" in distro.title
    assert any("wsl_compatibility" in url for url in distro.sources)
    words = f"{distro.fix} {' '.join(distro.fix_commands)}"
    assert "modprobe" not in words and "dkms" not in words
    # amdgpu-install's WSL use case is not offered where the distribution cannot take it.
    assert found["rocm.wsl"].fix_commands == ()
    assert not {"amdgpu.driver_not_loaded", "kfd.missing", "kfd.permission_denied"} & set(found)
    ubuntu = with_signals(machine([], Stack(), Host(os="wsl", distro="Ubuntu 22.04.4 LTS")),
                          signal("platform.wsl"),
                          signal("hsa.error", "HSA_STATUS_ERROR_OUT_OF_RESOURCES"))
    assert "os.unsupported_distro" not in ids(diagnose(ubuntu))
    # CUDA on WSL is not ROCm's list: an NVIDIA-only WSL on Debian gets no distribution finding.
    nvidia = Gpu(index=0, vendor=Vendor.NVIDIA, name="RTX 3060", kind=GpuKind.DISCRETE,
                 seen_by=(Layer.NVML,))
    debian = machine([nvidia], Stack(nvidia_driver_version="551.86"),
                     Host(os="wsl", distro="Debian GNU/Linux 12 (bookworm)"))
    assert "os.unsupported_distro" not in ids(diagnose(debian))


def test_rocm_2_on_fedora_is_an_unsupported_distribution() -> None:
    # Corpus 113: Fedora 29 (fc29 kernel) with ROCm 2.1; ROCm 2.x listed Ubuntu, CentOS, RHEL.
    data = corpus_case("113", "dmesg.txt", "uname.txt", "lspci-tv.txt", "rocminfo.txt")
    distro = ids(diagnose(data))["os.unsupported_distro"]
    assert distro.title == "Fedora 29 is not a supported distribution for ROCm 2.1"
    assert "Ubuntu 18.04" in (distro.fix or "") and distro.sources


def test_a_virtual_cpu_model_makes_a_vm_guest_and_silence_leaves_it_unknown() -> None:
    from gpuscope.doctor.document import diagnosis_document

    # Corpus 233: rocminfo's CPU agent is "Common KVM processor" (a Proxmox guest).
    guest = corpus_case("233", "rocminfo.txt")
    platform = diagnosis_document(guest, diagnose(guest))["platform"]
    assert platform["virtual_machine"] is True
    assert "KVM" in (guest.inventory.host.virtual_machine_hint or "")
    # A real CPU agent says nothing either way: unknown, not a definite "no".
    bare = corpus_case("101", "rocminfo.txt")
    platform = diagnosis_document(bare, diagnose(bare))["platform"]
    assert platform["virtual_machine"] is None and platform["container"] is None


def test_a_never_built_dkms_module_alone_does_not_say_the_in_tree_driver_is_missing() -> None:
    # lspci without -k and a stale "added" line: the in-tree amdgpu may well drive the GPU.
    gpu = Gpu(index=0, vendor=Vendor.AMD, name="Vega 10", gfx_target="gfx900",
              kind=GpuKind.DISCRETE, seen_by=(Layer.PCI,), pci_bus="0000:0b:00.0")
    quiet = with_signals(machine([gpu], Stack()),
                         signal("dkms.not_installed", "amdgpu/1.9-307: added"))
    assert "amdgpu.driver_not_loaded" not in ids(diagnose(quiet))
    unbound = with_signals(machine([replace(gpu, kernel_driver="radeon")], Stack()),
                           signal("dkms.not_installed", "amdgpu/1.9-307: added"))
    assert "dkms never built it" in ids(diagnose(unbound))["amdgpu.driver_not_loaded"].title
