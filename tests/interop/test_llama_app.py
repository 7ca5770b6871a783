"""The app against the real llama.cpp server, driven with Pilot as a user would: ask, watch it stream,
regenerate, force a tool call, cancel, and ask in two dialogs at once."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Markdown

from tests.interop.llama_server import LlamaServer
from tests.tui.helpers import main_screen, settle, type_text
from visindigo.engine import Capability, Center, ModelInfo, Provider, Role
from visindigo.engine.commands import command
from visindigo.tui.app import AppOptions, VisindigoApp

pytestmark = pytest.mark.llama

SHORT = {"max_tokens": 10, "temperature": 0.0, "seed": 3}


@command()
def get_time(tz: str) -> dict[str, str]:
    """The current time in a time zone."""
    return {"tz": tz, "time": "12:00"}


def llama_app(server: LlamaServer) -> VisindigoApp:
    center = Center()
    center.add_provider(
        Provider(
            "llamacpp",
            name="llama.cpp",
            base_url=server.base_url,
            models=[ModelInfo(server.model_id, name="gemma-3-270m", capabilities=Capability.TEXT | Capability.TOOLS)],
            default_model=server.model_id,
            # one run at a time, so a second dialog waits visibly; no usage asked for: the counts come from the
            # `timings` llama-server sends with its last chunk anyway
            settings={"max_concurrent_runs": 1, "stream_usage": False},
        )
    )
    center.default_provider_id = "llamacpp"
    return VisindigoApp(center, AppOptions(stream_fps=30.0))


async def ask(pilot: Any, text: str) -> None:
    await type_text(pilot, text)
    await pilot.press("enter")


async def test_an_answer_streams_with_the_servers_own_counts(llama_server: LlamaServer) -> None:
    """No `stream_options` asked: llama-server still ends with its `timings` (prompt_n, cache_n, predicted_n), the
    server's own counts, which the status line shows as they are (not as an estimate)."""
    app = llama_app(llama_server)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        assert "gemma-3-270m" in str(screen.status_line.content)  # the default model shows before any reply
        screen.dialog.parameters = dict(SHORT)
        await ask(pilot, "Say hello")
        await settle(pilot)
        dialog = screen.dialog
        assert [m.role for m in dialog.messages] == [Role.USER, Role.ASSISTANT]
        answer = dialog.last_message
        view = screen.pane.view_for(1)
        assert view is not None and view.query_one(Markdown).source == answer.content
        status = str(screen.status_line.content)
        usage = answer.meta["usage"]
        assert not usage.get("estimated") and usage["input_tokens"] > 0 and usage["output_tokens"] > 0
        assert "llama.cpp" in status and f"in {usage['input_tokens']} out {usage['output_tokens']}" in status
        assert "max 10" in status  # the dialog's parameters, compactly


async def test_regenerate_makes_a_branch_answered_by_the_server(llama_server: LlamaServer) -> None:
    app = llama_app(llama_server)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        screen.dialog.parameters = {**SHORT, "temperature": 1.5}
        await ask(pilot, "Name a colour")
        await settle(pilot)
        original = screen.dialog
        await pilot.press("ctrl+r")
        await settle(pilot)
        branch = screen.dialog
        assert branch is not original and branch.branch_from_id == original.id
        assert [m.role for m in branch.messages] == [Role.USER, Role.ASSISTANT]
        assert branch.last_message.content and "status" not in branch.last_message.meta


async def test_a_forced_tool_call_shows_its_block_and_the_answer_after_it(llama_server: LlamaServer) -> None:
    app = llama_app(llama_server)
    app.center.add_function(get_time)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        screen.dialog.parameters = {**SHORT, "max_tokens": 16, "tool_choice": "get_time"}  # grammar sampling is slow
        await ask(pilot, "Time in UTC?")
        await settle(pilot)
        dialog = screen.dialog
        assert [m.role for m in dialog.messages] == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]
        tool_view = screen.pane.view_for(2)
        assert tool_view is not None and tool_view.call_id == dialog.message_at(2).tool_call_id
        assert "get_time" in tool_view.copy_text() or '"time"' in tool_view.copy_text()
        final = screen.pane.view_for(3)
        assert final is not None and final.query_one(Markdown).source == dialog.message_at(3).content


async def test_escape_cancels_mid_stream_and_the_next_question_is_answered(llama_server: LlamaServer) -> None:
    app = llama_app(llama_server)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        screen.dialog.parameters = {**SHORT, "max_tokens": 300}
        await ask(pilot, "Tell a long story")
        for _ in range(600):
            await pilot.pause(0.05)
            stream = screen.pane.streaming_view
            if stream is not None and len(stream.query_one(Markdown).source) > 5:
                break
        await pilot.press("escape")
        await settle(pilot)
        dialog = screen.dialog
        assert dialog.last_message.meta.get("status") == "interrupted"
        screen.dialog.parameters = dict(SHORT)
        await ask(pilot, "Again")
        await settle(pilot)
        assert dialog.last_message.role is Role.ASSISTANT and "status" not in dialog.last_message.meta


async def test_two_dialogs_asking_at_once_both_finish_and_the_second_waits_visibly(llama_server: LlamaServer) -> None:
    app = llama_app(llama_server)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        first = screen.dialog
        first.parameters = {**SHORT, "max_tokens": 200}  # still streaming when the second asks
        await ask(pilot, "Count to twenty")
        await pilot.press("ctrl+n")
        await pilot.pause()
        second = screen.dialog
        assert second is not first
        second.parameters = dict(SHORT)
        await ask(pilot, "Hello")
        saw_waiting = False
        for _ in range(200):
            await pilot.pause(0.05)
            if "waiting for llama.cpp" in str(screen.status_line.content):
                saw_waiting = True
                break
        await settle(pilot)
        assert saw_waiting
        for dialog in (first, second):
            assert dialog.last_message.role is Role.ASSISTANT and "status" not in dialog.last_message.meta


async def test_over_the_messages_wire_the_status_line_counts_the_cached_prompt_in(llama_server: LlamaServer) -> None:
    """Issue 25 item 4, as the user saw it: over llama-server's `/v1/messages` the second question's prompt is
    mostly read from the server's cache, and "in" showed only the part after it (47 where 89 were read). It is the
    whole prompt of each answer now: what the same prompts count over chat completions, asked here directly."""
    import httpx

    center = Center()
    center.add_provider(
        Provider(
            "llama-messages",
            kind="anthropic",
            name="llama.cpp (Messages)",
            base_url=llama_server.base_url,
            models=[ModelInfo(llama_server.model_id, name="gemma-3-270m", capabilities=Capability.TEXT)],
            default_model=llama_server.model_id,
            settings={"server": "llama.cpp"},
        )
    )
    center.default_provider_id = "llama-messages"
    app = VisindigoApp(center, AppOptions(stream_fps=30.0))
    questions = ["List four fruits: apple, pear, plum, fig, apple, pear, plum, fig, apple, pear", "Which is sweetest"]
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        screen.dialog.parameters = dict(SHORT)
        for question in questions:
            await ask(pilot, question)
            await settle(pilot)
        dialog = screen.dialog
        assert [m.role for m in dialog.messages] == [Role.USER, Role.ASSISTANT] * 2
        assert dialog.last_message.meta["usage"]["cached_tokens"] > 0  # most of its prompt came from the cache
        status = str(screen.status_line.content)
    whole = 0
    async with httpx.AsyncClient(timeout=120, trust_env=False) as client:
        for end in (1, 3):  # the prompt of each answer: the first question; then question, answer, question
            messages = [{"role": m.role.name.lower(), "content": m.content} for m in dialog.messages[:end]]
            body = {"model": llama_server.model_id, "max_tokens": 1, "messages": messages}
            reply = await client.post(f"{llama_server.base_url}/chat/completions", json=body)
            whole += reply.json()["usage"]["prompt_tokens"]
    assert f"in {whole} out" in status, status


async def test_while_an_answer_streams_in_is_the_requests_count_until_the_server_reports(
    llama_server: LlamaServer,
) -> None:
    """Issue 25 item 6: llama-server sends its counts with the last chunk only, and while the answer streamed the
    status line read "in 0". It shows the request's count, marked "~", until the server's figure replaces it."""
    app = llama_app(llama_server)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        screen.dialog.parameters = {**SHORT, "max_tokens": 120}
        await ask(pilot, "Tell a long story about a fox and a crow")
        streaming = ""
        for _ in range(1200):
            await pilot.pause(0.05)
            stream = screen.pane.streaming_view
            if stream is not None and len(stream.query_one(Markdown).source) > 5:
                screen.status_line.refresh_now()
                streaming = screen.status_line.content.plain
                break
        await settle(pilot)
        usage = screen.dialog.last_message.meta["usage"]
        final = screen.status_line.content.plain
    assert "in ~" in streaming and "in ~0 " not in streaming, streaming
    estimate = int(streaming.split("in ~", 1)[1].split()[0])
    assert abs(estimate - usage["input_tokens"]) <= 8, (estimate, usage)  # the server's tokenizer counted it
    assert not usage.get("estimated") and f"in {usage['input_tokens']} out" in final, final
