"""`visindigo usage`: tokens and cost of the answers in the store, per model, provider or day.

Read-only like `visindigo scores`: no lock is taken, nothing is migrated or created, so it works while the app
runs. Each answer counts once, however many branches hold a copy of it (by the answer id the run loop gives it;
older answers by their stored metadata). Costs come from `engine.context.prices`: the config's `price`, the
server's reported cost, nothing for a local server, the offline price catalogue — else the answer's cost is
unknown, and a total that misses some says how many. Everything printed passes the terminal sanitiser.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

COMMANDS = ("usage",)
NOTHING_YET = "No answers with usage yet."
GROUPS = ("model", "provider", "day")


def add_commands(commands: Any) -> None:
    usage = commands.add_parser(
        "usage",
        help="tokens and cost of your answers, per model, provider or day",
        description="Tokens in (the whole prompt, cache included), read from the cache, written to it, out and "
        "reasoning, and the cost of the answers in the store, each answer counted once.",
    )
    usage.add_argument("--since", metavar="DATE", default=None, help="only answers from this day on (YYYY-MM-DD)")
    usage.add_argument("--by", choices=GROUPS, default="model", help="one row per model (default), provider or day")
    usage.add_argument("--csv", action="store_true", help="write CSV instead of a table")
    usage.add_argument("--config", metavar="FILE", type=Path, default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    usage.add_argument(
        "--data-dir", metavar="DIR", type=Path, default=argparse.SUPPRESS, help="folder of the dialog store"
    )


@dataclass
class Row:
    key: str
    answers: int = 0
    input_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    estimated: int = 0
    cost: float = 0.0
    unknown_cost: int = 0
    sources: set[str] = field(default_factory=set)


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
    except NoStore:
        answers = []
    except StoreError as error:
        print(f"visindigo: {error}", file=sys.stderr)
        return 1
    rows = _tally(answers, args.by, since, _providers(_paths(args)))
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


def _tally(answers: list[tuple[str, float, str]], by: str, since: float | None, providers: dict[str, Any]) -> list[Row]:
    from visindigo.engine.context.prices import answer_cost
    from visindigo.engine.context.usage import answer_usage
    from visindigo.engine.message import Message, Role
    from visindigo.engine.sanitize import clean_line

    seen: set[str] = set()
    rows: dict[str, Row] = {}
    for _dialog_id, saved_at, meta_text in answers:
        try:
            meta = json.loads(meta_text)
        except (ValueError, RecursionError):
            continue
        if not isinstance(meta, dict):
            continue
        usage = answer_usage(Message(Role.ASSISTANT, meta=meta))
        if usage is None:
            continue
        identity = usage.answer_id or meta_text
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
        else:
            key = clean_line(usage.model_id, 80) or "(none)"
        row = rows.setdefault(key, Row(key))
        row.answers += 1
        row.input_tokens += usage.input_tokens
        row.cached_tokens += usage.cached_tokens
        row.cache_write_tokens += usage.cache_write_tokens
        row.output_tokens += usage.output_tokens
        row.reasoning_tokens += usage.reasoning_tokens
        row.estimated += usage.estimated
        provider = providers.get(usage.provider_id)
        model = provider.get_model(usage.model_id) if provider is not None else None
        cost = answer_cost(usage, provider, model)
        if cost.dollars is None:
            row.unknown_cost += 1
        else:
            row.cost += cost.dollars
            row.sources.add(cost.source)
    ordered = sorted(rows.values(), key=lambda r: r.key if by == "day" else (-r.input_tokens - r.output_tokens, r.key))
    return ordered


def _money(row: Row) -> str:
    if row.unknown_cost == row.answers:
        return "unknown"
    known = f"${row.cost:,.4f}"
    return f"{known} + {row.unknown_cost} unknown" if row.unknown_cost else known


def _print_table(rows: list[Row], by: str) -> None:
    width = max(len(by), *(len(row.key) for row in rows))
    print(
        f"{by:<{width}}  {'answers':>7}  {'in':>10}  {'cached':>9}  {'written':>9}  {'out':>9}  {'reasoning':>9}  cost"
    )
    for row in rows:
        mark = "~" if row.estimated else " "
        print(
            f"{row.key:<{width}}  {row.answers:>7}  {mark}{row.input_tokens:>9,}  {row.cached_tokens:>9,}  "
            f"{row.cache_write_tokens:>9,}  {row.output_tokens:>9,}  {row.reasoning_tokens:>9,}  {_money(row)}"
        )
    if any(row.estimated for row in rows):
        print("~ some answers' tokens were counted here: their server reported none")


def _csv(rows: list[Row], by: str) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [by, "answers", "input_tokens", "cached_tokens", "cache_write_tokens", "output_tokens", "reasoning_tokens",
         "estimated_answers", "cost_usd", "unknown_cost_answers"]
    )  # fmt: skip
    for row in rows:
        cost = "" if row.unknown_cost == row.answers else f"{row.cost:.6f}"
        writer.writerow(
            [row.key, row.answers, row.input_tokens, row.cached_tokens, row.cache_write_tokens, row.output_tokens,
             row.reasoning_tokens, row.estimated, cost, row.unknown_cost]
        )  # fmt: skip
    return out.getvalue()
