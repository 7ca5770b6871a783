"""The command palette's entries for the main screen: every action with its key, and what can be done with the
message under the cursor."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, ClassVar

from textual.binding import Binding

from visindigo.engine import Role

from .main_base import MainBase

PaletteCommand = tuple[str, str, Callable[[], Any]]
"""(title, help, callback) for the command palette."""


class PalettePart(MainBase):
    """`palette_commands()` is what `tui.commands.MainCommands` lists."""

    PALETTE: ClassVar[list[tuple[str, str, str]]] = [
        ("new_dialog", "New dialog", "Start an empty dialog"),
        ("regenerate", "Regenerate answer", "A new branch with another answer"),
        ("edit_last", "Edit last question", "Change your last message in a new branch"),
        ("cancel", "Cancel generation", "Stop the answer being generated (what arrived is kept)"),
        ("escape", "Close panel or leave edit", "Close a panel over the messages, leave an edit; also cancels"),
        ("pick_model", "Choose model", "Provider and model for this dialog"),
        ("providers", "Manage providers", "Add, edit or remove providers"),
        ("mcp_servers", "Manage MCP servers", "Add, enable or disable tool servers"),
        ("skills", "Skills of this dialog", "Resident instructions for this dialog"),
        ("templates", "Insert template", "Fill in a prompt template"),
        ("parameters", "Dialog parameters", "Output limit, temperature, seed, stop, tool choice of this dialog"),
        ("attach_resource", "Attach MCP resource", "A server's resource goes with your next message (@)"),
        ("rename", "Rename dialog", "Give this dialog a title"),
        ("delete_dialog", "Delete dialog", "Delete this dialog after asking; its branches stay"),
        ("toggle_sidebar", "Toggle sidebar", "Show or hide the dialog tree"),
        ("toggle_drawer", "Toggle reasoning drawer", "Show or hide the reasoning"),
        ("search", "Search dialogs", "Full-text search over every dialog"),
        ("copy_last", "Copy last answer", "Copy the last answer to the clipboard (OSC 52)"),
        ("save_last_copy", "Save last copy to a file", "When OSC 52 does not reach your clipboard"),
        ("tree_parent", "Parent dialog", "Open the dialog this one branched from"),
        ("tree_child", "First branch", "Open the first branch of this dialog"),
        ("tree_sibling(-1)", "Previous sibling dialog", "The branch before this one"),
        ("tree_sibling(1)", "Next sibling dialog", "The branch after this one"),
        ("focus_messages", "Go to messages", "Move a cursor through the messages"),
        ("focus_composer", "Go to composer", "Back to typing"),
        ("focus_tree", "Go to dialog tree", "Move through the dialogs and their branches"),
    ]

    def palette_commands(self) -> list[PaletteCommand]:
        """Every action of the screen (and of the message under the cursor), for the command palette."""
        keys: dict[str, str] = {}
        for binding in Binding.make_bindings(self.BINDINGS):
            keys.setdefault(binding.action, binding.key)
        commands: list[PaletteCommand] = []
        for action, title, help_text in self.PALETTE:
            key = keys.get(action)
            shown_help = f"{help_text} ({key})" if key else help_text
            commands.append((title, shown_help, partial(self.run_action, action)))
        # no key of its own: enabling a package's tools is rare, and every free key is worth more elsewhere
        commands.append(("Tools from packages", "Enable tools that installed packages offer (visindigo.tools)",
                         partial(self.run_action, "package_tools")))
        cursor = self.pane.cursor
        if cursor is not None and cursor.index is not None:
            number = cursor.index + 1
            pane = self.pane
            commands += [
                (f"Copy message {number}", "The message under the cursor (y)", pane.action_copy),
                (f"Save message {number} to a file", "The message under the cursor (s)", pane.action_save),
            ]
            from ..clipboard import code_blocks

            for n in range(1, min(9, len(code_blocks(cursor.message.content))) + 1):
                commands.append(
                    (f"Copy code block {n} of message {number}", f"key {n}", partial(pane.action_copy_code, n))
                )
            if cursor.message.role in (Role.USER, Role.PROMPT):
                commands.append((f"Edit message {number}", "In a new branch (e)", pane.action_edit))
            else:
                commands.append((f"Regenerate from message {number}", "In a new branch (r)", pane.action_regenerate))
            if cursor.alternatives is not None:
                commands += [
                    ("Previous alternative", "◀ at the cursor (← or [)", partial(pane.action_step, -1)),
                    ("Next alternative", "▶ at the cursor (→ or ])", partial(pane.action_step, 1)),
                ]
        return commands
