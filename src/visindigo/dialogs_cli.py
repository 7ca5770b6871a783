"""`visindigo list`, `visindigo export` and `visindigo import`: the dialog store from the shell.

`list` and `export` only read: they never take the store's lock, never repair or migrate anything and never
create the data folder or a store file, so they also work while the app is open (they read what it has saved so
far; a reply streaming at that moment is not included). `import` writes, so it needs the app closed.
A dialog is named by its id or any unique beginning of it, as `list` shows them. Problems are one line on
stderr and exit status 1, like the rest of the command line; everything written is sanitised.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from visindigo.engine import Center, DialogSummary

COMMANDS = ("list", "export", "import")
SHORT_ID = 8
MARKDOWN_SUFFIXES = (".md", ".markdown")


class CommandError(Exception):
    """What went wrong, as the one line the user reads."""


def add_commands(commands: Any) -> None:
    """Add the three subcommands to the parser's subparsers (`commands`)."""

    def location(parser: argparse.ArgumentParser) -> None:
        # SUPPRESS: `visindigo --data-dir D list` and `visindigo list --data-dir D` both work.
        parser.add_argument("--config", metavar="FILE", type=Path, default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        parser.add_argument(
            "--data-dir", metavar="DIR", type=Path, default=argparse.SUPPRESS, help="folder of the dialog store"
        )

    listing = commands.add_parser(
        "list",
        help="list the stored dialogs with their ids",
        description="List the stored dialogs as a tree (branches under the dialog they came from), with their ids.",
    )
    location(listing)

    export = commands.add_parser(
        "export",
        help="export a dialog (and its branches) to JSON or Markdown",
        description="Write a dialog as JSON (for `visindigo import`) or Markdown (for reading). The dialog is "
        "named by its id or a unique beginning of it (see `visindigo list`).",
    )
    export.add_argument("dialog", metavar="DIALOG", help="id, or a unique beginning of it")
    export.add_argument("--branches", action="store_true", help="also every dialog that branches from it")
    export.add_argument(
        "--format",
        choices=("json", "markdown"),
        default=None,
        help="default: markdown for an -o file ending in .md, otherwise json",
    )
    export.add_argument("-o", "--output", metavar="FILE", type=Path, help="write to FILE (mode 0600) instead of stdout")
    location(export)

    importing = commands.add_parser(
        "import",
        help="import dialogs from a JSON export",
        description="Add the dialogs of JSON exports, keeping their ids. Dialogs that exist already are skipped; "
        "what was repaired in a dialog is listed. Exits 1 only when a file or a dialog could not be imported.",
    )
    importing.add_argument(
        "files", metavar="FILE", nargs="+", type=Path, help="a JSON file written by visindigo export"
    )
    location(importing)


def run(args: argparse.Namespace) -> int:
    """Run `args.command`; returns the exit status."""
    from visindigo.engine.storage import StoreError

    try:
        if args.command == "import":
            return _import(args)
        with read_store(args) as center:
            return _list(center) if args.command == "list" else _export(center, args)
    except NoStore:
        if args.command == "export":  # a dialog was named, and there is none: as for an id nothing begins with
            from visindigo.engine.sanitize import clean_line

            name = clean_line(args.dialog.strip(), 40)
            print(f"visindigo: no dialog has an id beginning with {name!r} (there are no dialogs yet)", file=sys.stderr)
            return 1
        print("No dialogs yet.", file=sys.stderr)  # an empty list is not a failure
        return 0
    except (CommandError, StoreError) as error:
        print(f"visindigo: {error}", file=sys.stderr)
        return 1


# --- opening the store ----------------------------------------------------------------------------------------


def _paths(args: argparse.Namespace) -> Any:
    from visindigo.engine.paths import resolve_paths

    return resolve_paths(config_path=getattr(args, "config", None), data_dir=getattr(args, "data_dir", None))


def _center(store: Any, paths: Any) -> Center:
    """A Center on the store alone: these commands need no providers, so the config is not read."""
    from visindigo.engine import Center

    center = Center()
    center.paths = paths
    center.attach_store(store)
    return center


class NoStore(Exception):
    """There is no dialog store yet: nothing to list or export."""


@contextlib.contextmanager
def read_store(args: argparse.Namespace) -> Iterator[Center]:
    """The store, read-only, without its lock: whether or not the app runs, nothing is created or changed."""
    from visindigo.engine.paths import DB_FILE_NAME
    from visindigo.engine.storage import Store

    paths = _paths(args)
    if not (paths.data_dir / DB_FILE_NAME).exists():
        raise NoStore
    store = Store.open_read_only(paths)
    center = _center(store, paths)
    try:
        yield center
    finally:
        center.close()


# --- list -------------------------------------------------------------------------------------------------------


def tree_rows(summaries: list[DialogSummary]) -> Iterator[tuple[int, DialogSummary]]:
    """(depth, summary) in the app's tree order: the newest dialog first, each one's branches under it (oldest
    first, as they were made), depth first.

    A dialog whose parent is gone counts as a root, so nothing stored is left out.
    """
    known = {s.id for s in summaries}
    children: dict[str, list[DialogSummary]] = {}
    for summary in summaries:
        parent = summary.branch_from_id if summary.branch_from_id in known else ""
        children.setdefault(parent, []).append(summary)
    shown: set[str] = set()
    # Roots first, newest first (popped from the end); then anything a cycle of branch_from_id (A from B,
    # B from A) kept from being reached.
    roots = sorted(children.get("", []), key=lambda s: (s.created_at, s.id), reverse=True)
    for start in [*roots, *summaries]:
        if start.id in shown:
            continue
        stack = [(0, start)]
        while stack:
            depth, summary = stack.pop()
            if summary.id in shown:
                continue
            shown.add(summary.id)
            yield depth, summary
            stack += [(depth + 1, child) for child in reversed(children.get(summary.id, []))]


def _list(center: Center) -> int:
    from visindigo.engine.sanitize import clean_line

    summaries = center.dialog_summaries()
    if not summaries:
        print("No dialogs yet.", file=sys.stderr)
        return 0
    for depth, summary in tree_rows(summaries):
        updated = datetime.fromtimestamp(summary.updated_at).strftime("%Y-%m-%d %H:%M")
        title = clean_line(summary.title) or "Untitled dialog"
        count = f"{summary.message_count} message{'' if summary.message_count == 1 else 's'}"
        print(f"{summary.id[:SHORT_ID]}  {updated}  {'  ' * depth}{title}  ({count})")
    return 0


# --- export -----------------------------------------------------------------------------------------------------


def find_dialog(center: Center, name: str) -> str:
    """The id of the dialog `name` stands for: its id, or the one id that begins with it."""
    from visindigo.engine.sanitize import clean_line

    name = name.strip()
    if not name:
        raise CommandError("name a dialog by its id (see `visindigo list`)")
    if center.has_dialog(name):
        return name
    matches = [s for s in center.dialog_summaries() if s.id.startswith(name)]
    if not matches:
        raise CommandError(f"no dialog has an id beginning with {clean_line(name, 40)!r} (`visindigo list` shows them)")
    if len(matches) > 1:
        shown = ", ".join(f"{m.id[: len(name) + 4]} ({clean_line(m.title, 40) or 'Untitled'})" for m in matches[:5])
        raise CommandError(f"{clean_line(name, 40)!r} begins {len(matches)} dialog ids: {shown}; give more of the id")
    return matches[0].id


def _export(center: Center, args: argparse.Namespace) -> int:
    from visindigo.engine.export import ExportError, export_text, write_export, write_markdown_export
    from visindigo.engine.sanitize import escape_json_for_terminal

    kind = args.format or (
        "markdown" if args.output is not None and args.output.suffix.lower() in MARKDOWN_SUFFIXES else "json"
    )
    dialog_id = find_dialog(center, args.dialog)
    try:
        if kind == "markdown" and args.output is not None:  # attached files go into a folder beside the .md
            written = write_markdown_export(center, dialog_id, args.output, with_branches=args.branches)
            print(f"Wrote {written} ({kind}).", file=sys.stderr)
            return 0
        text = export_text(center, dialog_id, kind=kind, with_branches=args.branches)
        if args.output is None:
            # JSON keeps every character (those a terminal obeys written as \u escapes); Markdown is for reading
            # and goes out cleaned like all the command line's output.
            sys.stdout.write(escape_json_for_terminal(text) if kind == "json" else text)
            return 0
        written = write_export(args.output, text)
    except ExportError as error:
        raise CommandError(str(error)) from None
    print(f"Wrote {written} ({kind}).", file=sys.stderr)
    return 0


# --- import -----------------------------------------------------------------------------------------------------


def _import(args: argparse.Namespace) -> int:
    import sqlite3

    from visindigo.engine.export import ExportError, import_json
    from visindigo.engine.storage import Store, StoreLocked
    from visindigo.engine.storage.salvage import disk_hint

    from .cli_progress import SalvageProgressLine

    paths = _paths(args)
    progress = SalvageProgressLine()
    try:
        store = Store.open(paths, on_salvage=progress)
    except StoreLocked as locked:
        who = f" (process {locked.holder})" if locked.holder else ""
        raise CommandError(f"Visindigo is open on {locked.directory}{who}; close it, then import again.") from None
    finally:
        progress.finish()
    center = _center(store, paths)
    status = 0
    try:
        if not store.checked_at_open:  # a big store is checked before it is written to (0.5 s for 230 MB)
            store.verify()
            progress.finish()
        for notice in store.notices:  # a file moved aside or salvaged, replies recovered after a crash
            print(f"visindigo: {notice}", file=sys.stderr)
        for file in args.files:
            try:
                result = import_json(center, file)
            except ExportError as error:
                message = str(error)
                where = "" if message.startswith(str(file)) else f"{file}: "
                print(f"visindigo: {where}{message}", file=sys.stderr)
                status = 1
                continue
            except sqlite3.Error as error:  # a full disk, say: the file's one transaction was rolled back
                raise CommandError(
                    f"writing to the dialog store {store.path} failed: {error}{disk_hint(error)}; nothing of {file} "
                    "was imported"
                ) from None
            parts = [f"{len(result.imported)} dialog{'' if len(result.imported) == 1 else 's'} imported"]
            if result.duplicates:
                parts.append(f"{len(result.duplicates)} already there, skipped")
            print(f"{file}: {', '.join(parts)}.", file=sys.stderr)
            for warning in result.warnings:  # the dialog was imported, repaired: said, but not a failure
                print(f"{file}: {warning}", file=sys.stderr)
            for problem in result.problems:  # a dialog left out
                print(f"{file}: {problem}", file=sys.stderr)
                status = 1
    finally:
        center.close()
    return status
