"""First run against the real llama.cpp server (llama-server on Gemma 3 270M): found by the port probe and by a
typed address, recognised as llama.cpp — its model list's `owned_by` and its `/props`, with the tools the
template renders — saved without a one-run-at-a-time limit, and the saved provider answers.

llama-cpp-python's server is recognised from a recorded model list (tests/engine/providers/test_discovery.py and
tests/tui/setup/test_screens_first_run.py); its compile is no longer in the test extra.
"""

from __future__ import annotations

import tomllib
from typing import Any

import pytest
from textual.widgets import Input, OptionList

from tests.interop.llama_server import LlamaServer
from tests.tui.screens_host import ScreenHost, screen_text
from visindigo.engine import Capability, Center, Role, RunFailed
from visindigo.engine.config.apply import apply_config
from visindigo.engine.config.load import load_config
from visindigo.engine.paths import Paths, ensure_dirs, resolve_paths
from visindigo.engine.providers.discovery import discover_providers
from visindigo.tui.setup.first_run import FirstRunChoice, FirstRunScreen

pytestmark = pytest.mark.llama


@pytest.fixture
def paths() -> Paths:
    result = resolve_paths()  # the test's own VISINDIGO_HOME (tests/conftest.py)
    ensure_dirs(result)
    return result


def port_of(server: LlamaServer) -> int:
    return int(server.address.rsplit(":", 1)[1])


def saved_provider(paths: Paths) -> dict[str, Any]:
    saved = tomllib.loads(paths.config_file.read_text(encoding="utf-8"))
    assert saved["default_provider"] == "llamacpp"
    entry: dict[str, Any] = saved["providers"]["llamacpp"]
    return entry


async def wait_for(pilot: Any, app: ScreenHost, text: str) -> None:
    for _ in range(500):
        await pilot.pause(0.02)
        if text in screen_text(app):
            return
    raise AssertionError(f"{text!r} never shown:\n{screen_text(app)}")


async def the_saved_provider_answers(paths: Paths, server: LlamaServer) -> None:
    """The config the first run wrote, loaded as the app loads it, asks the real server."""
    config, problems = load_config(paths)
    assert problems == []
    center = Center()
    apply_config(center, config)
    provider = center.get_provider("llamacpp")
    assert provider is not None and provider.max_concurrent_runs == 0
    model = provider.get_model(server.model_id)
    assert model is not None and Capability.TOOLS in model.capabilities
    dialog = center.create_dialog()
    dialog.parameters = {"max_tokens": 4, "temperature": 0.0, "seed": 7}
    dialog.append_message(Role.USER, "Say hello.")
    events = [event async for event in dialog.run()]
    assert [e.message for e in events if isinstance(e, RunFailed)] == []
    assert dialog.last_message.role is Role.ASSISTANT and dialog.last_message.meta["provider_id"] == "llamacpp"
    await center.aclose()


async def test_the_port_probe_finds_llama_server_and_the_first_run_saves_it(
    llama_server: LlamaServer, paths: Paths
) -> None:
    port = port_of(llama_server)

    async def discover() -> Any:
        return await discover_providers(env={}, ports=(port,), timeout=5.0)

    app = ScreenHost(lambda: FirstRunScreen(discover, paths=paths))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, app, f"llama.cpp (127.0.0.1:{port})")
        shown = screen_text(app)
        assert "llama-cpp-python" not in shown
        options = app.screen.query_one(OptionList)
        assert "llama.cpp" in str(options.get_option_at_index(0).prompt)  # the found server, first
        options.focus()
        options.highlighted = 0
        await pilot.press("enter")
        await pilot.pause()
    [choice] = app.results
    assert isinstance(choice, FirstRunChoice) and choice.action == "provider"
    entry = saved_provider(paths)
    assert entry["base_url"] == llama_server.base_url
    assert entry["settings"] == {"server": "llama.cpp"}  # no max_concurrent_runs: it has slots
    [model] = entry["models"]
    assert model["id"] == llama_server.model_id and "tools" in model["capabilities"]  # from /props
    await the_saved_provider_answers(paths, llama_server)


async def test_its_address_typed_on_the_welcome_screen_is_recognised_as_llama_cpp(
    llama_server: LlamaServer, paths: Paths
) -> None:
    port = port_of(llama_server)
    app = ScreenHost(lambda: FirstRunScreen([], paths=paths, probed=[]))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        field = app.screen.query_one("#address", Input)
        field.value = f"127.0.0.1:{port}"  # no scheme, no /v1: both are tried
        field.focus()
        await pilot.press("enter")
        await wait_for(pilot, app, "Found llama.cpp")
        assert "llama-cpp-python" not in screen_text(app)
        await pilot.press("enter")
        await pilot.pause()
    [choice] = app.results
    assert isinstance(choice, FirstRunChoice) and choice.provider is not None
    entry = saved_provider(paths)
    assert entry["settings"] == {"server": "llama.cpp"} and entry["base_url"] == llama_server.base_url
    await the_saved_provider_answers(paths, llama_server)
