"""First-run setup: real discovery (environment + a loopback server), choosing, the form, the demo, skipping."""

from __future__ import annotations

import asyncio
import tomllib
from collections.abc import Sequence
from typing import Any

import pytest
from textual.widgets import Input, OptionList

from tests.llm_server import LLMServer, json_reply
from tests.tui.screens_host import ScreenHost, screen_text
from visindigo.engine import Center, Provider
from visindigo.engine.paths import Paths, ensure_dirs, resolve_paths
from visindigo.engine.providers.discovery import DiscoveredProvider, discover_providers
from visindigo.tui.setup.first_run import FirstRunChoice, FirstRunScreen, as_offer
from visindigo.tui.setup.providers import ProviderFormScreen

ENV_KEY = "sk-from-the-environment-0123456789"


@pytest.fixture
def paths() -> Paths:
    result = resolve_paths()
    ensure_dirs(result)
    return result


def discoverer(llm_server: LLMServer, gate: asyncio.Event | None = None) -> Any:
    """Real discovery of a set OPENAI_API_KEY and of the loopback server; waits for `gate` when given."""

    async def discover() -> Sequence[DiscoveredProvider]:
        if gate is not None:
            await gate.wait()
        return await discover_providers(env={"OPENAI_API_KEY": ENV_KEY}, ports=[llm_server.port], timeout=2.0)

    return discover


async def wait_found(pilot: Any, screen: FirstRunScreen) -> None:
    for _ in range(200):
        await pilot.pause(0.02)
        if screen.query_one(OptionList).get_option("demo") and not screen._searching:
            return
    raise AssertionError("discovery never finished")


def config(paths: Paths) -> dict[str, Any]:
    return tomllib.loads(paths.config_file.read_text(encoding="utf-8")) if paths.config_file.exists() else {}


def test_discovery_results_become_offers() -> None:
    env_offer = as_offer(
        DiscoveredProvider(
            "openai", "OpenAI", "openai", "https://api.openai.com/v1", "environment", api_key_env="OPENAI_API_KEY"
        )
    )
    assert env_offer.provider.api_key_env == "OPENAI_API_KEY" and env_offer.source == "key in $OPENAI_API_KEY"
    local = as_offer(
        DiscoveredProvider(
            "ollama", "Ollama", "openai", "http://127.0.0.1:11434/v1", "local", models=("llama3.2", "qwen3")
        )
    )
    assert local.source == "server at http://127.0.0.1:11434/v1, 2 models"
    assert local.provider.default_model == "llama3.2"
    assert as_offer(Provider("x", base_url="http://h/v1")).provider.id == "x"


async def test_found_providers_are_listed_and_enter_saves_one(llm_server: LLMServer, paths: Paths) -> None:
    llm_server.models = ["qwen3-8b", "llama3.2"]
    center = Center()
    center.paths = paths
    gate = asyncio.Event()
    app = ScreenHost(lambda: FirstRunScreen(discoverer(llm_server, gate), center=center))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, FirstRunScreen)
        await pilot.pause()
        assert "Looking for local servers" in screen_text(app)
        gate.set()
        await wait_found(pilot, screen)
        shown = screen_text(app)
        assert "key in $OPENAI_API_KEY" in shown and f"127.0.0.1:{llm_server.port}" in shown
        assert ENV_KEY not in shown
        await pilot.press("down", "enter")
        await pilot.pause()
    [choice] = app.results
    assert isinstance(choice, FirstRunChoice) and choice.action == "provider"
    assert choice.provider is not None and choice.provider.base_url == llm_server.openai_url
    local_id = f"local-{llm_server.port}"
    assert center.default_provider_id == local_id
    saved = config(paths)
    assert saved["default_provider"] == local_id
    assert [m["id"] for m in saved["providers"][local_id]["models"]] == ["qwen3-8b", "llama3.2"]


async def test_an_environment_key_stays_in_the_environment(llm_server: LLMServer, paths: Paths) -> None:
    app = ScreenHost(lambda: FirstRunScreen(discoverer(llm_server), paths=paths))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_found(pilot, app.screen)  # type: ignore[arg-type]
        await pilot.press("enter")
        await pilot.pause()
    assert config(paths)["providers"]["openai"]["api_key_env"] == "OPENAI_API_KEY"
    assert not paths.credentials_file.exists()
    assert ENV_KEY not in paths.config_file.read_text(encoding="utf-8")


async def test_demo_and_skip_write_nothing(paths: Paths) -> None:
    for keys, action in ((("ctrl+d",), "demo"), (("escape",), "skip"), (("down", "enter"), "demo")):
        app = ScreenHost(lambda: FirstRunScreen([], paths=paths))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            if action != "skip":
                assert "Nothing found" in screen_text(app)
            await pilot.press(*keys)
            await pilot.pause()
        assert app.results == [FirstRunChoice(action)]  # type: ignore[arg-type]
        assert app.results[0] == action and app.results[0] != "provider"
    assert not paths.config_file.exists()


async def test_add_by_hand_through_the_form(paths: Paths) -> None:
    center = Center()
    app = ScreenHost(lambda: FirstRunScreen([], paths=paths, center=center))
    key = "sk-typed-by-hand-0123456789"
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("enter")  # "Add a provider by hand" is first when nothing was found
        await pilot.pause()
        assert isinstance(app.screen, ProviderFormScreen)
        await pilot.press(*"work", "tab", "tab", "tab", "ctrl+u", *"http://127.0.0.1:9/v1", "tab", "tab", *key)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert key not in screen_text(app)
    [choice] = app.results
    assert choice.action == "provider" and choice.provider.id == "work"
    assert center.default_provider_id == "work" and center.default_provider.api_key == key  # type: ignore[union-attr]
    assert config(paths)["providers"]["work"]["base_url"] == "http://127.0.0.1:9/v1"
    assert key in paths.credentials_file.read_text(encoding="utf-8")
    assert key not in paths.config_file.read_text(encoding="utf-8")


async def test_edit_an_offer_before_adding_it(paths: Paths) -> None:
    offer = DiscoveredProvider(
        "openai", "OpenAI", "openai", "https://api.openai.com/v1", "environment", api_key_env="OPENAI_API_KEY"
    )
    app = ScreenHost(lambda: FirstRunScreen([offer], paths=paths))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+o")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, ProviderFormScreen)
        assert form.query_one("#api_key_env", Input).value == "OPENAI_API_KEY"
        form.query_one("#id", Input).value = "openai-work"
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert list(config(paths)["providers"]) == ["openai-work"]
    assert app.results[0].provider.id == "openai-work"


async def test_failing_discovery_still_offers_the_form_and_the_demo() -> None:
    async def broken() -> Sequence[object]:
        raise OSError("no network")

    app = ScreenHost(lambda: FirstRunScreen(broken, paths=None))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.1)
        assert "Could not look for providers (OSError)" in screen_text(app)
        await pilot.press("ctrl+d")
        await pilot.pause()
    assert app.results == [FirstRunChoice("demo")]


async def test_a_center_given_first_is_used_as_the_center(paths: Paths) -> None:
    center = Center()
    center.paths = paths
    screen = FirstRunScreen(center)
    assert screen._center is center and screen._paths == paths


async def test_a_typed_address_is_tested_there_and_a_single_request_server_is_saved_with_one_run_at_a_time(
    llm_server: LLMServer, paths: Paths
) -> None:
    """A llama-cpp-python server on a port nobody probes: typed, tested, added — with tools and a run limit."""
    llm_server.models_reply = json_reply({"data": [{"id": "gemma.gguf", "object": "model", "owned_by": "me"}]})
    app = ScreenHost(lambda: FirstRunScreen([], paths=paths, probed=["http://127.0.0.1:11434/v1"]))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, FirstRunScreen)
        await pilot.pause()
        assert "Asked: 127.0.0.1:11434" in screen_text(app)
        screen.query_one("#address", Input).focus()
        await pilot.press(*"127.0.0.1:1", "enter")  # nothing listens on port 1
        for _ in range(100):
            await pilot.pause(0.02)
            if "No server at" in screen_text(app):
                break
        assert "No server at 127.0.0.1:1" in screen_text(app)
        field = screen.query_one("#address", Input)
        field.value = f"127.0.0.1:{llm_server.port}"
        field.focus()
        await pilot.press("enter")
        for _ in range(100):
            await pilot.pause(0.02)
            if "Found" in screen_text(app):
                break
        assert "llama-cpp-python" in screen_text(app)
        await pilot.press("enter")
        await pilot.pause()
    [choice] = app.results
    assert isinstance(choice, FirstRunChoice) and choice.provider is not None
    entry = config(paths)["providers"]["llamacpp"]
    assert entry["base_url"] == llm_server.openai_url
    assert entry["settings"]["max_concurrent_runs"] == 1 and entry["settings"]["server"] == "llama-cpp-python"
    assert entry["models"][0]["capabilities"] == ["text", "tools"]  # not ["text"]: the tools go out


async def test_an_address_typed_on_the_list_goes_to_the_address_field(llm_server: LLMServer, paths: Paths) -> None:
    """Issue 25 §15: the focus starts on the list, and the hint says "type a server's address": what is typed
    lands in the field (not lost), and enter tests it there instead of choosing "Add a provider by hand"."""
    llm_server.models_reply = json_reply({"data": [{"id": "gemma.gguf", "object": "model", "owned_by": "me"}]})
    app = ScreenHost(lambda: FirstRunScreen([], paths=paths, probed=[]))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, FirstRunScreen)
        await pilot.pause()
        assert isinstance(app.focused, OptionList)
        await pilot.press(*f"127.0.0.1:{llm_server.port}")
        field = screen.query_one("#address", Input)
        assert app.focused is field and field.value == f"127.0.0.1:{llm_server.port}"
        await pilot.press("enter")
        for _ in range(100):
            await pilot.pause(0.02)
            if "Found" in screen_text(app):
                break
        assert "Found" in screen_text(app)
        assert not isinstance(app.screen, ProviderFormScreen)  # enter did not open the empty form


async def test_an_address_that_begins_with_a_letter_of_a_key_is_typed_too(paths: Paths) -> None:
    """Issue 25 §15: e and d were keys of the list (edit first, the demo), so typing "devbox:8080" started the demo
    and the address was lost. Every character goes to the field; the keys are ctrl+o and ctrl+d."""
    for address in ("devbox:8080", "edge.local:11434"):
        app = ScreenHost(lambda: FirstRunScreen([], paths=paths, probed=[]))
        async with app.run_test(size=(80, 24)) as pilot:
            screen = app.screen
            assert isinstance(screen, FirstRunScreen)
            await pilot.pause()
            assert isinstance(app.focused, OptionList)
            await pilot.press(*address)
            await pilot.pause()
            assert app.screen is screen and app.results == []  # no demo, no form
            assert screen.query_one("#address", Input).value == address
            assert "ctrl+o edit first · ctrl+d demo" in str(screen.query_one(".frame").border_subtitle)


async def test_the_demo_key_starts_the_demo_from_the_list(paths: Paths) -> None:
    app = ScreenHost(lambda: FirstRunScreen([], paths=paths, probed=[]))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+d")
        await pilot.pause()
    [choice] = app.results
    assert isinstance(choice, FirstRunChoice) and choice.provider is None
