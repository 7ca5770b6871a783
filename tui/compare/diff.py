"""The diff screen: two alternatives at one point of the tree, word by word, side by side or inline.

Alternatives come from a comparison, a regenerate or an edit. With more than two, n / p step through every
pair (1↔2, 1↔3, 2↔3, …); s switches between side by side (the first text with its deletions, the second with
its insertions) and inline (one text, deletions struck through and bracketed [-so-], insertions underlined
and bracketed {+so+}: the brackets keep two words apart where no strike-through or underline is drawn).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from visindigo.engine import Dialog
from visindigo.engine.word_diff import DiffRun, new_side, old_side, similarity, word_diff
from visindigo.tui.common.modal import ModalFrame, close_on_escape, safe, sanitize
from visindigo.tui.common.sanitize import clean_line

#: How much of each text is diffed and shown; a longer answer is cut (and says so) to keep the screen quick.
TEXT_LIMIT = 60_000
DELETED = "strike $text-error"
INSERTED = "underline bold $text-success"


@dataclass(frozen=True, slots=True)
class DiffChoice:
    """One alternative: what to call it (its model) and its text."""

    label: str
    text: str


def diff_choices(dialogs: Sequence[Dialog], index: int) -> list[DiffChoice]:
    """The message at `index` of each dialog (the alternatives there, as `tui.workbench.branches.alternatives` lists
    them), labelled with the model that wrote it, or "you" for an edited question."""
    choices = []
    for number, dialog in enumerate(dialogs, start=1):
        if index >= dialog.message_count:
            continue
        message = dialog.message_at(index)
        model = message.meta.get("model_id")
        who = model if isinstance(model, str) and model else dialog.model_id or "answer"
        if message.role.name in ("USER", "PROMPT"):
            who = "you"
        # one short line: the id comes from a server's model list, and the label stands in the pair line and titles
        choices.append(DiffChoice(f"{number}. {clean_line(who, 60)}", message.content))
    return choices


def runs_content(runs: Sequence[DiffRun], *, marked: bool = False) -> Content:
    """The runs as styled text: deletions struck through, insertions underlined, the rest plain.

    `marked` (the inline view, where both texts share one line) also brackets them as `git diff --word-diff`
    does, `[-old-]{+new+}`: a word replaced by another would otherwise read as one word run together wherever
    strike-through and underline are not drawn (many terminals, NO_COLOR, a screen reader)."""
    styles = {"equal": "", "delete": DELETED, "insert": INSERTED}
    marks = {"equal": ("", ""), "delete": ("[-", "-]"), "insert": ("{+", "+}")}
    parts: list[tuple[str, str] | str] = []
    held = ""  # the space after a change, put after the whole [-old-]{+new+} group rather than inside it
    for run in runs:
        if not run.text:
            continue
        text = sanitize(run.text)
        if not marked or run.kind == "equal":
            if held and not text[:1].isspace():
                parts.append(held)
            held = ""
            parts.append((text, styles[run.kind]))
            continue
        body = text.strip()
        lead = text[: len(text) - len(text.lstrip())]
        if lead and not held and not (parts and _last_text(parts)[-1:].isspace()):
            parts.append(lead)  # " (blue)" deleted after "short": the space stays outside the brackets
        held = max(held, text[len(text.rstrip()) :], key=len)
        opening, closing = marks[run.kind]
        parts += [(opening, styles[run.kind]), (body, styles[run.kind]), (closing, styles[run.kind])]
    if held:
        parts.append(held)
    return Content.assemble(*parts)


def _last_text(parts: Sequence[tuple[str, str] | str]) -> str:
    last = parts[-1]
    return last if isinstance(last, str) else last[0]


class DiffScreen(ModalFrame[None]):
    """Shows pairs of `choices` (two or more); `inline` None picks side by side on wide screens."""

    BINDINGS = [
        close_on_escape("close"),
        Binding("s", "toggle_layout", "Side by side / inline"),
        Binding("n,right", "step(1)", "Next pair"),
        Binding("p,left", "step(-1)", "Previous pair"),
    ]

    DEFAULT_CSS = """
    DiffScreen > .frame {
        width: 100%;
        height: 100%;
    }
    DiffScreen #pair {
        height: 1;
        text-style: bold;
    }
    DiffScreen #legend {
        height: 1;
    }
    DiffScreen #sides {
        height: 1fr;
    }
    DiffScreen #sides VerticalScroll {
        width: 1fr;
        height: 1fr;
        border: round $primary-muted;
        border-title-color: $text-primary;
        padding: 0 1;
    }
    DiffScreen #inline-view {
        height: 1fr;
        border: round $primary-muted;
        border-title-color: $text-primary;
        padding: 0 1;
    }
    DiffScreen.-inline #sides {
        display: none;
    }
    DiffScreen.-side-by-side #inline-view {
        display: none;
    }
    """

    def __init__(self, choices: Sequence[DiffChoice], *, title: str = "", inline: bool | None = None) -> None:
        super().__init__()
        if len(choices) < 2:
            raise ValueError("a diff needs two alternatives")
        self.choices = list(choices)
        self.pairs = list(itertools.combinations(range(len(self.choices)), 2))
        self.pair_index = 0
        self._title = title or "Compare alternatives"
        self._inline_wanted = inline
        self.inline = bool(inline)
        self._runs: dict[int, list[DiffRun]] = {}

    def compose(self) -> ComposeResult:
        with Vertical(classes="frame") as frame:
            frame.border_title = sanitize(self._title)
            frame.border_subtitle = "n/p pair · s side by side / inline · esc close"
            yield Static("", id="pair")
            legend = Content.assemble(
                ("[-deleted-]", DELETED), " only in the first · ", ("{+inserted+}", INSERTED), " only in the second"
            )
            yield Static(legend, id="legend", classes="hint")
            with Horizontal(id="sides"):
                with VerticalScroll(id="old-view"):
                    yield Static("", id="old")
                with VerticalScroll(id="new-view"):
                    yield Static("", id="new")
            with VerticalScroll(id="inline-view"):
                yield Static("", id="inline")

    def on_mount(self) -> None:
        if self._inline_wanted is None:
            self.inline = self.app.size.width < 100
        self._show()

    @property
    def pair(self) -> tuple[DiffChoice, DiffChoice]:
        first, second = self.pairs[self.pair_index]
        return self.choices[first], self.choices[second]

    def _show(self) -> None:
        old, new = self.pair
        runs = self._runs.get(self.pair_index)
        if runs is None:  # once per pair: s and the way back to a pair only redraw
            # the texts as shown (CRLF as LF, no escape sequences): an invisible difference is no difference
            runs = word_diff(sanitize(_limited(old.text)), sanitize(_limited(new.text)))
            self._runs[self.pair_index] = runs
        share = round(similarity(runs) * 100)
        steps = f"Pair {self.pair_index + 1}/{len(self.pairs)} · " if len(self.pairs) > 1 else ""
        layout = "inline" if self.inline else "side by side"
        self.query_one("#pair", Static).update(safe(f"{steps}{old.label} ↔ {new.label} · {share}% the same · {layout}"))
        self.set_class(self.inline, "-inline")
        self.set_class(not self.inline, "-side-by-side")
        self.query_one("#old-view").border_title = sanitize(old.label)
        self.query_one("#new-view").border_title = sanitize(new.label)
        self.query_one("#inline-view").border_title = sanitize(f"{old.label} → {new.label}")
        self.query_one("#old", Static).update(runs_content(old_side(runs)))
        self.query_one("#new", Static).update(runs_content(new_side(runs)))
        self.query_one("#inline", Static).update(runs_content(runs, marked=True))
        for view in ("#old-view", "#new-view", "#inline-view"):
            self.query_one(view, VerticalScroll).scroll_home(animate=False)

    def action_toggle_layout(self) -> None:
        self.inline = not self.inline
        self._show()

    def action_step(self, step: int) -> None:
        self.pair_index = (self.pair_index + step) % len(self.pairs)
        self._show()

    def action_close(self) -> None:
        self.dismiss(None)


def _limited(text: str) -> str:
    if len(text) <= TEXT_LIMIT:
        return text
    return text[:TEXT_LIMIT] + f"\n… ({len(text) - TEXT_LIMIT:,} more characters not compared)"
