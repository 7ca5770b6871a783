"""Repairs an imported dialog document needs before it may enter the store, each one reported.

An export file may come from anywhere. What is imported is later sent back to a provider verbatim (tool calls
above all), shown in the tree and in `visindigo list`, and walked as a tree; so a malformed tool-call array, a
cycle of `branch_from_id`, an unknown role, a message that is not an object or a megabyte title would make the
dialog unusable (every run answered 400), hide dialogs, or flood the screen. Each is repaired by the spec's
rule where it has one (unknown role → user) and otherwise by the smallest change that keeps the text, and
every repair is listed in the import's problems, none silently.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .attachments.errors import AttachmentError
from .attachments.model import Attachment
from .dialog import TITLE_LIMIT
from .function import FUNCTION_ID_PATTERN
from .message import Role
from .sanitize import clean_line


def repair_document(document: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A copy of the `Dialog.to_json()` document that is safe to import, and what was changed, in words."""
    problems: list[str] = []
    fixed = dict(document)
    fixed["title"] = _repair_title(document.get("title"), problems)
    messages: list[dict[str, Any]] = []
    for number, message in enumerate(document.get("messages") or [], start=1):
        if not isinstance(message, dict):
            problems.append(f"message #{number} is {_kind(message)}, not an object; left out")
            continue
        messages.append(_repair_fields(message, number, problems))
    _repair_tool_calls(messages, problems)
    fixed["messages"] = messages
    return fixed, problems


def _repair_title(title: object, problems: list[str]) -> str:
    if title is None:
        return ""
    text = title if isinstance(title, str) else str(title)
    if not isinstance(title, str):
        problems.append(f"the title is {_kind(title)}; read as text")
    single = clean_line(text, TITLE_LIMIT)
    if len(text) > TITLE_LIMIT:
        problems.append(f"the title is {len(text):,} characters long; cut to {TITLE_LIMIT}")
    elif single != text:
        problems.append("the title held control characters or line breaks; they were removed")
    return single


def _repair_fields(message: dict[str, Any], number: int, problems: list[str]) -> dict[str, Any]:
    fixed = dict(message)
    if Role.parse(message.get("role")) is None:
        shown = clean_line(str(message.get("role")), 30)
        problems.append(f"message #{number} has an unknown role ({shown!r}); imported as a user message")
        fixed["role"] = "user"
    for name in ("content", "name", "reasoning", "tool_call_id"):
        value = message.get(name)
        if value is not None and not isinstance(value, str):
            problems.append(f"message #{number}: {name} is {_kind(value)}; read as text")
            fixed[name] = json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) else str(value)
    if "attachments" in message:
        fixed["attachments"] = _repair_attachments(message["attachments"], number, problems)
    return fixed


def _repair_attachments(value: object, number: int, problems: list[str]) -> list[dict[str, Any]]:
    """The attached files that read back as they are marked (`Attachment.from_json` checks the bytes against the
    kind and computes the hash again); each one that does not is left out and named."""
    if not isinstance(value, list):
        problems.append(f"message #{number}: its attachments are {_kind(value)}, not a list; left out")
        return []
    kept: list[dict[str, Any]] = []
    for position, entry in enumerate(value, start=1):
        if not isinstance(entry, dict):
            problems.append(f"message #{number}: attachment #{position} is {_kind(entry)}, not an object; left out")
            continue
        try:
            Attachment.from_json(entry)
        except AttachmentError as error:
            problems.append(f"message #{number}: attachment #{position} left out ({error.message})")
            continue
        kept.append(entry)
    return kept


def _repair_tool_calls(messages: list[dict[str, Any]], problems: list[str]) -> None:
    """Drop (and report) every tool-call array that is malformed or whose ids do not match the results after it."""
    for index, message in enumerate(messages):
        raw = message.get("tool_calls")
        if raw in (None, "", []):
            continue
        number = index + 1
        calls, problem = _parse_calls(raw)
        if problem is None and Role.parse(message.get("role")) is not Role.ASSISTANT:
            problem = "only assistant messages make tool calls"
        if problem is None:
            problem = _ids_problem(calls, _following_results(messages, index))
        if problem is not None:
            problems.append(f"message #{number}: its tool calls were dropped ({problem}); its text was kept")
            message.pop("tool_calls", None)


def _parse_calls(raw: object) -> tuple[list[dict[str, Any]], str | None]:
    """The calls of a `tool_calls` value, or why they cannot be sent back as they are."""
    value = raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            return [], "not JSON"
    if not isinstance(value, list):
        return [], f"{_kind(value)} instead of an array"
    calls: list[dict[str, Any]] = []
    for position, call in enumerate(value, start=1):
        where = f"call #{position}"
        if not isinstance(call, dict):
            return [], f"{where} is {_kind(call)}, not an object"
        if not isinstance(call.get("id"), str) or not call["id"]:
            return [], f"{where} has no text id"
        if call.get("type", "function") != "function":
            return [], f"{where} is not of type 'function'"
        function = call.get("function")
        if not isinstance(function, Mapping):
            return [], f"{where} has no function object"
        name = function.get("name")
        if not isinstance(name, str) or not FUNCTION_ID_PATTERN.match(name):
            return [], f"{where} has no valid function name"
        if not isinstance(function.get("arguments"), str):
            return [], f"{where} has arguments that are not text"
        calls.append(call)
    return calls, None


def _following_results(messages: list[dict[str, Any]], index: int) -> list[str]:
    ids = []
    for message in messages[index + 1 :]:
        if Role.parse(message.get("role")) is not Role.TOOL:
            break
        ids.append(str(message.get("tool_call_id") or ""))
    return ids


def _ids_problem(calls: list[dict[str, Any]], results: list[str]) -> str | None:
    ids = [str(call["id"]) for call in calls]
    if len(set(ids)) != len(ids):
        return "two calls share an id"
    if set(results) != set(ids):
        return "their ids do not match the tool results that follow"
    return None


def break_cycles(documents: list[dict[str, Any]], stored_parents: Mapping[str, str]) -> list[str]:
    """Clear `branch_from_id` where it closes a cycle (A→A, A→B→A, longer); returns the repairs in words.

    `stored_parents` maps the ids already in the store to their parents. Only the documents being imported are
    changed: the first one (in file order) found on a cycle becomes a root.
    """
    parents = dict(stored_parents)
    for document in documents:
        parents[str(document["id"])] = str(document.get("branch_from_id") or "")
    repairs = []
    for document in documents:
        start = str(document["id"])
        seen = {start}
        current = parents.get(start, "")
        steps = 1
        while current and current not in seen:
            seen.add(current)
            current = parents.get(current, "")
            steps += 1
        if current == start:
            parent = parents[start]
            document["branch_from_id"] = ""
            parents[start] = ""
            what = "itself" if parent == start else f"{parent[:8]}, which leads back to it in {steps} steps"
            repairs.append(f"dialog {start[:8]} branched from {what}: a cycle; it is now a dialog of its own")
    return repairs


def _kind(value: object) -> str:
    if value is None:
        return "null"
    names = {bool: "a boolean", int: "a number", float: "a number", str: "text", list: "an array", dict: "an object"}
    return names.get(type(value), type(value).__name__)


__all__ = ["TITLE_LIMIT", "break_cycles", "repair_document"]
