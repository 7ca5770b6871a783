"""Single line breaks in answers and questions are shown as line breaks, as chat clients show them; code blocks
and tables are drawn as before, and the stored text stays exactly as it came."""

from __future__ import annotations

from textual.widgets import Markdown, Static
from textual.widgets._markdown import MarkdownFence, MarkdownParagraph, MarkdownTable

from tests.tui.helpers import main_screen, make_app, make_center
from visindigo.engine import Message, Role

POEM = "Roses are red,\nviolets are blue,\nthis line is third."
ANSWER = f"{POEM}\n\n```python\nx = 1\ny = 2\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
QUESTION = "one per line:\napples\npears"


async def test_an_answer_keeps_its_single_line_breaks_and_its_code_and_table() -> None:
    center = make_center([])
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, QUESTION)
    dialog.append_message(Message(Role.ASSISTANT, ANSWER))
    app = make_app(center=center)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(app)
        await screen.open_dialog(dialog)
        await pilot.pause()
        answer = screen.pane.view_for(1)
        assert answer is not None
        markdown = answer.query_one(Markdown)
        paragraph = markdown.query(MarkdownParagraph).first()
        assert paragraph.region.height == 3  # three lines, not one joined paragraph
        assert str(paragraph.content).splitlines() == ["Roses are red,", "violets are blue,", "this line is third."]
        fence = markdown.query_one(MarkdownFence)
        assert fence.code == "x = 1\ny = 2"
        assert markdown.query_one(MarkdownTable) is not None
        question = screen.pane.view_for(0)
        assert question is not None
        body = question.query_one(".body", Static)
        assert body.region.height == 3 and str(body.content).splitlines() == ["one per line:", "apples", "pears"]
        assert dialog.message_at(1).content == ANSWER  # stored as it came
