"""Which PyTorch wheel fits this GPU and stack: the ROCm index for the host's ROCm that carries
the gfx target (or the override when none does), the CUDA wheel the driver runs (never one
the driver table says cannot), and the Windows routes."""

from __future__ import annotations

import pytest

from gpuscope.knowledge.cuda import driver_supports
from gpuscope.knowledge.torch_builds import official_wheel_has_target
from gpuscope.knowledge.wheel_choice import (
    choose_cuda_wheel,
    choose_rocm_wheel,
    shell_word,
    windows_amd_route,
)

PYTORCH = "https://download.pytorch.org/whl/"


def test_rx7900xtx_on_rocm_624_gets_the_rocm624_index() -> None:
    choice = choose_rocm_wheel("6.2.4", "gfx1100")
    assert (choice.flavour, choice.covers_target, choice.override) == ("6.2.4", True, None)
    assert choice.commands() == (f"python3 -m pip install torch --index-url {PYTORCH}rocm6.2.4",)
    assert official_wheel_has_target(choice.torch_release, "rocm", choice.flavour, "gfx1100")


def test_a_point_release_host_picks_its_minor_series() -> None:
    """Regression: host ROCm 6.0.2 raised ValueError in install_command."""
    choice = choose_rocm_wheel("6.0.2-115", "gfx1100")
    assert choice.flavour == "6.0" and choice.covers_target
    assert choice.commands()[-1].endswith("/whl/rocm6.0")


def test_a_target_no_wheel_carries_gets_the_override_and_a_wheel_for_the_spoofed_one() -> None:
    choice = choose_rocm_wheel("6.2.4", "gfx1031")
    assert choice.override is not None and choice.override.value == "10.3.0"
    assert choice.covers_target is False
    assert choice.commands() == ("export HSA_OVERRIDE_GFX_VERSION=10.3.0",
                                 f"python3 -m pip install torch --index-url {PYTORCH}rocm6.2.4")
    assert "gfx1030" in choice.note and any("ollama" in url for url in choice.urls)


def test_a_target_only_newer_wheels_carry_gets_the_nearest_of_them() -> None:
    """gfx1101 (RX 7800 XT) is in no ROCm 6.0 wheel; the 2.7 wheels carry it natively, which
    beats running it as gfx1100 through the override."""
    choice = choose_rocm_wheel("6.0.2", "gfx1101")
    assert choice.override is None and choice.covers_target
    assert choice.flavour == "6.2.4"
    assert "No official wheel for ROCm 6.0 fits" in choice.note


def test_an_unknown_host_and_target_still_answer_and_say_so() -> None:
    choice = choose_rocm_wheel(None, None)
    assert choice.flavour == "7.14"
    assert "not known" in choice.note
    assert choose_rocm_wheel("garbage", "gfx9999").covers_target is None


def test_an_older_release_is_pinned_when_the_newest_on_its_index_lacks_the_target() -> None:
    """2.6's rocm6.2.4 list is not known in full, 2.7's is: a host on 6.2.4 with gfx1100 gets
    the 2.7 wheel, unpinned (the newest on that index)."""
    choice = choose_rocm_wheel("6.2.4", "gfx1100")
    assert choice.torch_release == "2.7" and not choice.pin


@pytest.mark.parametrize(("driver", "cc", "flavour"), [
    ("550.54.14", "8.9", "12.6"),  # 12.x through minor compatibility; never cu130 (580+)
    ("580.65.06", "8.9", "13.0"),
    ("550.54.14", "12.0", "12.8"),  # Blackwell: the newest wheel that carries sm_120
    ("575.57.08", "6.1", "12.6"),  # Pascal: only the legacy cu126 wheels
    ("520.61.05", "6.1", "11.8"),
])
def test_cuda_wheels_the_driver_can_run(driver: str, cc: str, flavour: str) -> None:
    choice = choose_cuda_wheel(driver, cc)
    assert choice.flavour == flavour, choice.note
    assert driver_supports(driver, flavour).status in ("ok", "minor_compat")
    assert choice.commands()[-1].endswith(f"/whl/cu{flavour.replace('.', '')}")


@pytest.mark.parametrize("driver", ["450.80.02", "470.42.01", "525.60.13", "535.54.03",
                                    "550.54.14", "560.28.03", "570.26", "575.51.03",
                                    "580.65.06", "595.45.04"])
@pytest.mark.parametrize("cc", ["6.1", "7.0", "7.5", "8.6", "8.9", "9.0", "12.0", None])
def test_never_a_wheel_the_driver_table_says_cannot_run(driver: str, cc: str | None) -> None:
    """Regression: a CPU torch beside driver 550 was told to install cu130 (580+)."""
    choice = choose_cuda_wheel(driver, cc)
    if choice.flavour is not None:
        assert driver_supports(driver, choice.flavour).status in ("ok", "minor_compat")
    else:
        assert choice.commands() == ()


def test_an_old_driver_gets_no_wheel_and_the_reason() -> None:
    choice = choose_cuda_wheel("390.48", "6.1")
    assert choice.flavour is None and choice.commands() == ()
    assert "update the NVIDIA driver" in choice.note


def test_windows_drivers_have_no_minor_compatibility_figures() -> None:
    choice = choose_cuda_wheel("528.49", "8.9", "windows")
    assert choice.flavour == "11.8"
    assert driver_supports("528.49", "11.8", "windows").status == "ok"


def test_the_driver_unknown_names_the_default_and_an_older_driver_alternative() -> None:
    choice = choose_cuda_wheel(None, "12.0")
    assert choice.flavour == "13.0" and choice.covers_target
    assert f"{PYTORCH}cu128" in choice.note


@pytest.mark.parametrize(("driver_cuda", "os", "flavour"), [
    ("11.4", "linux", "11.8"),  # an R470 driver: CUDA 11 wheels through minor compatibility
    ("11.8", "linux", "11.8"),
    ("12.4", "linux", "12.6"),  # 12.x through minor compatibility, never CUDA 13 (580+)
    ("12.8", "windows", "12.6"),  # Windows: full support only
    ("13.0", "linux", "13.0"),
])
def test_the_cuda_version_the_driver_reports_stands_for_its_oldest_driver(
        driver_cuda: str, os: str, flavour: str) -> None:
    """PyTorch's "found version 11040" names the driver's CUDA, not the driver: the oldest
    driver reporting it (the table's minimum for that release) chooses the wheel."""
    choice = choose_cuda_wheel(None, None, os, driver_cuda=driver_cuda)
    assert choice.flavour == flavour, choice.note
    assert f"supports CUDA {driver_cuda}" in choice.note
    assert choice.commands()[-1].endswith(f"/whl/cu{flavour.replace('.', '')}")


def test_a_driver_cuda_no_wheel_runs_on_gets_none() -> None:
    assert choose_cuda_wheel(None, None, "windows", driver_cuda="11.4").commands() == ()
    old = choose_cuda_wheel(None, "6.1", driver_cuda="10.2")  # older than every row
    assert old.flavour is None and "update the NVIDIA driver" in old.note
    assert choose_cuda_wheel("575.57.08", "6.1", driver_cuda="10.2").flavour == "12.6"  # the
    # driver's own version wins


def test_commands_install_into_the_interpreter_and_replace_an_installed_torch() -> None:
    choice = choose_rocm_wheel("6.2.4", "gfx1100")
    assert choice.commands("/home/me/my env/bin/python", replace=True) == (
        "'/home/me/my env/bin/python' -m pip uninstall -y torch",
        f"'/home/me/my env/bin/python' -m pip install torch --index-url {PYTORCH}rocm6.2.4")


def test_shell_words() -> None:
    assert shell_word("/usr/bin/python3") == "/usr/bin/python3"
    assert shell_word("C:\\Python312\\python.exe") == "C:\\Python312\\python.exe"
    assert shell_word("/tmp/a b/python") == "'/tmp/a b/python'"
    assert shell_word("/tmp/$(rm -rf ~)/python") == "'/tmp/$(rm -rf ~)/python'"


def test_windows_amd_route() -> None:
    route = windows_amd_route("python")
    assert route.commands == ("python -m pip install torch-directml",)
    assert all(url.startswith("https://") for url in route.urls)
