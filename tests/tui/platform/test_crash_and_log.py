"""An unexpected error in the app: the traceback goes to the log file, the screen names the file; f1 shows
where the log is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Static

from tests.tui.helpers import make_app, make_center, settle
from visindigo.engine import Center, applog
from visindigo.engine.paths import resolve_paths
from visindigo.tui.common.help import HelpScreen
from visindigo.tui.platform.crash import crash_report

SECRET = "sk-crash-secret-123456789"


@pytest.fixture(autouse=True)
def no_log() -> Iterator[None]:
    applog.stop()
    yield
    applog.stop()


async def test_an_unhandled_error_is_logged_and_the_screen_says_where(tmp_path: Path) -> None:
    center = Center()
    center.paths = resolve_paths(tmp_path)
    from visindigo.engine import Provider

    center.add_provider(Provider("p", kind="openai", base_url="http://127.0.0.1:9/v1", api_key=SECRET))
    app = make_app(center=center)

    def explode() -> None:
        raise RuntimeError(f"the widget broke (key {SECRET})")

    with pytest.raises(RuntimeError):
        async with app.run_test() as pilot:
            await settle(pilot)
            app.call_later(explode)
            await pilot.pause()
    log_file = tmp_path / "data" / "logs" / "visindigo.log"
    text = log_file.read_text()
    assert "Traceback" in text and "RuntimeError: the widget broke" in text and SECRET not in text
    message = crash_report(app)
    assert str(log_file) in message and "RuntimeError" in message and SECRET not in message
    assert "Traceback" not in message


async def test_f1_names_the_log_file(tmp_path: Path) -> None:
    center = make_center([])
    center.paths = resolve_paths(tmp_path)
    app = make_app(center=center)
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        footer = str(app.screen.query_one("#files", Static).content)
        assert "--debug" in footer and str(tmp_path / "data" / "logs" / "visindigo.log") in footer
        await pilot.press("escape")
        applog.configure(2, tmp_path / "logs-on")
        await pilot.press("f1")
        await pilot.pause()
        footer = str(app.screen.query_one("#files", Static).content)
        assert footer == f"Debug log: {tmp_path / 'logs-on' / 'visindigo.log'}"
