"""What ROCm will enumerate: the KFD topology under /sys/class/kfd, and whether this user may
open /dev/kfd and the GPUs' render nodes.

The topology is the kernel's (amdkfd's kfd_topology.c), so it needs no ROCm userspace: a GPU
node has `simd_count > 0` and a non-zero `gfx_target_version`, CPU nodes report 0
(https://github.com/torvalds/linux/blob/master/drivers/gpu/drm/amd/amdkfd/kfd_topology.c). The
gfx target is decoded here rather than trusted from rocm_smi/amdsmi, whose string conversions
have been wrong across versions.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from gpuscope.evidence import Identity, System
from gpuscope.i18n import message
from gpuscope.model import (
    DeviceNodeAccess,
    Fact,
    GpuKind,
    GpuSighting,
    JsonValue,
    Layer,
    ProbeResult,
    ProbeState,
    ProbeStatus,
    Vendor,
)
from gpuscope.probes.amdgpu_sysfs import is_linux
from gpuscope.probes.sourced import SightingBuilder, error_text

PROBE_NAME = "kfd"
KFD_CLASS = "/sys/class/kfd"
TOPOLOGY_NODES = "/sys/class/kfd/kfd/topology/nodes"
AMDGPU_MODULE = "/sys/module/amdgpu"
DEV_KFD = "/dev/kfd"

_PROPERTY_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s+(-?\d+)\s*$")


# ----------------------------------------------------------------------------- pure parsers


def decode_gfx_target_version(value: int) -> str | None:
    """KFD's `gfx_target_version` (major*10000 + minor*100 + stepping, decimal) to the LLVM
    target name, minor and stepping written as hex digits: 90010 -> gfx90a, 110000 -> gfx1100,
    90402 -> gfx942. 0 (a CPU node) or a value no target can have -> None."""
    if value <= 0:
        return None
    major, minor, stepping = value // 10000, (value // 100) % 100, value % 100
    if minor > 0xF or stepping > 0xF:
        return None
    return f"gfx{major}{minor:x}{stepping:x}"


def parse_kfd_properties(text: str) -> dict[str, int]:
    """`key value` lines of a topology `properties` file; lines that are not that are skipped."""
    properties: dict[str, int] = {}
    for line in text.splitlines():
        match = _PROPERTY_RE.match(line)
        if match:
            properties[match.group(1)] = int(match.group(2))
    return properties


def pci_bus_from_location(domain: int, location_id: int) -> str:
    """KFD's `domain` and `location_id` (bus << 8 | device << 3 | function) as `0000:03:00.0`."""
    bus, device, function = (location_id >> 8) & 0xFF, (location_id >> 3) & 0x1F, location_id & 7
    return f"{domain & 0xFFFF:04x}:{bus:02x}:{device:02x}.{function:x}"


@dataclass(frozen=True, slots=True)
class PasswdEntry:
    name: str
    uid: int
    gid: int


@dataclass(frozen=True, slots=True)
class GroupEntry:
    name: str
    gid: int
    members: tuple[str, ...] = field(default=())


def parse_passwd(text: str) -> tuple[PasswdEntry, ...]:
    entries: list[PasswdEntry] = []
    for line in text.splitlines():
        parts = line.split(":")
        if len(parts) < 4 or line.startswith("#"):
            continue
        try:
            entries.append(PasswdEntry(parts[0], int(parts[2]), int(parts[3])))
        except ValueError:
            continue
    return tuple(entries)


def parse_group(text: str) -> tuple[GroupEntry, ...]:
    entries: list[GroupEntry] = []
    for line in text.splitlines():
        parts = line.split(":")
        if len(parts) < 3 or line.startswith("#"):
            continue
        try:
            gid = int(parts[2])
        except ValueError:
            continue
        members = tuple(m.strip() for m in parts[3].split(",") if m.strip()) if len(
            parts) > 3 else ()
        entries.append(GroupEntry(parts[0], gid, members))
    return tuple(entries)


# ----------------------------------------------------------------------------- device nodes


def check_device_node(system: System, path: str) -> DeviceNodeAccess:
    """Whether this process can open `path` read-write, and if not, why: who owns it, and
    whether the user is (or only will be, after a new login) in its group."""
    info = system.stat(path)
    if not info.exists:
        reason = (message("{path} does not exist", path=path) if info.error in (None, "ENOENT")
                  else message("cannot stat {path}: {error}", path=path, error=info.error))
        return DeviceNodeAccess(path=path, exists=False, can_open=False, reason=reason)

    identity = system.identity()
    passwd, groups = _accounts(system, identity, info.uid, info.gid)
    owner_user = _user_name(passwd, info.uid)
    group = next((g for g in groups if g.gid == info.gid), None)
    owner_group = group.name if group else (str(info.gid) if info.gid is not None else None)
    mode = info.mode_string
    can_open = system.can_open(path, write=True)
    username = identity.username or next(
        (p.name for p in passwd if p.uid == identity.uid), None)

    granted_not_active = False
    if identity.uid != 0 and info.gid is not None:
        granted = _group_granted(identity, username, passwd, group, info.gid)
        active = info.gid in identity.process_gids or info.gid == identity.gid
        granted_not_active = granted and not active
    else:
        granted = active = False

    if identity.uid == 0:
        can_open = True  # root opens any device node that exists
    denied: str | None = None
    if not can_open:
        denied = _denied_reason(path, mode, owner_user, owner_group, username or
                                message("uid {uid}", uid=identity.uid), granted, active, info.mode)
    return DeviceNodeAccess(
        path=path, exists=True, mode=mode, owner_user=owner_user, owner_group=owner_group,
        can_open=can_open, group_granted_not_active=granted_not_active, reason=denied,
    )


def collect_accounts(user_uid: int, owner_uid: int | None, owner_gid: int | None) -> JsonValue:
    """Only the account entries a device-node check needs, through NSS (LDAP and sssd
    included): the user, the node's owner and the node's group with the user's membership.
    Reading /etc/passwd and /etc/group whole would put every account of the machine into a
    snapshot that people share."""
    import grp
    import pwd

    users: list[JsonValue] = []
    for uid in dict.fromkeys(u for u in (user_uid, owner_uid) if u is not None):
        try:
            entry = pwd.getpwuid(uid)
        except KeyError:
            continue
        users.append({"name": entry.pw_name, "uid": entry.pw_uid, "gid": entry.pw_gid})
    groups: list[JsonValue] = []
    if owner_gid is not None:
        try:
            group = grp.getgrgid(owner_gid)
        except KeyError:
            pass
        else:
            user_names = {u["name"] for u in users if isinstance(u, dict)}
            groups.append({"name": group.gr_name, "gid": group.gr_gid,
                           "members": [m for m in group.gr_mem if m in user_names]})
    return {"status": "ok", "users": users, "groups": groups}


def _accounts(system: System, identity: Identity, owner_uid: int | None,
              owner_gid: int | None) -> tuple[tuple[PasswdEntry, ...], tuple[GroupEntry, ...]]:
    answer = system.library(
        f"accounts:{identity.uid}:{owner_uid}:{owner_gid}",
        lambda: collect_accounts(identity.uid, owner_uid, owner_gid),
    )
    if isinstance(answer, dict) and answer.get("status") == "ok":
        passwd = []
        for user in _dicts(answer.get("users")):
            uid, gid = user.get("uid"), user.get("gid")
            if isinstance(uid, int) and isinstance(gid, int):
                passwd.append(PasswdEntry(str(user.get("name")), uid, gid))
        groups = []
        for group in _dicts(answer.get("groups")):
            gid = group.get("gid")
            if isinstance(gid, int):
                members = tuple(str(m) for m in _list(group.get("members")))
                groups.append(GroupEntry(str(group.get("name")), gid, members))
        return tuple(passwd), tuple(groups)
    # No account answer (a hand-written fixture, or no pwd module): the files themselves.
    return (parse_passwd(system.read_text("/etc/passwd").text or ""),
            parse_group(system.read_text("/etc/group").text or ""))


def _dicts(value: JsonValue) -> list[dict[str, JsonValue]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _list(value: JsonValue) -> list[JsonValue]:
    return value if isinstance(value, list) else []


def _user_name(passwd: tuple[PasswdEntry, ...], uid: int | None) -> str | None:
    if uid is None:
        return None
    return next((p.name for p in passwd if p.uid == uid), str(uid))


def _group_granted(identity: Identity, username: str | None,
                   passwd: tuple[PasswdEntry, ...], group: GroupEntry | None, gid: int) -> bool:
    """In /etc/group's member list, or the group is the user's primary group in /etc/passwd."""
    if username and group and username in group.members:
        return True
    primary = next((p.gid for p in passwd if p.name == username or p.uid == identity.uid), None)
    return primary == gid


def _denied_reason(path: str, mode: str | None, owner_user: str | None,
                   owner_group: str | None, user: str, granted: bool, active: bool,
                   st_mode: int | None) -> str:
    if mode is None or owner_group is None:
        return message("permission denied: {path}", path=path)
    what = dict(path=path, mode=mode, owner=f"{owner_user or '?'}:{owner_group}")
    if st_mode is not None and st_mode & 0o006 == 0o006:
        return message("permission denied: {path} is {mode} {owner}, open to everyone, yet "
                       "this process cannot open it (a container's device rules or a "
                       "security module may block it)", **what)
    if active:
        return message("permission denied: {path} is {mode} {owner} although user {user} is "
                       "in group {group} (an ACL, a container or a security module may block "
                       "it)", **what, user=user, group=owner_group)
    if granted:
        return message("permission denied: {path} is {mode} {owner} and user {user} was added "
                       "to group {group} but this login session predates it", **what,
                       user=user, group=owner_group)
    return message("permission denied: {path} is {mode} {owner} and user {user} is not in "
                   "group {group}", **what, user=user, group=owner_group)


def _access_hint(node: DeviceNodeAccess, user: str | None) -> str | None:
    group = node.owner_group or "render"
    if node.group_granted_not_active:
        return message("log out and back in (or run `newgrp {group}`) so that this session "
                       "carries group {group}", group=group)
    if not node.exists:
        return message("inside a container, pass the devices in (add `--device=/dev/kfd "
                       "--device=/dev/dri` to `docker run`); otherwise check that amdgpu "
                       "loaded (`sudo dmesg | grep kfd`)")
    groups = "render,video" if group in ("render", "video") else f"{group},video"
    # $USER, never the name: the line is copied and pasted, and a report redacts names.
    return message("run `sudo usermod -aG {groups} $USER`, then log out and back in",
                   groups=groups)


# ----------------------------------------------------------------------------- the probe


@dataclass(frozen=True, slots=True)
class _Node:
    index: int
    path: str
    properties: dict[str, int]
    gpu_id: int | None

    @property
    def is_gpu(self) -> bool:
        # Kernels before gfx_target_version existed still mark GPU nodes by their SIMDs.
        gfx = self.properties.get("gfx_target_version")
        return self.properties.get("simd_count", 0) > 0 and gfx != 0


def probe_kfd(system: System) -> ProbeResult:
    """The GPU nodes of the KFD topology (Layer.KFD sightings), /dev/kfd and render-node
    access, and the `kfd_loaded` stack fact."""
    try:
        return _probe(system)
    except Exception as exc:  # the probe contract: a bug becomes this probe's error status
        return ProbeResult(ProbeStatus(PROBE_NAME, ProbeState.ERROR,
                                       reason=error_text(exc)))


def _probe(system: System) -> ProbeResult:
    if not is_linux(system):
        return ProbeResult(ProbeStatus(PROBE_NAME, ProbeState.NOT_APPLICABLE,
                                       reason=message("KFD is Linux-only")))
    amdgpu_loaded = system.stat(AMDGPU_MODULE).exists
    amdgpu_fact = Fact("amdgpu_loaded", amdgpu_loaded, source=AMDGPU_MODULE)
    listing = system.list_dir(TOPOLOGY_NODES)
    if listing.entries is None:
        kfd_present = system.stat(KFD_CLASS).exists
        if kfd_present and listing.error not in (None, "ENOENT"):
            return ProbeResult(
                ProbeStatus(PROBE_NAME, ProbeState.ERROR,
                            reason=message("cannot list {path}: {error}",
                                           path=TOPOLOGY_NODES, error=listing.error)),
                stack_facts=(Fact("kfd_loaded", True, source=KFD_CLASS), amdgpu_fact),
            )
        facts = (Fact("kfd_loaded", False, source=f"{KFD_CLASS} (missing)"), amdgpu_fact)
        if amdgpu_loaded:
            return ProbeResult(ProbeStatus(
                PROBE_NAME, ProbeState.DRIVER_MISSING,
                reason=message("KFD not present (/sys/class/kfd missing) although amdgpu is "
                               "loaded"),
                hint=message("the kernel may be built without CONFIG_HSA_AMD, or KFD failed "
                             "to initialise this GPU: check `dmesg | grep -i kfd`"),
            ), stack_facts=facts)
        return ProbeResult(ProbeStatus(PROBE_NAME, ProbeState.NOT_APPLICABLE,
                                       reason=message("no amdgpu driver loaded")),
                           stack_facts=facts)

    nodes = [_read_node(system, entry) for entry in
             sorted((e for e in listing.entries if e.isdigit()), key=int)]
    gpu_nodes = [n for n in nodes if n.is_gpu]
    bus_counts = Counter(_bus(n) for n in gpu_nodes)
    sightings = tuple(_sighting(n, bus_counts) for n in gpu_nodes)
    facts = (Fact("kfd_loaded", True, source=TOPOLOGY_NODES), amdgpu_fact)

    device_nodes = [check_device_node(system, DEV_KFD)]
    for node in gpu_nodes:
        minor = node.properties.get("drm_render_minor", 0)
        if minor > 0:
            device_nodes.append(check_device_node(system, f"/dev/dri/renderD{minor}"))

    cpu_count = len(nodes) - len(gpu_nodes)
    summary = (message("1 GPU node") if len(gpu_nodes) == 1
               else message("{count} GPU nodes", count=len(gpu_nodes)))
    if not gpu_nodes:
        summary = (message("no GPU node (1 CPU node): ROCm will enumerate no GPU")
                   if cpu_count == 1 else
                   message("no GPU node ({count} CPU nodes): ROCm will enumerate no GPU",
                           count=cpu_count))
    kfd = device_nodes[0]
    if gpu_nodes and not kfd.can_open:
        user = system.identity().username
        return ProbeResult(
            ProbeStatus(PROBE_NAME, ProbeState.PERMISSION_DENIED,
                        reason=kfd.reason or message("permission denied: {path}", path=DEV_KFD),
                        hint=_access_hint(kfd, user)),
            sightings=sightings, stack_facts=facts, device_nodes=tuple(device_nodes),
        )
    return ProbeResult(ProbeStatus(PROBE_NAME, ProbeState.OK, reason=summary),
                       sightings=sightings, stack_facts=facts, device_nodes=tuple(device_nodes))


def _read_node(system: System, entry: str) -> _Node:
    path = f"{TOPOLOGY_NODES}/{entry}"
    properties = parse_kfd_properties(system.read_text(f"{path}/properties").text or "")
    gpu_id_text = system.read_text(f"{path}/gpu_id").stripped()
    gpu_id = int(gpu_id_text) if gpu_id_text and gpu_id_text.isdigit() else None
    return _Node(int(entry), path, properties, gpu_id)


def _bus(node: _Node) -> str | None:
    location = node.properties.get("location_id")
    if location is None:
        return None
    return pci_bus_from_location(node.properties.get("domain", 0), location)


def _sighting(node: _Node, bus_counts: Counter[str | None]) -> GpuSighting:
    props = node.properties
    source = f"{node.path}/properties"
    fields = SightingBuilder(Layer.KFD)
    fields.put("kfd_node", node.index, node.path)
    if node.gpu_id:
        fields.put("kfd_gpu_id", node.gpu_id, f"{node.path}/gpu_id")
    else:
        fields.miss("kfd_gpu_id", message("{path}/gpu_id unreadable", path=node.path))
    vendor_id = props.get("vendor_id")
    if vendor_id:
        vendor_source = f"{source} vendor_id"
        fields.put("pci_vendor_id", f"0x{vendor_id:04x}", vendor_source)
        fields.put("vendor", Vendor.from_pci_vendor_id(f"0x{vendor_id:04x}"), vendor_source)
    else:
        fields.miss("pci_vendor_id", message("{source}: no vendor_id", source=source))
    device_id = props.get("device_id")
    if device_id:
        fields.put("pci_device_id", f"0x{device_id:04x}", f"{source} device_id")
    else:
        fields.miss("pci_device_id", message("{source}: no device_id", source=source))
    bus = _bus(node)
    if bus is not None:
        fields.put("pci_bus", bus, f"{source} domain, location_id")
        if bus_counts[bus] > 1:
            # Several KFD nodes on one PCI function: a partitioned GPU (MI300 CPX/TPX modes).
            fields.put("kind", GpuKind.PARTITION,
                       f"{source} ({bus_counts[bus]} KFD nodes on {bus})")
    else:
        fields.miss("pci_bus", message("{source}: no location_id", source=source))
    gfx_value = props.get("gfx_target_version")
    gfx = decode_gfx_target_version(gfx_value) if gfx_value is not None else None
    fields.take("gfx_target", gfx, f"{source} gfx_target_version {gfx_value}",
                message("{source}: no gfx_target_version (kernel too old)", source=source)
                if gfx_value is None
                else message("{source}: gfx_target_version {value} is no target",
                             source=source, value=gfx_value))
    simd_count = props.get("simd_count", 0)
    fields.put("simd_count", simd_count, f"{source} simd_count")
    simd_per_cu = props.get("simd_per_cu", 0)
    if simd_per_cu > 0:
        fields.put("compute_units", simd_count // simd_per_cu,
                   f"{source} simd_count / simd_per_cu")
    else:
        fields.miss("compute_units", message("{source}: simd_per_cu is 0 or missing",
                                             source=source))
    minor = props.get("drm_render_minor", 0)
    if minor > 0:
        fields.put("drm_render_minor", minor, f"{source} drm_render_minor")
    else:
        fields.miss("drm_render_minor", message("{source}: no drm_render_minor",
                                                source=source))
    return fields.sighting()
