"""The template form fills Open WebUI's user variables and says when the clipboard could not be read."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from tests.tui.template_host import TemplateHost, fixed_clock
from visindigo.engine import Prompt
from visindigo.engine.templates import UserContext
from visindigo.tui.templates.form import TemplateFormScreen, TemplateResult

PROMPT = Prompt("Explain", "{{USER_NAME}} ({{USER_LANGUAGE}}) asks about:\n{{CLIPBOARD}}\n{{note}}")


async def test_user_variables_and_the_clipboard_fill_the_message() -> None:
    user = UserContext("Ada", "en-GB").with_clipboard("SELECT 1;")
    host = TemplateHost(lambda: TemplateFormScreen(PROMPT, clock=fixed_clock, user=user))
    async with host.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        form = host.screen
        assert isinstance(form, TemplateFormScreen)
        assert [row.spec.name for row in form.rows()] == ["note"]
        assert "Ada (en-GB) asks about:\nSELECT 1;" in str(form.query_one("#preview", Static).content)
        await pilot.press("ctrl+s")
        await pilot.pause()
    (result,) = host.results
    assert isinstance(result, TemplateResult)
    assert result.message.content.startswith("Ada (en-GB) asks about:\nSELECT 1;\n")


async def test_an_unreadable_clipboard_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    for name in ("TMUX", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    host = TemplateHost(lambda: TemplateFormScreen(PROMPT, clock=fixed_clock))
    async with host.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        form = host.screen
        assert isinstance(form, TemplateFormScreen)
        note = str(form.query_one("#unfilled", Static).content)
        assert "{{CLIPBOARD}} is empty: no clipboard tool" in note
