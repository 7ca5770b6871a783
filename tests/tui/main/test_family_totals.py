"""The answer details (i) on the main screen end with the dialog's totals and its branch family's, each answer
counted once (a branch holds copies of its parent's answers)."""

from __future__ import annotations

from tests.tui.helpers import main_screen, make_app, make_center, settle, type_text, wait_until
from visindigo.engine.providers import FinishPart, TextPart, UsagePart
from visindigo.tui.main.context import AnswerDetailsScreen


async def test_the_details_show_the_dialogs_and_its_familys_totals() -> None:
    first = [TextPart("First answer."), UsagePart(1000, 100), FinishPart("stop")]
    again = [TextPart("Second answer."), UsagePart(1000, 50), FinishPart("stop")]
    later = [TextPart("Third answer."), UsagePart(2000, 10), FinishPart("stop")]
    center = make_center([first, again, later])
    provider = center.get_provider("scripted")
    assert provider is not None
    provider.models[0].extra["price"] = {"input": 1.0, "output": 10.0}
    app = make_app(center=center)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        await type_text(pilot, "hi")
        await pilot.press("enter")
        await settle(pilot)
        root = screen.dialog
        screen.pane.focus()
        await pilot.press("end", "r")  # regenerate: a branch answers again
        assert await wait_until(pilot, lambda: screen.dialog is not root and screen.dialog.message_count == 2)
        await settle(pilot)
        screen.composer.input.focus()
        await type_text(pilot, "more")
        await pilot.press("enter")  # the branch goes on: it holds a copy of nothing but its own answers
        assert await wait_until(pilot, lambda: screen.dialog.message_count == 4)
        await settle(pilot)
        screen.pane.focus()
        await pilot.press("end", "i")
        assert await wait_until(pilot, lambda: isinstance(app.screen, AnswerDetailsScreen))
        shown = " ".join(str(app.screen.query_one("#figures").render()).split())
        assert "this dialog: 2 answers · in 3,000 · out 60 · $0.0036" in shown  # 3000 × $1 + 60 × $10 per million
        assert "its family (2 dialogs): 3 answers · in 4,000 · out 160 · $0.0056" in shown
