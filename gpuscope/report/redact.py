"""Redaction for exports: host and user names, home paths, serial numbers, UUIDs, MAC and IP
addresses become stable placeholders (`<host-1>`, `<user-1>`, `<home-1>`, `<serial-1>`,
`<uuid-1>`, `<mac-1>`, `<ip-1>`) before anything leaves the machine.

Two inputs decide what is removed:

- an `Identity`: the names and ids that are known to be sensitive, collected from this process
  (`Identity.from_process`: getpass, socket, `Path.home()`, USER/LOGNAME/HOSTNAME/HOME) and from
  the data itself (`Identity.from_data`: the inventory's host name, GPU serials and UUIDs, a
  snapshot's user name, host name files, `/etc/passwd` lines, home paths seen in any string);
- patterns that need no identity: UUIDs (also NVIDIA's `GPU-…` and `MIG-…` forms), MAC
  addresses, IPv4/IPv6 addresses, `/home/<name>`-style paths, "Serial Number: …" lines.

Names are matched where they stand alone, never inside a longer word. A name that is short or
an ordinary word ("ai", "me", "dev", "ubuntu") is a *weak* name: it is redacted only where it
is clearly a name (a path component, `user me`, `me@host`, `@vm`, `hostname: vm`, a group list
in /etc/group, a whole JSON value) so that "Radeon AI PRO" or "tell me" stay intact. Version
strings (6.2.4, 5.15.153.1-microsoft-standard-WSL2, 95.02.18.80.87), PCI addresses
(0000:03:00.0), gfx targets and kernel versions are never taken for addresses.

A `Redactor` keeps the mapping original -> placeholder for one export, so the same original
gets the same placeholder in every part of it; `preview()` lists what was (or would be)
removed for the export dialog's "what will be redacted" toggle. Placeholders contain `<` and
`>`: an HTML or Markdown writer must escape them like any other text.

Shell commands (the `fix_commands` of findings) must still run as pasted, and `<user-1>` is a
shell redirection there. So in a command a user name becomes `$USER`, a home directory `$HOME`
and anything else a shell word such as `REDACTED_SERIAL_1`; shell variables (`$USER`,
`${HOME}`) are never taken for names anywhere.
"""

from __future__ import annotations

import dataclasses
import enum
import getpass
import ipaddress
import os
import platform
import re
import socket
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuscope.model import to_jsonable
from gpuscope.report.redact_messages import translatable


class Kind(str, enum.Enum):
    """What a redacted value was; the placeholder's prefix."""

    HOST = "host"
    USER = "user"
    HOME = "home"
    SERIAL = "serial"
    UUID = "uuid"
    MAC = "mac"
    IP = "ip"


KIND_ORDER: tuple[Kind, ...] = tuple(Kind)
_PLACEHOLDER = r"<(?:host|user|home|serial|uuid|mac|ip)-\d+>"
PLACEHOLDER_RE = re.compile(_PLACEHOLDER)
# The placeholders of shell commands, and the variables that stand for the user there.
SHELL_PLACEHOLDER_RE = re.compile(r"REDACTED_(?:HOST|USER|HOME|SERIAL|UUID|MAC|IP)_\d+")
SHELL_VARIABLE_RE = re.compile(r"\$(?:\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)")
# Keys whose string values (or lists of them) are shell command lines.
_COMMAND_KEYS = frozenset({"fix_commands", "commands"})
_POSIX_HOME = re.compile(r"/(?:home|Users|var/home|usr/home)/[^/\s]+")
# A Windows home in a command becomes $env:USERPROFILE (PowerShell; paths in double quotes).
_WINDOWS_HOME = re.compile(r"[A-Za-z]:[\\/]+(?:Users|Documents and Settings)[\\/]+[^\\/]+")


@dataclass(frozen=True, slots=True)
class Replacement:
    """One entry of the redaction preview: `original` became `placeholder`, `occurrences`
    times so far."""

    kind: Kind
    original: str
    placeholder: str
    occurrences: int


# ----------------------------------------------------------------------------- vocabulary

# Values that name nobody: never redacted (root's files are not a clue to who you are).
_NEVER = frozenset({
    "", "root", "nobody", "none", "null", "unknown", "n/a", "na", "(none)", "localhost",
    "localhost.localdomain", "localdomain", "not supported", "[not supported]", "[n/a]",
    "not available", "unavailable", "default", "-", "?", "xx", "gpu-xx", "cpu-xx",
})
# Names that are also ordinary or technical words: redacted only in name contexts (weak).
_VOCABULARY_WORDS = """
admin administrator user users guest test tester demo dev developer default public shared home
local system service server desktop workstation laptop computer pc box host node vm machine lab
build builder runner worker docker container ubuntu debian fedora arch archlinux manjaro mint
pop popos centos rhel rocky alma opensuse suse gentoo nixos kali wsl linux windows mac macos
amd nvidia intel radeon geforce rtx gtx instinct gpu cpu apu rocm cuda hip hsa kfd drm torch
python jupyter render video audio input kvm sudo wheel adm staff plugdev dip cdrom ai ml llm
data work main master ok error navi vega polaris ada ampere hopper turing pascal volta
blackwell lovelace rdna cdna gcn gfx phoenix strix rembrandt titan quadro tesla pro max mini
the and for not are but you all any can had has her him his how its let may new now old one
our out own say see set she too two use way who why yes run get got off top min sum avg log
bin lib usr opt etc var tmp sys proc ram bus pci fan mem gtt smi sdk api abi bar bit end err
key low raw big web app bot net man day age art car cat dog red sun win xt xtx gre
"""
_VOCABULARY = frozenset(_VOCABULARY_WORDS.split())

# A sensitive key's kind carries into these keys of its value: snapshot recordings keep a
# library call's answer under "value" and a file's content under "text".
_CARRIER_KEYS = frozenset({"value", "values", "text", "stdout"})
# Maps whose keys name fields and whose values say where a field came from or why it is
# missing ("serial_number": "/sys/.../serial_number"): their keys are not sensitive keys.
_DESCRIBING_KEYS = frozenset({"field_sources", "missing_reasons"})
_KEY_KINDS: dict[str, Kind] = {
    **dict.fromkeys(("user", "username", "user_name", "login", "logname", "owner_user"),
                    Kind.USER),
    **dict.fromkeys(("hostname", "host_name", "nodename", "node_name", "computername",
                     "computer_name", "fqdn"), Kind.HOST),
    **dict.fromkeys(("home", "userprofile", "home_dir", "homedir"), Kind.HOME),
    **dict.fromkeys(("serial", "serial_number", "serialnumber", "serial_no", "product_serial",
                     "board_serial", "asic_serial", "chassis_serial", "unique_id"),
                    Kind.SERIAL),
    **dict.fromkeys(("uuid", "gpu_uuid", "device_uuid", "machine_id", "boot_id"), Kind.UUID),
    **dict.fromkeys(("mac", "mac_address", "macaddress", "hwaddr", "permaddr"), Kind.MAC),
    **dict.fromkeys(("ip", "ip_address", "ipaddr", "ipv4", "ipv6"), Kind.IP),
}


def _child_kind(key: object, parent: Kind | None, describing: bool) -> Kind | None:
    if parent is not None and key in _CARRIER_KEYS:
        return parent
    return None if describing else _key_kind(key)


def _key_kind(key: object) -> Kind | None:
    """The kind a JSON key holds: "hostname", "HOME", "/sys/.../unique_id" (a snapshot's
    file path keys are judged by their last component)."""
    if not isinstance(key, str):
        return None
    last = re.split(r"[/\\]", key.strip())[-1].lower().replace("-", "_")
    return _KEY_KINDS.get(last)


def identifying(value: str) -> bool:
    """Whether a value names or numbers something. Empty, "N/A", "root", "localhost", all
    zeros ("0", "00000000-0000-…", "00:00:00:00:00:00") and all ones (ff:ff:…) do not."""
    text = value.strip()
    if text.lower() in _NEVER or SHELL_VARIABLE_RE.fullmatch(text):
        return False
    digits = re.sub(r"[\s:._\-/x]", "", text.lower())
    return bool(digits) and set(digits) not in ({"0"}, {"f"})


def is_weak(name: str) -> bool:
    """A name too short or too ordinary to match wherever it stands alone."""
    return len(name) < 3 or name.lower() in _VOCABULARY or name.isdigit()


# ----------------------------------------------------------------------------- identity


def _clean(values: Iterable[str | None]) -> frozenset[str]:
    return frozenset(v.strip() for v in values if v is not None and identifying(v))


def _host_forms(names: Iterable[str | None]) -> list[str]:
    """"box.example.lan" -> also "box" (the short name is what prompts and logs show)."""
    forms: list[str] = []
    for name in names:
        if name is None:
            continue
        forms.append(name)
        short = name.strip().split(".", 1)[0]
        if "." in name.strip() and not _is_ip(name.strip()):
            forms.append(short)
    return forms


def _home_forms(paths: Iterable[str | None]) -> list[str]:
    forms: list[str] = []
    for path in paths:
        if path is None:
            continue
        text = path.strip().rstrip("/\\")
        # "/" or "/root" hide nothing; a bare drive ("C:") neither.
        if len(text) < 2 or text.lower() in ("/root", "/") or re.fullmatch(r"[A-Za-z]:", text):
            continue
        forms.append(text)
    return forms


@dataclass(frozen=True, slots=True)
class Identity:
    """What is known to be sensitive: user names, host names, home paths, serials, UUIDs."""

    user_names: frozenset[str] = frozenset()
    host_names: frozenset[str] = frozenset()
    home_paths: frozenset[str] = frozenset()
    serials: frozenset[str] = frozenset()
    uuids: frozenset[str] = frozenset()

    @classmethod
    def of(cls, *, user_names: Iterable[str | None] = (),
           host_names: Iterable[str | None] = (), home_paths: Iterable[str | None] = (),
           serials: Iterable[str | None] = (), uuids: Iterable[str | None] = ()) -> Identity:
        """An identity from raw values; non-identifying ones (root, localhost, N/A) dropped."""
        return cls(user_names=_clean(user_names), host_names=_clean(_host_forms(host_names)),
                   home_paths=_clean(_home_forms(home_paths)), serials=_clean(serials),
                   uuids=_clean(uuids))

    def __or__(self, other: Identity) -> Identity:
        return Identity(self.user_names | other.user_names, self.host_names | other.host_names,
                        self.home_paths | other.home_paths, self.serials | other.serials,
                        self.uuids | other.uuids)

    def is_empty(self) -> bool:
        return not (self.user_names or self.host_names or self.home_paths or self.serials
                    or self.uuids)

    @classmethod
    def from_process(cls, environ: Mapping[str, str] | None = None) -> Identity:
        """Who runs this process, on which host: getpass, socket.gethostname(),
        platform.node(), Path.home() and the USER/LOGNAME/USERNAME, HOSTNAME/COMPUTERNAME,
        HOME/USERPROFILE variables. Every source may fail; none raises."""
        env = os.environ if environ is None else environ
        users: list[str | None] = [env.get(k) for k in ("USER", "LOGNAME", "USERNAME")]
        hosts: list[str | None] = [env.get(k) for k in ("HOSTNAME", "COMPUTERNAME")]
        homes: list[str | None] = [env.get(k) for k in ("HOME", "USERPROFILE")]
        users.append(_try(getpass.getuser))
        hosts.append(_try(socket.gethostname))
        hosts.append(_try(platform.node))
        homes.append(_try(lambda: str(Path.home())))
        for home in homes:  # the last component of a home is the user's name as well
            users.append(_home_user(home))
        return cls.of(user_names=users, host_names=hosts, home_paths=homes)

    @classmethod
    def from_data(cls, *values: Any) -> Identity:
        """What the data says about its own machine: values under known keys (hostname,
        username, serial_number, uuid, HOME, a platform record's `node`, snapshot files such
        as /proc/sys/kernel/hostname), /etc/passwd lines of human accounts, shell prompts and
        home paths in any string. Dataclasses (an Inventory, a Gpu) are read as their JSON."""
        found: dict[Kind, list[str]] = {kind: [] for kind in Kind}
        for value in values:
            _harvest(_jsonable(value), None, found)
        return cls.of(user_names=found[Kind.USER], host_names=found[Kind.HOST],
                      home_paths=found[Kind.HOME], serials=found[Kind.SERIAL],
                      uuids=found[Kind.UUID])


def _try(read: Callable[[], str]) -> str | None:
    try:
        return read()
    except (OSError, KeyError, RuntimeError, ImportError):  # no user entry, no home, no name
        return None


def _jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        try:
            return to_jsonable(value)
        except TypeError:
            return None
    return value


_HOME_USER = re.compile(r"(?:^|[/\\])(?:home|Users|var[/\\]home|usr[/\\]home)[/\\]+([^/\\]+)$")


def _home_user(home: str | None) -> str | None:
    if home is None:
        return None
    match = _HOME_USER.search(home.strip().rstrip("/\\"))
    return match.group(1) if match else None


_PASSWD = re.compile(r"(?m)^([A-Za-z_][\w.-]*):[^:\n]*:(\d+):\d+:([^:\n]*):([^:\n]*):[^:\n]*$")
_PROMPT = re.compile(r"(?<![\w.-])([A-Za-z_][\w-]*)@([A-Za-z0-9][\w-]*):[~/]")
_SERIAL_TEXT = re.compile(
    r"(?i)(?<![A-Za-z])(?:serial(?:[ _-]?(?:number|no|num))?|unique[ _]id|product[ _]serial"
    r"|board[ _]serial)(?![A-Za-z])[\"'>]?[ \t]*[:=]?[ \t]*[\"']?"
    r"(?P<v>(?=[\w-]*\d)[A-Za-z0-9][\w-]{3,})")
_SERIAL_TEXT_GROUP = "v"


def _harvest(value: Any, kind: Kind | None, found: dict[Kind, list[str]],
             describing: bool = False) -> None:
    if isinstance(value, Mapping):
        if "node" in value and ("system" in value or "release" in value):
            node = value.get("node")  # a platform.uname() record
            if isinstance(node, str):
                found[Kind.HOST].append(node)
        for key, item in value.items():
            _harvest(item, _child_kind(key, kind, describing), found,
                     key in _DESCRIBING_KEYS)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _harvest(item, kind, found)
    elif isinstance(value, str):
        if kind is not None:
            found[kind].append(value)
            if kind is Kind.HOME:
                found[Kind.USER].append(_home_user(value) or "")
        for match in _GENERIC_HOME.finditer(value):
            if match.group("name").lower() not in _NOT_A_USER_DIR:
                found[Kind.HOME].append(match.group(0))
                found[Kind.USER].append(match.group("name"))
        for line in _PASSWD.finditer(value):
            name, uid, gecos, home = line.groups()
            if int(uid) >= 1000 and name != "nobody":
                found[Kind.USER].append(name)
                full_name = gecos.split(",", 1)[0]
                found[Kind.USER].extend([full_name, *full_name.split()])
                found[Kind.HOME].append(home)
        for prompt in _PROMPT.finditer(value):
            found[Kind.USER].append(prompt.group(1))
            found[Kind.HOST].append(prompt.group(2))
        for serial in _SERIAL_TEXT.finditer(value):
            if _serial_value_ok(serial.group(_SERIAL_TEXT_GROUP)):
                found[Kind.SERIAL].append(serial.group(_SERIAL_TEXT_GROUP))
    elif isinstance(value, int) and not isinstance(value, bool) and kind is Kind.SERIAL:
        found[kind].append(str(value))


def _serial_value_ok(value: str) -> bool:
    return any(c.isdigit() for c in value) and identifying(value)


# ----------------------------------------------------------------------------- patterns

_NAME_CHARS = r"(?!\$)[^/\\\s\"'<>:;,|*?()\[\]{}=`]+"  # "$USER" is no name
_GENERIC_HOME = re.compile(
    r"(?:(?<![\w])[A-Za-z]:(?:\\{1,2}|/)(?:Users|Documents and Settings)(?:\\{1,2}|/)"
    r"|(?:/mnt/[a-z])?/Users/|/var/home/|/usr/home/|/home/)"
    rf"(?P<name>{_NAME_CHARS})")
_NOT_A_USER_DIR = frozenset({"public", "default", "default user", "all users", "shared",
                             "linuxbrew", "guest"})
_HEX = "[0-9A-Fa-f]"
_UUID = re.compile(
    rf"(?<!\w)(?:MIG-)?(?:GPU-)?{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}"
    rf"(?:/\d+/\d+)?(?!\w)"
    rf"|(?<!\w)GPU-{_HEX}{{16}}(?!\w)")
# MAC-48, and longer runs of hex pairs (EUI-64, InfiniBand GUIDs) as one
_MAC = re.compile(rf"(?<![\w.-]){_HEX}{{2}}([:-])(?:{_HEX}{{2}}\1){{4,}}{_HEX}{{2}}"
                  rf"(?!\w|[:-]{_HEX}{{2}}(?![^\W_]))")
_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_IPV4 = re.compile(rf"(?<![\w.])(?:{_OCTET}\.){{3}}{_OCTET}(?!\w|\.[\d<]|-[\w<])")
_IPV6 = re.compile(rf"(?<![\w:.])(?:{_HEX}{{0,4}}:){{2,7}}"
                   rf"(?:{_HEX}{{1,4}}|(?:\d{{1,3}}\.){{3}}\d{{1,3}})?(?:%[\w.]+)?"
                   rf"(?![\w:]|\.[\d<])")
_VERSION_BEFORE = re.compile(r"(?i)(?:version|ver|driver|firmware|vbios|release|build)"
                             r"[\s:=]*$")


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return False
    return True


def _ipv4_ok(text: str, before: str) -> bool:
    address = ipaddress.IPv4Address(text)
    if address.is_loopback or address.is_unspecified or str(address) == "255.255.255.255":
        return False
    return _VERSION_BEFORE.search(before) is None


def _ipv6_ok(text: str) -> bool:
    try:
        address = ipaddress.IPv6Address(text.split("%", 1)[0])
    except ValueError:
        return False
    if address.is_loopback or address.is_unspecified:
        return False
    groups = [g for g in re.split(r":+", text.split("%", 1)[0]) if g]
    # "a::b" in C++ names is a valid address; real ones have more groups or longer ones.
    return len(groups) >= 3 or any(len(g) >= 3 for g in groups)


@dataclass(frozen=True, slots=True)
class _Span:
    start: int
    end: int
    kind: Kind | None  # None: an existing placeholder, kept as it is
    canonical: str
    original: str
    priority: int


def _boundary_pattern(names: Iterable[str], *, flags: int = re.IGNORECASE) -> re.Pattern[str]:
    """Names standing alone: not preceded or followed by a letter or digit ("_", "-", "."
    and punctuation count as separators). Longest first so "alice-desktop" beats "alice"."""
    ordered = sorted(set(names), key=lambda n: (-len(n), n))
    alternation = "|".join(re.escape(n) for n in ordered)
    return re.compile(rf"(?<![^\W_])(?:{alternation})(?![^\W_])", flags)


def _weak_user_rules(name: str) -> list[re.Pattern[str]]:
    n = re.escape(name)
    return [
        # a path component, but not a top-level directory ("/dev/kfd" for a user "dev")
        re.compile(rf"(?<=[^\s\"'`=:(\[,;][/\\]){n}(?=[/\\]|$|[\s\"'`,;:)\]>])"),
        re.compile(r"(?i:(?<![A-Za-z])(?:user(?:name)?|login|logname|owner(?:_user)?)"
                   rf"(?![A-Za-z]))[\"']?[ \t]*[:=]?[ \t]*[\"']?(?P<v>{n})(?![\w.-])"),
        re.compile(rf"(?<![\w.-])(?P<v>{n})(?=@[\w-])"),  # me@host
        # a member of a group in /etc/group
        re.compile(rf"(?m)^[\w.-]+:[^:\n]*:\d+:(?:(?:[\w.-]+|{_PLACEHOLDER}),)*"
                   rf"(?P<v>{n})(?=,|$)"),
        re.compile(rf"(?<=~)(?P<v>{n})(?![\w.-])"),
    ]


def _weak_host_rules(name: str) -> list[re.Pattern[str]]:
    n = re.escape(name)
    return [
        re.compile(rf"(?<=@)(?P<v>{n})(?![\w-])"),  # user@vm
        re.compile(r"(?i:(?<![A-Za-z])(?:host(?:_?name)?|node(?:_?name)?|computer(?:_?name)?)"
                   rf"(?![A-Za-z]))[\"']?[ \t]*[:=]?[ \t]*[\"']?(?P<v>{n})(?![\w.-])"),
        # a syslog/journal line: "Nov 22 02:39:40 vm kernel: ..."
        re.compile(r"(?m)^(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT[\d:.]+"
                   rf"(?:[+-]\d\d:?\d\d|Z)?) (?P<v>{n})(?= )"),
        re.compile(rf"(?<=Linux )(?P<v>{n})(?= \d)"),  # uname -a
    ]


# ----------------------------------------------------------------------------- redactor

# Each pass turns some unredacted text into placeholders, so this only bounds pathological input.
_MAX_PASSES = 8
_MIN_ID_CHARS = 6


class Redactor:
    """Redacts text and JSON-like values for one export. The same original always gets the
    same placeholder within one Redactor; `preview()` lists what it replaced. Not thread-safe:
    one per export."""

    def __init__(self, identity: Identity) -> None:
        self.identity = identity
        self._placeholders: dict[tuple[Kind, str], str] = {}
        self._originals: dict[tuple[Kind, str], str] = {}
        self._counts: dict[tuple[Kind, str], int] = {}
        self._next: dict[Kind, int] = dict.fromkeys(Kind, 1)

        strong_hosts = {h for h in identity.host_names if not is_weak(h)}
        strong_users = {u for u in identity.user_names if not is_weak(u)}
        self._strong: list[tuple[Kind, re.Pattern[str]]] = []
        if strong_hosts:
            self._strong.append((Kind.HOST, _boundary_pattern(strong_hosts)))
        if strong_users:
            self._strong.append((Kind.USER, _boundary_pattern(strong_users)))
        # Known ids wherever they stand; a short one ("12") only as a whole value.
        self._known: list[tuple[Kind, re.Pattern[str]]] = []
        for kind, ids in ((Kind.SERIAL, identity.serials), (Kind.UUID, identity.uuids)):
            long_ids = {i for i in ids if len(i) >= _MIN_ID_CHARS}
            if long_ids:
                self._known.append((kind, _boundary_pattern(long_ids)))
        self._homes: re.Pattern[str] | None = None
        if identity.home_paths:
            ordered = sorted(identity.home_paths, key=lambda p: (-len(p), p))
            self._homes = re.compile(
                "(?:" + "|".join(re.escape(p) for p in ordered) + r")(?![^\W_]|[.-][\w<])")
        self._contexts: list[tuple[Kind, re.Pattern[str]]] = [
            (Kind.USER, rule) for u in sorted(identity.user_names - strong_users)
            for rule in _weak_user_rules(u)]
        self._contexts += [(Kind.HOST, rule) for h in sorted(identity.host_names - strong_hosts)
                           for rule in _weak_host_rules(h)]
        # A whole value equal to a known name is that name, weak or not ("vm\n" in a file).
        self._whole: dict[str, Kind] = {}
        for kind, values in ((Kind.SERIAL, identity.serials), (Kind.UUID, identity.uuids),
                             (Kind.HOME, identity.home_paths), (Kind.USER, identity.user_names),
                             (Kind.HOST, identity.host_names)):
            for value in values:
                self._whole[value.lower()] = kind

    @classmethod
    def for_export(cls, *values: Any, identity: Identity | None = None) -> Redactor:
        """A redactor that knows this process's identity, whatever `values` (the documents
        about to be exported) say about their machine, and `identity` if given."""
        known = Identity.from_process() | Identity.from_data(*values)
        return cls(known | identity if identity is not None else known)

    # ------------------------------------------------------------------ public

    def redact_text(self, text: str) -> str:
        """The text with every sensitive value replaced by its placeholder. Runs until nothing
        changes: a replacement can expose a neighbour that a longer match hid ("S/N 1234-fe80::1"
        took "1234-fe80" and left "::1"), and redacting twice must change nothing."""
        return self._until_stable(text, as_command=False)

    def redact_command(self, command: str) -> str:
        """A shell command line redacted so that it still parses and runs: a user name becomes
        `$USER`, a home directory `$HOME`, anything else a word like `REDACTED_SERIAL_1`."""
        return self._until_stable(command, as_command=True)

    def _until_stable(self, text: str, *, as_command: bool) -> str:
        for _ in range(_MAX_PASSES):
            redacted = self._pass(text, as_command)
            if redacted == text:
                break
            text = redacted
        return text

    def _pass(self, text: str, as_command: bool = False) -> str:
        spans = self._select(self._spans(text))
        if not spans:
            return text
        out: list[str] = []
        position = 0
        for span in spans:
            out.append(text[position:span.start])
            if span.kind is None:
                out.append(span.original)
            elif as_command:  # a placeholder that is a shell word
                following = text[span.end:span.end + 1]
                out.append(self._shell_placeholder(span.kind, span.canonical, span.original,
                                                   following))
            else:
                out.append(self._placeholder(span.kind, span.canonical, span.original))
            position = span.end
        out.append(text[position:])
        return "".join(out)

    def _shell_placeholder(self, kind: Kind, canonical: str, original: str,
                           following: str = "") -> str:
        """The placeholder as a shell word (numbered like `<kind-n>`, counted the same)."""
        holder = self._placeholder(kind, canonical, original)
        variable = None
        if kind is Kind.USER:
            variable = "USER"
        elif kind is Kind.HOME and _POSIX_HOME.fullmatch(original.strip().rstrip("/")):
            variable = "HOME"
        if variable is not None:
            glued = following[:1].isalnum() or following == "_"
            return f"${{{variable}}}" if glued else f"${variable}"
        if kind is Kind.HOME and _WINDOWS_HOME.fullmatch(original.strip().rstrip("\\/")):
            return "$env:USERPROFILE"
        number = holder[1:-1].rsplit("-", 1)[1]
        return f"REDACTED_{kind.value.upper()}_{number}"

    def redact_json(self, value: Any) -> Any:
        """A copy of a JSON-like value (dicts, lists, tuples, strings, numbers; dataclasses
        are converted with `to_jsonable` first) with keys and strings redacted. Values under a
        sensitive key (hostname, username, serial, uuid, HOME, ...) are replaced whole."""
        return self._value(_jsonable(value), None)

    def preview(self) -> tuple[Replacement, ...]:
        """What this redactor replaced so far, by kind and placeholder number. Run it over the
        export's documents first (`redact_json`/`redact_text`, or `preview_redaction`) to show
        what will be removed."""
        entries = [Replacement(kind=key[0], original=self._originals[key], placeholder=holder,
                               occurrences=self._counts[key])
                   for key, holder in self._placeholders.items()]
        return tuple(sorted(entries, key=lambda e: (KIND_ORDER.index(e.kind),
                                                    int(e.placeholder.rsplit("-", 1)[1][:-1]))))

    # ------------------------------------------------------------------ internals

    def _placeholder(self, kind: Kind, canonical: str, original: str) -> str:
        key = (kind, canonical)
        holder = self._placeholders.get(key)
        if holder is None:
            holder = f"<{kind.value}-{self._next[kind]}>"
            self._next[kind] += 1
            self._placeholders[key] = holder
            self._originals[key] = original
            self._counts[key] = 0
        self._counts[key] += 1
        return holder

    def _value(self, value: Any, kind: Kind | None, describing: bool = False,
               as_command: bool = False) -> Any:
        if isinstance(value, Mapping):
            result: dict[Any, Any] = {}
            for key, item in value.items():
                new_key = self.redact_text(key) if isinstance(key, str) else key
                result[new_key] = self._value(item, _child_kind(key, kind, describing),
                                              key in _DESCRIBING_KEYS, key in _COMMAND_KEYS)
            return result
        if isinstance(value, list):
            return [self._value(item, kind, as_command=as_command) for item in value]
        if isinstance(value, tuple):
            return tuple(self._value(item, kind, as_command=as_command) for item in value)
        if isinstance(value, str):  # a message stays one (translatable), where it can
            return translatable(self, value, self.redact_command(value) if as_command
                                else self._string(value, kind))
        if (isinstance(value, int) and not isinstance(value, bool) and kind is Kind.SERIAL
                and value != 0):
            return self._placeholder(kind, _canonical(kind, str(value)), str(value))
        return value

    def _string(self, value: str, kind: Kind | None) -> str:
        core = value.strip()
        if not core:
            return value
        if PLACEHOLDER_RE.search(core):  # redacted before: only what is left
            return self.redact_text(value)
        lead = value[:len(value) - len(value.lstrip())]
        trail = value[len(value.rstrip()):]
        if kind is not None and identifying(core):
            if kind is Kind.HOME:  # a home, or a path inside one: keep what follows the home
                redacted = self.redact_text(value)
                if redacted != value:
                    return redacted
            return lead + self._placeholder(kind, _canonical(kind, core), core) + trail
        whole_kind = self._whole.get(core.lower())
        if whole_kind is not None and identifying(core):
            return lead + self._placeholder(whole_kind, _canonical(whole_kind, core),
                                            core) + trail
        return self.redact_text(value)

    def _spans(self, text: str) -> Iterator[_Span]:
        for m in PLACEHOLDER_RE.finditer(text):
            yield _Span(m.start(), m.end(), None, "", m.group(0), 0)
        if "$" in text or "REDACTED_" in text:  # kept as they are: they name nobody
            for pattern in (SHELL_VARIABLE_RE, SHELL_PLACEHOLDER_RE):
                for m in pattern.finditer(text):
                    yield _Span(m.start(), m.end(), None, "", m.group(0), 0)
        if self._homes is not None:
            for m in self._homes.finditer(text):
                yield self._span(m, Kind.HOME, 1)
        for m in _GENERIC_HOME.finditer(text):
            if m.group("name").lower() not in _NOT_A_USER_DIR:
                yield self._span(m, Kind.HOME, 2)
        for m in _UUID.finditer(text):
            if identifying(m.group(0).replace("GPU-", "").replace("MIG-", "")):
                yield self._span(m, Kind.UUID, 3)
        for m in _MAC.finditer(text):
            if identifying(m.group(0)):
                yield self._span(m, Kind.MAC, 4)
        for m in _IPV4.finditer(text):
            if _ipv4_ok(m.group(0), text[max(0, m.start() - 20):m.start()]):
                yield self._span(m, Kind.IP, 5)
        if ":" in text:
            for m in _IPV6.finditer(text):
                if _ipv6_ok(m.group(0)):
                    yield self._span(m, Kind.IP, 5)
        for kind, pattern in self._known:
            for m in pattern.finditer(text):
                yield self._span(m, kind, 6)
        for m in _SERIAL_TEXT.finditer(text):
            if _serial_value_ok(m.group(_SERIAL_TEXT_GROUP)):
                yield self._span(m, Kind.SERIAL, 7, _SERIAL_TEXT_GROUP)
        for kind, pattern in self._contexts:
            for m in pattern.finditer(text):
                yield self._span(m, kind, 7, "v" if "v" in pattern.groupindex else 0)
        for kind, pattern in self._strong:
            for m in pattern.finditer(text):
                yield self._span(m, kind, 8)

    @staticmethod
    def _span(match: re.Match[str], kind: Kind, priority: int,
              group: int | str = 0) -> _Span:
        original = match.group(group)
        return _Span(match.start(group), match.end(group), kind, _canonical(kind, original),
                     original, priority)

    @staticmethod
    def _select(spans: Iterable[_Span]) -> list[_Span]:
        """Non-overlapping spans, leftmost first; at one start the stronger rule, then the
        longer match, wins."""
        chosen: list[_Span] = []
        end = 0
        for span in sorted(spans, key=lambda s: (s.start, s.priority, s.start - s.end)):
            if span.start >= end and span.end > span.start:
                chosen.append(span)
                end = span.end
        return chosen


def _canonical(kind: Kind, value: str) -> str:
    """The key that makes spellings of one original share a placeholder."""
    text = value.strip()
    if kind is Kind.MAC:
        return text.lower().replace("-", ":")
    if kind is Kind.IP:
        try:
            return str(ipaddress.ip_address(text.split("%", 1)[0]))
        except ValueError:
            return text.lower()
    if kind is Kind.HOME and text.startswith("/") and not text.startswith("/Users"):
        return text  # POSIX paths are case-sensitive
    return text.lower().replace("\\\\", "\\")


def preview_redaction(identity: Identity, *values: Any) -> tuple[Replacement, ...]:
    """What redacting `values` (documents or text) would remove, without keeping the result."""
    redactor = Redactor(identity)
    for value in values:
        if isinstance(value, str):
            redactor.redact_text(value)
        else:
            redactor.redact_json(value)
    return redactor.preview()
