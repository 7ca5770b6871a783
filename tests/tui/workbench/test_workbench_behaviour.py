"""Main-screen behaviours a user met, written against what the user sees (so they hold through refactors):
esc closes a panel over the messages before it cancels; ◀ n/m ▶ is on screen after stepping; the footer offers
"esc Cancel" only while something can be cancelled; tok/s live, then the last answer's figure marked as such;
the status line says why a needed capability mark is missing; the drawer follows the stream from the last
message and never says "live" with "No reasoning for this message"; alt+t goes to the dialog tree."""

from __future__ import annotations

from typing import Any

from textual.widgets import Footer

from tests.tui.helpers import answer, main_screen, make_app, make_center, settle, type_text
from visindigo.engine import Capability, Center, Message, ModelInfo, Role
from visindigo.engine.providers import FinishPart, Pause, ReasoningPart, TextPart, scripted_provider
from visindigo.tui.chat.message_view import AlternativeSwitch
from visindigo.tui.main.key_help import help_sections

SLOW = [ReasoningPart("thinking it over"), TextPart("part one "), Pause(2.5), TextPart("part two"), FinishPart("stop")]


def footer_keys(screen: Any) -> list[str]:
    footer = screen.query_one(Footer)
    return [f"{key.key_display} {key.description}" for key in footer.query("FooterKey")]


async def _wait(pilot: Any, condition: Any, seconds: float = 5.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await pilot.pause(0.05)


LONG = [ReasoningPart("a long think"), TextPart("part one "), Pause(30.0), TextPart("never"), FinishPart("stop")]


async def test_esc_closes_the_drawer_over_the_messages_then_cancels() -> None:
    app = make_app([LONG])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        await type_text(pilot, "go")
        await pilot.press("enter")
        await _wait(pilot, lambda: screen.runs.is_running(screen.dialog.id))
        await pilot.press("f9")
        await pilot.pause()
        center = screen.query_one("#center")
        assert screen.drawer.display and not center.display  # over the messages
        await pilot.press("escape")
        await pilot.pause()
        assert not screen.drawer.display and center.display
        assert screen.runs.is_running(screen.dialog.id)  # the first esc only closed the panel
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert screen.sidebar.display and not center.display
        await pilot.press("escape")
        await pilot.pause()
        assert not screen.sidebar.display and screen.runs.is_running(screen.dialog.id)
        await pilot.press("escape")
        await settle(pilot)
        assert screen.dialog.message_at(1).meta.get("status") == "interrupted"


async def test_the_footer_offers_esc_cancel_only_while_an_answer_can_be_cancelled() -> None:
    app = make_app([SLOW])
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(app)
        await pilot.pause()
        assert not any("Cancel" in key for key in footer_keys(screen))
        await type_text(pilot, "go")
        await pilot.press("enter")
        await _wait(pilot, lambda: any("Cancel" in key for key in footer_keys(screen)))
        assert "esc Cancel" in footer_keys(screen)
        await settle(pilot)
        await pilot.pause()
        assert not any("Cancel" in key for key in footer_keys(screen))


async def test_tok_s_is_live_while_streaming_then_the_last_answers_figure_is_marked() -> None:
    turn = [TextPart("a "), TextPart("b "), Pause(1.0), TextPart("c "), TextPart("d"), Pause(1.0), FinishPart("stop")]
    app = make_app([turn])
    async with app.run_test(size=(120, 30)) as pilot:
        screen = main_screen(app)
        await type_text(pilot, "go")
        await pilot.press("enter")
        await _wait(pilot, lambda: "tok/s" in str(screen.status_line.content))
        live = str(screen.status_line.content)
        assert "tok/s" in live and "last answer" not in live
        await settle(pilot)
        final = str(screen.status_line.content)
        assert "last answer" in final and "tok/s" in final


async def test_the_status_line_says_why_a_needed_capability_mark_is_missing() -> None:
    models = [
        ModelInfo("plain", name="Plain", capabilities=Capability.TEXT),
        ModelInfo("thinker", name="Thinker", capabilities=Capability.TEXT | Capability.REASONING),
    ]
    center = Center()
    center.add_provider(scripted_provider([], id="two", name="Two", models=models))
    center.default_provider_id = "two"
    app = make_app(center=center)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = main_screen(app)
        dialog = screen.dialog
        dialog.provider_id = "two"
        dialog.model_id = "plain"
        dialog.capability_requirement = Capability.TEXT | Capability.REASONING
        screen.status_line.refresh_now()
        await pilot.pause()
        status = str(screen.status_line.content)
        assert "Thinker" in status and "needs R: Plain lacks it, so Thinker answers" in status
        center.get_provider("two").models = [models[0]]  # type: ignore[union-attr]
        screen.status_line.refresh_now()
        await pilot.pause()
        assert "needs R: no model of Two has it" in str(screen.status_line.content)
        dialog.capability_requirement = Capability.TEXT
        screen.status_line.refresh_now()
        await pilot.pause()
        assert "needs" not in str(screen.status_line.content)


async def test_stepping_alternatives_brings_the_marker_on_screen_at_80x24() -> None:
    tall = "\n\n".join(f"Paragraph {n} of a long answer." for n in range(40))
    later = "\n\n".join(f"Line {n} of a later answer." for n in range(30))
    app = make_app([answer(tall), answer(later), answer("short other answer")])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        for question in ("question", "a later question"):
            await type_text(pilot, question)
            await pilot.press("enter")
            await settle(pilot)
        await pilot.press("ctrl+o")
        for _ in range(2):
            await pilot.press("up")
        assert screen.pane.cursor is not None and screen.pane.cursor.index == 1
        await pilot.press("r")  # another answer to the first question, in a branch
        await settle(pilot)
        await pilot.press("ctrl+o")
        await pilot.pause()
        screen.pane.select_view(screen.pane.view_for(1))
        await pilot.press("left")  # back to the tall first answer, which has more messages after it
        await settle(pilot)
        assert screen.dialog.message_at(1).content == tall and screen.dialog.message_count == 4
        view = screen.pane.view_for(1)
        assert view is not None and view.outer_size.height > screen.pane.size.height
        switch = view.query_one(AlternativeSwitch)

        def on_screen() -> bool:
            return screen.pane.region.contains_region(switch.region)

        await _wait(pilot, on_screen, seconds=2.0)
        assert on_screen(), (switch.region, screen.pane.region)
        assert (switch.position, switch.total) == (1, 2)


async def test_the_drawer_follows_the_stream_from_the_last_message_and_never_says_live_with_no_reasoning() -> None:
    late = [TextPart("answer first "), Pause(3.0), FinishPart("stop")]  # a window a loaded machine cannot miss
    center = make_center([late, SLOW])
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "old question")
    dialog.append_message(Message(Role.ASSISTANT, "old answer", reasoning="old thinking"))
    app = make_app(center=center)
    async with app.run_test(size=(130, 40)) as pilot:
        screen = main_screen(app)
        await screen.open_dialog(dialog)
        await pilot.press("ctrl+o")  # the cursor on the last message, the old answer
        await pilot.pause()
        assert screen.pane.cursor is not None and screen.pane.cursor.index == 1
        await pilot.press("ctrl+l")
        await type_text(pilot, "new")
        await pilot.press("enter")
        await _wait(pilot, lambda: screen.drawer.source == "stream")
        assert screen.drawer.source == "stream"  # it follows the new answer
        shown = str(screen.drawer.query_one(".title").content), str(screen.drawer.query_one(".empty").content)
        assert shown == ("reasoning · live", "No reasoning yet.")
        await settle(pilot)
        assert screen.drawer.title == "reasoning · message 4"  # the answer's own, now that it is complete
        await type_text(pilot, "again")  # the drawer showed the latest answer: it follows the next one too
        await pilot.press("enter")
        await _wait(pilot, lambda: "thinking it over" in screen.drawer.text)
        assert screen.drawer.source == "stream" and screen.drawer.text == "thinking it over"
        await settle(pilot)


async def test_alt_t_goes_to_the_dialog_tree_and_is_in_the_key_list_and_the_palette() -> None:
    app = make_app([answer("x")])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        await pilot.pause()
        assert not screen.sidebar.display
        await pilot.press("alt+t")
        await _wait(pilot, lambda: app.focused is screen.sidebar.dialog_tree)
        assert screen.sidebar.display and app.focused is screen.sidebar.dialog_tree
        await pilot.press("escape")
        await pilot.pause()
        assert not screen.sidebar.display
        keys = [b for _title, bindings in help_sections(app) for b in bindings if b.action == "focus_tree"]
        assert [b.key for b in keys] == ["alt+t"]
        assert any(title == "Go to dialog tree" and "alt+t" in help for title, help, _ in screen.palette_commands())
