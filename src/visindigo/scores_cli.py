"""`visindigo scores`: the comparison scores (wins, losses, rating per model) from the shell.

Read-only like `visindigo list`: it never takes the store's lock, migrates or creates anything, so it works while
the app runs and prints "No comparisons yet." where there is no store (or one older than the picks). Everything
printed passes the terminal sanitiser (`run_guarded`), and model ids and tags are one clean line each.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from visindigo.engine.compare import Pick

COMMANDS = ("scores",)
NOTHING_YET = "No comparisons yet."


def add_commands(commands: Any) -> None:
    scores = commands.add_parser(
        "scores",
        help="the comparison scores: wins, losses and rating per model",
        description="Wins, losses and an Elo-style rating (start 1000, K=32) per model, from the answers you "
        "picked in comparisons: overall, then per tag (the dialog's template or skill).",
    )
    scores.add_argument("--tag", metavar="TAG", default=None, help="only the picks made under this tag")
    scores.add_argument("--csv", action="store_true", help="write CSV (scope, provider, model, wins, losses, rating)")
    scores.add_argument("--config", metavar="FILE", type=Path, default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    scores.add_argument(
        "--data-dir", metavar="DIR", type=Path, default=argparse.SUPPRESS, help="folder of the dialog store"
    )


def run(args: argparse.Namespace) -> int:
    from visindigo.dialogs_cli import NoStore, read_store
    from visindigo.engine.storage import StoreError

    try:
        with read_store(args) as center:
            picks = center.picks()
    except NoStore:
        picks = []
    except StoreError as error:
        print(f"visindigo: {error}", file=sys.stderr)
        return 1
    return _show(picks, args.tag, as_csv=args.csv)


def _show(picks: list[Pick], tag: str | None, *, as_csv: bool) -> int:
    from visindigo.engine.compare.scores import pick_tags, scores_csv
    from visindigo.engine.sanitize import clean_line

    if not picks:
        print(NOTHING_YET, file=sys.stderr)
        return 0
    tags = pick_tags(picks)
    if tag is not None and tag not in tags:
        known = ", ".join(clean_line(t, 40) for t in tags) or "none"
        print(f"No comparisons with the tag {clean_line(tag, 40)!r} yet (tags: {known}).", file=sys.stderr)
        return 0
    if as_csv:
        sys.stdout.write(scores_csv(picks, tag=tag))
        return 0
    scopes = [tag] if tag is not None else [None, *tags]
    for number, scope in enumerate(scopes):
        if number:
            print()
        _print_table(picks, scope)
    return 0


def _print_table(picks: list[Pick], tag: str | None) -> None:
    from visindigo.engine.compare.scores import compute_scores
    from visindigo.engine.sanitize import clean_line

    chosen = [p for p in picks if tag is None or p.tag == tag]
    blind = sum(p.blind for p in chosen)
    title = "Overall" if tag is None else f"Tag {clean_line(tag, 60)}"
    print(f"{title}: {len(chosen)} pick{'' if len(chosen) == 1 else 's'}, {blind} blind")
    rows = compute_scores(chosen)
    width = max([len("model"), *(len(score.label) for score in rows)])
    print(f"  {'rating':>7}  {'wins':>5}  {'losses':>6}  {'model':<{width}}  provider")
    for score in rows:
        provider = clean_line(score.provider_id, 40)
        print(f"  {score.rating:7.1f}  {score.wins:5d}  {score.losses:6d}  {score.label:<{width}}  {provider}")
