"""Files attached in the composer go with a compared question to every column, as sending would take them."""

from __future__ import annotations

from tests.llm_server import LLMServer
from tests.tui.compare.test_compare_columns import all_done, comparing
from tests.tui.compare_host import every_model, make_app, scripted_center, wait_until
from tests.tui.helpers import main_screen
from visindigo.engine.attachments import Attachment, AttachmentKind


async def test_an_attached_file_goes_with_the_compared_question_to_every_model(llm_server: LLMServer) -> None:
    app = make_app(scripted_center(llm_server, every_model(count=2, delay=0.01)))
    async with app.run_test(size=(160, 45)) as pilot:
        main = main_screen(app)
        log = Attachment("build.log", AttachmentKind.TEXT, "text/plain", b"error: the secret is 42\n")
        main.workbench.pending_files.add(main.dialog.id, log)
        asked_in = main.dialog.id
        screen = await comparing(pilot, main, 2, question="Why does it fail?")
        await wait_until(pilot, lambda: all_done(screen.columns))
        asked = [r.json for r in llm_server.requests if r.method == "POST"]
        assert len(asked) == 2
        for body in asked:  # before: the question went alone and the file stayed on the composer
            content = body["messages"][-1]["content"]
            assert "File: build.log" in content and "error: the secret is 42" in content
            assert content.endswith("Why does it fail?")
        assert main.workbench.pending_files.of(asked_in) == []
        for column in screen.columns:
            assert [a.name for a in column.dialog.message_at(0).attachments] == ["build.log"]
