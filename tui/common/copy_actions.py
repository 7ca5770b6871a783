"""Copying from a widget: OSC 52 at once, then tmux's buffer and the system clipboard as available (`copying`),
in a worker thread, with a notice saying which; a file as the fallback (alt+s).

Shared by the message pane (its messages) and the main screen (the last answer, the last copy again); what was
copied last is the workbench's, so "save the last copy" works whichever widget copied. `copying` (its
dataclasses, the clipboard tools) is imported on the first copy or save, not on the way to the first frame.
"""

from __future__ import annotations

from pathlib import Path

from textual.widget import Widget

from visindigo.tui.workbench import Workbench


def copy_text(widget: Widget, workbench: Workbench, text: str, what: str) -> None:
    """Copy through OSC 52, tmux's buffer and the system clipboard as available; the notice says which."""
    if not text:
        widget.notify(f"The {what} is empty; nothing copied.", severity="warning")
        return
    widget.app.copy_to_clipboard(text)  # OSC 52, always: over SSH the only way to the user's own machine
    workbench.last_copied = (text, what)
    web = widget.app.is_web

    def copy_everywhere() -> None:
        # a thread: tmux and the clipboard tools are subprocesses, which must not hold up the screen
        from visindigo.tui.common.copying import copy_text as copy_out

        result = copy_out(text, what, web=web)
        widget.app.call_from_thread(widget.notify, result.notice, markup=False)

    widget.run_worker(copy_everywhere, group="copy", exclusive=True, exit_on_error=False, thread=True)


def save_copy(widget: Widget, workbench: Workbench, text: str, what: str, title: str) -> Path | None:
    """Save `text` to a file in the working folder (or the data folder's clips/), named after `title`; in a
    browser (`visindigo serve`) it is a download on the user's own machine instead of a file on the server's."""
    if widget.app.is_web:
        download_text(widget, text, what, title)
        return None
    from visindigo.tui.common.copying import file_stem, save_text

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


def download_text(widget: Widget, text: str, what: str, title: str) -> None:
    import io

    from visindigo.tui.common.copying import file_stem

    name = file_stem(title, what) + ".md"
    widget.app.deliver_text(io.StringIO(text), save_filename=name, open_method="download", mime_type="text/markdown")
    widget.notify(f"Sent the {what} to your browser as a download ({name}).", markup=False)


def copy_last_answer(widget: Widget, workbench: Workbench) -> None:
    """Copy the shown dialog's last answer (alt+y)."""
    dialog = workbench.shown
    index = dialog.find_last_assistant_message()
    if index < 0:
        widget.notify("There is no answer to copy yet.", severity="warning")
        return
    from visindigo.tui.common.sanitize import clean

    copy_text(widget, workbench, clean(dialog.message_at(index).content), "last answer")


def save_last_copy(widget: Widget, workbench: Workbench) -> None:
    """Save what was copied last to a file (alt+s), for when OSC 52 did not reach the clipboard."""
    copied = workbench.last_copied
    if copied is None:
        widget.notify("Nothing was copied yet.", severity="warning")
        return
    save_copy(widget, workbench, *copied, workbench.shown.title)
