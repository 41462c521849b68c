"""The Windows routes table (resources/windows_support.toml): its shape, its sources, what it
says for the cards of issue #14, and the lookups the Windows rules use."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from gpuscope.i18n import localise
from gpuscope.knowledge._resources import load_toml_resource
from gpuscope.knowledge.windows_support import (
    RESOURCE,
    WindowsTableError,
    adrenalin_older_than,
    driver_key,
    hip_sdk_component,
    parse_windows_table,
    powershell_python,
    python_series,
    windows_support,
)

# Written out here so the test does not trust the code's own copy (issue #10).
INTERNAL = re.compile(r"facts\.md|§|\[[SKVD?]\]|corpus \d")
PLACEHOLDER = re.compile(r"<[^<>\s]*>|\.\.\.|…")


def doc() -> dict[str, Any]:
    return copy.deepcopy(load_toml_resource(RESOURCE))


def user_texts() -> list[str]:
    table = windows_support()
    routes = (table.rocm_wheels.info, table.wsl.info, table.directml.info,
              table.vulkan_llama_cpp.info, table.cuda_wheels, table.hip_sdk)
    texts = [localise(t) for route in routes for t in (route.title, route.caveat)]
    texts += [localise(layer.status) for layer in table.third_party]
    return texts


def test_the_packaged_table_loads_and_every_route_cites_public_pages() -> None:
    table = windows_support()
    routes = (table.rocm_wheels.info, table.wsl.info, table.directml.info,
              table.vulkan_llama_cpp.info, table.cuda_wheels, table.hip_sdk)
    for route in routes:
        assert route.urls and all(u.startswith("https://") for u in route.urls), route.title
        assert route.confidence in ("primary", "secondary")
    for floor in (table.rocm_wheels.min_adrenalin, table.wsl.min_adrenalin):
        assert floor.urls and floor.confidence == "secondary"  # quoted, not read at AMD
    assert {layer.name for layer in table.third_party} == {"ZLUDA", "SCALE"}
    assert all(layer.urls for layer in table.third_party)


def test_what_users_read_cites_no_internal_notes() -> None:
    for text in user_texts():
        assert text and not INTERNAL.search(text), text


def test_the_rocm_wheels_cover_the_cards_of_the_issue() -> None:
    wheels = windows_support().rocm_wheels
    assert wheels.coverage("gfx1100") == "tested"  # RX 7900 XTX
    assert wheels.coverage("gfx1031") == "tested"  # RX 6700 XT: TheRock tests it on Windows
    assert wheels.coverage("gfx1201") == "untested"  # RX 9070 XT: published, not yet tested
    assert wheels.coverage("gfx803") == "none"  # RX 580
    assert wheels.coverage("gfx1100:sramecc-:xnack-") == "tested"  # torch's gcnArchName form
    assert wheels.coverage(None) == "none"
    assert wheels.covers_python("3.12.7") is True
    assert wheels.covers_python("3.9.13") is False
    assert wheels.covers_python(None) is None


def test_the_install_lines_are_complete_powershell_lines() -> None:
    table = windows_support()
    [wheel] = table.rocm_wheels.commands("gfx1100", r"C:\venv\Scripts\python.exe")
    assert wheel == (r"C:\venv\Scripts\python.exe -m pip install --index-url "
                     'https://rocm.nightlies.amd.com/whl-multi-arch/ "torch[device-gfx1100]" '
                     '"torchvision[device-gfx1100]" torchaudio')
    assert table.rocm_wheels.commands("gfx803") == ()
    assert table.directml.commands() == ("py -m pip install torch-directml",)
    assert table.vulkan_llama_cpp.commands() == ("winget install --id ggml.llamacpp -e",)
    assert table.wsl.commands(False) == ("wsl --install -d Ubuntu-24.04",)
    assert table.wsl.commands(True) == ("wsl --update",)
    for command in (wheel, *table.directml.commands(), *table.wsl.commands(False)):
        assert not PLACEHOLDER.search(command) and command.count('"') % 2 == 0


def test_directml_records_its_pins() -> None:
    directml = windows_support().directml
    assert (directml.torch, directml.torchvision) == ("2.4.1", "0.19.1")
    assert directml.covers_python("3.12.1") is True
    assert directml.covers_python("3.13.0") is False


def test_the_hip_sdk_list_is_read_from_the_rocm_support_table() -> None:
    assert hip_sdk_component("gfx1100", "6.2.4").component == "runtime+sdk"
    assert hip_sdk_component("gfx1031", "6.2").component == "runtime"
    assert hip_sdk_component("gfx1030", "7.2").component == "none"
    answer = hip_sdk_component("gfx1031", "7.2")  # AMD's 7.2 page could not be read that far
    assert answer.component == "unknown"
    assert answer.verdict.source.startswith("https://rocm.docs.amd.com/")


@pytest.mark.parametrize(("version", "minimum", "older"), [
    ("24.12.1", "26.2.2", True),
    ("26.2.2", "26.2.2", False),
    ("26.10.1", "26.2.2", False),  # numbers, not text: October is after February
    ("25.20.01.14", "26.2.2", True),
    ("Adrenalin", "26.2.2", None),
    (None, "26.2.2", None),
])
def test_adrenalin_versions_compare_by_number(version: str | None, minimum: str,
                                              older: bool | None) -> None:
    assert adrenalin_older_than(version, minimum) is older


def test_versions_and_interpreters_are_read_strictly() -> None:
    assert driver_key("576.88") == (576, 88)
    assert driver_key("576") is None
    assert python_series("3.12.7") == "3.12"
    assert python_series("3.12.7 (tags/v3.12.7:0b05ead, Oct  1 2024)") == "3.12"
    assert python_series("2.7.18") is None
    assert powershell_python(None) == "py"
    assert powershell_python("python") == "py"
    assert powershell_python(r"C:\Python312\python.exe") == r'& "C:\Python312\python.exe"'
    assert (powershell_python(r"C:\Program Files\Python312\python.exe")
            == r'& "C:\Program Files\Python312\python.exe"')
    assert powershell_python(r"C:\Users\O'Neil\py\python.exe") == (
        "& \"C:\\Users\\O'Neil\\py\\python.exe\"")
    assert powershell_python(r"C:\Users\a$b\py\python.exe") == (
        r'& "C:\Users\a`$b\py\python.exe"')


@pytest.mark.parametrize("damage", [
    lambda d: d["rocm_wheels"].update(tested=["gfx1100", "RX 7900"]),
    lambda d: d["rocm_wheels"].update(untested=["gfx1100"]),
    lambda d: d["rocm_wheels"].update(index_url="http://example.com/whl"),
    lambda d: d["rocm_wheels"].update(python=["3.12", "twelve"]),
    lambda d: d["rocm_wheels"].update(min_adrenalin="latest"),
    lambda d: d["rocm_wheels"].update(confidence="sure"),
    lambda d: d["directml"].update(caveat="Pinned to torch 2.4.1 [V]."),
    lambda d: d["directml"].update(sources=["nowhere"]),
    lambda d: d["vulkan_llama_cpp"].update(winget_id="llama cpp"),
    lambda d: d["wsl"].update(distro="Ubuntu 24.04; rm"),
    lambda d: d["sources"].update(unused={"url": "https://example.com/", "label": "x"}),
    lambda d: d.pop("hip_sdk"),
    lambda d: d["third_party"][0].pop("status"),
])
def test_a_damaged_table_is_refused(damage: Any) -> None:
    document = doc()
    damage(document)
    with pytest.raises(WindowsTableError):
        parse_windows_table(document)
