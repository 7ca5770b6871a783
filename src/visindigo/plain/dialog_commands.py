"""The plain mode's commands on dialogs: /new, /dialogs, /open, /history, /regenerate, /edit, /branches, /branch,
/export. Each is the workbench's operation (the app's rules, the app's branches), said in lines."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from visindigo.engine.branching import common_prefix
from visindigo.plain.listing import Row, branch_points, dialog_rows, quoted
from visindigo.plain.reader import BLOCK
from visindigo.plain.run_lines import model_name
from visindigo.plain.session import PlainSession
from visindigo.tui.workbench import Refused


def number_in(session: PlainSession, what: str, argument: str, rows: list[Row]) -> Row:
    """Row `argument` (1-based) of a list; a clear refusal for anything else."""
    text = argument.strip()
    if not text.isdigit():
        raise Refused(f"Give the number from /{what}, for example /{'open' if what == 'dialogs' else what} 1.")
    number = int(text)
    if not 1 <= number <= len(rows):
        raise Refused(f"There is no number {number}: /{what} lists {len(rows)}.")
    return rows[number - 1]


def optional_number(argument: str, command: str) -> int | None:
    """A message number given to a command (`/edit 3`), as an index; None when none was given."""
    text = argument.strip()
    if not text:
        return None
    if not text.isdigit() or int(text) < 1:
        raise Refused(f"/{command} takes a message number (see /history), for example /{command} 3.")
    return int(text) - 1


async def new(session: PlainSession, argument: str) -> None:
    fresh = session.workbench.new_dialog()
    if fresh is None:
        session.out.line("This dialog is new already: type your message.")
        return
    session.show(fresh)
    session.out.line(f"A new dialog. Model: {model_name(session.workbench, fresh)}.")


async def dialogs(session: PlainSession, argument: str) -> None:
    session.workbench.refresh_tree()
    rows = dialog_rows(session.workbench)
    session.lists["dialogs"] = rows
    if not rows:
        session.out.line("No saved dialogs yet: what you send is saved as a dialog.")
        return
    words = argument.strip().casefold()
    shown = [(n, row) for n, row in enumerate(rows, start=1) if words in row.text.casefold()]
    if words:
        session.out.line(f"{len(shown)} of {len(rows)} dialogs match {quoted(argument.strip())}:")
    else:
        session.out.line(f"{len(rows)} dialog{'' if len(rows) == 1 else 's'}; /open N opens one:")
    for number, row in shown:
        session.out.line(f"{number}. {row.text}")


async def open_dialog(session: PlainSession, argument: str) -> None:
    rows = session.lists.get("dialogs")
    if rows is None:
        session.workbench.refresh_tree()
        rows = session.lists["dialogs"] = dialog_rows(session.workbench)
    row = number_in(session, "dialogs", argument, rows)
    dialog = session.workbench.find(row.key)
    if dialog is None:
        session.out.line("That dialog no longer exists; /dialogs lists those there are.")
        return
    session.show(dialog)
    count = dialog.message_count
    session.out.line(f"Opened {quoted(dialog.title or 'New dialog')}, {count} message{'' if count == 1 else 's'}:")
    session.read_out(dialog)
    session.out.line(f"End of the dialog. Model: {model_name(session.workbench, dialog)}.")


async def history(session: PlainSession, argument: str) -> None:
    """The shown dialog read out; `/history 5` reads only the last five messages."""
    text = argument.strip()
    if text and not text.isdigit():
        raise Refused("/history takes how many of the last messages to read, for example /history 4.")
    dialog = session.dialog
    first = max(0, dialog.message_count - int(text)) if text else 0
    session.read_out(dialog, first)


async def regenerate(session: PlainSession, argument: str) -> None:
    index = optional_number(argument, "regenerate")
    branch = session.workbench.regenerate(index)
    if branch is None:
        return  # no answer to replace: the workbench runs the dialog again in place
    session.out.line("Another answer, in a new branch (/branches lists the alternatives).", kind="status")
    await session.run_branch(branch)


async def edit(session: PlainSession, argument: str) -> None:
    workbench = session.workbench
    workbench.refuse_while_running(session.dialog)
    wanted = optional_number(argument, "edit")
    index = workbench.editable_index(wanted)
    if wanted is not None and wanted != index:
        raise Refused(f"Message {wanted + 1} is not one of yours: /edit takes the number of your message (/history).")
    old = session.dialog.message_at(index).content
    session.out.line(old, label=f"Message {index + 1} says:")
    prompt = f"New text for message {index + 1} (empty keeps it; {BLOCK} for several lines): "
    text = await session.ask(prompt, prefill=old, message=True)
    if text is None or not text.strip() or text == old:
        session.out.line("Nothing changed.")
        return
    branch = workbench.edit(index, text)
    session.out.line(f"Message {index + 1} edited, in a new branch; asking again.", kind="status")
    await session.run_branch(branch)


async def branches(session: PlainSession, argument: str) -> None:
    points = branch_points(session.workbench, session.dialog)
    session.lists["branches"] = [row for point in points for row in point.rows]
    if not points:
        session.out.line("This dialog has no alternatives: /regenerate or /edit makes one.")
        return
    number = 0
    for point in points:
        session.out.line(point.what)
        for row in point.rows:
            number += 1
            session.out.line(f"{number}. {row.text}")
    session.out.line("/branch N shows one.")


async def branch(session: PlainSession, argument: str) -> None:
    rows = session.lists.get("branches")
    if rows is None:
        points = branch_points(session.workbench, session.dialog)
        rows = session.lists["branches"] = [row for point in points for row in point.rows]
    if not rows:
        raise Refused("This dialog has no alternatives: /regenerate or /edit makes one.")
    row = number_in(session, "branches", argument, rows)
    current = session.dialog
    if row.key == current.id:
        session.out.line("That is the branch shown now.")
        return
    target = session.workbench.find(row.key)
    if target is None:
        raise Refused("That branch no longer exists; /branches lists those there are.")
    session.show(target)
    shared = common_prefix(current.messages, target.messages)
    session.out.line(f"Showing that branch; it parts from the other at message {shared + 1}:")
    session.read_out(target, shared)
    session.lists["branches"] = [r for p in branch_points(session.workbench, target) for r in p.rows]


async def export(session: PlainSession, argument: str) -> None:
    """The shown dialog to a file: Markdown, or JSON for a name ending in .json."""
    from visindigo.engine.export import ExportError, export_text, write_export

    dialog = session.dialog
    if not session.workbench.is_registered(dialog):
        raise Refused("Nothing to export yet: send a message first.")
    name = argument.strip()
    if not name:
        from visindigo.tui.common.copying import file_stem

        name = file_stem(dialog.title, "dialog") + ".md"
    path = Path(name).expanduser()
    kind: Literal["json", "markdown"] = "json" if path.suffix.lower() == ".json" else "markdown"
    try:
        written = write_export(path, export_text(session.center, dialog.id, kind=kind))
    except ExportError as error:
        raise Refused(f"The export failed: {error}.") from None
    session.out.line(f"Exported as {'JSON' if kind == 'json' else 'Markdown'} to {written.absolute()}.")


async def quit_session(session: PlainSession, argument: str) -> None:
    session.quitting = True
