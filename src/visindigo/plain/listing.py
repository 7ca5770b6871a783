"""The plain mode's numbered lists and message lines: dialogs, branches, models, and a dialog read out.

Every number shown is the one the commands take (`/open 3`, `/branch 2`, `/edit 5`, `/model 4`), and every line
says in words what the app shows with marks and colours: which dialog is open, which branch is shown, which
model is chosen. Text from outside is cleaned by `Output` when it is written; lengths are cut here.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from typing import Any

from visindigo.engine import Capability, Center, Dialog, Message, Role
from visindigo.engine.sanitize import clean, clean_line, cut
from visindigo.tui.workbench import Workbench

#: The longest tool result written in full; a longer one is cut, saying how much was left out.
RESULT_LIMIT = 2000
#: How much of a message a list line quotes.
QUOTE_LIMIT = 100


@dataclass(frozen=True, slots=True)
class Row:
    """One numbered line of a list, and what its number stands for."""

    key: str
    text: str


def quoted(text: str, limit: int = 60) -> str:
    """Outside text inside a sentence: cleaned, on one line, cut, in quotes (`repr` would spell an ESC out as
    `\\x1b`, inert but unreadable)."""
    return f"'{clean_line(text, limit)}'"


def call_line(function_id: str, arguments: dict[str, Any]) -> str:
    """`get_weather city=Kyoto`: a tool call as one readable line."""
    words = [clean_line(function_id, 80)]
    for name, value in arguments.items():
        value = cleaned(value)
        shown = value if isinstance(value, str) and value and " " not in value else _json(value)
        words.append(f"{clean_line(str(name), 40)}={clean_line(shown, 200)}")
    return cut(" ".join(words), 400)


def cleaned(value: object) -> object:
    """A JSON value with every string in it cleaned: `json.dumps` would write an ESC inside a string as the
    text `\\u001b]52;…`, inert but unreadable, so the sequences go before the value is written as JSON."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, list):
        return [cleaned(item) for item in value]
    if isinstance(value, dict):
        return {clean(str(key)): cleaned(item) for key, item in value.items()}
    return value


def _json(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


def result_line(result: str) -> str:
    """A tool's result, whole up to `RESULT_LIMIT` characters; a JSON result is written with its strings
    cleaned and its non-ASCII letters as letters (`18 °C`, not `18 \\u00b0C`)."""
    text = result.strip()
    if text[:1] in ("{", "["):
        with contextlib.suppress(ValueError, RecursionError):
            text = _json(cleaned(json.loads(text)))
    if len(text) <= RESULT_LIMIT:
        return text
    return f"{text[:RESULT_LIMIT]}… ({len(text) - RESULT_LIMIT} more characters)"


# --- a dialog read out ---------------------------------------------------------------------------------------


def message_lines(number: int, message: Message) -> list[tuple[str, str]]:
    """(label, text) lines for message `number` (1-based) as the history reads it; reasoning is left out."""
    head = f"{number}."
    interrupted = " (interrupted)" if message.meta.get("status") == "interrupted" else ""
    if message.role is Role.USER:
        return [(f"{head} You{interrupted}:", message.content + _images(message))]
    if message.role is Role.PROMPT:
        return [(f"{head} You, template {clean_line(message.name, 60)}:", message.content + _images(message))]
    if message.role is Role.SYSTEM:
        return [(f"{head} System:", message.content)]
    if message.role is Role.TOOL:
        label = "Tool error:" if message.meta.get("is_error") else "Tool result:"
        return [(f"{head} {label}", result_line(message.content))]
    lines: list[tuple[str, str]] = []
    if message.content or not message.tool_calls:
        lines.append((f"{head} Answer{interrupted}:", message.content))
    for call in message.parsed_tool_calls():
        found = call.get("function")
        function: dict[str, Any] = found if isinstance(found, dict) else {}
        name = str(function.get("name") or "?")
        try:
            arguments = json.loads(function.get("arguments") or "{}")
        except ValueError:
            arguments = {"arguments": function.get("arguments")}
        label = "Tool call:" if lines else f"{head} Tool call:"
        lines.append((label, call_line(name, arguments if isinstance(arguments, dict) else {"value": arguments})))
    return lines


def _images(message: Message) -> str:
    count = len(message.images)
    words = [f"{count} image{'s' if count > 1 else ''}"] if count else []
    words += [attachment.label() for attachment in message.attachments]
    return f" (attached: {', '.join(words)})" if words else ""


def quote(message: Message) -> str:
    """A message's first words, for a list line."""
    text = message.content
    if not text and message.tool_calls:
        names = [str((call.get("function") or {}).get("name") or "?") for call in message.parsed_tool_calls()]
        text = "tool call " + ", ".join(names)
    return clean_line(text, QUOTE_LIMIT) or "(empty)"


ROLE_WORDS = {
    Role.USER: "your message",
    Role.PROMPT: "your template message",
    Role.ASSISTANT: "answer",
    Role.TOOL: "tool result",
    Role.SYSTEM: "system message",
}


# --- dialogs -------------------------------------------------------------------------------------------------


def dialog_rows(workbench: Workbench) -> list[Row]:
    """Every saved dialog in the tree's order (each family's first dialog, then its branches)."""
    index = workbench.tree_index
    rows: list[Row] = []
    for root in index.roots:
        for dialog_id in index.family(root):
            summary = index.summaries[dialog_id]
            title = clean_line(summary.title, 60) or "New dialog"
            words = [title]
            if dialog_id != root:
                words.append(f"branch {index.ordinal(dialog_id)}")
            count = summary.message_count
            words.append(f"{count} message{'' if count == 1 else 's'}")
            if summary.model_id:
                words.append(clean_line(summary.model_id, 60))
            if dialog_id == workbench.shown.id:
                words.append("open now")
            rows.append(Row(dialog_id, ", ".join(words)))
    return rows


# --- branches ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BranchPoint:
    """Where the shown dialog parts from others of its family: the message number and the choices there."""

    number: int
    what: str
    rows: list[Row]


def branch_points(workbench: Workbench, dialog: Dialog) -> list[BranchPoint]:
    """The ◀ n/m ▶ of the app as lists: one per message where branches part, numbered on across the lists."""
    points: list[BranchPoint] = []
    counter = 0
    for index, choices in sorted(workbench.alternatives(dialog).items()):
        rows = []
        for choice in choices:
            counter += 1
            message = choice.message_at(index)
            words = [f"{ROLE_WORDS.get(message.role, 'message')}: {quote(message)}"]
            model = str(message.meta.get("model_id") or "") if message.role is Role.ASSISTANT else ""
            if model:
                words.append(f"by {clean_line(model, 60)}")
            if choice.id == dialog.id:
                words.append("shown now")
            rows.append(Row(choice.id, ", ".join(words)))
        shown = next(n for n, choice in enumerate(choices, start=1) if choice.id == dialog.id)
        what = f"At message {index + 1}, {len(choices)} alternatives (this is {shown} of {len(choices)}):"
        points.append(BranchPoint(index + 1, what, rows))
    return points


# --- models --------------------------------------------------------------------------------------------------


def model_rows(center: Center, dialog: Dialog) -> list[Row]:
    """Every model of every provider, `provider/model` as the key; the dialog's own is said to be chosen."""
    rows: list[Row] = []
    current_provider = dialog.provider_id or center.default_provider_id
    for provider in center.providers:
        for model in provider.models:
            words = [clean_line(model.label, 80), f"of {clean_line(provider.name, 40)}"]
            if model.capabilities:
                words.append(f"can do {capability_words(model.capabilities)}")
            chosen_model = dialog.model_id or provider.default_model
            if provider.id == current_provider and model.id == chosen_model:
                words.append("chosen")
            rows.append(Row(f"{provider.id}/{model.id}", ", ".join(words)))
    return rows


_CAPABILITY_WORDS = (
    (Capability.TEXT, "text"),
    (Capability.IMAGE, "images"),
    (Capability.TOOLS, "tools"),
    (Capability.REASONING, "reasoning"),
)


def capability_words(capabilities: Capability) -> str:
    """ "text, images, tools, reasoning": the capability marks in words."""
    return ", ".join(word for flag, word in _CAPABILITY_WORDS if flag in capabilities)
