"""What the key list (f1) shows: the bindings of the app, the main screen and its widgets, and the comparison
screen's (handed in by the app), as they really work.

A key the screen binds with priority never reaches the widget under it, so a widget's own binding for that key
(the composer's TextArea binds f6 and f7 itself) is left out of the widget's section rather than listed as if
it worked. The command palette's key (ctrl+p) is not a binding of ours, so it is added by hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from textual.binding import Binding
from textual.dom import DOMNode

from visindigo.tui.chat.composer import ComposerInput
from visindigo.tui.chat.message_pane import MessagePane
from visindigo.tui.common.help import HelpSection, bindings_of
from visindigo.tui.main.dialog_tree import DialogTree
from visindigo.tui.main.screen import MainScreen


def _keys_of(binding: Binding, keymap: Mapping[str, str]) -> list[str]:
    if binding.id and binding.id in keymap:
        return [key.strip() for key in str(keymap[binding.id]).split(",") if key.strip()]
    return [binding.key]


def help_sections(
    app: DOMNode, keymap: Mapping[str, object] | None = None, extra: Sequence[HelpSection] = ()
) -> list[HelpSection]:
    """Sections for `HelpScreen`: everywhere, the main screen, then the messages, composer and tree, then `extra`
    (the feature screens', `FeatureScreens.help_sections`)."""
    keys = {str(k): str(v) for k, v in (keymap or {}).items()}
    everywhere = [
        *bindings_of(app),
        Binding(getattr(app, "COMMAND_PALETTE_BINDING", "ctrl+p"), "command_palette", "Command palette: every action"),
    ]
    main = bindings_of(MainScreen)
    taken: set[str] = set()
    for binding in everywhere + main:
        if binding.priority or binding.action == "command_palette":
            taken.update(_keys_of(binding, keys))
    sections: list[HelpSection] = [("Everywhere", everywhere), ("Main screen", main)]
    for title, widget in (
        ("Messages (ctrl+o)", MessagePane),
        ("Composer", ComposerInput),
        ("Dialog tree", DialogTree),
    ):
        sections.append((title, [b for b in bindings_of(widget) if not set(_keys_of(b, keys)) <= taken]))
    return [*sections, *extra]
