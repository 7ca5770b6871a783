"""The Markdown export shows a comparison as one section with each model's answer under its name."""

from __future__ import annotations

import time

from tests.engine.compare.test_comparison import QWEN_LLAMA, by_model, local_center
from tests.llm_server import LLMServer, openai_stream
from visindigo.engine import Center, Message, Role
from visindigo.engine.compare import Comparison
from visindigo.engine.export import export_json, export_markdown, import_json


async def compared(llm_server: LLMServer) -> tuple[Center, Comparison]:
    llm_server.responder = by_model(
        {"qwen": openai_stream(["Qwen's ", "answer."]), "llama": openai_stream(["Llama's ", "answer."])}
    )
    center = local_center(llm_server)
    dialog = center.create_dialog()
    dialog.title = "Sky"
    dialog.append_message(Role.USER, "Hi")
    dialog.append_message(Role.ASSISTANT, "Hello")
    comparison = Comparison.ask(center, dialog, QWEN_LLAMA, "Why is the sky blue?", blind=True)
    async for _ in comparison.run():
        pass
    return center, comparison


async def test_one_section_with_each_models_answer_under_its_name_and_the_pick(llm_server: LLMServer) -> None:
    center, comparison = await compared(llm_server)
    winner = next(n for n, c in enumerate(comparison.columns) if c.choice.model_id == "llama")
    comparison.pick(winner)
    chosen = comparison.columns[winner].dialog
    chosen.append_message(Role.USER, "And at sunset?")
    chosen.append_message(Message(Role.ASSISTANT, "Longer path.", meta={"model_id": "llama"}))
    question = comparison.question_dialog

    text = export_markdown(center, question.id, with_branches=True)
    sections = text.split("\n\n---\n\n")
    assert len(sections) == 2  # the dialog asked in, then the comparison: no section per branch
    assert sections[0].startswith("# Sky\n") and "Why is the sky blue?" in sections[0]
    section = sections[1]
    assert section.startswith("# Sky · comparison of 2 answers\n")
    assert f"- Branches of: Sky (`{question.id[:8]}`), answers from message 4" in section
    assert "- Question: Why is the sky blue?" in section
    assert "- Chosen: llama (blind)" in section
    order = [c.choice.model_id for c in comparison.columns]  # creation order, as ◀ n/m ▶ shows them
    first, second = (section.index(f"\n## {model}") for model in order)
    assert first < second
    parts = {part.split("\n", 1)[0]: part for part in section.split("\n## ")[1:]}
    assert set(parts) == {"qwen", "llama · chosen"}
    assert "### Assistant · qwen\n\nQwen's answer." in parts["qwen"]
    assert "### Assistant · llama\n\nLlama's answer." in parts["llama · chosen"]
    assert "### You\n\nAnd at sunset?" in parts["llama · chosen"]  # what followed the pick is kept
    assert "Longer path." in parts["llama · chosen"] and "Longer path." not in parts["qwen"]
    assert section.count("Why is the sky blue?") == 1  # the question once, not once per model


async def test_without_a_pick_it_says_so_and_an_imported_copy_groups_the_same(llm_server: LLMServer) -> None:
    center, comparison = await compared(llm_server)
    question = comparison.question_dialog
    text = export_markdown(center, question.id, with_branches=True)
    assert "- Chosen: none" in text and "comparison of 2 answers" in text
    copy = Center()
    import_json(copy, export_json(center, question.id, with_branches=True))
    assert export_markdown(copy, question.id, with_branches=True) == text


def test_regenerates_by_one_model_or_made_apart_stay_sections_of_their_own() -> None:
    center = Center()
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "q")
    dialog.append_message(Message(Role.ASSISTANT, "a1", meta={"model_id": "qwen"}))
    for text in ("a2", "a3"):  # the same model twice, at once
        branch = center.regenerate(dialog)
        branch.append_message(Message(Role.ASSISTANT, text, meta={"model_id": "qwen"}))
    later = center.regenerate(dialog)  # another model, but made long after
    later.created_at = time.time() + 600
    later.append_message(Message(Role.ASSISTANT, "a4", meta={"model_id": "llama"}))
    text = export_markdown(center, dialog.id, with_branches=True)
    assert "comparison of" not in text
    assert text.count("\n---\n") == 3
