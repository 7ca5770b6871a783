"""The composer: a multi-line input where Enter sends.

Keys were chosen for plain SSH sessions (TERM=xterm-256color, no kitty keyboard protocol), where Shift+Enter
and Alt+Enter reach the app as a bare Enter. Enter therefore sends, and Ctrl+J — a distinct byte (LF) on
every terminal — inserts a newline; Shift+Enter and Alt+Enter insert one too on terminals that report them.
Pasted text (bracketed paste) never sends, however many newlines it holds. A paste that is nothing but paths of
existing files (a file dropped on the terminal) is not inserted: it becomes attachments (`PathsPasted`), shown
as chips over the input (`attachments.chips`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message as TextualMessage
from textual.strip import Strip
from textual.widgets import Static, TextArea

from visindigo.engine import Message
from visindigo.tui.chat.attachments.chips import AttachmentChips
from visindigo.tui.common.sanitize import clean
from visindigo.tui.platform.text_area_cursor import drawn_cursor_style

if TYPE_CHECKING:
    from visindigo.tui.chat.vim.keys import VimKeys
    from visindigo.tui.workbench import Workbench  # (loaded only with `composer_keys = "vim"`)

NEWLINE_KEYS = frozenset({"ctrl+j", "shift+enter", "alt+enter", "ctrl+enter"})


class ComposerInput(TextArea):
    """Enter sends; Ctrl+J (or Shift/Alt+Enter where the terminal reports them) starts a new line."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Send", show=False),
        Binding(
            "ctrl+j", "newline", "New line (also shift+enter / alt+enter where the terminal reports them)", show=False
        ),
        Binding("up", "recall", "Edit the last question (when the composer is empty)", show=False),
    ]

    class Submitted(TextualMessage):
        """The user pressed Enter with this text."""

        def __init__(self, composer: ComposerInput, text: str) -> None:
            super().__init__()
            self.composer = composer
            self.text = text

        @property
        def control(self) -> ComposerInput:
            return self.composer

    class RecallRequested(TextualMessage):
        """↑ in an empty composer: edit the last question (a new branch)."""

    class ResourceRequested(TextualMessage):
        """`@` typed where a word starts: the screen offers files and MCP resources to attach."""

    class PathsPasted(TextualMessage):
        """A paste that named existing files only (a dropped file): attach them instead of inserting the text."""

        def __init__(self, paths: list[str]) -> None:
            super().__init__()
            self.paths = paths

    #: The folder relative pasted paths are read from (the app's start folder); None: a paste is always text.
    start_folder: str | None = None

    def on_paste(self, event: events.Paste) -> None:
        """Before `TextArea`'s own handler (a subclass's runs first, and `prevent_default` skips the base's)."""
        if self.start_folder is None:
            return
        from visindigo.engine.attachments import pasted_paths

        paths = pasted_paths(event.text, self.start_folder)
        if paths:
            event.stop()
            event.prevent_default()
            self.post_message(self.PathsPasted(paths))

    #: `[ui] composer_keys = "vim"`: the vim keys, asked first for every key (None: the standard keys).
    vim: VimKeys | None = None

    def on_key(self, event: events.Key) -> None:
        """Enter, ↑ and the newline keys here; any other key goes on to `TextArea`'s own handler (which runs after
        this one, as Textual calls a class's handler before its bases')."""
        if self.vim is not None and self.vim.key(event):
            return
        if event.key == "up" and not self.text:
            event.stop()
            event.prevent_default()
            self.post_message(self.RecallRequested())
            return
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.action_submit()
            return
        if event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.action_newline()
            return
        if event.character == "@" and (not self.text or self.text[-1:].isspace()):
            # handled after this key, once TextArea has inserted the "@"
            self.post_message(self.ResourceRequested())

    def render_line(self, y: int) -> Strip:
        """The placeholder on one line, cut with "…" where the box ends, and nothing at width 0.

        TextArea wraps its placeholder to the content width, and rich's line splitter fails on a width of 0,
        which a tmux pane split (120 columns straight to 60) gives the composer for one layout pass.
        """
        width = self.content_size.width
        if width <= 0:
            return Strip.blank(max(0, self.size.width))
        if self.text or not self.placeholder:
            return super().render_line(y)
        if y > 0:
            return Strip.blank(width, self.visual_style.rich_style)
        content = Content.from_text(self.placeholder).truncate(width, ellipsis=True)
        content = content.stylize(self.get_visual_style("text-area--placeholder"))
        cursor_style = drawn_cursor_style(self)
        if cursor_style:
            from textual.style import Style as ContentStyle

            content = content.stylize(ContentStyle.from_rich_style(cursor_style), 0, 1)
        return Strip(content.render_segments(self.visual_style), content.cell_length)

    def action_recall(self) -> None:
        if not self.text:
            self.post_message(self.RecallRequested())
        else:
            self.action_cursor_up()

    def action_submit(self) -> None:
        self.post_message(self.Submitted(self, self.text))

    def action_newline(self) -> None:
        start, end = self.selection
        self.replace("\n", start, end, maintain_selection_offset=False)


class Composer(Vertical):
    """The input plus one line saying what Enter will do: send, send an edit as a new branch, or send a filled
    template (from the template form's "edit first") as the template's message.

    Editing a message and editing a template both keep the draft that was in the box and give it back when
    they end (sent, or given up with Esc), so nothing typed is lost.
    """

    DEFAULT_CSS = """
    Composer {
        height: auto;
        max-height: 12;
        padding: 0;
    }
    Composer > .mode {
        height: 1;
        color: $text-muted;
        padding: 0 1;
        display: none;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    Composer.-editing > .mode {
        display: block;
        color: $text-warning;
    }
    Composer.-template > .mode {
        display: block;
        color: $text-accent;
    }
    Composer > ComposerInput {
        height: auto;
        min-height: 3;
        max-height: 10;
        border: round $border-blurred;
        padding: 0 1;
    }
    Composer > ComposerInput:focus {
        border: round $border;
    }
    """

    def __init__(self, *, id: str | None = None, keys: str = "standard") -> None:
        super().__init__(id=id)
        self.input = ComposerInput(
            "",
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            compact=False,
            highlight_cursor_line=False,
            placeholder="Message · enter sends · ctrl+j new line · ctrl+p commands · f1 keys",
            id="composer-input",
        )
        if keys == "vim":
            from visindigo.tui.chat.vim.keys import VimKeys

            self.input.vim = VimKeys(self.input)
        self._mode = Static(Content(""), classes="mode")
        #: The files waiting to go with the next message: hidden while there are none, so it is mounted (and
        #: bound to the screen's workbench) just after the first frame, by `mount_chips`.
        self.chips = AttachmentChips(id="attachment-chips")
        #: Index of the user message being edited, or None when composing a new one.
        self.editing_index: int | None = None
        #: The filled template whose text is in the box ("edit first"): Enter sends the text as this message
        #: (a `Role.PROMPT` named after the template). Emptying the box makes it an ordinary message again.
        self.template: Message | None = None
        self._saved_draft = ""

    def compose(self) -> ComposeResult:
        yield self.input  # (the mode line, hidden until an edit or a template, is mounted then: see `_begin`)

    async def mount_chips(self, workbench: Workbench) -> None:
        """The chip row over the input, following `workbench` (the screen calls this after its first frame)."""
        if not self.chips.is_attached:
            await self.mount(self.chips, before=self.input)
        self.chips.bind(workbench)

    @property
    def text(self) -> str:
        return self.input.text

    def clear(self) -> None:
        self.input.clear()
        if self.input.vim is not None:
            self.input.vim.reset()

    @property
    def busy(self) -> bool:
        """An edit or a template is in the box (Esc leaves it and gives the draft back)."""
        return self.editing_index is not None or self.template is not None

    def _begin(self, text: str, mode: str, css_class: str) -> None:
        if not self.busy:
            self._saved_draft = self.input.text
        self.editing_index = None
        self.template = None
        self.remove_class("-editing", "-template")
        self.input.load_text(text)
        self.input.move_cursor(self.input.document.end)
        self._mode.update(Content(mode))
        if self._mode.parent is None:
            self.mount(self._mode, before=self.chips if self.chips.is_attached else self.input)
        self.add_class(css_class)
        self.input.focus()

    def start_edit(self, index: int, text: str) -> None:
        """Put message `index` in the box; Enter will send it as a new branch, Esc gives up."""
        self._begin(text, f"editing message {index + 1} · enter sends it as a new branch · esc cancels", "-editing")
        self.editing_index = index

    def start_template(self, message: Message) -> None:
        """Put a filled template in the box; Enter sends the (edited) text as that template's message."""
        name = " ".join(clean(message.name).split()) or "template"
        self._begin(message.content, f"template “{name}” · enter sends it as the template · esc drops it", "-template")
        self.template = message

    def stop_edit(self, *, restore_draft: bool = True) -> None:
        """Leave an edit or a template; the draft from before comes back (or the box is emptied)."""
        if not self.busy:
            return
        self.editing_index = None
        self.template = None
        self.remove_class("-editing", "-template")
        self.input.load_text(self._saved_draft if restore_draft else "")
        self._saved_draft = ""

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        """A template whose text was deleted entirely is given up: what is typed next is an ordinary message
        (the draft from before comes back, into the empty box)."""
        if self.template is not None and not self.input.text.strip():
            self.stop_edit(restore_draft=True)
