"""Export and import of dialogs: JSON (the `Dialog.to_json()` documents) and Markdown (for reading).

The JSON export is the interchange format: `{"format": "visindigo.dialogs", "version": 1, "dialogs": [...]}`,
the dialog first and then its branches, depth first, oldest first. Import keeps every id, so branches still
point at their parents, and skips (and reports) dialogs that exist already. Export, import and export again
gives the same bytes. Provider keys are not part of a dialog, so they cannot reach an exported file; MCP
server settings are exported as written, `${VAR}` references unexpanded.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .atomic import write_text_atomic
from .dialog import Dialog
from .fence import fenced
from .import_repair import break_cycles, repair_document
from .message import Message, Role
from .sanitize import clean_line

if TYPE_CHECKING:
    from .center import Center

EXPORT_FORMAT = "visindigo.dialogs"
EXPORT_VERSION = 1

ExportKind = Literal["json", "markdown"]
#: An export is text; a file beyond this is refused before it is read into memory as JSON.
MAX_IMPORT_BYTES = 512 * 1024 * 1024


class ExportError(ValueError):
    """An export cannot be made or a file cannot be imported; the message says why."""


@dataclass
class ImportResult:
    """What an import did: ids imported, ids skipped because they exist already, entries left out as unusable,
    and repairs made to dialogs that were imported (a cleaned title, dropped tool calls, a broken cycle).

    Only `problems` mean something was not imported; `warnings` are said but the dialog is in.
    """

    imported: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


# --- choosing dialogs ---------------------------------------------------------------------------------------


def dialog_with_branches(center: Center, dialog_id: str) -> list[str]:
    """The dialog's id followed by every dialog that branches from it (transitively), depth first.

    Reads only metadata, so a store-backed Center loads nothing it does not have to.
    """
    children: dict[str, list[tuple[float, str]]] = {}
    for summary in center.dialog_summaries():
        children.setdefault(summary.branch_from_id, []).append((summary.created_at, summary.id))
    ordered: list[str] = []
    stack = [dialog_id]
    seen: set[str] = set()
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        ordered.append(current)
        stack.extend(child for _, child in sorted(children.get(current, []), reverse=True))
    return ordered


def _dialogs(center: Center, dialog_id: str, with_branches: bool) -> list[Dialog]:
    ids = dialog_with_branches(center, dialog_id) if with_branches else [dialog_id]
    dialogs = []
    for each in ids:
        dialog = center.get_dialog(each)
        if dialog is None:
            raise ExportError(f"there is no dialog {each!r}")
        dialogs.append(dialog)
    return dialogs


# --- JSON ---------------------------------------------------------------------------------------------------


def export_json(center: Center, dialog_id: str, *, with_branches: bool = False) -> str:
    """The dialog (and with `with_branches`, all its branches) as our JSON export document."""
    return dumps_export(d.to_json() for d in _dialogs(center, dialog_id, with_branches))


def dumps_export(documents: Iterable[dict[str, Any]]) -> str:
    """The export text for these `Dialog.to_json()` documents: stable, readable, UTF-8 as is."""
    bundle = {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "dialogs": list(documents)}
    return json.dumps(bundle, ensure_ascii=False, indent=2) + "\n"


def read_export(text: str | bytes) -> list[dict[str, Any]]:
    """The dialog documents of an export; also accepts one bare `Dialog.to_json()` document or a list of them.

    Raises `ExportError` for text that is not JSON or not a dialog export.
    """
    if len(text) > MAX_IMPORT_BYTES:
        raise ExportError(f"{len(text):,} bytes is more than an export can hold ({MAX_IMPORT_BYTES:,} at most)")
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ExportError(f"not a JSON file ({exc})") from None
    except RecursionError:
        raise ExportError("not a dialog export: its JSON is nested too deeply to read") from None
    if isinstance(data, dict) and "dialogs" in data:
        if data.get("format") not in (None, EXPORT_FORMAT):
            raise ExportError(f"not a Visindigo dialog export (format {str(data.get('format'))[:40]!r})")
        version = data.get("version", EXPORT_VERSION)
        if isinstance(version, int) and version > EXPORT_VERSION:
            raise ExportError(f"made by a newer Visindigo (export version {version}); upgrade to import it")
        documents = data["dialogs"]
    elif isinstance(data, dict) and "messages" in data:
        documents = [data]
    else:
        documents = data
    if not isinstance(documents, list):
        raise ExportError("not a Visindigo dialog export (expected a list of dialogs)")
    return documents


def import_json(center: Center, source: str | bytes | os.PathLike[str]) -> ImportResult:
    """Add the dialogs of an export (text, or a path to a file) to the Center, ids preserved.

    A dialog whose id exists already (in the Center or earlier in the same file) is not imported and is
    listed in `duplicates`; an unusable entry is listed in `problems`, a repair in `warnings`. Raises
    `ExportError` when the whole file is unusable.
    """
    if isinstance(source, os.PathLike):
        try:
            if Path(source).stat().st_size > MAX_IMPORT_BYTES:
                raise ExportError(f"{source} is larger than an export can be ({MAX_IMPORT_BYTES:,} bytes at most)")
            text: str | bytes = Path(source).read_bytes()
        except OSError as exc:
            raise ExportError(f"{source} cannot be read: {exc.strerror or exc}") from None
    else:
        text = source
    documents = read_export(text)
    result = ImportResult()
    try:
        with contextlib.ExitStack() as stack:
            if center.store is not None:
                stack.enter_context(center.store.batch())  # one commit for the whole file: all or nothing
            try:
                _import_documents(center, documents, result)
            except RecursionError:
                raise ExportError("a dialog in it is nested too deeply to import") from None
    except BaseException:
        for dialog_id in result.imported:  # rolled back in the store: forget them in memory too
            center.remove_dialog(dialog_id)
        raise
    return result


def _import_documents(center: Center, documents: list[Any], result: ImportResult) -> None:
    accepted: list[tuple[str, dict[str, Any]]] = []
    for number, document in enumerate(documents, start=1):
        problem = _document_problem(document)
        if problem is not None:
            result.problems.append(f"dialog #{number}: {problem}; not imported")
            continue
        dialog_id = str(document["id"])
        if dialog_id in (d["id"] for _, d in accepted) or center.has_dialog(dialog_id):
            result.duplicates.append(dialog_id)
            continue
        repaired, repairs = repair_document(document)
        where = f"dialog #{number} ({clean_line(dialog_id, 12)})"
        result.warnings += [f"{where}: {repair}" for repair in repairs]
        accepted.append((where, repaired))
    stored = {s.id: s.branch_from_id for s in center.dialog_summaries()}
    result.warnings += break_cycles([document for _, document in accepted], stored)
    for _, document in accepted:
        dialog = Dialog(center)
        dialog.from_json(document)
        center.add_dialog(dialog)
        result.imported.append(dialog.id)


def _document_problem(document: object) -> str | None:
    if not isinstance(document, dict):
        return "not a JSON object"
    if not isinstance(document.get("id"), str) or not document["id"]:
        return "has no 'id'"
    if not isinstance(document.get("messages", []), list):
        return "'messages' is not a list"
    return None


# --- Markdown -----------------------------------------------------------------------------------------------


def export_markdown(center: Center, dialog_id: str, *, with_branches: bool = False) -> str:
    """The dialog (and its branches) as Markdown for people: one section per dialog, one per message.

    A branch that kept its parent's title is headed with what differs (`engine.branch_titles`), so the
    sections of one family can be told apart. The branches of a comparison are one section, each model's answer
    under its name (`engine.compare.markdown`).
    """
    from .compare.markdown import comparison_groups, comparison_markdown

    dialogs = _dialogs(center, dialog_id, with_branches)
    by_id = {d.id: d for d in dialogs}
    groups = {group.members[0].id: group for group in comparison_groups(dialogs)}
    compared = {member.id for group in groups.values() for member in group.members}
    picks = center.picks() if groups else []
    parts = []
    for dialog in dialogs:
        if dialog.id in groups:  # a comparison: one section, each model's answer under its name
            parts.append(comparison_markdown(groups[dialog.id], picks, _message_markdown))
        elif dialog.id not in compared:
            parts.append(_dialog_markdown(dialog, by_id.get(dialog.branch_from_id)))
    return "\n\n---\n\n".join(parts) + "\n"


def _utc(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _dialog_markdown(dialog: Dialog, parent: Dialog | None) -> str:
    from .branch_titles import branch_difference

    title = clean_line(dialog.title, 200) or "Untitled dialog"
    difference = branch_difference(dialog, parent)
    heading = title
    if difference is not None:
        heading += " · " + " · ".join(x for x in ("another answer", difference.model, _utc(difference.created_at)) if x)
    lines = [f"# {heading}", ""]
    if dialog.branch_from_id:
        if parent is None:
            lines.append(f"- Branch of dialog `{dialog.branch_from_id}`")
        else:
            how = "another answer" if difference is not None else "an edited question or a renamed branch"
            parent_title = clean_line(parent.title, 200) or "Untitled dialog"
            lines.append(f"- Branch of: {parent_title} (`{parent.id[:8]}`), {how}")
    if dialog.provider_id or dialog.model_id:
        lines.append(f"- Model: {' / '.join(x for x in (dialog.provider_id, dialog.model_id) if x)}")
    lines += [f"- Created: {_utc(dialog.created_at)}", f"- Id: `{dialog.id}`", ""]
    for message in dialog.messages:
        lines += _message_markdown(message)
    return "\n".join(lines).rstrip()


def _message_markdown(message: Message, level: int = 2) -> list[str]:
    heading = {
        Role.SYSTEM: "System",
        Role.USER: "You",
        Role.ASSISTANT: "Assistant",
        Role.TOOL: "Tool result",
        Role.PROMPT: "You (template)",
    }[message.role]
    details = []
    if message.role is Role.PROMPT and message.name:
        heading = f"You (template {message.name})"
    if message.role is Role.ASSISTANT and message.meta.get("model_id"):
        details.append(str(message.meta["model_id"]))
    if message.role is Role.TOOL and message.tool_call_id:
        details.append(message.tool_call_id)
    status = message.meta.get("status")
    if status:
        details.append(str(status))
    lines = ["#" * level + f" {heading}" + (f" · {' · '.join(details)}" if details else ""), ""]
    if message.reasoning:
        lines += ["<details><summary>Reasoning</summary>", "", message.reasoning.strip(), "", "</details>", ""]
    if message.role is Role.TOOL:
        lines += [*fenced(message.content, ""), ""]
    elif message.content:
        lines += [message.content.strip(), ""]
    for image in message.images:
        lines += [f"*(image, {image.mime_type})*", ""]
    for call in message.parsed_tool_calls():
        function = call.get("function") if isinstance(call.get("function"), dict) else {}
        name = str(function.get("name", "?")) if function else "?"
        lines += [f"**Tool call** `{name}` ({call.get('id', '')})", "", *fenced(_pretty(function), "json"), ""]
    return lines


def _pretty(function: dict[str, Any] | None) -> str:
    arguments = (function or {}).get("arguments", "")
    try:
        return json.dumps(json.loads(arguments), ensure_ascii=False, indent=2) if arguments else "{}"
    except (TypeError, ValueError):
        return str(arguments)


# --- files --------------------------------------------------------------------------------------------------


def export_text(center: Center, dialog_id: str, *, kind: ExportKind = "json", with_branches: bool = False) -> str:
    if kind == "markdown":
        return export_markdown(center, dialog_id, with_branches=with_branches)
    return export_json(center, dialog_id, with_branches=with_branches)


def write_export(path: str | os.PathLike[str], text: str) -> Path:
    """Write an export atomically (a half-written export is worse than none); returns the path written.

    The file is readable by its owner only, like the store: a dialog may hold anything.
    """
    target = Path(path).expanduser()
    try:
        write_text_atomic(target, text)
    except OSError as exc:
        raise ExportError(f"{target} cannot be written: {exc.strerror or exc}") from None
    return target
