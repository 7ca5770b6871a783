"""The main screen's keys and command-palette entries: every screen-wide action has both (a test checks it), and
the palette adds what can be done with the message under the cursor. `MainCommands` is the palette's provider
that asks the screen for them each time it opens."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider

from visindigo.engine import Role
from visindigo.tui.chat.message_pane import MessagePane

PaletteCommand = tuple[str, str, Callable[[], Any]]
"""(title, help, callback) for the command palette."""

#: Screen-wide keys (priority: they win over the composer's own keys, such as its f6 / f7).
BINDINGS: list[BindingType] = [
    # Two bindings for esc: the footer shows "esc Cancel" only while there is something to cancel
    # (check_action), and the second does the rest (close a panel, leave an edit, clear a search).
    Binding("escape", "cancel", "Cancel", id="cancel"),
    Binding("escape", "escape", "Close a panel, leave an edit or a search", show=False, id="escape"),
    Binding("ctrl+n", "new_dialog", "New dialog", id="new-dialog"),
    Binding("ctrl+r", "regenerate", "Regenerate", id="regenerate"),
    Binding("alt+e", "edit_last", "Edit last question (↑ in an empty composer)", show=False, id="edit", priority=True),
    Binding("f2", "pick_model", "Model", id="model-picker", priority=True),
    Binding("alt+c", "compare", "Compare models", show=False, id="compare", priority=True),
    Binding("f3", "providers", "Providers", show=False, id="providers", priority=True),
    Binding("f4", "mcp_servers", "MCP servers", show=False, id="mcp-servers", priority=True),
    Binding("f5", "skills", "Skills", show=False, id="skills", priority=True),
    Binding("f6,ctrl+t", "templates", "Templates", show=False, id="templates", priority=True),
    Binding(
        "alt+a",
        "attach_resource",
        "Attach a file or an MCP resource (also @)",
        show=False,
        id="attach-resource",
        priority=True,
    ),
    Binding("alt+u", "attach_file", "Attach a file from a folder tree", show=False, id="attach-file", priority=True),
    Binding("alt+i", "show_picture", "An attached image full size", show=False, id="show-picture", priority=True),
    Binding("f7", "rename", "Rename dialog", show=False, id="rename", priority=True),
    Binding("f10,alt+p", "parameters", "Parameters", show=False, id="parameters", priority=True),
    Binding("f8", "delete_dialog", "Delete dialog", show=False, id="delete-dialog", priority=True),
    Binding("ctrl+b", "toggle_sidebar", "Sidebar", show=False, id="toggle-sidebar"),
    Binding("f9,ctrl+g", "toggle_drawer", "Reasoning", show=False, id="toggle-drawer", priority=True),
    Binding("alt+g", "reasoning_all", "All of a long reasoning", show=False, id="reasoning-all", priority=True),
    Binding("ctrl+f,slash", "search", "Search dialogs", show=False, id="search"),
    Binding("alt+y", "copy_last", "Copy last answer", show=False, id="copy-last", priority=True),
    Binding("alt+s", "save_last_copy", "Save the last copy to a file", show=False, id="save-last-copy", priority=True),
    Binding("alt+up", "tree_parent", "Parent dialog", show=False, id="parent-dialog", priority=True),
    Binding("alt+down", "tree_child", "First branch of this dialog", show=False, id="child-dialog", priority=True),
    Binding(
        "alt+left", "tree_sibling(-1)", "Previous sibling dialog", show=False, id="previous-sibling", priority=True
    ),
    Binding("alt+right", "tree_sibling(1)", "Next sibling dialog", show=False, id="next-sibling", priority=True),
    # priority: acted on as the app reads the key, so a paste read with it already finds the composer focused
    Binding("ctrl+l", "focus_composer", "Go to the composer", show=False, id="focus-composer", priority=True),
    Binding("ctrl+o", "focus_messages", "Go to the messages", show=False, id="focus-messages"),
    Binding("alt+t", "focus_tree", "Go to the dialog tree", show=False, id="focus-tree", priority=True),
    Binding("alt+d", "diff_alternatives", "Diff the alternatives here", show=False, id="diff", priority=True),
    Binding("alt+w", "divergences", "Where the answers part", show=False, id="divergences", priority=True),
    Binding("alt+k", "scores", "Comparison scores", show=False, id="scores", priority=True),
    Binding("alt+z", "compact", "Compact the dialog into a branch", show=False, id="compact", priority=True),
    Binding("alt+o", "move_out", "Move the oldest turns out into a branch", show=False, id="move-out", priority=True),
    Binding("alt+l", "timeline", "Timeline of your questions", show=False, id="timeline", priority=True),
    Binding("alt+h", "fork_here", "Fork here: a branch ending at this message", show=False, id="fork", priority=True),
    Binding(
        "alt+n", "tail_fork", "Tail fork: a new dialog from the last turns", show=False, id="tail-fork", priority=True
    ),
    Binding("alt+m", "label", "Label this message", show=False, id="label", priority=True),
]

#: (action, title, help) of every screen-wide action; each one also has a key (a test checks both ways).
PALETTE: list[tuple[str, str, str]] = [
    ("new_dialog", "New dialog", "Start an empty dialog"),
    ("regenerate", "Regenerate answer", "A new branch with another answer"),
    ("edit_last", "Edit last question", "Change your last message in a new branch"),
    ("cancel", "Cancel generation", "Stop the answer being generated (what arrived is kept)"),
    ("escape", "Close panel or leave edit", "Close a panel over the messages, leave an edit; also cancels"),
    ("pick_model", "Choose model", "Provider and model for this dialog"),
    ("compare", "Compare models", "Your question (or the answer at the cursor) to 2-4 models side by side"),
    ("providers", "Manage providers", "Add, edit or remove providers"),
    ("mcp_servers", "Manage MCP servers", "Add, enable or disable tool servers"),
    ("skills", "Skills of this dialog", "Resident instructions for this dialog"),
    ("templates", "Insert template", "Fill in a prompt template"),
    ("parameters", "Dialog parameters", "Output limit, temperature, seed, stop, tool choice of this dialog"),
    ("attach_resource", "Attach a file or resource", "A file or a server's resource goes with your next message (@)"),
    ("attach_file", "Attach a file (folder tree)", "Choose a file to go with your next message"),
    ("show_picture", "Show attached image", "The image of the message at the cursor, full size"),
    ("rename", "Rename dialog", "Give this dialog a title"),
    ("delete_dialog", "Delete dialog", "Delete this dialog after asking; its branches stay"),
    ("toggle_sidebar", "Toggle sidebar", "Show or hide the dialog tree"),
    ("toggle_drawer", "Toggle reasoning drawer", "Show or hide the reasoning"),
    ("reasoning_all", "Show all of the reasoning", "Unfold a long reasoning in the drawer, or fold it again"),
    ("search", "Search dialogs", "Full-text search over every dialog"),
    ("copy_last", "Copy last answer", "Copy the last answer to the clipboard (OSC 52)"),
    ("save_last_copy", "Save last copy to a file", "When OSC 52 does not reach your clipboard"),
    ("tree_parent", "Parent dialog", "Open the dialog this one branched from (or a tail fork was taken from)"),
    ("tree_child", "First branch", "Open the first branch of this dialog"),
    ("tree_sibling(-1)", "Previous sibling dialog", "The branch before this one"),
    ("tree_sibling(1)", "Next sibling dialog", "The branch after this one"),
    ("focus_messages", "Go to messages", "Move a cursor through the messages"),
    ("focus_composer", "Go to composer", "Back to typing"),
    ("focus_tree", "Go to dialog tree", "Move through the dialogs and their branches"),
    ("diff_alternatives", "Diff alternatives", "Two answers at the cursor's ◀ n/m ▶ word by word, pair by pair"),
    ("divergences", "Where the answers part", "Every point in this dialog's family with alternatives, to jump to"),
    ("scores", "Scores", "Wins, losses and rating per model from your comparison picks; CSV export"),
    ("compact", "Compact into a branch", "A branch with a summary of the earlier turns, the pins and the last turns"),
    ("move_out", "Move turns out", "A branch without the earlier turns (no summary): the pins and the last turns"),
    ("timeline", "Timeline", "Every question of this dialog and its branches, to filter and jump to"),
    ("fork_here", "Fork here", "A new branch whose history ends at the message under the cursor (or the last)"),
    ("tail_fork", "Tail fork", "A new dialog from the last N turns, pointing back at this one"),
    ("label", "Label message", "A short label on the message under the cursor (or the last), for the timeline"),
]


def palette_commands(
    bindings: Iterable[BindingType], run_action: Callable[[str], Any], pane: MessagePane
) -> list[PaletteCommand]:
    """Every screen action (with its key), then what can be done with the message under the pane's cursor."""
    keys: dict[str, str] = {}
    for binding in Binding.make_bindings(bindings):
        keys.setdefault(binding.action, binding.key)
    commands: list[PaletteCommand] = []
    for action, title, help_text in PALETTE:
        key = keys.get(action)
        shown_help = f"{help_text} ({key})" if key else help_text
        commands.append((title, shown_help, partial(run_action, action)))
    # no key of its own: enabling a package's tools is rare, and every free key is worth more elsewhere
    commands.append(("Tools from packages", "Enable tools that installed packages offer (visindigo.tools)",
                     partial(run_action, "package_tools")))  # fmt: skip
    cursor = pane.cursor
    if cursor is None or cursor.index is None:
        return commands
    number = cursor.index + 1
    commands += [
        (f"Copy message {number}", "The message under the cursor (y)", pane.action_copy),
        (f"Save message {number} to a file", "The message under the cursor (s)", pane.action_save),
    ]
    from visindigo.tui.common.copying import code_blocks

    for n in range(1, min(9, len(code_blocks(cursor.message.content))) + 1):
        commands.append((f"Copy code block {n} of message {number}", f"key {n}", partial(pane.action_copy_code, n)))
    commands.append((f"Pin message {number}", "Kept word for word through compactions; again unpins (p)",
                     partial(pane.action_context, "pin")))  # fmt: skip
    if "usage" in cursor.message.meta:
        details = partial(pane.action_context, "details")
        commands.append((f"Tokens and cost of message {number}", "In, cache, out, cost (i)", details))
    if "compaction" in cursor.message.meta:
        ledger = partial(pane.action_context, "ledger")
        commands.append((f"What summary {number} replaced", "Show in the parent, put back (l)", ledger))
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


async def _call(callback: Callable[[], object]) -> None:
    result = callback()
    if inspect.isawaitable(result):
        await result


class MainCommands(Provider):
    """Asks the screen for its commands (`palette_commands()`) each time the palette opens."""

    def _commands(self) -> list[PaletteCommand]:
        source = getattr(self.screen, "palette_commands", None)  # the main screen's (other screens have none)
        return list(source()) if callable(source) else []

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands():
            yield DiscoveryHit(title, partial(_call, callback), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._commands():
            score = matcher.match(f"{title} {help_text}")
            if score > 0:
                yield Hit(score, matcher.highlight(title), partial(_call, callback), text=title, help=help_text)
