"""`visindigo usage`: tokens and cost of the answers in the store, per model, provider, day or branch family.

Read-only like `visindigo scores`: no lock is taken, nothing is migrated or created, so it works while the app
runs. Each answer counts once, however many branches hold a copy of it (by the answer id the run loop gives it;
older answers by their stored metadata). Costs come from `engine.context.prices`: the config's `price`, the
server's reported cost, nothing for a local server, the offline price catalogue — else the answer's cost is
unknown, and a total that misses some says how many. Everything printed passes the terminal sanitiser.
The adding up is `engine.context.totals`' (the rule the app's answer details use too); `--by family` gives one
row per branch family (a dialog and every branch made from it, named by its first dialog's title and id).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from visindigo.engine.context.totals import Totals

COMMANDS = ("usage",)
NOTHING_YET = "No answers with usage yet."
GROUPS = ("model", "provider", "day", "family")


def add_commands(commands: Any) -> None:
    usage = commands.add_parser(
        "usage",
        help="tokens and cost of your answers, per model, provider, day or branch family",
        description="Tokens in (the whole prompt, cache included), read from the cache, written to it, out and "
        "reasoning, and the cost of the answers in the store, each answer counted once.",
    )
    usage.add_argument("--since", metavar="DATE", default=None, help="only answers from this day on (YYYY-MM-DD)")
    usage.add_argument(
        "--by",
        choices=GROUPS,
        default="model",
        help="one row per model (default), provider, day or branch family (a dialog and its branches)",
    )
    usage.add_argument("--csv", action="store_true", help="write CSV instead of a table")
    usage.add_argument("--config", metavar="FILE", type=Path, default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    usage.add_argument(
        "--data-dir", metavar="DIR", type=Path, default=argparse.SUPPRESS, help="folder of the dialog store"
    )


class Row(NamedTuple):
    """One line of the report: its key (a model, provider, day or family) and its answers' totals."""

    key: str
    totals: Totals


def run(args: argparse.Namespace) -> int:
    from visindigo.dialogs_cli import NoStore, _paths, read_store
    from visindigo.engine.storage import StoreError

    since = None
    if args.since is not None:
        try:
            since = datetime.strptime(args.since, "%Y-%m-%d").timestamp()
        except ValueError:
            print(f"visindigo: --since takes a date as YYYY-MM-DD, not {args.since[:40]!r}", file=sys.stderr)
            return 2
    try:
        with read_store(args) as center:
            assert center.store is not None
            answers = center.store.answer_rows()
            families = family_names(center.store.summaries()) if args.by == "family" else None
    except NoStore:
        answers, families = [], None
    except StoreError as error:
        print(f"visindigo: {error}", file=sys.stderr)
        return 1
    rows = _tally(answers, args.by, since, _providers(_paths(args)), families)
    if not rows:
        print(NOTHING_YET, file=sys.stderr)
        return 0
    if args.csv:
        sys.stdout.write(_csv(rows, args.by))
    else:
        _print_table(rows, args.by)
    return 0


def _providers(paths: Any) -> dict[str, Any]:
    """The configured providers (for their models' prices and addresses); a config that cannot be read: none."""
    from visindigo.engine.config import load_config

    try:
        config, _ = load_config(paths)
        return {provider.id: provider for provider in config.providers()}
    except Exception:  # a broken config costs the configured prices, not the report
        return {}


def _tally(
    answers: list[tuple[str, float, str]],
    by: str,
    since: float | None,
    providers: dict[str, Any],
    families: dict[str, str] | None = None,
) -> list[Row]:
    """The rows of the report; `families` maps a dialog id to its family's name (for `--by family`)."""
    from visindigo.engine.context.prices import answer_cost
    from visindigo.engine.context.totals import Totals, answer_identity
    from visindigo.engine.context.usage import answer_usage
    from visindigo.engine.message import Message, Role
    from visindigo.engine.sanitize import clean_line

    seen: set[str] = set()
    rows: dict[str, Totals] = {}
    for dialog_id, saved_at, meta_text in answers:
        try:
            meta = json.loads(meta_text)
        except (ValueError, RecursionError):
            continue
        if not isinstance(meta, dict):
            continue
        usage = answer_usage(Message(Role.ASSISTANT, meta=meta))
        if usage is None:
            continue
        identity = answer_identity(usage, meta_text)
        if identity in seen:
            continue
        seen.add(identity)
        at = usage.at or saved_at
        if since is not None and at < since:
            continue
        if by == "day":
            key = time.strftime("%Y-%m-%d", time.localtime(at))
        elif by == "provider":
            key = clean_line(usage.provider_id, 60) or "(none)"
        elif by == "family":
            key = (families or {}).get(dialog_id) or "(none)"
        else:
            key = clean_line(usage.model_id, 80) or "(none)"
        provider = providers.get(usage.provider_id)
        model = provider.get_model(usage.model_id) if provider is not None else None
        cost = answer_cost(usage, provider, model)
        rows.setdefault(key, Totals()).add(usage, cost.dollars, cost.source)
    ordered = [Row(key, totals) for key, totals in rows.items()]
    if by == "day":
        return sorted(ordered, key=lambda r: r.key)
    return sorted(ordered, key=lambda r: (-r.totals.input_tokens - r.totals.output_tokens, r.key))


def family_names(summaries: list[Any]) -> dict[str, str]:
    """Each dialog's family, named by its root dialog: its title (sanitised) and the start of its id — two
    families may share a title. A parent missing from the store makes its branch a root of its own."""
    from visindigo.engine.sanitize import clean_line

    by_id = {summary.id: summary for summary in summaries}
    names: dict[str, str] = {}
    for summary in summaries:
        root, seen = summary, {summary.id}
        while root.branch_from_id in by_id and root.branch_from_id not in seen:
            seen.add(root.branch_from_id)
            root = by_id[root.branch_from_id]
        title = clean_line(root.title or "", 40) or "(untitled)"
        names[summary.id] = f"{title} ({root.id[:8]})"
    return names


def _print_table(rows: list[Row], by: str) -> None:
    width = max(len(by), *(len(row.key) for row in rows))
    print(
        f"{by:<{width}}  {'answers':>7}  {'in':>10}  {'cached':>9}  {'written':>9}  {'out':>9}  {'reasoning':>9}  cost"
    )
    for row in rows:
        t = row.totals
        mark = "~" if t.estimated else " "
        print(
            f"{row.key:<{width}}  {t.answers:>7}  {mark}{t.input_tokens:>9,}  {t.cached_tokens:>9,}  "
            f"{t.cache_write_tokens:>9,}  {t.output_tokens:>9,}  {t.reasoning_tokens:>9,}  {t.money()}"
        )
    if any(row.totals.estimated for row in rows):
        print("~ some answers' tokens were counted here: their server reported none")


def _csv(rows: list[Row], by: str) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [by, "answers", "input_tokens", "cached_tokens", "cache_write_tokens", "output_tokens", "reasoning_tokens",
         "estimated_answers", "cost_usd", "unknown_cost_answers"]
    )  # fmt: skip
    for row in rows:
        t = row.totals
        cost = "" if t.unknown_cost == t.answers else f"{t.cost:.6f}"
        writer.writerow(
            [row.key, t.answers, t.input_tokens, t.cached_tokens, t.cache_write_tokens, t.output_tokens,
             t.reasoning_tokens, t.estimated, cost, t.unknown_cost]
        )  # fmt: skip
    return out.getvalue()
