"""Python environment discovery over hand-built homes (Linux and Windows) and on this
machine; the default set of interpreters to inspect, its record in a snapshot and its
replay."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Any

from gpuscope.evidence import LiveSystem, RecordingSystem, ReplaySystem, Snapshot
from gpuscope.probes.python_envs import (
    CHOICE_LIBRARY,
    WHY_RECORDED,
    InterpreterChoice,
    PythonEnv,
    choices_from_json,
    choices_to_json,
    choose_interpreters,
    default_interpreters,
    discover_python_envs,
)

FILE = stat.S_IFREG | 0o755
DIR = stat.S_IFDIR | 0o755


def _exists(*paths: str, mode: int = FILE) -> dict[str, dict[str, Any]]:
    return {p: {"exists": True, "mode": mode} for p in paths}


def linux_home() -> Snapshot:
    """A Linux home with miniconda (base + two envs, one half-deleted), an environment listed
    only in ~/.conda/environments.txt, pyenv versions plus a pyenv-virtualenv link,
    virtualenvwrapper, pipenv and poetry environments, the project venv the shell has
    activated, and the system python3. Layouts as conda, venv (pyvenv.cfg), pyenv and
    pyenv-virtualenv create them."""
    home = "/home/ada"
    conda = f"{home}/miniconda3"
    project = f"{home}/projects/llm/.venv"
    pyenv = f"{home}/.pyenv/versions"
    return Snapshot(
        env={"HOME": home, "CONDA_EXE": f"{conda}/bin/conda", "VIRTUAL_ENV": project,
             "PWD": f"{home}/projects/llm"},
        files={
            f"{conda}/conda-meta/history": {"text": ""},
            f"{conda}/envs/rocm/conda-meta/history": {"text": ""},
            f"{conda}/envs/cuda12/conda-meta/history": {"text": ""},
            # Deleted with rm -r bin/: conda-meta is left, no interpreter.
            f"{conda}/envs/broken/conda-meta/history": {"text": ""},
            f"{home}/.conda/environments.txt": {"text": (
                f"{conda}\n{conda}/envs/rocm\n/data/envs/bigmodel\n/gone/env\n")},
            f"{project}/pyvenv.cfg": {"text": (
                "home = /usr/bin\ninclude-system-site-packages = false\n"
                "version = 3.11.6\n")},
            f"{home}/.virtualenvs/sd-webui/pyvenv.cfg": {"text": "home = /usr/bin\n"
                                                                 "version_info = 3.10.12\n"},
            "/opt/gpuscope/venv/pyvenv.cfg": {"text": "version = 3.12.3\n"},
            f"{pyenv}/3.12.4/envs/myenv/pyvenv.cfg": {"text": "version = 3.12.4\n"},
        },
        stats={
            **_exists(
                f"{conda}/bin/python", f"{conda}/envs/rocm/bin/python",
                f"{conda}/envs/cuda12/bin/python", "/data/envs/bigmodel/bin/python",
                f"{project}/bin/python",
                f"{home}/.virtualenvs/sd-webui/bin/python",
                f"{home}/.local/share/virtualenvs/api-x1Y2z3/bin/python",
                f"{home}/.cache/pypoetry/virtualenvs/tool-AbCd-py3.11/bin/python3",
                f"{pyenv}/3.11.9/bin/python", f"{pyenv}/3.12.4/bin/python",
                f"{pyenv}/3.12.4/envs/myenv/bin/python",
                "/usr/bin/python3", "/opt/gpuscope/venv/bin/python",
            ),
            **_exists(conda, mode=DIR),
        },
        realpaths={
            # A venv's interpreter is a link to its base interpreter.
            f"{project}/bin/python": "/usr/bin/python3.11",
            "/usr/bin/python3": "/usr/bin/python3.11",
            # pyenv-virtualenv links versions/<name> to versions/<version>/envs/<name>.
            f"{pyenv}/myenv": f"{pyenv}/3.12.4/envs/myenv",
        },
        which={"python3": f"{home}/.pyenv/shims/python3", "python": None},
    )


def test_a_linux_home_is_searched_in_the_usual_places() -> None:
    found = discover_python_envs(ReplaySystem(linux_home()), "/opt/gpuscope/venv/bin/python")
    rows = [(e.kind, e.name, e.path) for e in found]
    home = "/home/ada"
    conda = f"{home}/miniconda3"
    pyenv = f"{home}/.pyenv/versions"
    assert rows == [
        ("current", "venv", "/opt/gpuscope/venv/bin/python"),
        ("venv", ".venv", f"{home}/projects/llm/.venv/bin/python"),
        ("conda", "base", f"{conda}/bin/python"),
        ("conda", "cuda12", f"{conda}/envs/cuda12/bin/python"),
        ("conda", "rocm", f"{conda}/envs/rocm/bin/python"),
        ("conda", "bigmodel", "/data/envs/bigmodel/bin/python"),
        ("venv", "sd-webui", f"{home}/.virtualenvs/sd-webui/bin/python"),
        ("venv", "api-x1Y2z3", f"{home}/.local/share/virtualenvs/api-x1Y2z3/bin/python"),
        ("venv", "tool-AbCd-py3.11",
         f"{home}/.cache/pypoetry/virtualenvs/tool-AbCd-py3.11/bin/python3"),
        ("pyenv", "3.11.9", f"{pyenv}/3.11.9/bin/python"),
        ("pyenv", "3.12.4", f"{pyenv}/3.12.4/bin/python"),
        ("pyenv", "myenv", f"{pyenv}/myenv/bin/python"),
        ("system", "/usr/bin/python3", "/usr/bin/python3"),
    ]
    notes = {e.path: e.note for e in found}
    assert notes["/opt/gpuscope/venv/bin/python"] == (
        "the interpreter gpuscope runs on (virtualenv, Python 3.12.3)")
    assert notes[f"{home}/projects/llm/.venv/bin/python"] == (
        "the active virtualenv (VIRTUAL_ENV), Python 3.11.6")
    assert notes[f"{home}/.virtualenvs/sd-webui/bin/python"] == (
        "virtualenvwrapper, Python 3.10.12")
    assert notes[f"{home}/.local/share/virtualenvs/api-x1Y2z3/bin/python"] == "pipenv"
    assert notes["/data/envs/bigmodel/bin/python"] == "listed in ~/.conda/environments.txt"


def test_one_environment_reached_two_ways_is_listed_once() -> None:
    found = discover_python_envs(ReplaySystem(linux_home()), "/opt/gpuscope/venv/bin/python")
    paths = [e.path for e in found]
    # VIRTUAL_ENV and ./.venv are the same folder; miniconda3 comes from CONDA_EXE, ~ and
    # environments.txt; the pyenv-virtualenv link and its target are one environment.
    assert paths.count("/home/ada/projects/llm/.venv/bin/python") == 1
    assert paths.count("/home/ada/miniconda3/bin/python") == 1
    assert len(paths) == len(set(paths))
    assert "/home/ada/.pyenv/versions/3.12.4/envs/myenv/bin/python" not in paths
    # Same interpreter binary, different environments: the venv and the system python.
    assert {"/usr/bin/python3", "/home/ada/projects/llm/.venv/bin/python"} <= set(paths)
    # Launchers are not interpreters; a conda env without one is not listed.
    assert not any("/shims/" in p or "/broken/" in p or p.startswith("/gone") for p in paths)


def test_the_current_interpreter_comes_first_even_when_found_elsewhere() -> None:
    current = "/home/ada/miniconda3/envs/rocm/bin/python"
    found = discover_python_envs(ReplaySystem(linux_home()), current)
    assert found[0] == PythonEnv(path=current, kind="current", name="rocm", note=(
        "the interpreter gpuscope runs on (conda environment at "
        "/home/ada/miniconda3/envs/rocm)"))
    assert [e.path for e in found].count(current) == 1


def test_an_empty_machine_finds_only_the_current_interpreter() -> None:
    found = discover_python_envs(ReplaySystem(Snapshot()), "/usr/local/bin/python3.12")
    assert found == (PythonEnv(path="/usr/local/bin/python3.12", kind="current",
                               name="/usr/local/bin/python3.12",
                               note="the interpreter gpuscope runs on"),)


def test_pyenv_root_and_workon_home_are_followed() -> None:
    snapshot = Snapshot(
        env={"HOME": "/home/bo", "PYENV_ROOT": "/srv/pyenv", "WORKON_HOME": "/srv/envs"},
        stats=_exists("/srv/pyenv/versions/3.10.14/bin/python", "/srv/envs/train/bin/python"),
    )
    found = discover_python_envs(ReplaySystem(snapshot), "")
    assert [(e.kind, e.name) for e in found] == [("venv", "train"), ("pyenv", "3.10.14")]


def windows_home() -> Snapshot:
    r"""A Windows home: miniconda3 (python.exe at the prefix root, envs\<name>\python.exe), a
    virtualenvwrapper-win venv (Scripts\python.exe), pyenv-win and the python.org installer's
    per-user Python, plus the Store's python.exe stub on PATH."""
    home = "C:\\Users\\ada"
    local = f"{home}\\AppData\\Local"
    return Snapshot(
        env={"OS": "Windows_NT", "USERPROFILE": home, "LOCALAPPDATA": local},
        dirs={
            f"{home}\\miniconda3\\envs": {"entries": ["dml"]},
            f"{home}\\.virtualenvs": {"entries": ["proj"]},
            f"{home}\\.pyenv\\pyenv-win\\versions": {"entries": ["3.11.9"]},
            f"{local}\\Programs\\Python": {"entries": ["Launcher", "Python312"]},
        },
        stats={
            **_exists(f"{home}\\miniconda3", mode=DIR),
            **_exists(f"{home}\\gpuscope\\.venv\\pyvenv.cfg"),
            **_exists(f"{home}\\miniconda3\\python.exe",
                      f"{home}\\miniconda3\\envs\\dml\\python.exe",
                      f"{home}\\.virtualenvs\\proj\\Scripts\\python.exe",
                      f"{home}\\.pyenv\\pyenv-win\\versions\\3.11.9\\python.exe",
                      f"{local}\\Programs\\Python\\Python312\\python.exe"),
        },
        which={"python.exe": f"{local}\\Microsoft\\WindowsApps\\python.exe"},
    )


def test_a_windows_home_uses_windows_layouts() -> None:
    home = "C:\\Users\\ada"
    current = f"{home}\\gpuscope\\.venv\\Scripts\\python.exe"
    found = discover_python_envs(ReplaySystem(windows_home()), current)
    assert [(e.kind, e.name, e.path) for e in found] == [
        ("current", ".venv", current),
        ("conda", "base", f"{home}\\miniconda3\\python.exe"),
        ("conda", "dml", f"{home}\\miniconda3\\envs\\dml\\python.exe"),
        ("venv", "proj", f"{home}\\.virtualenvs\\proj\\Scripts\\python.exe"),
        ("pyenv", "3.11.9", f"{home}\\.pyenv\\pyenv-win\\versions\\3.11.9\\python.exe"),
        ("system", f"{home}\\AppData\\Local\\Programs\\Python\\Python312\\python.exe",
         f"{home}\\AppData\\Local\\Programs\\Python\\Python312\\python.exe"),
    ]


def test_live_discovery_on_this_machine() -> None:
    found = discover_python_envs(LiveSystem(), sys.executable, cwd=os.getcwd())
    assert found[0].path == sys.executable and found[0].kind == "current"
    assert all(Path(e.path).exists() for e in found)
    keys = [(os.path.realpath(os.path.dirname(os.path.dirname(e.path))),
             os.path.realpath(e.path)) for e in found]
    assert len(keys) == len(set(keys))
    assert all(e.kind in ("current", "conda", "venv", "pyenv", "system") for e in found)


def test_live_discovery_records_and_replays_the_same() -> None:
    recorder = RecordingSystem(LiveSystem())
    live = discover_python_envs(recorder, sys.executable, cwd=os.getcwd())
    replayed = discover_python_envs(ReplaySystem(recorder.snapshot), sys.executable,
                                    cwd=os.getcwd())
    assert replayed == live


# ----------------------------------------------------------------------------- the default set


def shell_machine() -> Snapshot:
    """Alice's shell: gpuscope installed with pipx, her project venv active (so python3 and
    python on PATH are that venv's), a conda env active too, one interpreter she added in
    the window and one she added that is gone since."""
    home = "/home/alice"
    venv = f"{home}/llm/.venv"
    conda = f"{home}/miniforge3/envs/rocm"
    own = f"{home}/.local/share/pipx/venvs/gpuscope/bin/python"
    return Snapshot(
        env={"HOME": home, "VIRTUAL_ENV": venv, "CONDA_PREFIX": conda},
        stats=_exists(own, f"{venv}/bin/python", f"{venv}/bin/python3",
                      f"{conda}/bin/python", "/opt/sd/bin/python"),
        realpaths={
            # A venv's interpreters link to its base interpreter: one binary, two folders.
            own: "/usr/bin/python3.12",
            f"{venv}/bin/python": "/usr/bin/python3.12",
            f"{venv}/bin/python3": "/usr/bin/python3.12",
        },
        which={"python3": f"{venv}/bin/python3", "python": f"{venv}/bin/python"},
    )


def test_the_default_set_is_each_interpreter_a_user_runs_once_with_why() -> None:
    home = "/home/alice"
    chosen = choose_interpreters(
        ReplaySystem(shell_machine()), f"{home}/.local/share/pipx/venvs/gpuscope/bin/python",
        ["/opt/sd/bin/python", "/gone/bin/python", "/opt/sd/bin/python"])
    assert [(c.python, c.why) for c in chosen] == [
        (f"{home}/.local/share/pipx/venvs/gpuscope/bin/python", "gpuscope's interpreter"),
        # python3 and python on PATH are the active venv's: one environment, three reasons.
        (f"{home}/llm/.venv/bin/python", "VIRTUAL_ENV, python3 on PATH, python on PATH"),
        (f"{home}/miniforge3/envs/rocm/bin/python", "CONDA_PREFIX"),
        ("/opt/sd/bin/python", "added in gpuscope"),  # once; the one that is gone is left out
    ]


def test_launchers_that_are_not_python_are_left_out() -> None:
    snapshot = Snapshot(
        env={"OS": "Windows_NT"},
        which={"python3": None,
               "python": "C:\\Users\\ada\\AppData\\Local\\Microsoft\\WindowsApps\\python.exe"})
    chosen = choose_interpreters(ReplaySystem(snapshot), "C:\\gpuscope\\Scripts\\python.exe")
    assert chosen == [InterpreterChoice("C:\\gpuscope\\Scripts\\python.exe",
                                        "gpuscope's interpreter")]


def test_the_choice_is_recorded_and_a_replay_makes_it_again(
    tmp_path: Path, monkeypatch: Any,
) -> None:
    """For real: a venv-like folder active, a python3 on PATH; the replay answers the same
    whatever interpreter replays it."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    path_bin = tmp_path / "path"
    path_bin.mkdir()
    (path_bin / "python3").symlink_to(sys.executable)
    monkeypatch.setenv("VIRTUAL_ENV", str(venv))
    monkeypatch.delenv("CONDA_PREFIX", raising=False)
    monkeypatch.setenv("PATH", str(path_bin))
    recorder = RecordingSystem(LiveSystem())
    live = default_interpreters(recorder, sys.executable, ())
    assert [(c.python, c.why) for c in live] == [
        (sys.executable, "gpuscope's interpreter"),
        (str(venv / "bin" / "python"), "VIRTUAL_ENV"),
        (str(path_bin / "python3"), "python3 on PATH"),
    ]
    assert recorder.snapshot.libraries[CHOICE_LIBRARY] == choices_to_json(live)
    assert recorder.snapshot.which == {"python3": str(path_bin / "python3"), "python": None}
    replayed = default_interpreters(ReplaySystem(recorder.snapshot), "/elsewhere/python", ())
    assert replayed == live


def test_an_older_snapshot_gives_the_interpreters_it_inspected() -> None:
    older = Snapshot(libraries={"python-env:/usr/bin/python3": {"status": "ok"},
                                "python-env:/home/bo/env/bin/python": {"status": "ok"},
                                "nvml": {"status": "ok"}})
    assert default_interpreters(ReplaySystem(older), sys.executable) == (
        InterpreterChoice("/usr/bin/python3", WHY_RECORDED),
        InterpreterChoice("/home/bo/env/bin/python", WHY_RECORDED))
    # A replay never inspects the replaying machine's interpreters.
    assert default_interpreters(ReplaySystem(Snapshot()), sys.executable) == ()


def test_a_recorded_choice_is_read_whatever_the_file_holds() -> None:
    assert choices_from_json({"status": "not_captured"}) is None
    assert choices_from_json([1, 2]) is None
    assert choices_from_json({"interpreters": [
        {"python": "/a/bin/python", "why": "VIRTUAL_ENV"}, {"python": "/a/bin/python"},
        {"python": 7}, "junk", {"python": "", "why": "x"}, {"python": "/b", "why": None},
    ]}) == (InterpreterChoice("/a/bin/python", "VIRTUAL_ENV"),
            InterpreterChoice("/b", WHY_RECORDED))


def test_the_py_launcher_list_adds_the_pythons_it_knows() -> None:
    # `py -0p` as CPython's launcher prints it: " -V:TAG [*] PATH" (PC/launcher2.c).
    snapshot = windows_home()
    store = "C:\\Program Files\\WindowsApps\\PythonSoftwareFoundation.Python.3.12\\python.exe"
    snapshot.commands.append({"argv": ["py", "-0p"], "returncode": 0, "stdout": (
        " -V:3.13 *        D:\\Python313\\python.exe\n"
        f" -V:3.12          {store}\n"
        " -V:ContinuumAnalytics/Anaconda39-64 C:\\Users\\ada\\miniconda3\\python.exe\n")})
    snapshot.stats.update(_exists("D:\\Python313\\python.exe", store))
    current = "C:\\Users\\ada\\gpuscope\\.venv\\Scripts\\python.exe"
    found = [(e.kind, e.path) for e in discover_python_envs(ReplaySystem(snapshot), current)]
    assert ("system", "D:\\Python313\\python.exe") in found
    assert ("system", store) in found
    # One interpreter reached two ways is listed once, as what it is (conda's base).
    assert [path for _, path in found].count("C:\\Users\\ada\\miniconda3\\python.exe") == 1
