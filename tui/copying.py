"""Copying text out of the app: OSC 52 first, a file as the fallback (over SSH, OSC 52 may not arrive).

Shared by the message pane (its messages) and the main screen (the last answer, the last copy again); what was
copied last is the workbench's, so "save the last copy" works whichever widget copied.
"""

from __future__ import annotations

from pathlib import Path

from textual.widget import Widget

from .clipboard import file_stem, save_text
from .workbench import Workbench


def copy_text(widget: Widget, workbench: Workbench, text: str, what: str) -> None:
    """Copy through OSC 52; the notification says how to fall back to a file."""
    if not text:
        widget.notify(f"The {what} is empty; nothing copied.", severity="warning")
        return
    widget.app.copy_to_clipboard(text)
    workbench.last_copied = (text, what)
    lines = text.count("\n") + 1
    widget.notify(
        f"Copied the {what} ({len(text):,} characters, {lines} lines) to the terminal clipboard (OSC 52). "
        "Nothing arrived? alt+s saves it to a file.",
        markup=False,
    )


def save_copy(widget: Widget, workbench: Workbench, text: str, what: str, title: str) -> Path | None:
    """Save `text` to a file in the working folder (or the data folder's clips/), named after `title`."""
    directories = [Path.cwd()]
    if workbench.center.paths is not None:
        directories.append(workbench.center.paths.data_dir / "clips")
    try:
        path = save_text(text, directories, file_stem(title, what))
    except OSError as error:
        widget.notify(str(error), severity="error", markup=False)
        return None
    widget.notify(f"Saved the {what} to {path}", markup=False)
    return path


def copy_last_answer(widget: Widget, workbench: Workbench) -> None:
    """Copy the shown dialog's last answer (alt+y)."""
    dialog = workbench.shown
    index = dialog.find_last_assistant_message()
    if index < 0:
        widget.notify("There is no answer to copy yet.", severity="warning")
        return
    from .sanitize import clean

    copy_text(widget, workbench, clean(dialog.message_at(index).content), "last answer")


def save_last_copy(widget: Widget, workbench: Workbench) -> None:
    """Save what was copied last to a file (alt+s), for when OSC 52 did not reach the clipboard."""
    copied = workbench.last_copied
    if copied is None:
        widget.notify("Nothing was copied yet.", severity="warning")
        return
    save_copy(widget, workbench, *copied, workbench.shown.title)
