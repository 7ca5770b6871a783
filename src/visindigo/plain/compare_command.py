"""/compare A B: one question to 2–4 models at once (`engine.compare.Comparison`), read out one answer after
another, and the pick.

The answers arrive side by side in the app; streamed into one line-by-line transcript they would interleave
word by word, which nobody can follow by ear. So each column's progress is announced as a line while they run
("B has answered"), and then the answers are read out whole, in column order, before the user picks one. The
branches are the app's: every model's answer is an alternative at the question, whether or not one is picked.
"""

from __future__ import annotations

import asyncio

from visindigo.engine import Message, Role
from visindigo.engine.approval import Approval, ToolCallRequest
from visindigo.engine.compare import BLIND_LABELS, CompareError, Comparison, ModelChoice
from visindigo.engine.compare.last_set import last_set, remember_set
from visindigo.engine.events import (
    RunCancelled,
    RunFailed,
    RunFinished,
    StreamBegan,
    ToolCallFinished,
    ToolCallStarted,
    WaitingForProvider,
)
from visindigo.plain.listing import call_line, result_line
from visindigo.plain.model_commands import fetch_lists, resolve
from visindigo.plain.reader import BLOCK
from visindigo.plain.session import PlainSession
from visindigo.tui.workbench import Refused
from visindigo.tui.workbench.attachments import attach_pending


async def compare(session: PlainSession, argument: str) -> None:
    words = argument.split()
    blind = bool(words) and words[0].lower() == "blind"
    words = words[1:] if blind else words
    center = session.center
    if not center.providers:
        raise Refused("No provider is configured yet: `visindigo config edit` adds one.")
    if words:
        if any(word.isdigit() for word in words) and "models" not in session.lists:
            await fetch_lists(session)
        choices = [ModelChoice(*resolve(session, word)) for word in words]
    else:
        choices = last_set(center)
        if not choices:
            raise Refused("Name 2 to 4 models: /compare A B, with numbers from /model or model ids.")
        session.out.line("The models compared last time: " + ", ".join(choice.label for choice in choices) + ".")
    if not 2 <= len(choices) <= 4:
        raise Refused("Choose 2 to 4 models to compare.")
    session.workbench.refuse_while_running(session.dialog)
    question = await session.ask(
        f"Question for every model (empty: answer the last question again; {BLOCK} for several lines): ", message=True
    )
    if question is None:
        session.out.line("Nothing was compared.")
        return
    remember_set(center, choices)
    comparison = start(session, choices, question, blind)
    try:
        await run(session, comparison)
        await choose(session, comparison)
    finally:
        comparison.close()


def start(session: PlainSession, choices: list[ModelChoice], question: str, blind: bool) -> Comparison:
    """The comparison's branches (the app's rule): a question is added to the shown dialog first and every
    branch holds it; without one, the last answer is answered again by every model."""
    workbench = session.workbench
    dialog = workbench.shown
    try:
        if question.strip():
            message = Message(Role.USER, question)
            message = attach_pending(workbench.center, dialog, workbench.pending_resources, message)
            workbench.add_messages(dialog, [message])
            comparison = Comparison(workbench.center, dialog, choices, cut=dialog.message_count, blind=blind)
        elif dialog.message_count == 0:
            raise Refused("Type a question; the models answer it one beside the other.")
        else:
            comparison = Comparison.regenerate(workbench.center, dialog, choices, None, blind=blind)
    except CompareError as error:
        raise Refused(f"Cannot compare: {error}.") from error
    workbench.refresh_tree(comparison.columns[0].dialog.id)
    return comparison


async def run(session: PlainSession, comparison: Comparison) -> None:
    out = session.out
    count = len(comparison.columns)
    if comparison.blind:
        out.line(f"Comparing {count} models blind, as {', '.join(BLIND_LABELS[:count])}: named once you pick.")
    else:
        names = ", ".join(f"{BLIND_LABELS[n]} {comparison.label(n)}" for n in range(count))
        out.line(f"Comparing {count} models: {names}.")
    by_dialog = {column.dialog.id: n for n, column in enumerate(comparison.columns)}

    async def approve(request: ToolCallRequest) -> Approval:
        number = by_dialog.get(request.dialog_id)
        if number is not None:
            out.line(f"{name(comparison, number)} wants a tool.", kind="tool")
        return await session.approve(request)

    began: set[int] = set()
    try:
        async for update in comparison.run(approve=approve):
            who, event = name(comparison, update.column), update.event
            if isinstance(event, StreamBegan) and update.column not in began:
                began.add(update.column)
                out.line(f"{who} is answering.", kind="status")
            elif isinstance(event, WaitingForProvider):
                out.line(f"{who} waits for {event.provider_name}.", kind="status")
            elif isinstance(event, ToolCallStarted):
                out.line(call_line(event.function_id, event.arguments), label=f"{who}, tool call:", kind="tool")
            elif isinstance(event, ToolCallFinished):
                label = f"{who}, tool {'error' if event.is_error else 'result'}:"
                out.line(result_line(event.result), label=label, kind="tool")
            elif isinstance(event, RunFailed):
                out.line(f"{who} failed: {event.message}", kind="problem")
            elif isinstance(event, RunFinished):
                out.line(f"{who} has answered.", kind="status")
            elif isinstance(event, RunCancelled):
                out.line(f"{who} was cancelled.", kind="status")
    except asyncio.CancelledError:  # ctrl+c: the runs stop, what they said is kept; the pick is still offered
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        out.line("The comparison was cancelled; what arrived is kept.", kind="status")


def name(comparison: Comparison, column: int) -> str:
    label = comparison.label(column)
    return label if label in BLIND_LABELS else f"{BLIND_LABELS[column]} ({label})"


async def choose(session: PlainSession, comparison: Comparison) -> None:
    """Read the answers out, then ask for the pick; the picked (else the first) branch is shown."""
    out = session.out
    answered: list[int] = []
    for number, column in enumerate(comparison.columns):
        answer = column.answer(comparison.cut)
        if answer is None:
            out.line(f"{name(comparison, number)} gave no answer.")
            continue
        answered.append(number)
        out.line(answer.content or "(only reasoning)", label=f"Answer {name(comparison, number)}:")
    chosen = 0
    if answered:
        letters = ", ".join(BLIND_LABELS[n] for n in answered)
        while True:
            typed = await session.ask(f"Which answer do you pick? {letters}, or empty to keep them all as branches: ")
            word = (typed or "").strip().upper()
            if not word:
                break
            number = BLIND_LABELS.index(word) if word in BLIND_LABELS else (int(word) - 1 if word.isdigit() else -1)
            if number in answered:
                comparison.pick(number)
                chosen = number
                out.line(f"Picked {BLIND_LABELS[number]}.", kind="status")
                if comparison.save_problem:
                    out.line(f"Note: {comparison.save_problem}.", kind="problem")
                break
            out.line(f"Answer with one of {letters}.")
    if comparison.blind:
        comparison.reveal()
        out.line("The models were: " + ", ".join(name(comparison, n) for n in range(len(comparison.columns))) + ".")
    target = comparison.columns[chosen].dialog
    session.workbench.refresh_tree(target.id)
    session.show(target)
    out.line(f"Showing the branch of {name(comparison, chosen)}; /branches lists the others.")
