"""The scores screen: wins, losses and rating per model from the answers picked in comparisons.

One table at a time: overall, or the picks of one tag (the dialog's template or skill); ←/→ step through them.
`e` writes the shown scores as CSV to a new file and shows where (in a browser it is a download instead).
"""

from __future__ import annotations

import io
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from visindigo.engine.center import Center
from visindigo.engine.compare import Pick
from visindigo.engine.compare.scores import compute_scores, pick_tags, scores_csv
from visindigo.tui.common.copying import file_stem, save_text
from visindigo.tui.common.cursor_rows import CursorDataTable
from visindigo.tui.common.modal import ModalFrame, close_on_escape, safe, sanitize

NOTHING_YET = (
    "No comparisons yet. Compare models on a question (alt+c, or “Compare models” in the command palette), "
    "pick the best answer, and the scores appear here."
)


def _cell(text: str, style: str = "", *, right: bool = False) -> Text:
    """A cell never parsed as markup (DataTable parses plain strings), cut with … when too long."""
    return Text(sanitize(text), style=style, no_wrap=True, overflow="ellipsis", justify="right" if right else "left")


class ScoresScreen(ModalFrame[None]):
    """Read-only; `picks` defaults to every pick of the Center (`Center.picks()`)."""

    BINDINGS = [
        close_on_escape("close"),
        Binding("right,t", "scope(1)", "Next tag", priority=True),
        Binding("left,shift+t", "scope(-1)", "Previous tag", priority=True),
        Binding("e", "export", "Export CSV"),
    ]

    DEFAULT_CSS = """
    ScoresScreen > .frame {
        width: 90;
        height: 100%;
        max-height: 30;
    }
    ScoresScreen #scope {
        height: 1;
        margin-top: 1;
        text-style: bold;
    }
    ScoresScreen #summary {
        height: auto;
    }
    ScoresScreen DataTable {
        height: 1fr;
        margin-top: 1;
    }
    ScoresScreen #status {
        height: auto;
        margin-top: 1;
    }
    """

    def __init__(self, center: Center, picks: list[Pick] | None = None) -> None:
        super().__init__()
        self._center = center
        self._picks = center.picks() if picks is None else list(picks)
        #: None is the overall table; then each tag in order.
        self.scopes: list[str | None] = [None, *pick_tags(self._picks)]
        self.scope_index = 0
        #: Where the last export was written.
        self.exported: Path | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="frame") as frame:
            frame.border_title = "Scores"
            frame.border_subtitle = "←/→ tag · e export CSV · esc close"
            yield Static("", id="scope")
            yield Static("", id="summary", classes="hint")
            yield CursorDataTable(id="scores", cursor_type="row", zebra_stripes=True)
            yield Static("", id="status", classes="hint")

    def on_mount(self) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        table.add_column("#", key="rank", width=3)
        table.add_column("Model", key="model", width=28)
        table.add_column("Provider", key="provider", width=14)
        table.add_column("Rating", key="rating", width=7)
        table.add_column("Wins", key="wins", width=5)
        table.add_column("Losses", key="losses", width=6)
        self._show()
        table.focus()

    @property
    def scope(self) -> str | None:
        return self.scopes[self.scope_index]

    def _scope_picks(self) -> list[Pick]:
        return [p for p in self._picks if self.scope is None or p.tag == self.scope]

    def _show(self) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        table.clear()
        scope_label = "Overall" if self.scope is None else f"Tag: {self.scope}"
        steps = f"  ({self.scope_index + 1}/{len(self.scopes)})" if len(self.scopes) > 1 else ""
        self.query_one("#scope", Static).update(safe(scope_label + steps))
        picks = self._scope_picks()
        if not self._picks:
            self.query_one("#summary", Static).update(safe(NOTHING_YET))
            return
        blind = sum(p.blind for p in picks)
        self.query_one("#summary", Static).update(
            safe(f"{len(picks)} pick{'' if len(picks) == 1 else 's'}, {blind} blind · Elo from 1000, K=32")
        )
        for rank, score in enumerate(compute_scores(picks), start=1):
            table.add_row(
                _cell(str(rank), "dim", right=True),
                _cell(score.label, "bold" if rank == 1 else ""),
                _cell(score.provider_id, "dim"),
                _cell(f"{score.rating:.1f}", right=True),
                _cell(str(score.wins), right=True),
                _cell(str(score.losses), right=True),
            )

    def action_scope(self, step: int) -> None:
        self.scope_index = (self.scope_index + step) % len(self.scopes)
        self._show()

    def action_export(self) -> None:
        """Write the shown table (overall: every table) as CSV to a new file and say where."""
        status = self.query_one("#status", Static)
        if not self._picks:
            status.update(safe("Nothing to export yet."))
            return
        text = scores_csv(self._picks, tag=self.scope)
        what = "scores" if self.scope is None else f"scores-{self.scope}"
        if self.app.is_web:
            name = file_stem("", what) + ".csv"
            self.app.deliver_text(io.StringIO(text), save_filename=name, open_method="download", mime_type="text/csv")
            status.update(safe(f"Sent the scores to your browser as a download ({name})."))
            return
        directories = [Path.cwd()]
        if self._center.paths is not None:
            directories.append(self._center.paths.data_dir / "clips")
        try:
            self.exported = save_text(text, directories, file_stem("", what), ".csv")
        except OSError as error:
            status.update(safe(str(error)))
            return
        status.update(safe(f"Saved the scores as CSV to {self.exported}"))

    def action_close(self) -> None:
        self.dismiss(None)
