"""The main pane's automatic compaction end to end: a question typed and sent with the dialog over the threshold
goes to a compacted branch and is answered there, on the loopback LLM server and a real store; the parent keeps
every message and no unanswered question, and a file attached for the question goes with it to the branch."""

from __future__ import annotations

from pathlib import Path

from tests.llm_server import LLMServer, openai_stream
from tests.tui.compare_host import make_app, scripted_center
from tests.tui.helpers import main_screen, seeded_dialog, settle, type_text, wait_until
from visindigo.engine import Center
from visindigo.engine.attachments import Attachment, AttachmentKind
from visindigo.engine.context.compaction import ledger_of
from visindigo.engine.context.fit import check_fit

PAIRS = [(f"question {n} about " + "many words " * 25, f"answer {n} " + "said at length " * 10) for n in range(4)]
SUMMARY = "Notes: four questions about words, answered at length."


async def test_sending_over_the_threshold_answers_in_a_compacted_branch_and_the_parent_keeps_no_question(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    replies = {
        "m-delta": lambda: openai_stream([SUMMARY], usage=(400, 12)),  # the summary model of [context]
        "m-alpha": lambda: openai_stream(["Answered ", "in the branch."], usage=(120, 4)),
    }
    center = scripted_center(llm_server, replies, center=Center.open(tmp_path))
    center.settings["context"] = {"auto_compact": True, "auto_compact_at": 0.8, "summary_model": "m-delta"}
    original = seeded_dialog(center, PAIRS)
    original.provider_id, original.model_id = "lab", "m-alpha"
    parent_id = original.id
    app = make_app(center)
    async with app.run_test(size=(80, 24)) as pilot:
        main = main_screen(app)
        await main.open_dialog(original)
        await pilot.pause()
        fit = check_fit(center, original, "next, please")
        assert fit is not None
        provider = center.get_provider("lab")
        assert provider is not None
        model = provider.get_model("m-alpha")
        assert model is not None
        model.context_window = int(fit.used / 0.85)  # the question brings it to 85 % of the window
        note = Attachment("notes.txt", AttachmentKind.TEXT, "text/plain", b"the attached note\n")
        main.workbench.pending_files.add(original.id, note)
        main.composer.input.focus()
        await type_text(pilot, "next, please")
        await pilot.press("enter")
        assert await wait_until(pilot, lambda: main.dialog is not original and main.dialog.message_count > 2)
        branch = main.dialog
        assert await wait_until(pilot, lambda: not main.runs.is_running(branch.id))
        await settle(pilot)

        assert branch.branch_from_id == parent_id and ledger_of(branch.message_at(0)) is not None
        assert SUMMARY in branch.message_at(0).content and "automatically" in branch.message_at(0).content
        question, reply = branch.message_at(branch.message_count - 2), branch.last_message
        assert question.content == "next, please" and reply.content == "Answered in the branch."
        assert [a.name for a in question.attachments] == ["notes.txt"]  # the file went with its question
        assert original.message_count == 8 and original.last_message.content == PAIRS[-1][1]
        posts = [r.json for r in llm_server.requests if r.method == "POST"]
        assert [body["model"] for body in posts] == ["m-delta", "m-alpha"]  # the summary, then the question
        sent = " ".join(str(m["content"]) for m in posts[1]["messages"])
        assert SUMMARY in sent and "question 0 about" not in sent and "the attached note" in sent
        assert main.workbench.pending_files.of(parent_id) == []
        assert any("compacted automatically" in n.message for n in app._notifications)
    center.close()

    stored = Center.open(tmp_path)  # the store says the same: the parent as it was, the branch answered
    try:
        parent = stored.get_dialog(parent_id)
        assert parent is not None and parent.message_count == 8
        kept = stored.get_dialog(branch.id)
        assert kept is not None and kept.last_message.content == "Answered in the branch."
    finally:
        stored.close()
