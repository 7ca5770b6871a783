"""ctrl+l and a paste read from the terminal in one go (one read gives both events): the paste goes to the
composer, even when the message list is busy unfolding a long reply. It used to land in the message list (and was
lost there): ctrl+l's focus change was only made once the list had handled the key, after the app had already
forwarded the paste to the widget focused then."""

from __future__ import annotations

from textual import events

from tests.tui.helpers import main_screen, make_app, make_center, seeded_dialog, settle
from visindigo.tui.chat.markdown.long_text import LongText
from visindigo.tui.chat.message_view import MessageView

BIG = "A line of a very long answer, repeated until it is a megabyte long.\n" * 15_000
MARKDOWN = "".join(f"## Section {n}\n\n" + "A sentence of the section. " * 40 + "\n\n" for n in range(120))


async def _unfold_then_ctrl_l_and_paste(text: str, *, wait_filled: bool) -> None:
    center = make_center([])
    dialog = seeded_dialog(center, [("give me everything", text)])
    app = make_app(center=center)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(app)
        await screen.open_dialog(dialog)
        await settle(pilot)
        view = next(v for v in screen.pane.query(MessageView) if v.index == 1)
        screen.pane.select_view(view)
        screen.pane.focus()
        await pilot.pause()
        await pilot.press("enter")  # unfold: all of the reply, mounted in parts
        if wait_filled:
            for _ in range(400):
                found = view.query(LongText)
                if found and found.first().filled:
                    break
                await pilot.pause(0.05)
        assert app.focused is screen.pane
        # What the driver does with one read holding both: the two events are posted back to back.
        app.post_message(events.Key("ctrl+l", "\x0c"))
        app.post_message(events.Paste("pasted words"))
        await settle(pilot)
        await pilot.pause(0.2)
        assert app.focused is screen.composer.input
        assert screen.composer.text == "pasted words"


async def test_ctrl_l_with_a_paste_after_unfolding_a_long_reply_lands_in_the_composer() -> None:
    await _unfold_then_ctrl_l_and_paste(BIG, wait_filled=True)


async def test_ctrl_l_with_a_paste_while_a_markdown_reply_is_still_unfolding_lands_in_the_composer() -> None:
    await _unfold_then_ctrl_l_and_paste(MARKDOWN, wait_filled=False)
