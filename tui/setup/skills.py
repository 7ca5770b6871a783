"""Skills for one dialog: see which apply, attach or detach them, and write dialog-only ones.

A skill on the dialog replaces the Center's skill of the same name for this dialog only (the spec: attach a
skill to one special dialog without deleting the global one). Global skills cannot be detached here — they
belong to every dialog — but they can be overridden here by a dialog copy, edited or emptied.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.validation import Function, Length
from textual.widgets import Input, Label, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from visindigo.engine.center import Center
from visindigo.engine.dialog import Dialog
from visindigo.engine.skill import Skill
from visindigo.tui.common.cursor_rows import CursorOptionList
from visindigo.tui.common.modal import FormFrame, ModalFrame, clip, safe, sanitize

PREVIEW_LIMIT = 4_000


class SkillState(Enum):
    GLOBAL = "global"
    DIALOG = "this dialog"
    OVERRIDE = "this dialog, replaces global"
    AVAILABLE = "available"


@dataclass(frozen=True, slots=True)
class SkillRow:
    """A skill as this dialog sees it."""

    skill: Skill
    state: SkillState

    @property
    def active(self) -> bool:
        return self.state is not SkillState.AVAILABLE


def skill_rows(
    center_skills: Sequence[Skill], dialog_skills: Sequence[Skill], library: Sequence[Skill] = ()
) -> list[SkillRow]:
    """Every skill the screen lists, in a stable order: active ones first, then the attachable ones."""
    global_names = {s.name for s in center_skills}
    dialog_names = {s.name for s in dialog_skills}
    rows = [SkillRow(s, SkillState.GLOBAL) for s in center_skills if s.name not in dialog_names]
    rows += [SkillRow(s, SkillState.OVERRIDE if s.name in global_names else SkillState.DIALOG) for s in dialog_skills]
    seen = global_names | dialog_names
    for skill in library:
        if skill.name not in seen:
            rows.append(SkillRow(skill, SkillState.AVAILABLE))
            seen.add(skill.name)
    return rows


class SkillFormScreen(FormFrame[Skill | None]):
    """Write or edit one dialog-only skill. Ctrl+S saves, Esc cancels; nothing is saved while a field is wrong."""

    DEFAULT_CSS = """
    SkillFormScreen > .frame {
        height: 100%;
        max-height: 30;
    }
    SkillFormScreen Label {
        margin-top: 1;
    }
    SkillFormScreen TextArea {
        height: 1fr;
        min-height: 4;
    }
    """

    def __init__(
        self, skill: Skill | None = None, *, taken_names: Sequence[str] = (), title: str = "New skill for this dialog"
    ) -> None:
        super().__init__()
        self._skill = skill
        self._taken = {name for name in taken_names if skill is None or name != skill.name}
        self._title = title

    def compose(self) -> ComposeResult:
        skill = self._skill
        with Vertical(classes="frame") as frame:
            frame.border_title = self._title
            frame.border_subtitle = "ctrl+s save · esc cancel"
            yield Label("Name")
            yield Input(
                skill.name if skill else "",
                placeholder="e.g. concise",
                id="name",
                max_length=64,
                validators=[
                    Length(minimum=1, failure_description="a skill needs a name"),
                    Function(lambda v: v == v.strip(), "no spaces at the start or end of the name"),
                    Function(lambda v: v not in self._taken, "this dialog already has a skill of that name"),
                ],
            )
            yield Label("Description (optional)")
            yield Input(skill.description if skill else "", id="description")
            yield Label("What the assistant should always do (becomes part of the system prompt)")
            yield TextArea(skill.content if skill else "", id="content", soft_wrap=True, tab_behavior="focus")
            yield Static("", id="error", classes="error")
            yield from self.save_and_cancel()

    def on_mount(self) -> None:
        self.query_one("#name", Input).focus()

    def _problems(self) -> list[str]:
        problems = []
        result = self.query_one("#name", Input).validate(self.query_one("#name", Input).value)
        if result is not None and not result.is_valid:
            problems.extend(result.failure_descriptions)
        if not self.query_one("#content", TextArea).text.strip():
            problems.append("the skill's text is empty")
        return problems

    def action_save(self) -> None:
        problems = self._problems()
        if problems:
            self.query_one("#error", Static).update(Content("; ".join(problems)))
            return
        self.dismiss(
            Skill(
                name=self.query_one("#name", Input).value,
                content=self.query_one("#content", TextArea).text,
                description=self.query_one("#description", Input).value.strip(),
            )
        )


class SkillsScreen(ModalFrame[bool]):
    """The skills of one dialog. Dismisses with True when the dialog's skills changed.

    `library` lists skills that are known (for example from the config) but apply nowhere until attached.
    Changes go straight to the dialog (`add_skill` / `remove_skill`), which emits `DialogChanged("skills")`.
    """

    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("space", "toggle_selected", "Attach / detach"),
        Binding("n", "new", "New skill"),
        Binding("e", "edit", "Edit here"),
        Binding("delete,x", "detach", "Detach"),
    ]

    DEFAULT_CSS = """
    SkillsScreen > .frame {
        height: 100%;
        max-height: 30;
    }
    SkillsScreen OptionList {
        height: 1fr;
        min-height: 3;
        margin-top: 1;
    }
    SkillsScreen #preview {
        height: 7;
        border-top: solid $border-blurred;
        border-title-color: $text-muted;
    }
    SkillsScreen #status {
        height: auto;
    }
    """

    def __init__(self, center: Center | None, dialog: Dialog, *, library: Sequence[Skill] = ()) -> None:
        super().__init__()
        self._center = center
        self.dialog = dialog
        self._library = list(library)
        self._changed = False
        self.rows: list[SkillRow] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="frame") as frame:
            frame.border_title = "Skills for this dialog"
            frame.border_subtitle = "space attach/detach · n new · e edit here · esc close"
            yield CursorOptionList(id="skills")
            with VerticalScroll(id="preview") as preview:
                preview.border_title = "What it tells the model"
                yield Static("", id="preview-text")
            yield Static("", id="status", classes="hint")

    def on_mount(self) -> None:
        self._refresh_rows()
        self.query_one(OptionList).focus()

    # --- listing ------------------------------------------------------------------------------------------

    def _center_skills(self) -> list[Skill]:
        center = self._center if self._center is not None else self.dialog.center
        return center.skills if center is not None else []

    def _refresh_rows(self, select: str | None = None) -> None:
        option_list = self.query_one(OptionList)
        previous = self._highlighted()
        self.rows = skill_rows(self._center_skills(), self.dialog.skills, self._library)
        option_list.clear_options()
        option_list.add_options(Option(self._prompt(row), id=f"skill-{index}") for index, row in enumerate(self.rows))
        target = select or (previous.skill.name if previous else None)
        names = [row.skill.name for row in self.rows]
        if self.rows:
            option_list.highlighted = names.index(target) if target in names else 0
        else:
            self._show_preview(None)
            self._status("No skills yet: press n to write one for this dialog.")

    @staticmethod
    def _prompt(row: SkillRow) -> Content:
        mark = "●" if row.active else "○"
        description = f" — {sanitize(row.skill.description)}" if row.skill.description else ""
        return Content.assemble(
            (f"{mark} ", "bold" if row.active else "dim"),
            safe(row.skill.name),
            (f"  [{row.state.value}]", "dim italic"),
            (description, "dim"),
        )

    def _highlighted(self) -> SkillRow | None:
        if not self.is_mounted or not self.rows:
            return None
        index = self.query_one(OptionList).highlighted
        if index is None or not 0 <= index < len(self.rows):
            return None
        return self.rows[index]

    def _show_preview(self, row: SkillRow | None) -> None:
        text = clip(row.skill.content, PREVIEW_LIMIT) if row else ""
        self.query_one("#preview-text", Static).update(safe(text))

    def _status(self, text: str) -> None:
        self.query_one("#status", Static).update(Content(text))

    @on(OptionList.OptionHighlighted)
    def _highlight(self) -> None:
        self._show_preview(self._highlighted())

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_toggle_selected()

    # --- actions ------------------------------------------------------------------------------------------

    def action_toggle_selected(self) -> None:
        row = self._highlighted()
        if row is None:
            return
        if row.state is SkillState.AVAILABLE:
            self.dialog.add_skill(row.skill)
            self._changed = True
            self._status(f"Attached {sanitize(row.skill.name)!r} to this dialog.")
            self._refresh_rows(select=row.skill.name)
        elif row.state is SkillState.GLOBAL:
            self._status("Global skills apply to every dialog; press e to replace this one here.")
        else:
            self.action_detach()

    def action_detach(self) -> None:
        row = self._highlighted()
        if row is None:
            return
        if row.state is SkillState.GLOBAL:
            self._status("Global skills apply to every dialog; press e to replace this one here.")
            return
        if row.state is SkillState.AVAILABLE:
            return
        self.dialog.remove_skill(row.skill.name)
        self._changed = True
        restored = " (the global one applies again)" if row.state is SkillState.OVERRIDE else ""
        self._status(f"Detached {sanitize(row.skill.name)!r}{restored}.")
        self._refresh_rows(select=row.skill.name)

    def action_new(self) -> None:
        taken = [skill.name for skill in self.dialog.skills]
        self.app.push_screen(SkillFormScreen(taken_names=taken), self._saved)

    def action_edit(self) -> None:
        row = self._highlighted()
        if row is None:
            return
        taken = [skill.name for skill in self.dialog.skills]
        if row.state in (SkillState.DIALOG, SkillState.OVERRIDE):
            title, original = "Edit this dialog's skill", row.skill.name
        else:
            title, original = "Replace for this dialog only", ""
        screen = SkillFormScreen(row.skill, taken_names=taken, title=title)

        def saved(skill: Skill | None) -> None:
            if skill is not None and original and skill.name != original:
                self.dialog.remove_skill(original)
            self._saved(skill)

        self.app.push_screen(screen, saved)

    def _saved(self, skill: Skill | None) -> None:
        if skill is None:
            return
        self.dialog.add_skill(skill)
        self._changed = True
        self._status(f"Saved {sanitize(skill.name)!r} for this dialog.")
        self._refresh_rows(select=skill.name)

    def action_close(self) -> None:
        self.dismiss(self._changed)
