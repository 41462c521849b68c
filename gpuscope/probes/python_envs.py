"""Python environments on this machine that the framework probe could inspect.

Two questions, two functions. `default_interpreters` picks the few interpreters gpuscope
inspects with no flag (its own, `python3` and `python` on PATH, the active VIRTUAL_ENV and
CONDA_PREFIX, those the user added), each with why it was chosen. `discover_python_envs`
looks wider, for the Frameworks and Benchmarks pages to offer.

Looks in the usual places only, one or two directory levels deep, through the `System`
interface: the interpreter gpuscope runs on, the active virtualenv and conda environment,
conda installations (base and `envs/*`, plus `~/.conda/environments.txt`), virtualenvs
(virtualenvwrapper, ~/venvs, ./.venv, pipenv, poetry), pyenv versions, and the system
interpreter. Windows layouts (`Scripts\\python.exe`, conda's `python.exe` at the prefix root)
are used when the machine is Windows.

Two paths are the same environment when both the environment folder and the interpreter
resolve to the same real paths. The interpreter alone is not enough: a venv's `bin/python`
is a symlink to its base interpreter, yet the venv is a different environment.
"""

from __future__ import annotations

import logging
import ntpath
import posixpath
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from gpuscope.evidence import ReplaySystem, System
from gpuscope.model import JsonValue, OriginKind
from gpuscope.probes.windows_host import PY_LIST, parse_py_list

log = logging.getLogger(__name__)

PythonEnvKind = Literal["current", "conda", "venv", "pyenv", "system"]

MAX_ENTRIES_PER_DIR = 100  # a folder of environments longer than this is cut (bounded scan)
MAX_ENVIRONMENTS_TXT_LINES = 200

_CONDA_ROOT_NAMES = ("miniconda3", "anaconda3", "miniforge3", "mambaforge", "micromamba",
                     "miniconda", "anaconda")
_POSIX_SYSTEM_PYTHONS = ("/usr/bin/python3", "/usr/local/bin/python3",
                         "/opt/homebrew/bin/python3", "/usr/bin/python")


@dataclass(frozen=True, slots=True)
class PythonEnv:
    path: str  # the interpreter
    kind: PythonEnvKind
    name: str
    note: str | None = None


class _Finder:
    def __init__(self, system: System, windows: bool) -> None:
        self.system = system
        self.windows = windows
        self.paths = ntpath if windows else posixpath
        self.found: list[PythonEnv] = []
        self._seen: set[tuple[str, str]] = set()

    # -- layout

    def join(self, *parts: str) -> str:
        return str(self.paths.join(*parts))

    def env_root(self, python: str) -> str:
        """The environment folder of an interpreter: `<root>/bin/python`,
        `<root>\\Scripts\\python.exe` or (conda on Windows) `<root>\\python.exe`."""
        folder = str(self.paths.dirname(python))
        if self.paths.basename(folder).lower() in ("bin", "scripts"):
            return str(self.paths.dirname(folder))
        return folder

    def interpreter_in(self, root: str) -> str | None:
        """The interpreter of an environment folder, if it has one."""
        if self.windows:
            candidates = [self.join(root, "python.exe"), self.join(root, "Scripts", "python.exe")]
        else:
            candidates = [self.join(root, "bin", "python"), self.join(root, "bin", "python3")]
        for candidate in candidates:
            if self.system.stat(candidate).exists:
                return candidate
        return None

    def subdirs(self, folder: str) -> list[str]:
        listing = self.system.list_dir(folder)
        if listing.entries is None:
            return []
        names = [n for n in listing.entries if not n.startswith(".")]
        return [self.join(folder, n) for n in names[:MAX_ENTRIES_PER_DIR]]

    # -- recording

    def add(self, python: str, kind: PythonEnvKind, name: str, note: str | None = None) -> bool:
        key = (self.system.realpath(self.env_root(python)), self.system.realpath(python))
        if key in self._seen:
            return False
        self._seen.add(key)
        self.found.append(PythonEnv(path=python, kind=kind, name=name, note=note))
        return True

    def add_root(self, root: str, kind: PythonEnvKind, name: str,
                 note: str | None = None) -> None:
        python = self.interpreter_in(root)
        if python is not None:
            self.add(python, kind, name, note)

    def venv_note(self, root: str, what: str) -> str:
        """`what`, and the Python version from pyvenv.cfg when it says."""
        config = self.system.read_text(self.join(root, "pyvenv.cfg"))
        version = None
        for line in (config.text or "").splitlines()[:50] if config.ok else []:
            key, _, value = line.partition("=")
            if key.strip() in ("version", "version_info") and value.strip():
                version = value.strip()
                break
        return f"{what}, Python {version}" if version else what

    def classify(self, python: str) -> tuple[PythonEnvKind, str, str | None]:
        """What kind of environment an interpreter found some other way belongs to."""
        root = self.env_root(python)
        name = self.paths.basename(root) or root
        if self.system.stat(self.join(root, "pyvenv.cfg")).exists:
            return "venv", name, self.venv_note(root, "virtualenv")
        if self.system.stat(self.join(root, "conda-meta")).exists:
            parent = self.paths.dirname(root)
            env_name = name if self.paths.basename(parent) == "envs" else "base"
            return "conda", env_name, f"conda environment at {root}"
        if "/.pyenv/versions/" in python.replace("\\", "/"):
            return "pyenv", name, "pyenv version"
        return "system", python, None


def _home(system: System, windows: bool) -> str | None:
    names = ("USERPROFILE", "HOME") if windows else ("HOME", "USERPROFILE")
    for name in names:
        value = system.env(name)
        if value:
            return value
    return None


def _is_windows(system: System, current_python: str) -> bool:
    if system.env("OS") == "Windows_NT":
        return True
    return current_python.lower().endswith(".exe") and "\\" in current_python


def discover_python_envs(
    system: System,
    current_python: str = sys.executable,
    *,
    cwd: str | None = None,
    windows: bool | None = None,
) -> tuple[PythonEnv, ...]:
    """The Python interpreters worth offering to the framework probe, the current one first.
    Never raises; a place that cannot be read is skipped."""
    is_windows = _is_windows(system, current_python) if windows is None else windows
    finder = _Finder(system, is_windows)
    try:
        _discover(finder, current_python, cwd)
    except Exception:  # a surprising answer must not cost the environments found so far
        log.exception("looking for Python environments stopped early")
    return tuple(finder.found)


def _discover(finder: _Finder, current_python: str, cwd: str | None) -> None:
    system = finder.system
    home = _home(system, finder.windows)
    join = finder.join

    if current_python:
        kind, name, note = finder.classify(current_python)
        finder.add(current_python, "current", name,
                   "the interpreter gpuscope runs on" + (f" ({note})" if note else ""))

    # Active environments first: what the user's shell would run.
    virtual_env = system.env("VIRTUAL_ENV")
    if virtual_env:
        finder.add_root(virtual_env, "venv", finder.paths.basename(virtual_env),
                        finder.venv_note(virtual_env, "the active virtualenv (VIRTUAL_ENV)"))

    for root in _conda_roots(finder, home):
        _add_conda_root(finder, root)
    if home:
        _add_conda_environments_txt(finder, join(home, ".conda", "environments.txt"))
        _add_env_folder(finder, join(home, ".conda", "envs"), "conda", "conda environment")

    for folder, note in _venv_folders(finder, home):
        _add_env_folder(finder, folder, "venv", note)
    for root, note in _single_venvs(finder, home, cwd):
        finder.add_root(root, "venv", _venv_name(finder, root), finder.venv_note(root, note))

    for versions in _pyenv_version_dirs(finder, home):
        for root in finder.subdirs(versions):
            finder.add_root(root, "pyenv", finder.paths.basename(root), "pyenv version")

    for python in _system_pythons(finder, home):
        if system.stat(python).exists:
            finder.add(python, "system", python, "system interpreter")
    for program in (("python.exe",) if finder.windows else ("python3", "python")):
        found = system.which(program)
        # pyenv's shims and the Microsoft Store's stubs are launchers, not interpreters.
        if found and not any(part in found.replace("\\", "/")
                             for part in ("/shims/", "/WindowsApps/")):
            kind, name, note = finder.classify(found)
            finder.add(found, kind, name, note or f"first {program} on PATH")


def _conda_roots(finder: _Finder, home: str | None) -> list[str]:
    system = finder.system
    paths = finder.paths
    roots: list[str] = []
    conda_exe = system.env("CONDA_EXE")
    if conda_exe:
        # <root>/bin/conda, <root>\Scripts\conda.exe, or <root>\condabin\conda.bat
        roots.append(paths.dirname(paths.dirname(conda_exe)))
    prefix = system.env("CONDA_PREFIX")
    if prefix:
        parent = paths.dirname(prefix)
        roots.append(paths.dirname(parent) if paths.basename(parent) == "envs" else prefix)
    for variable in ("MAMBA_ROOT_PREFIX", "CONDA_ROOT"):
        value = system.env(variable)
        if value:
            roots.append(value)
    if home:
        roots.extend(finder.join(home, name) for name in _CONDA_ROOT_NAMES)
    if finder.windows:
        for base in (system.env("LOCALAPPDATA"), system.env("ProgramData") or "C:\\ProgramData"):
            if base:
                roots.extend(finder.join(base, name) for name in _CONDA_ROOT_NAMES)
    else:
        roots.extend(["/opt/conda", "/opt/miniconda3", "/opt/anaconda3", "/opt/miniforge3"])
    return list(dict.fromkeys(roots))


def _add_conda_root(finder: _Finder, root: str) -> None:
    if not finder.system.stat(root).exists:
        return
    finder.add_root(root, "conda", "base", f"conda installation at {root}")
    _add_env_folder(finder, finder.join(root, "envs"), "conda", f"conda environment in {root}")


def _add_conda_environments_txt(finder: _Finder, path: str) -> None:
    """conda keeps a list of every environment it created, wherever it lives."""
    listing = finder.system.read_text(path)
    if not listing.ok or listing.text is None:
        return
    for line in listing.text.splitlines()[:MAX_ENVIRONMENTS_TXT_LINES]:
        root = line.strip()
        if not root or root.startswith("#"):
            continue
        parent = finder.paths.dirname(root)
        name = finder.paths.basename(root) if finder.paths.basename(parent) == "envs" else "base"
        finder.add_root(root, "conda", name, "listed in ~/.conda/environments.txt")


def _add_env_folder(finder: _Finder, folder: str, kind: PythonEnvKind, note: str) -> None:
    """Each subfolder of `folder` that is an environment."""
    for root in finder.subdirs(folder):
        name = finder.paths.basename(root)
        finder.add_root(root, kind, name,
                        finder.venv_note(root, note) if kind == "venv" else note)


def _venv_folders(finder: _Finder, home: str | None) -> list[tuple[str, str]]:
    folders: list[tuple[str, str]] = []
    workon = finder.system.env("WORKON_HOME")
    if workon:
        folders.append((workon, "virtualenvwrapper (WORKON_HOME)"))
    if home:
        join = finder.join
        folders += [
            (join(home, ".virtualenvs"), "virtualenvwrapper"),
            (join(home, "venvs"), "virtualenv in ~/venvs"),
            (join(home, ".venvs"), "virtualenv in ~/.venvs"),
            (join(home, ".local", "share", "virtualenvs"), "pipenv"),
            (join(home, ".cache", "pypoetry", "virtualenvs"), "poetry"),
            (join(home, "Library", "Caches", "pypoetry", "virtualenvs"), "poetry"),
        ]
        if finder.windows:
            local = finder.system.env("LOCALAPPDATA") or join(home, "AppData", "Local")
            folders.append((join(local, "pypoetry", "Cache", "virtualenvs"), "poetry"))
    return folders


def _single_venvs(finder: _Finder, home: str | None,
                  cwd: str | None) -> list[tuple[str, str]]:
    roots: list[tuple[str, str]] = []
    if home:
        roots.append((finder.join(home, ".venv"), "virtualenv in ~/.venv"))
    folder = cwd or finder.system.env("PWD")
    if folder:
        roots += [(finder.join(folder, ".venv"), "virtualenv in the working folder"),
                  (finder.join(folder, "venv"), "virtualenv in the working folder")]
    return roots


def _venv_name(finder: _Finder, root: str) -> str:
    base = str(finder.paths.basename(root))
    if base in (".venv", "venv"):
        project = finder.paths.basename(finder.paths.dirname(root))
        return f"{project}/{base}" if project else base
    return base


def _pyenv_version_dirs(finder: _Finder, home: str | None) -> list[str]:
    roots: list[str] = []
    pyenv_root = finder.system.env("PYENV_ROOT")
    if pyenv_root:
        roots.append(pyenv_root)
    if home:
        roots.append(finder.join(home, ".pyenv"))
    if finder.windows:  # pyenv-win keeps its versions one level deeper
        roots = [finder.join(r, "pyenv-win") for r in roots] + roots
    return [finder.join(r, "versions") for r in dict.fromkeys(roots)]


def _system_pythons(finder: _Finder, home: str | None) -> Iterable[str]:
    if not finder.windows:
        return _POSIX_SYSTEM_PYTHONS
    found: list[str] = []
    local = finder.system.env("LOCALAPPDATA") or (
        finder.join(home, "AppData", "Local") if home else None)
    bases = [finder.join(local, "Programs", "Python")] if local else []
    bases.append("C:\\")
    for base in bases:
        for folder in finder.subdirs(base):
            if finder.paths.basename(folder).lower().startswith("python3"):
                found.append(finder.join(folder, "python.exe"))
    # The py launcher knows the python.org and Store installs wherever they are.
    launcher = finder.system.run(PY_LIST, timeout_s=5.0)
    if launcher.ok:
        found += [p.path for p in parse_py_list(launcher.stdout)
                  if p.path.lower().endswith(".exe")]
    return found


# ----------------------------------------------------------------------------- the default set

# The snapshot key of the default choice (`libraries`, beside each `python-env:<path>`
# answer), so that a replay inspects the same interpreters for the same reasons.
CHOICE_LIBRARY = "python-interpreters"
_ANSWER_PREFIX = "python-env:"  # frameworks.LIBRARY_PREFIX, which imports this module
MAX_CHOSEN = 32  # a settings file listing hundreds of interpreters is cut

WHY_GPUSCOPE = "gpuscope's interpreter"
WHY_VIRTUAL_ENV = "VIRTUAL_ENV"
WHY_CONDA_PREFIX = "CONDA_PREFIX"
WHY_ADDED = "added in gpuscope"
WHY_GIVEN = "--python"
WHY_RECORDED = "inspected when the snapshot was taken"


def why_on_path(program: str) -> str:
    return f"{program} on PATH"


@dataclass(frozen=True, slots=True)
class InterpreterChoice:
    """An interpreter to inspect, and why it was chosen ("gpuscope's interpreter, python3
    on PATH" when several reasons lead to the same one)."""

    python: str
    why: str


def default_interpreters(
    system: System,
    own_python: str = sys.executable,
    added: Sequence[str] = (),
) -> tuple[InterpreterChoice, ...]:
    """The interpreters a user plausibly runs: `own_python` (the one running gpuscope),
    the active VIRTUAL_ENV and CONDA_PREFIX environments, `python3` and `python` on PATH,
    and `added` (the interpreters the user added before; one that no longer exists is left
    out). Two paths to the same environment count once, with both reasons.

    Read through `system`, and the choice is kept as a library answer, so a snapshot records
    it and a replay makes the same choice for the same reasons; a snapshot without one (an
    older gpuscope) gives the interpreters whose answers it holds. Never raises."""
    def choose() -> JsonValue:
        try:
            return choices_to_json(choose_interpreters(system, own_python, added))
        except Exception as exc:  # a surprising answer must not cost the PyTorch answer
            log.exception("choosing the interpreters to inspect failed")
            return {"status": "error", "error": f"{type(exc).__name__}: {exc}"}

    chosen = choices_from_json(system.library(CHOICE_LIBRARY, choose))
    if chosen is not None:
        return chosen
    recorded = recorded_interpreters(system)
    if recorded or system.origin_kind is OriginKind.REPLAY:
        return recorded
    return (InterpreterChoice(own_python, WHY_GPUSCOPE),) if own_python else ()


def given_interpreters(pythons: Sequence[str],
                       why: str = WHY_GIVEN) -> tuple[InterpreterChoice, ...]:
    """Interpreters picked by hand (`--python`, ticked on the Frameworks page), in order,
    each once."""
    return tuple(InterpreterChoice(p, why) for p in dict.fromkeys(pythons) if p)


def recorded_interpreters(system: System) -> tuple[InterpreterChoice, ...]:
    """The interpreters a replayed snapshot holds framework answers for; () when live."""
    if not isinstance(system, ReplaySystem):
        return ()
    return tuple(InterpreterChoice(key[len(_ANSWER_PREFIX):], WHY_RECORDED)
                 for key in system.snapshot.libraries if key.startswith(_ANSWER_PREFIX))


def choices_to_json(choices: Sequence[InterpreterChoice]) -> JsonValue:
    return {"interpreters": [{"python": c.python, "why": c.why} for c in choices]}


def choices_from_json(answer: JsonValue) -> tuple[InterpreterChoice, ...] | None:
    """The choice in its recorded form; None when `answer` is not one (not captured, an
    error, a malformed file)."""
    if not isinstance(answer, dict):
        return None
    listed = answer.get("interpreters")
    if not isinstance(listed, list):
        return None
    chosen: dict[str, InterpreterChoice] = {}
    for item in listed[:MAX_CHOSEN]:
        if not isinstance(item, dict):
            continue
        python, why = item.get("python"), item.get("why")
        if isinstance(python, str) and python and python not in chosen:
            chosen[python] = InterpreterChoice(python, why if isinstance(why, str) and why
                                               else WHY_RECORDED)
    return tuple(chosen.values())


def choose_interpreters(system: System, own_python: str,
                        added: Sequence[str] = ()) -> list[InterpreterChoice]:
    """The choice `default_interpreters` keeps, made from `system`'s answers now."""
    finder = _Finder(system, _is_windows(system, own_python))
    order: list[str] = []  # the first path seen of each environment
    reasons: dict[str, list[str]] = {}
    keys: dict[tuple[str, str], str] = {}

    def add(python: str | None, why: str) -> None:
        if not python:
            return
        key = (system.realpath(finder.env_root(python)), system.realpath(python))
        first = keys.setdefault(key, python)
        if first == python and python not in reasons:
            order.append(python)
        if why not in reasons.setdefault(first, []):
            reasons[first].append(why)

    add(own_python, WHY_GPUSCOPE)
    for variable in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        root = system.env(variable)
        if root:
            add(finder.interpreter_in(root), variable)
    for program in ("python3", "python"):
        found = system.which(program)
        # The Microsoft Store's python.exe is a stub that opens the Store, not Python.
        if found and "/windowsapps/" not in found.replace("\\", "/").lower():
            add(found, why_on_path(program))
    for python in list(dict.fromkeys(added))[:MAX_CHOSEN]:
        if python and system.stat(python).exists:
            add(python, WHY_ADDED)
    return [InterpreterChoice(p, ", ".join(reasons[p])) for p in order][:MAX_CHOSEN]
