"""Facts about the machine itself, as pastes show them: `uname -a` / `-r` / `-srmv`,
`/proc/version` and dmesg's "Linux version", kernel module paths (`modprobe: FATAL: Module
amdgpu not found in directory /lib/modules/6.8.0-45-generic`), `/etc/os-release`,
`/etc/lsb-release`, `lsb_release -a`, `hostnamectl`, `systemd-detect-virt`; and the traces a
container or a virtual machine leaves in any output.

`HostTraces` reads such lines wherever they are (the kernel log reader and `scan_host`, which
`parse_any` runs over every paste, use it); `parse` is the importer for a paste that is only
such facts (format "host-info").

Host facts: `kernel` (the release), `os` ("linux", or "wsl" for a Microsoft WSL kernel),
`distro` (os-release's PRETTY_NAME and the like), `distro_hint` (what the kernel release says:
"6.8.0-45-generic" is Ubuntu's, "6.1.0-18-amd64" Debian's, "4.18.0-513.el8" RHEL 8's),
`cpu_model` (/proc/cpuinfo's "model name"),
`container` (True) with `container_hint`, `virtual_machine` (True) with `virtual_machine_hint`.

Signals emitted:
- `platform.wsl`: a WSL kernel (`microsoft-standard-WSL2`, WSL 1's `-Microsoft`) or WSL's
  environment variables.
- `platform.container` (new): a container's trace; detail = the engine ("docker", "podman",
  "kubernetes", "lxc", ...): `/.dockerenv`, `/run/.containerenv`, `container=...`, a cgroup path
  under docker/kubepods/libpod/lxc, a shell prompt on a 12-hex-digit host name (Docker's
  default), a `docker run`/`podman exec` command, a container image (`rocm/pytorch`,
  `nvcr.io/nvidia/...`), hostnamectl's or systemd-detect-virt's container answer.
- `platform.virtual_machine` (new): a VM guest's trace; detail = the hypervisor: "Hypervisor
  detected", a hypervisor's DMI name, "Booting paravirtualized kernel on KVM", hostnamectl's
  or systemd-detect-virt's VM answer, a `qemu-system-*` command, virtio devices, a hypervisor's
  virtual display adapter (VMware SVGA II, Hyper-V virtual VGA, VirtualBox, QXL, Bochs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpuscope.model import Fact, ParsedOutput, Signal
from gpuscope.parsers._common import (
    Collector,
    anchored_lines,
    lowered_text,
    never_raises,
    read_lines,
    sniff_lines,
)

FORMATS: tuple[str, ...] = ("host-info",)

_RELEASE = r"\d{1,2}\.\d{1,3}[\w.+~-]{0,80}"
# uname -a ("Linux host 5.4.0-54-generic #60-Ubuntu SMP ...") and -srmv ("Linux 5.4.0-90-
# generic #101~18.04.1-Ubuntu SMP ..."); the host name may be redacted ("...").
_UNAME_RE = re.compile(rf"^\s*Linux (?:\S{{1,255}} )?(?P<release>{_RELEASE}) #\d")
_LINUX_VERSION_RE = re.compile(rf"Linux version (?P<release>{_RELEASE}) \(")
_MODULES_RE = re.compile(rf"/(?:usr/)?lib/modules/(?P<release>{_RELEASE})(?=[/\s'\"),:]|$)")
_HOSTNAMECTL_KERNEL_RE = re.compile(rf"^\s*Kernel: Linux (?P<release>{_RELEASE})\s*$")
_DKMS_KERNEL_RE = re.compile(
    rf"(?:^Building for |Module build for kernel |for kernel: ?)(?P<release>{_RELEASE})")
_BARE_RELEASE_RE = re.compile(r"^\d{1,2}\.\d{1,3}\.\d{1,4}[-+][\w.+~-]{1,80}$")

_OS_RELEASE_RE = re.compile(r'^(?P<key>PRETTY_NAME|NAME|VERSION|DISTRIB_DESCRIPTION)="?'
                            r'(?P<value>[^"]{1,120})"?\s*$')
# lsb_release's "Description:" names a distribution; a package's (apt show) does not.
_DISTRIBUTION_RE = re.compile(
    r"\b(?:Ubuntu|Debian|Fedora|CentOS|Red Hat|RHEL|Rocky|AlmaLinux|openSUSE|SUSE|Arch Linux|"
    r"Manjaro|Gentoo|Linux Mint|Pop!_OS|elementary|Zorin|Kali|NixOS|Amazon Linux|Oracle Linux|"
    r"Alpine|Void|EndeavourOS|CachyOS|Garuda|Nobara|Bazzite|Slackware|Clear Linux|Mageia|"
    r"openEuler|Kylin|Deepin|UOS)\b")
_CPU_MODEL_RE = re.compile(r"^\s*model name\s*:\s*(?P<model>\S.{0,120}?)\s*$")
_DESCRIPTION_RE = re.compile(r"^\s*(?:Description|Operating System):\s+(?P<value>\S.{0,120})$")

_DOCKERENV = ("/.dockerenv", "docker")
_CONTAINERENV = ("/run/.containerenv", "podman")
_CONTAINER_ENV_RE = re.compile(r"(?<![\w-])container=(?P<engine>[\w-]{1,30})")
_CGROUP_RE = re.compile(r"^\s*\d{1,3}:[\w,=]{0,100}:/(?:[\w.@:-]{1,200}/){0,8}?"
                        r"(?P<engine>docker|kubepods|libpod|lxc|crio|containerd|actions_job)"
                        r"[/:-]")  # a container's scope, not the docker.service of a host
_PROMPT_RE = re.compile(r"(?:^|\s)[\w.-]{1,32}@(?P<host>[0-9a-f]{12}):\S{0,200}[#$]")
_ENGINE_COMMAND_RE = re.compile(
    r"(?:^|[\s$#>;&|(])(?:sudo )?(?P<engine>docker|podman|nerdctl)(?:-compose)?"
    r"(?: container)? (?:run|exec|compose|start)\b")
_IMAGE_RE = re.compile(r"(?<![\w/.-])(?P<image>rocm/(?:pytorch|dev-[\w.-]{1,60}|vllm|tensorflow|"
                       r"rocm-terminal|jax|sgl-dev|megatron-lm|pytorch-training)|"
                       r"nvcr\.io/nvidia/[\w.-]{1,60}|nvidia/cuda)(?=[:\s@]|$)")
_KUBERNETES = ("kubectl exec", "kubectl run", "kubernetes_service_host")
_VIRTUALIZATION_RE = re.compile(r"^\s*Virtualization:\s*(?P<what>[\w-]{1,30})\s*$")
_DETECT_VIRT_RE = re.compile(r"^\s*(?P<what>[a-z][\w-]{1,20})\s*$")

_HYPERVISOR_RE = re.compile(r"Hypervisor detected: (?P<name>\S.{0,60}?)\s*$")
_DMI_RE = re.compile(
    r"DMI: (?P<name>QEMU|VMware|Microsoft Corporation Virtual Machine|innotek GmbH VirtualBox|"
    r"Xen|Red Hat KVM|Google Compute Engine|Parallels|OpenStack|BHYVE|Nutanix AHV|"
    r"Amazon EC2 (?!\S{0,30}metal))")
_PARAVIRT_RE = re.compile(r"Booting paravirtualized kernel on (?P<name>KVM|Xen HVM|Xen PV|Xen|"
                          r"VMware hypervisor|Hyper-V)")
_QEMU_RE = re.compile(r"(?<![\w/.-])qemu-system-[\w]{1,20}\b")
# ... followed by its options: a command that starts a guest, not a package of a host.
_QEMU_OPTION_RE = re.compile(r"\s-(?:enable-kvm|accel|machine|device|drive|cpu|smp|m)\b")
_KVM_OPTIONS = ("-accel kvm", "-enable-kvm", "accel=kvm")
_VIRTIO_RE = re.compile(r"\bvirtio[_-](?:gpu|pci|net|blk|scsi|balloon|console|vga)\b|"
                        r"Red Hat, Inc\. Virtio", re.IGNORECASE)
_VIRTUAL_DISPLAYS = (("svga ii adapter", "VMware"), ("hyper-v virtual vga", "Hyper-V"),
                     ("virtualbox graphics adapter", "VirtualBox"),
                     ("qxl paravirtual", "QEMU"), ("bochs-drm", "QEMU"),
                     ("virtio gpu", "QEMU/KVM"))
_VM_ANSWERS = {"kvm": "KVM", "qemu": "QEMU", "vmware": "VMware", "microsoft": "Hyper-V",
               "oracle": "VirtualBox", "xen": "Xen", "bochs": "QEMU", "parallels": "Parallels",
               "bhyve": "bhyve", "amazon": "Amazon EC2", "google": "Google Compute Engine",
               "zvm": "z/VM", "powervm": "PowerVM", "uml": "User-mode Linux", "acrn": "ACRN",
               "qnx": "QNX"}
_CONTAINER_ANSWERS = {"docker": "docker", "podman": "podman", "lxc": "lxc", "lxc-libvirt": "lxc",
                      "systemd-nspawn": "systemd-nspawn", "rkt": "rkt", "openvz": "openvz",
                      "container-other": "container", "proot": "proot", "pouch": "pouch"}
_WSL_ENV = ("wsl_distro_name=", "wsl_interop=")

# Kernel release -> distribution (a hint: a distribution kernel names its maker).
_RELEASE_DISTROS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"-microsoft-standard", re.IGNORECASE), "WSL 2"),
    (re.compile(r"-Microsoft$"), "WSL 1"),
    (re.compile(r"\.el(\d+)"), r"RHEL \1 family"),
    (re.compile(r"\.fc(\d+)"), r"Fedora \1"),
    (re.compile(r"\.amzn(\d+)"), r"Amazon Linux \1"),
    (re.compile(r"\+deb(\d+)"), r"Debian \1"),
    (re.compile(r"-pve$"), "Proxmox VE"),
    (re.compile(r"-arch\d+"), "Arch Linux"),
    (re.compile(r"-MANJARO"), "Manjaro"),
    (re.compile(r"cachyos", re.IGNORECASE), "CachyOS"),
    (re.compile(r"-gentoo"), "Gentoo"),
    (re.compile(r"-default$"), "openSUSE or SLES"),
    (re.compile(r"^\d+\.\d+\.\d+-\d+-(?:generic|lowlatency|azure|aws|gcp|oracle|nvidia|"
                r"kvm|raspi|oem)(?:-\S+)?$"), "Ubuntu"),
    (re.compile(r"^\d+\.\d+\.\d+-\d+-(?:amd64|arm64|cloud-amd64|rt-amd64)$"), "Debian"),
)

# Lower-case anchors of the lines `scan_host` reads: each is one pass of `str.find` over the
# paste, so they are few, and each covers several traces ("linux " the uname line, "Linux
# version" and hostnamectl's "Kernel: Linux"; "kvm" qemu's -accel kvm and -enable-kvm).
_ANCHORS = (
    "linux ", "/lib/modules/", 'name="', 'version="', "description:", "operating system:",
    "container", "docker", "kube", "libpod", "lxc", "podman", "nerdctl", "rocm/", "nvcr.io",
    "nvidia/cuda", "hypervisor", "dmi: ", "paravirtualized", "virtualization:", "qemu",
    "virtio", "svga", "hyper-v", "virtualbox", "qxl", "bochs", "microsoft", "wsl_",
    "building for ", "for kernel", "@", "kvm", "model name",
)
_MAX_LINES_PER_ANCHOR = 100


@dataclass
class _Candidate:
    value: str
    number: int
    rank: int  # lower wins


class HostTraces:
    """Reads host facts and platform traces from lines, into a `Collector`: call `read` for
    each line (1-based number) and `finish` once."""

    def __init__(self, out: Collector) -> None:
        self.out = out
        self.kernel: _Candidate | None = None
        self.distro: _Candidate | None = None
        self.containers: list[tuple[str, str, int]] = []  # (engine, how, line)
        self.machines: list[tuple[str, str, int, int]] = []  # (hypervisor, how, line, rank)
        self.wsl: list[int] = []
        self.cpu: tuple[str, int] | None = None
        self.previous = ""

    def _kernel(self, release: str, number: int, rank: int) -> None:
        release = release.rstrip(".,;:)")
        if self.kernel is None or rank < self.kernel.rank:
            self.kernel = _Candidate(release, number, rank)

    def _distro(self, value: str, number: int, rank: int) -> None:
        value = value.strip().strip('"').strip()
        if value and (self.distro is None or rank < self.distro.rank):
            self.distro = _Candidate(value, number, rank)

    def read(self, line: str, number: int) -> None:
        """One line of the paste (any format)."""
        lowered = line.lower()
        previous, self.previous = self.previous, lowered
        if "linux" in lowered:
            if (match := _UNAME_RE.match(line)) is not None:
                self._kernel(match.group("release"), number, 0)
            elif (match := (_LINUX_VERSION_RE.search(line)
                            or _HOSTNAMECTL_KERNEL_RE.match(line))) is not None:
                self._kernel(match.group("release"), number, 1)
        if "/lib/modules/" in line and (match := _MODULES_RE.search(line)) is not None:
            self._kernel(match.group("release"), number, 2)
        if ("building for " in lowered or "for kernel" in lowered) and (
                match := _DKMS_KERNEL_RE.search(line)) is not None:
            self._kernel(match.group("release"), number, 4)
        if "uname" in previous and (match := _BARE_RELEASE_RE.match(line.strip())) is not None:
            self._kernel(match.group(0), number, 0)
        if "=" in line and (match := _OS_RELEASE_RE.match(line.strip())) is not None:
            rank = {"PRETTY_NAME": 0, "DISTRIB_DESCRIPTION": 1, "NAME": 3, "VERSION": 9}
            if match.group("key") != "VERSION":
                self._distro(match.group("value"), number, rank[match.group("key")])
            elif self.distro is not None and self.distro.rank == 3:  # NAME, then VERSION
                self.distro = _Candidate(f"{self.distro.value} {match.group('value')}",
                                         self.distro.number, 2)
        if ":" in line and (match := _DESCRIPTION_RE.match(line)) is not None and (
                line.lstrip().startswith("Operating System")
                or _DISTRIBUTION_RE.search(match.group("value"))):
            self._distro(match.group("value"), number, 1)
        if self.cpu is None and "model name" in lowered and (
                match := _CPU_MODEL_RE.match(line)) is not None:
            self.cpu = (match.group("model"), number)
        self._container(line, lowered, previous, number)
        self._machine(line, lowered, previous, number)
        if any(word in lowered for word in _WSL_ENV):
            self.wsl.append(number)

    def read_alone(self, line: str, number: int) -> None:
        """A line of a paste that is only host facts: also a bare `uname -r` release or a
        bare `systemd-detect-virt` answer."""
        stripped = line.strip()
        if (match := _BARE_RELEASE_RE.match(stripped)) is not None:
            self._kernel(match.group(0), number, 0)
        elif (match := _DETECT_VIRT_RE.match(stripped)) is not None:
            self._virtualization(match.group("what"), "systemd-detect-virt", number)
        self.read(line, number)

    def _virtualization(self, what: str, how: str, number: int) -> None:
        what = what.lower()
        if what in _VM_ANSWERS:
            self.machines.append((_VM_ANSWERS[what], how, number, 0))
        elif what in _CONTAINER_ANSWERS:
            self.containers.append((_CONTAINER_ANSWERS[what], how, number))
        elif what == "wsl":
            self.wsl.append(number)

    def _container(self, line: str, lowered: str, previous: str, number: int) -> None:
        for path, engine in (_DOCKERENV, _CONTAINERENV):
            if path in line and "no such file" not in lowered and "cannot access" not in lowered:
                self.containers.append((engine, path, number))
        if "container=" in lowered and (match := _CONTAINER_ENV_RE.search(line)) is not None:
            self.containers.append((match.group("engine"), f"container={match.group('engine')}",
                                    number))
        if ":/" in line and (match := _CGROUP_RE.match(line)) is not None:
            engine = {"kubepods": "kubernetes", "libpod": "podman", "crio": "cri-o",
                      "actions_job": "docker"}.get(match.group("engine"), match.group("engine"))
            self.containers.append((engine, "cgroup", number))
        if "@" in line and (match := _PROMPT_RE.search(line)) is not None:
            host = match.group("host")
            if any(c.isdigit() for c in host) and any(c.isalpha() for c in host):
                self.containers.append(("docker", f"the shell prompt's host name {host}", number))
        if any(word in lowered for word in ("docker", "podman", "nerdctl")) and (
                match := _ENGINE_COMMAND_RE.search(lowered)) is not None:
            self.containers.append((match.group("engine"), f"{match.group('engine')} command",
                                    number))
        if ("rocm/" in lowered or "nvcr.io" in lowered or "nvidia/cuda" in lowered) and (
                match := _IMAGE_RE.search(line)) is not None:
            self.containers.append(("docker", f"the image {match.group('image')}", number))
        if any(word in lowered for word in _KUBERNETES):
            self.containers.append(("kubernetes", "kubectl", number))
        if "virtualization:" in lowered and (match := _VIRTUALIZATION_RE.match(line)) is not None:
            self._virtualization(match.group("what"), "hostnamectl", number)
        if "systemd-detect-virt" in previous and (
                match := _DETECT_VIRT_RE.match(line)) is not None:
            self._virtualization(match.group("what"), "systemd-detect-virt", number)

    def _machine(self, line: str, lowered: str, previous: str, number: int) -> None:
        if "hypervisor detected" in lowered and (match := _HYPERVISOR_RE.search(line)):
            self.machines.append((match.group("name"), "Hypervisor detected", number, 0))
        if "dmi: " in lowered and (match := _DMI_RE.search(line)) is not None:
            self.machines.append((_dmi_name(match.group("name")), "DMI", number, 0))
        if "paravirtualized kernel" in lowered and (match := _PARAVIRT_RE.search(line)):
            self.machines.append((match.group("name").replace(" hypervisor", ""),
                                  "paravirtualized kernel", number, 0))
        if "qemu-system-" in lowered and (match := _QEMU_RE.search(lowered)) is not None and (
                _QEMU_OPTION_RE.search(lowered, match.end())):
            accel = "kvm" in lowered[match.end():]
            self.machines.append(("QEMU/KVM" if accel else "QEMU", "qemu command", number, 1))
        elif any(word in lowered for word in _KVM_OPTIONS):
            self.machines.append(("QEMU/KVM", "qemu command", number, 1))
        for words, name in _VIRTUAL_DISPLAYS:
            if words in lowered:
                self.machines.append((name, "virtual display adapter", number, 2))
        if "virtio" in lowered and _VIRTIO_RE.search(line):
            self.machines.append(("QEMU/KVM", "virtio devices", number, 3))

    def finish(self) -> None:
        """Write the facts and signals found into the collector."""
        out = self.out
        wsl = bool(self.wsl)
        if self.kernel is not None:
            release = self.kernel.value
            wsl = wsl or "microsoft" in release.lower()
            where = out.where(self.kernel.number)
            out.host_fact("kernel", release, where)
            out.host_fact("os", "wsl" if wsl else "linux", where)
            if wsl:
                out.signal("platform.wsl", None, out.ref(self.kernel.number))
            hint = distro_of_release(release)
            if hint is not None and self.distro is None:
                # A hint only: the importer lets any file's os-release overrule it.
                out.host_fact("distro_hint", hint, where)
        elif wsl:
            out.host_fact("os", "wsl", out.where(self.wsl[0]))
        if wsl and self.wsl:
            out.signal("platform.wsl", None, *(out.ref(n) for n in self.wsl[:5]))
        if self.distro is not None:
            out.host_fact("distro", self.distro.value, out.where(self.distro.number))
        if self.cpu is not None:
            out.host_fact("cpu_model", self.cpu[0], out.where(self.cpu[1]))
        if self.containers:
            engine, how, number = self.containers[0]
            out.host_fact("container", True, out.where(number))
            out.host_fact("container_hint", f"{engine} ({how})", out.where(number))
            for engine, _how, number in self.containers[:20]:
                out.signal("platform.container", engine, out.ref(number))
        # Under WSL the hypervisor is Hyper-V by design: not a VM the user set up.
        machines = sorted((m for m in self.machines
                           if not (wsl and ("hyper-v" in m[0].lower()
                                            or "microsoft" in m[0].lower()))),
                          key=lambda m: (m[3], m[2]))
        if machines:
            name, how, number, _rank = machines[0]
            out.host_fact("virtual_machine", True, out.where(number))
            out.host_fact("virtual_machine_hint", f"{name} ({how})", out.where(number))
            for name, _how, number, _rank in machines[:20]:
                out.signal("platform.virtual_machine", name, out.ref(number))


def _dmi_name(name: str) -> str:
    return {"Microsoft Corporation Virtual Machine": "Hyper-V",
            "innotek GmbH VirtualBox": "VirtualBox", "Red Hat KVM": "KVM"}.get(
        name, name.strip())


def distro_of_release(release: str) -> str | None:
    """The distribution a kernel release names ("6.8.0-45-generic" -> "Ubuntu"), or None."""
    for pattern, name in _RELEASE_DISTROS:
        match = pattern.search(release)
        if match is not None:
            return match.expand(name)
    return None


def scan_host(text: str, source: str) -> tuple[tuple[Fact, ...], tuple[Signal, ...]]:
    """The host facts and platform signals anywhere in `text` (any format). Never raises;
    linear in the size of the text."""
    try:
        lines = anchored_lines(text, lowered_text(text), _ANCHORS,
                               max_per_anchor=_MAX_LINES_PER_ANCHOR)
        read: dict[int, str] = {}
        out = Collector(source, [], read=read)
        traces = HostTraces(out)
        previous = -2
        for index, line, _end in lines:
            if index != previous + 1:
                traces.previous = ""
            read[index + 1] = line
            traces.read(line, index + 1)
            previous = index
        traces.finish()
        return tuple(out.host.values()), out.built_signals()
    except Exception:  # a scanner bug must not lose the file's parse
        return (), ()


_SNIFF_RES = (_UNAME_RE, _LINUX_VERSION_RE, _HOSTNAMECTL_KERNEL_RE, _OS_RELEASE_RE,
              _CGROUP_RE, _VIRTUALIZATION_RE,
              re.compile(r"^\s*(?:Distributor ID|Codename|Release|Description|"
                         r"Static hostname|Operating System|Architecture|Hardware Vendor|"
                         r"Hardware Model|Firmware Version|Chassis|Machine ID|Boot ID|"
                         r"Icon name):"),
              re.compile(r"^[A-Z_]{2,40}=\S"),  # os-release and environment lines
              re.compile(r"modprobe: (?:FATAL|ERROR): .{0,200}/lib/modules/"))


def sniff(text: str) -> tuple[str, float] | None:
    """A short paste that is only host facts (uname, os-release, hostnamectl, ...)."""
    lines = sniff_lines(text)
    if not lines or len(lines) > 80:
        return None
    known = sum(1 for line in lines if any(p.search(line) for p in _SNIFF_RES))
    bare = sum(1 for line in lines if _BARE_RELEASE_RE.match(line.strip()))
    kernels = sum(1 for line in lines if _UNAME_RE.match(line) or _MODULES_RE.search(line)
                  or _HOSTNAMECTL_KERNEL_RE.match(line) or _BARE_RELEASE_RE.match(line.strip()))
    if kernels == 0 and not any(_OS_RELEASE_RE.match(line.strip()) or _CGROUP_RE.match(line)
                                for line in lines):
        return None
    if (known + bare) / len(lines) >= 0.5:
        return ("host-info", 0.7)
    return None


@never_raises("host-info")
def parse(text: str, source: str) -> ParsedOutput:
    """A paste of host facts to host facts and platform signals; never raises."""
    lines, cut = read_lines(text)
    out = Collector(source, lines, cut=cut)
    traces = HostTraces(out)
    for number, line in enumerate(lines, start=1):
        if line.strip():
            traces.read_alone(line, number)
    traces.finish()
    if not out.host:
        out.problems.append(f"{source}: no kernel, distribution, container or VM facts")
    return out.result("host-info")
