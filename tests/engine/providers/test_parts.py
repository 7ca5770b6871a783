"""The pieces under the adapters: think-tag splitting, sendable history, key redaction, error bodies, the demo."""

from __future__ import annotations

import email.utils
import json
import time

from hypothesis import given
from hypothesis import strategies as st

from visindigo.engine import Center, Role, RunFinished, StreamReasoning, ToolCallFinished, UsageReported
from visindigo.engine.message import Message
from visindigo.engine.providers import demo_functions, demo_provider
from visindigo.engine.providers.base import redact
from visindigo.engine.providers.history import MISSING_RESULT, sendable_history
from visindigo.engine.providers.http import _retry_after, error_from_body
from visindigo.engine.providers.think import MOVED, REASONING, ThinkSplitter


def split(chunks: list[str], *, starts_in_thinking: bool = False) -> tuple[str, str]:
    """(reasoning, answer) as the run loop would store them, a MOVED piece moving the answer so far."""
    splitter = ThinkSplitter(starts_in_thinking=starts_in_thinking)
    reasoning: list[str] = []
    answer: list[str] = []

    def take(pieces: list[tuple[int, str]]) -> None:
        for kind, text in pieces:
            if kind == MOVED:
                reasoning[:0] = answer
                answer.clear()
            else:
                (reasoning if kind == REASONING else answer).append(text)

    for chunk in chunks:
        take(splitter.feed(chunk))
    take(splitter.flush())
    return "".join(reasoning), "".join(answer)


def test_think_tags_at_the_start_are_reasoning() -> None:
    assert split(["<think>\nabc\n</think>\n\nAnswer"]) == ("\nabc\n", "Answer")
    assert split(["<think>\n\n</think>\n\nNo thought"]) == ("\n\n", "No thought")


def test_only_a_leading_tag_opens_a_thought() -> None:
    assert split(["Say <think>x</think> literally"]) == ("", "Say <think>x</think> literally")
    assert split(["<thinking is fun>"]) == ("", "<thinking is fun>")


def test_starts_in_thinking_needs_no_opening_tag() -> None:
    assert split(["deep thought", "</think>", "result"], starts_in_thinking=True) == ("deep thought", "result")
    assert split(["never closed"], starts_in_thinking=True) == ("never closed", "")


def test_starts_in_thinking_tolerates_a_model_that_opens_the_thought_anyway() -> None:
    assert split(["\n<thi", "nk>deep</think>", "result"], starts_in_thinking=True) == ("deep", "result")
    assert split(["  "], starts_in_thinking=True) == ("", "")


def test_reasoning_from_the_server_means_the_content_is_the_answer() -> None:
    splitter = ThinkSplitter(starts_in_thinking=True)
    splitter.server_separates_reasoning()
    assert splitter.feed("The answer.") == [(False, "The answer.")]
    late = ThinkSplitter(starts_in_thinking=True)
    assert late.feed("thinking") == [(True, "thinking")]
    late.server_separates_reasoning()  # too late: the content already began inside the thought
    assert late.feed("</think>answer") == [(False, "answer")]


def test_a_closing_tag_that_nothing_opened_makes_the_text_before_it_reasoning() -> None:
    assert split(["Hmm, let", " me see.", "</think>", "\n\nAnswer"]) == ("Hmm, let me see.", "Answer")
    assert split(["Hmm </th", "ink> Answer"]) == ("Hmm ", "Answer")
    assert split(["Hmm</think>An</think>swer"]) == ("Hmm", "An</think>swer")  # only the first tag counts


def test_a_closing_tag_after_an_opening_one_in_the_answer_is_text() -> None:
    assert split(["Use <think> and </think> tags"]) == ("", "Use <think> and </think> tags")


def test_a_closing_tag_is_answer_text_when_the_server_separates_reasoning() -> None:
    splitter = ThinkSplitter()
    assert splitter.feed("Answer with </th") == [(0, "Answer with ")]
    splitter.server_separates_reasoning()
    assert splitter.feed("ink> inside") == [(0, "</think> inside")]


def test_a_partial_closing_tag_at_the_end_of_an_answer_is_text() -> None:
    assert split(["Answer </thi"]) == ("", "Answer </thi")


def test_an_unfinished_tag_at_the_end_is_text() -> None:
    assert split(["<thi"]) == ("", "<thi")
    assert split(["<think>abc</thi"]) == ("abc</thi", "")


@given(
    thought=st.text(alphabet="thinkab<>/ \n", max_size=30).filter(lambda t: "</think>" not in t),
    answer=st.text(alphabet="thinkxy<>/ \n", max_size=30),
    cuts=st.lists(st.integers(min_value=0, max_value=100), max_size=8),
)
def test_any_chunking_gives_the_same_split(thought: str, answer: str, cuts: list[int]) -> None:
    text = f"<think>{thought}</think>{answer}"
    points = sorted({c % (len(text) + 1) for c in cuts})
    chunks = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    assert split(chunks) == split([text])
    reasoning, rest = split([text])
    assert reasoning == thought and rest == answer.lstrip()


def test_sendable_history_answers_every_call_and_drops_orphans() -> None:
    calls = json.dumps(
        [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
            {"id": "b", "type": "function", "function": {"name": "g", "arguments": "{}"}},
        ]
    )
    history = [
        Message(Role.USER, "q"),
        Message(Role.ASSISTANT, "", tool_calls=calls),
        Message(Role.TOOL, "ra", tool_call_id="a"),
        Message(Role.USER, "interrupting"),
        Message(Role.TOOL, "late b", tool_call_id="b"),
        Message(Role.ASSISTANT, "", reasoning="only thought"),
        Message(Role.ASSISTANT, "fine"),
    ]
    result = sendable_history(history)
    assert [(m.role, m.content, m.tool_call_id) for m in result] == [
        (Role.USER, "q", ""),
        (Role.ASSISTANT, "", ""),
        (Role.TOOL, "ra", "a"),
        (Role.TOOL, MISSING_RESULT, "b"),
        (Role.USER, "interrupting", ""),
        (Role.ASSISTANT, "fine", ""),
    ]
    assert result[3].name == "g"


def test_redact_removes_the_key_and_long_pieces_of_it() -> None:
    key = "sk-proj-ABCDEFGHIJKLMNOP1234567890"
    assert redact(f"bad key {key}!", key) == "bad key [redacted]!"
    assert "ABCDEFGHIJ" not in redact("key sk-proj-ABCDEFGHIJ****7890 rejected", key)
    assert redact("nothing secret here", key) == "nothing secret here"
    assert redact("text", None) == "text"


def test_retry_after_in_seconds_or_as_an_http_date() -> None:
    assert _retry_after("2") == 2.0 and _retry_after(" 0.5 ") == 0.5
    in_a_minute = email.utils.formatdate(time.time() + 60, usegmt=True)
    assert 55 <= (_retry_after(in_a_minute) or 0) <= 60
    assert _retry_after(email.utils.formatdate(time.time() - 60, usegmt=True)) == 0.0
    assert _retry_after("soon") is None and _retry_after(None) is None


def test_error_bodies_of_every_shape() -> None:
    assert error_from_body('{"error":{"message":"m1","type":"t"}}') == "m1"
    assert error_from_body('{"object":"error","message":"m2","code":400}') == "m2"
    assert error_from_body('{"error":"m3"}') == "m3"
    assert error_from_body('{"detail":"m4"}') == "m4"
    assert error_from_body("<html>\n  Bad   gateway </html>") == "<html> Bad gateway </html>"
    assert error_from_body("") == ""
    long_body = error_from_body("x" * 1000)
    assert len(long_body) == 400 and long_body.endswith("…")


async def test_the_demo_is_deterministic_and_shows_every_feature() -> None:
    async def one_run() -> tuple[list[str], list[type]]:
        center = Center()
        center.add_provider(demo_provider(0))
        center.add_functions(demo_functions())
        dialog = center.create_dialog()
        dialog.append_message(Role.USER, "What is the weather in Lisbon?")
        events = [event async for event in dialog.run()]
        return [m.content for m in dialog.messages], [type(e) for e in events]

    first, second = await one_run(), await one_run()
    assert first == second
    contents, kinds = first
    assert kinds[-1] is RunFinished and StreamReasoning in kinds and ToolCallFinished in kinds
    assert '"city":"Lisbon"' in contents[2]
    final = contents[-1]
    assert final.startswith("## ") and "```python" in final and "\n- **Temperature:**" in final


async def test_a_regenerated_demo_answer_differs() -> None:
    center = Center()
    center.add_provider(demo_provider(0))
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "Tell me something")
    [_ async for _ in dialog.run()]
    first = dialog.last_message.content
    dialog.truncate_to(dialog.find_last_assistant_message())
    [_ async for _ in dialog.run()]
    assert dialog.last_message.content != first and dialog.last_message.content.startswith("## ")


async def test_the_demo_works_without_its_tool() -> None:
    center = Center()
    center.add_provider(demo_provider(0))
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "weather?")
    events = [event async for event in dialog.run()]
    assert isinstance(events[-1], RunFinished) and dialog.message_count == 2


async def test_the_demo_reports_the_whole_prompt_so_its_context_meter_and_compaction_add_up() -> None:
    """The demo once reported the last question's size as its prompt: the meter, anchored on reported usage, read
    a long dialog as a few dozen tokens, and compacting it said the request grew (82 → 174 tokens)."""
    from visindigo.engine.context.compaction import compact
    from visindigo.engine.context.fit import check_fit

    center = Center()
    center.add_provider(demo_provider(0))
    center.add_functions(demo_functions())
    dialog = center.create_dialog()
    reported: list[int] = []
    for question in ("What is the weather in Lisbon?", "And in Osaka?", "Tell me more", "Once more, please"):
        dialog.append_message(Role.USER, question)
        reported += [event.input_tokens async for event in dialog.run() if isinstance(event, UsageReported)]
    assert reported == sorted(reported) and reported[-1] > 4 * reported[0]  # the prompt grows with the dialog
    before = check_fit(center, dialog)
    assert before is not None and before.used >= reported[-1]
    branch = await compact(center, dialog, keep_turns=1)
    after = check_fit(center, branch)
    assert after is not None and after.used < before.used
