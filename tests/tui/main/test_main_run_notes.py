"""What a run tells the user beyond its answer, on the main screen: an empty answer, another model, waiting for
a provider that serves one run at a time, and reasoning that arrived as the answer (a headless `</think>`)."""

from __future__ import annotations

import asyncio

from tests.tui.helpers import answer, main_screen, make_app, make_center, settle, type_text, wait_until
from visindigo.engine import Role
from visindigo.engine.providers import FinishPart, MovedToReasoningPart, Pause, TextPart
from visindigo.tui.chat.message_pane import Notice


def notice_text(screen: object) -> str:
    return " ".join(str(n.render()) for n in screen.pane.query(Notice))  # type: ignore[attr-defined]


async def ask(pilot: object, text: str) -> None:
    await type_text(pilot, text)  # type: ignore[arg-type]
    await pilot.press("enter")  # type: ignore[attr-defined]


async def test_an_empty_answer_leaves_a_mark_and_is_not_counted_as_an_answer() -> None:
    app = make_app([[FinishPart("stop")]])
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(app)
        await ask(pilot, "hello")
        await settle(pilot)
        assert [m.role for m in screen.dialog.messages] == [Role.USER]  # nothing appended (the spec's rule)
        assert "The model returned an empty answer — finish reason stop" in notice_text(screen)
        assert "empty answer" in str(screen.status_line.content)


async def test_another_model_answering_is_said_and_recorded() -> None:
    app = make_app([answer("hi")])
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(app)
        screen.dialog.model_id = "retired-model"
        await ask(pilot, "hello")
        await settle(pilot)
        assert "'retired-model' is not available" in notice_text(screen)
        assert screen.dialog.last_message.meta["requested_model_id"] == "retired-model"


async def test_a_run_over_the_providers_limit_says_it_waits() -> None:
    release = asyncio.Event()  # the first run holds its turn until the test has seen the second one wait
    first = [TextPart("first "), Pause(60.0, until=release), TextPart("done"), FinishPart("stop")]
    center = make_center([first, answer("second")])
    center.default_provider.settings["max_concurrent_runs"] = 1  # type: ignore[union-attr]
    app = make_app(center=center)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(app)
        await ask(pilot, "one")
        assert await wait_until(pilot, lambda: "generating" in str(screen.status_line.content))
        await pilot.press("ctrl+n")
        await pilot.pause()
        await ask(pilot, "two")
        assert await wait_until(pilot, lambda: "waiting for Scripted" in str(screen.status_line.content))
        seen = str(screen.status_line.content) + notice_text(screen)
        assert "waiting for Scripted… esc cancels" in seen and "waiting for Scripted…" in notice_text(screen)
        release.set()
        await settle(pilot)
        assert screen.dialog.last_message.content == "second"
        assert "waiting" not in notice_text(screen) and "waiting" not in str(screen.status_line.content)


async def test_reasoning_that_streamed_as_the_answer_moves_to_the_drawer() -> None:
    turn = [TextPart("Let me think "), TextPart("about it."), Pause(0.8), MovedToReasoningPart(), Pause(0.8),
            TextPart("42"), FinishPart("stop")]  # fmt: skip
    app = make_app([turn])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        await ask(pilot, "number?")
        for _ in range(40):
            await pilot.pause(0.05)
            if screen.drawer.source == "stream" and "about it." in screen.drawer.text:
                break
        assert "Let me think about it." in screen.drawer.text  # live in the drawer once it is known
        stream = screen.pane.streaming_view
        assert stream is None or "Let me think" not in stream.copy_text()
        await settle(pilot)
        message = screen.dialog.last_message
        assert message.content == "42" and message.reasoning == "Let me think about it."


async def test_a_saved_providers_default_model_shows_in_the_status_line_at_once() -> None:
    from visindigo.engine import Center, Provider

    center = Center()
    center.add_provider(Provider("local", name="llama.cpp", base_url="http://127.0.0.1:9/v1", default_model="qwen3-8b"))
    center.default_provider_id = "local"
    app = make_app(center=center)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        status = str(main_screen(app).status_line.content)
        assert "llama.cpp · qwen3-8b" in status and "no model" not in status
