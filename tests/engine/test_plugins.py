"""Tools from installed packages (entry-point group `visindigo.tools`): found, off until enabled, asked
before each call like MCP tools, and called through Dialog.run()."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.plugin_package import DIST, PACKAGE
from visindigo.engine import Center, Role, ToolCallFinished
from visindigo.engine.approval import Approval, ToolCallRequest
from visindigo.engine.config import apply_config, load_config
from visindigo.engine.paths import resolve_paths
from visindigo.engine.plugins import PluginError, discover_tools, load_tool
from visindigo.engine.providers.base import FinishPart, TextPart, ToolCallPart
from visindigo.engine.providers.scripted import scripted_provider


def entry(key: str):  # type: ignore[no-untyped-def]
    return next(e for e in discover_tools().tools if e.key == key)


def test_the_entry_points_are_found_with_their_package_and_nothing_is_imported(example_tools: Path) -> None:
    found = {e.key: e for e in discover_tools().tools if e.package == DIST}
    assert sorted(found) == ["broken", "missing", "units", "weather"]
    assert (found["weather"].package, found["weather"].version) == (DIST, "1.2")
    assert PACKAGE not in sys.modules


def test_functions_and_command_providers_become_tools_that_ask_first(example_tools: Path) -> None:
    (weather,) = load_tool(entry("weather"))
    assert weather.id == "get_weather" and weather.requires_approval
    assert weather.parameter_schema["properties"]["city"]["type"] == "string"
    (units,) = load_tool(entry("units"), allowed=["units"])
    assert units.id == "to_fahrenheit" and not units.requires_approval
    assert units.invoke({"celsius": 100}) == {"result": 212.0}


def test_a_broken_entry_is_a_message_naming_the_package(example_tools: Path) -> None:
    with pytest.raises(PluginError, match=f"{DIST}: broken is not a usable tool"):
        load_tool(entry("broken"))
    with pytest.raises(PluginError, match=f"{DIST}: missing cannot be loaded"):
        load_tool(entry("missing"))


def tool_then_answer(tool: str, arguments: dict[str, object]) -> list[list[object]]:
    call = ToolCallPart("call_1", tool, json.dumps(arguments))
    return [[call, FinishPart("tool_calls")], [TextPart("It is mild."), FinishPart("stop")]]


async def test_an_enabled_tool_is_called_through_dialog_run_after_approval(example_tools: Path) -> None:
    center = Center()
    provider = scripted_provider(tool_then_answer("get_weather", {"city": "Kyoto"}))
    center.add_provider(provider)
    dialog = center.create_dialog()
    for tool in load_tool(entry("weather")):
        dialog.add_function(tool)  # enabled for this dialog only
    asked: list[ToolCallRequest] = []

    async def approve(request: ToolCallRequest) -> Approval:
        asked.append(request)
        return Approval.ALLOW_ONCE

    dialog.append_message(Role.USER, "Weather in Kyoto?")
    events = [event async for event in dialog.run(approve=approve)]
    assert [request.function_id for request in asked] == ["get_weather"]
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert len(finished) == 1
    tool_message = next(m for m in dialog.messages if m.role == Role.TOOL)
    assert json.loads(tool_message.content) == {"city": "Kyoto", "weather": "mild, 18 °C"}
    assert sys.modules[PACKAGE].CALLS == ["Kyoto"]
    assert dialog.last_message.content == "It is mild."
    assert provider.adapter.requests[0].tools[0]["name"] == "get_weather"  # type: ignore[attr-defined]


async def test_tools_are_off_until_the_config_enables_them(example_tools: Path, tmp_path: Path) -> None:
    paths = resolve_paths(tmp_path / "home")
    center = Center()
    config, problems = load_config(paths)
    apply_config(center, config)
    assert center.function_ids == [] and PACKAGE not in sys.modules
    paths.config_file.parent.mkdir(parents=True)
    paths.config_file.write_text('[tools]\nenabled = ["weather", "broken", "nothing"]\nallow = ["weather"]\n')
    config, problems = load_config(paths)
    apply_config(center, config)
    assert center.function_ids == ["get_weather"]
    assert center.get_function("get_weather").requires_approval is False  # type: ignore[union-attr]
    messages = [str(p) for p in problems]
    assert any("broken is not a usable tool" in m for m in messages)
    assert any("no installed package offers a tool 'nothing'" in m for m in messages)


def test_visindigo_tools_lists_them_with_package_and_state(
    example_tools: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from visindigo.cli import main

    monkeypatch.setenv("VISINDIGO_HOME", str(tmp_path / "home"))
    (tmp_path / "home" / "config").mkdir(parents=True)
    (tmp_path / "home" / "config" / "config.toml").write_text('[tools]\nenabled = ["units"]\n')
    assert main(["tools"]) == 0
    lines = {line.split()[1]: line for line in capsys.readouterr().out.splitlines() if line[:3] in ("on ", "off")}
    assert lines["units"].startswith("on ") and lines["weather"].startswith("off")
    assert f"{DIST} 1.2" in lines["weather"] and f"({PACKAGE}:get_weather)" in lines["weather"]
