"""The app's own log: off by default; with --debug a rotating file with requests (no bodies, no header
values), timings and tracebacks, never a key; message text only at the second level."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.llm_server import LLMServer, openai_stream
from visindigo.engine import Center, ModelInfo, Provider, Role, applog

SECRET = "sk-applog-secret-987654321"


@pytest.fixture(autouse=True)
def stop_log() -> Iterator[None]:
    yield
    applog.stop()


def test_levels_from_flags_and_environment() -> None:
    assert applog.level_from(0, {}) == 0
    assert applog.level_from(1, {}) == 2 and applog.level_from(2, {}) == 3
    assert applog.level_from(0, {"VISINDIGO_LOG": "debug"}) == 2
    assert applog.level_from(0, {"VISINDIGO_LOG": "trace"}) == 3
    assert applog.level_from(0, {"VISINDIGO_LOG": "off"}) == 0


def test_nothing_is_written_when_the_log_is_off(tmp_path: Path) -> None:
    assert applog.configure(0, tmp_path / "logs") is None
    assert not (tmp_path / "logs").exists() and applog.current_file() is None


async def run_once(llm_server: LLMServer, text: str) -> None:
    llm_server.queue(openai_stream(["Hel", "lo"], usage=(5, 2)))
    center = Center()
    center.add_provider(Provider("t", kind="openai", base_url=llm_server.openai_url + "?key=" + SECRET,
                                 api_key=SECRET, headers={"X-Title": "visindigo"}, models=[ModelInfo("m")]))
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, text)
    [event async for event in dialog.run()]
    await center.aclose()


async def test_debug_logs_requests_and_timings_without_keys_or_text(tmp_path: Path, llm_server: LLMServer) -> None:
    path = applog.configure(2, tmp_path / "logs")
    assert path == tmp_path / "logs" / "visindigo.log" and applog.current_file() == path
    assert path.stat().st_mode & 0o077 == 0
    await run_once(llm_server, "my private question")
    try:
        raise ValueError(f"with {SECRET} inside")
    except ValueError:
        logging.getLogger("visindigo.test").exception("boom")
    text = path.read_text()
    assert "-> POST http://127.0.0.1" in text and "headers=[" in text and "authorization" in text
    assert "<- 200 POST" in text and " ms)" in text
    assert "round 1 of dialog" in text and "round 1 ended after" in text
    assert "Traceback" in text and "ValueError" in text
    assert SECRET not in text and "key=***" in text
    assert "my private question" not in text and "Hello" not in text


async def test_trace_adds_message_text(tmp_path: Path, llm_server: LLMServer) -> None:
    path = applog.configure(3, tmp_path / "logs")
    assert path is not None
    await run_once(llm_server, "my private question")
    text = path.read_text()
    assert "my private question" in text and SECRET not in text


def test_the_log_rotates(tmp_path: Path) -> None:
    path = applog.configure(2, tmp_path / "logs")
    assert path is not None
    log = logging.getLogger("visindigo.test")
    for _ in range(applog.MAX_LOG_BYTES // 500 + 50):
        log.debug("x" * 500)
    assert (tmp_path / "logs" / "visindigo.log.1").exists()
    assert path.stat().st_size <= applog.MAX_LOG_BYTES
