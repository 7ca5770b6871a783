"""Provider manager: add, edit, remove, default — written to real config files; keys never on screen."""

from __future__ import annotations

import stat
import tomllib
from pathlib import Path

import pytest
from textual.widgets import Checkbox, Input, Select

from tests.tui.screens_host import ScreenHost, screen_text
from visindigo.engine import Center, ModelInfo, Provider
from visindigo.engine.config import load_config
from visindigo.engine.paths import Paths, ensure_dirs, resolve_paths
from visindigo.tui.common.confirm import ConfirmScreen
from visindigo.tui.setup.providers import ProviderFormScreen, ProvidersScreen, key_status

STORED = "sk-stored-secret-0123456789"
ENV_KEY = "sk-env-secret-9876543210"
TYPED = "sk-typed-secret-5555555555"


@pytest.fixture
def paths(monkeypatch: pytest.MonkeyPatch) -> Paths:
    monkeypatch.setenv("VISINDIGO_TEST_KEY", ENV_KEY)
    result = resolve_paths()
    ensure_dirs(result)
    return result


def make_center() -> Center:
    center = Center()
    center.add_provider(
        Provider(
            "envkey",
            name="Env Key",
            base_url="https://api.example.invalid/v1",
            api_key_env="VISINDIGO_TEST_KEY",
            models=[ModelInfo("m1")],
        )
    )
    center.add_provider(Provider("stored", base_url="https://api.stored.invalid/v1", api_key=STORED))
    center.add_provider(Provider("local", base_url="http://127.0.0.1:8080/v1"))
    return center


def config(paths: Paths) -> dict[str, object]:
    return tomllib.loads(paths.config_file.read_text(encoding="utf-8")) if paths.config_file.exists() else {}


def credentials(paths: Paths) -> dict[str, object]:
    if not paths.credentials_file.exists():
        return {}
    return tomllib.loads(paths.credentials_file.read_text(encoding="utf-8"))


def test_key_status_says_where_the_key_is_never_what_it_is(paths: Paths, monkeypatch: pytest.MonkeyPatch) -> None:
    center = make_center()
    assert [key_status(p) for p in center.providers] == ["set (env VISINDIGO_TEST_KEY)", "set (stored)", "none"]
    monkeypatch.delenv("VISINDIGO_TEST_KEY")
    assert key_status(center.providers[0]) == "not set (env VISINDIGO_TEST_KEY is empty)"


async def test_the_list_shows_key_sources_and_no_key(paths: Paths) -> None:
    app = ScreenHost(lambda: ProvidersScreen(make_center(), paths))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        await pilot.press("down")
        text += screen_text(app)
    assert "set (stored)" in text and "set (env VISINDIGO_TEST" in text
    assert STORED not in text and ENV_KEY not in text


async def test_add_a_provider_by_keys_stores_the_key_apart(paths: Paths) -> None:
    center = make_center()
    app = ScreenHost(lambda: ProvidersScreen(center, paths))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("a")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, ProviderFormScreen)
        await pilot.press(*"deepseek", "tab", *"DeepSeek", "tab", "tab")  # id, name, (kind), base URL
        assert isinstance(app.focused, Input) and app.focused.id == "base_url"
        await pilot.press("ctrl+u", *"https://api.deepseek.com/v1", "tab", "tab", *TYPED, "tab", *"deepseek-chat")
        await pilot.press("tab", *"deepseek-chat, deepseek-reasoner")
        on_screen = screen_text(app)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ProvidersScreen)
        on_screen += screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
    assert TYPED not in on_screen
    assert app.results == [True]
    entry = config(paths)["providers"]["deepseek"]  # type: ignore[index]
    assert entry["base_url"] == "https://api.deepseek.com/v1" and entry["name"] == "DeepSeek"
    assert entry["default_model"] == "deepseek-chat"
    assert [m["id"] for m in entry["models"]] == ["deepseek-chat", "deepseek-reasoner"]
    assert "api_key" not in entry and TYPED not in paths.config_file.read_text(encoding="utf-8")
    assert credentials(paths) == {"providers": {"deepseek": {"api_key": TYPED}}}
    assert stat.S_IMODE(paths.credentials_file.stat().st_mode) == 0o600
    added = center.get_provider("deepseek")
    assert added is not None and added.api_key == TYPED
    loaded, problems = load_config(paths)
    assert problems == [] and [p.api_key for p in loaded.providers()] == [TYPED]


async def test_invalid_fields_are_named_and_nothing_is_written(paths: Paths) -> None:
    center = make_center()
    app = ScreenHost(lambda: ProvidersScreen(center, paths))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("a")
        await pilot.pause()
        await pilot.press(*"local", "tab", "tab", "tab", "ctrl+u", *"ftp://x", "tab", *"sk-abc-123", "ctrl+s")
        form = app.screen
        assert isinstance(form, ProviderFormScreen)
        error = str(form.query_one("#error").render())
        assert "there is a provider with this id already" in error
        assert "must start with http:// or https://" in error
        assert "not the key itself" in error
        assert form.query_one("#base_url", Input).value == "ftp://x"  # what was typed stays
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ProvidersScreen)
    assert not paths.config_file.exists()
    assert [p.id for p in center.providers] == ["envkey", "stored", "local"]


async def test_the_form_starts_empty_and_a_kind_change_fills_the_default_url(paths: Paths) -> None:
    app = ScreenHost(lambda: ProviderFormScreen())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        form = app.screen
        assert form.query_one("#base_url", Input).value == ""  # no real address until the user asks for one
        form.query_one("#kind", Select).value = "anthropic"
        await pilot.pause()
        assert form.query_one("#base_url", Input).value == "https://api.anthropic.com/v1"
        form.query_one("#kind", Select).value = "openai"
        await pilot.pause()
        assert form.query_one("#base_url", Input).value == "https://api.openai.com/v1"


async def test_edit_keeps_or_forgets_the_stored_key(paths: Paths) -> None:
    center = make_center()
    app = ScreenHost(lambda: ProvidersScreen(center, paths))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("down", "enter")  # edit "stored"
        await pilot.pause()
        form = app.screen
        assert isinstance(form, ProviderFormScreen)
        assert form.query_one("#api_key", Input).value == ""
        assert "set (stored)" in form.query_one("#api_key", Input).placeholder
        await pilot.press(*"Stored Inc", "ctrl+s")  # the name field has the focus
        await pilot.pause()
        kept = center.get_provider("stored")
        assert kept is not None and kept.name == "Stored Inc" and kept.api_key == STORED
        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one("#forget_key", Checkbox).value = True
        await pilot.press("ctrl+s")
        await pilot.pause()
        text = screen_text(app)
    forgot = center.get_provider("stored")
    assert forgot is not None and forgot.api_key is None
    assert config(paths)["providers"]["stored"]["name"] == "Stored Inc"  # type: ignore[index]
    assert "stored" not in credentials(paths).get("providers", {})  # type: ignore[operator]
    assert STORED not in text


async def test_make_default_and_remove_after_confirming(paths: Paths) -> None:
    center = make_center()
    app = ScreenHost(lambda: ProvidersScreen(center, paths))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("down", "down", "d")
        assert center.default_provider_id == "local"
        assert config(paths)["default_provider"] == "local"
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("enter")  # cancel has the focus
        await pilot.pause()
        assert center.get_provider("local") is not None
        await pilot.press("x", "y")
        await pilot.pause()
    assert center.get_provider("local") is None
    assert center.default_provider_id == "envkey"
    assert "default_provider" not in config(paths)


async def test_a_broken_config_file_is_not_overwritten(paths: Paths) -> None:
    paths.config_file.write_text("[providers\nbroken = ", encoding="utf-8")
    center = make_center()
    app = ScreenHost(lambda: ProvidersScreen(center, paths))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("d")  # envkey is already the default in the Center, but the write must fail
        await pilot.press("down", "down", "d")
        status = str(app.screen.query_one("#status").render())
    assert "Not saved" in status and "syntax error" in status
    assert center.default_provider_id == "envkey"
    assert paths.config_file.read_text(encoding="utf-8") == "[providers\nbroken = "


async def test_without_paths_only_the_center_changes(tmp_path: Path) -> None:
    center = make_center()
    app = ScreenHost(lambda: ProvidersScreen(center, None))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("down", "down", "d", "escape")
        await pilot.pause()
    assert center.default_provider_id == "local"
    assert app.results == [True]
    assert not resolve_paths().config_file.exists()
