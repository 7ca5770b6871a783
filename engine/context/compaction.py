"""Compaction into a branch: a new dialog whose history is a summary of the old turns, the pinned messages and the
last turns — made as an edit is made (`Center.branch_at`), so the parent keeps every message and nothing is lost.

The branch holds, in order: the dialog's own system messages (its skills travel with the dialog's configuration),
one summary message written by a model, the pinned messages (each with the tool exchange it belongs to, so every
tool call keeps its result), and the last `keep_turns` turns (a turn starts at a question). The summary message
is marked: its `meta["compaction"]` is the **ledger** — the parent's id and, for each message it replaced, its
position in the parent, role, first words, token count and fingerprint, and which messages were pinned.

`pin` sets a message's `meta["pinned"]` (saved with the message, in the store's message row); `restore` puts a
replaced message (with its tool exchange) back into the compacted branch, after the summary, in its old order;
`find_in_parent` says where it is in the parent, for a UI to jump there. `move_out` makes the same branch without
a summary (the oldest turns simply left out, the ledger on a short marker message).

Settings (`[context]` in the config, `center.settings["context"]`): `keep_turns` (default 2), `summary_provider`
and `summary_model` (default: the dialog's), `summary_prompt` (a template with `{{transcript}}` and `{{count}}`;
else the file `compaction-summary.md` in the template folder, else `DEFAULT_SUMMARY_PROMPT`), `auto_compact`
(default false) and `auto_compact_at` (the share of the window, default 0.9) for `compact_if_due`.
"""

from __future__ import annotations

import hashlib
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..capability import Capability
from ..message import Message, Role
from ..prompt import Prompt
from .counting import Counter, counter_for, message_key
from .fit import check_fit, request_parts

if TYPE_CHECKING:
    from ..center import Center
    from ..dialog import Dialog

__all__ = [
    "DEFAULT_KEEP_TURNS",
    "DEFAULT_SUMMARY_PROMPT",
    "LEDGER_KEY",
    "PIN_KEY",
    "CompactionError",
    "compact",
    "compact_if_due",
    "find_in_parent",
    "is_pinned",
    "ledger_of",
    "move_out",
    "pin",
    "restore",
]

LEDGER_KEY = "compaction"
PIN_KEY = "pinned"
DEFAULT_KEEP_TURNS = 2
DEFAULT_AUTO_AT = 0.9
#: Below this many tokens the part a summary would replace is not worth a model call (a summary costs more).
MIN_REPLACED_TOKENS = 40
#: After an automatic compaction declined, the dialog must grow by this share of the window before another try.
RETRY_GROWTH = 0.1
#: Per center, the dialogs whose automatic compaction declined and the request size then (no retry every send).
_declined: weakref.WeakKeyDictionary[Center, dict[str, int]] = weakref.WeakKeyDictionary()
#: Characters of one message the summary model reads (a 5 MB tool result must not become the summary request).
TRANSCRIPT_LIMIT = 6000
DEFAULT_SUMMARY_PROMPT = """Summarise the conversation below so that it can go on without it. Keep every fact, \
decision, name, number, file, command and open question that a later answer may need; say what the user wants \
and what has been done. Write it as notes, in the language of the conversation, without a preamble.

The conversation ({{count}} messages):

{{transcript}}"""
SUMMARY_SYSTEM = "You write faithful, dense summaries of conversations for a model that will continue them."


class CompactionError(Exception):
    """Why a dialog cannot be compacted, worded for the user."""


@dataclass(frozen=True, slots=True)
class _Plan:
    replaced: list[int]
    pinned: list[int]
    tail: int
    groups: dict[int, int]


def pin(dialog: Dialog, index: int, pinned: bool = True) -> None:
    """Mark (or unmark) the message at `index` to be kept word for word through compactions."""
    message = dialog.message_at(index)
    if pinned:
        message.meta[PIN_KEY] = True
    else:
        message.meta.pop(PIN_KEY, None)
    dialog.replace_message(index, message)


def is_pinned(message: Message) -> bool:
    return bool(message.meta.get(PIN_KEY))


def ledger_of(message: Message) -> dict[str, Any] | None:
    """The ledger of a summary message, or None for any other message."""
    ledger = message.meta.get(LEDGER_KEY)
    return ledger if isinstance(ledger, dict) else None


def fingerprint(message: Message) -> str:
    return hashlib.sha1(repr(message_key(message)).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _plan(messages: list[Message], keep_turns: int) -> _Plan:
    asking = [i for i, m in enumerate(messages) if m.role in (Role.USER, Role.PROMPT) and not ledger_of(m)]
    if len(asking) <= keep_turns:
        raise CompactionError(
            f"nothing to compact: the dialog has {len(asking)} turn{'s' if len(asking) != 1 else ''} and the last "
            f"{keep_turns} are kept as they are"
        )
    tail = asking[-keep_turns] if keep_turns > 0 else len(messages)
    groups: dict[int, int] = {}
    group = -1
    for index in range(tail):
        message = messages[index]
        if message.role is Role.TOOL and group >= 0:
            groups[index] = group  # a tool result belongs with the call that asked for it
        else:
            group = index
            groups[index] = index
    pinned_groups = {groups[i] for i in range(tail) if is_pinned(messages[i])}
    pinned = [i for i in range(tail) if groups[i] in pinned_groups and messages[i].role is not Role.SYSTEM]
    replaced = [i for i in range(tail) if i not in pinned and messages[i].role is not Role.SYSTEM]
    if not replaced:
        raise CompactionError("nothing to compact: every earlier message is pinned")
    return _Plan(replaced, pinned, tail, groups)


def _transcript(messages: list[Message]) -> str:
    lines = []
    for message in messages:
        if ledger_of(message) is not None:
            lines.append(f"[an earlier summary]\n{message.content}")
            continue
        text = message.content
        for call in message.parsed_tool_calls():
            function = call.get("function")
            function = function if isinstance(function, dict) else {}
            text += f"\n[calls {function.get('name', '?')}({function.get('arguments', '')})]"
        if len(text) > TRANSCRIPT_LIMIT:
            text = text[: TRANSCRIPT_LIMIT // 2] + "\n[…]\n" + text[-TRANSCRIPT_LIMIT // 2 :]
        who = f"tool {message.name}" if message.role is Role.TOOL else message.role.wire_name
        lines.append(f"{who}: {text}")
    return "\n\n".join(lines)


def _settings(center: Center) -> dict[str, Any]:
    value = center.settings.get("context")
    return dict(value) if isinstance(value, dict) else {}


def summary_prompt(center: Center) -> str:
    """The summary template: the setting, else `compaction-summary.md` in the template folder, else the default."""
    text = _settings(center).get("summary_prompt")
    if isinstance(text, str) and text.strip():
        return text
    folder = center.settings.get("prompt_dir")
    if isinstance(folder, str) and folder:
        path = Path(folder) / "compaction-summary.md"
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            pass
    return DEFAULT_SUMMARY_PROMPT


async def _summarise(center: Center, dialog: Dialog, replaced: list[Message]) -> tuple[str, str, str]:
    """The summary text and the provider and model that wrote it."""
    settings = _settings(center)
    provider_id = str(settings.get("summary_provider") or dialog.provider_id or center.default_provider_id)
    provider = center.get_provider(provider_id)
    if provider is None:
        raise CompactionError(f"no provider {provider_id!r} to write the summary; set [context] summary_provider")
    # the provider adapters load with the first summary, not with the screen that offers compaction
    from ..providers.base import ChatRequest, ProviderError, TextPart
    from ..providers.models import ensure_models

    wanted = str(settings.get("summary_model") or dialog.model_id)
    await ensure_models(provider, wanted)
    try:
        model = provider.pick_model(Capability.TEXT, wanted)
    except Exception as error:
        raise CompactionError(f"no model to write the summary: {error}") from None
    text = Prompt("compaction-summary", summary_prompt(center)).fill(
        {"transcript": _transcript(replaced), "count": str(len(replaced))}
    )
    request = ChatRequest(model, SUMMARY_SYSTEM, [Message(Role.USER, text)], settings=dict(provider.settings))
    pieces: list[str] = []
    try:
        async for part in provider.adapter.stream(request):
            if type(part) is TextPart:
                pieces.append(part.text)
    except ProviderError as error:
        raise CompactionError(f"the summary could not be written: {error}") from None
    summary = "".join(pieces).strip()
    if not summary:
        raise CompactionError(f"{model.label} wrote an empty summary; nothing was compacted")
    return summary, provider.id, model.id


async def compact(center: Center, dialog: Dialog, *, keep_turns: int | None = None, note: str = "") -> Dialog:
    """A new branch of `dialog` with its old turns replaced by a summary (see the module's docstring).

    Raises `CompactionError` when there is nothing to compact or the summary cannot be written; the dialog is
    never changed."""
    turns = keep_turns if keep_turns is not None else int(_settings(center).get("keep_turns", DEFAULT_KEEP_TURNS))
    messages = dialog.messages
    plan = _plan(messages, max(0, turns))
    counter = _counter(center, dialog)
    replaced = sum(counter.count("", "", [], [messages[i]]).tokens for i in plan.replaced)
    if replaced < MIN_REPLACED_TOKENS:
        raise CompactionError(
            f"not compacted: the {len(plan.replaced)} earlier messages hold too little (~{replaced} tokens) for a "
            "summary to save anything"
        )
    summary, provider_id, model_id = await _summarise(center, dialog, [messages[i] for i in plan.replaced])
    written = counter.count("", "", [], [Message(Role.USER, summary)]).tokens
    if written >= replaced:
        raise CompactionError(
            f"not compacted: the summary (~{written} tokens) is not smaller than the ~{replaced} tokens of the "
            f"{len(plan.replaced)} messages it would replace"
        )
    return _branch(center, dialog, messages, plan, turns, summary, provider_id, model_id, note)


def move_out(center: Center, dialog: Dialog, *, keep_turns: int | None = None) -> Dialog:
    """A new branch of `dialog` without its oldest turns and without a summary: the kept messages follow a short
    marker that carries the same ledger (so each moved message can be found in the parent or put back)."""
    turns = keep_turns if keep_turns is not None else int(_settings(center).get("keep_turns", DEFAULT_KEEP_TURNS))
    messages = dialog.messages
    plan = _plan(messages, max(0, turns))
    marker = "(They are in the dialog this branch was made from; nothing summarises them here.)"
    return _branch(center, dialog, messages, plan, turns, marker, "", "", "", moved=True)


def _branch(
    center: Center,
    dialog: Dialog,
    messages: list[Message],
    plan: _Plan,
    turns: int,
    summary: str,
    provider_id: str,
    model_id: str,
    note: str,
    *,
    moved: bool = False,
) -> Dialog:
    before = check_fit(center, dialog)
    counter = _counter(center, dialog)
    ledger: dict[str, Any] = {
        "parent_id": dialog.id,
        "at": round(time.time(), 3),
        "summary_provider": provider_id,
        "summary_model": model_id,
        "kept_turns": turns,
        "tokens_before": before.used if before is not None else 0,
        "replaced": [
            {
                "position": i,
                "role": messages[i].role.name.lower(),
                "first_words": " ".join(messages[i].content.split()[:12]),
                "tokens": counter.count("", "", [], [messages[i]]).tokens,
                "fingerprint": fingerprint(messages[i]),
                "group": plan.groups[i],
            }
            for i in plan.replaced
        ],
        "pinned": plan.pinned,
    }
    if note:
        ledger["note"] = note
    if moved:
        ledger["moved_out"] = True
        heading = f"{len(plan.replaced)} earlier messages were moved out of this branch"
    else:
        heading = f"Summary of the {len(plan.replaced)} earlier messages (compacted by {model_id})"
    branch = center.branch_at(dialog, 0)
    for message in messages[: plan.tail]:
        if message.role is Role.SYSTEM:
            branch.append_message(message)
    text = f"{heading}{f' — {note}' if note else ''}:\n\n{summary}"
    branch.append_message(Message(Role.USER, text, meta={LEDGER_KEY: ledger}))
    for index in [*plan.pinned, *range(plan.tail, len(messages))]:
        branch.append_message(messages[index])
    after = check_fit(center, branch)
    if after is not None:
        summary_index = _summary_index(branch)
        message = branch.message_at(summary_index)
        message.meta[LEDGER_KEY]["tokens_after"] = after.used
        branch.replace_message(summary_index, message)
    return branch


def _counter(center: Center, dialog: Dialog) -> Counter:
    parts = request_parts(center, dialog)
    return counter_for(parts.provider, parts.model) if parts is not None else Counter()


def _summary_index(dialog: Dialog) -> int:
    for index in range(dialog.message_count):
        if ledger_of(dialog.message_at(index)) is not None:
            return index
    raise CompactionError("this dialog holds no compaction summary")


def find_in_parent(center: Center, branch: Dialog, position: int) -> tuple[Dialog, int] | None:
    """The parent dialog and the index there of the replaced message the ledger lists at `position`; None when
    the parent is gone or no longer holds it (it is found by its fingerprint if it moved)."""
    summary = branch.message_at(_summary_index(branch))
    ledger = ledger_of(summary) or {}
    entry = next((e for e in ledger.get("replaced", []) if e.get("position") == position), None)
    parent = center.get_dialog(str(ledger.get("parent_id", "")))
    if entry is None or parent is None:
        return None
    if position < parent.message_count and fingerprint(parent.message_at(position)) == entry["fingerprint"]:
        return parent, position
    for index in range(parent.message_count):
        if fingerprint(parent.message_at(index)) == entry["fingerprint"]:
            return parent, index
    return None


def restore(center: Center, branch: Dialog, position: int) -> int:
    """Put the replaced message at the parent's `position` back into the compacted `branch` (with the tool
    exchange it belongs to), after the summary and in its old order; returns its index in the branch.

    Raises `CompactionError` when it is not in the ledger, was restored already, or the parent lost it."""
    summary_index = _summary_index(branch)
    summary = branch.message_at(summary_index)
    ledger = ledger_of(summary) or {}
    entries = ledger.get("replaced", [])
    entry = next((e for e in entries if e.get("position") == position), None)
    if entry is None:
        raise CompactionError(f"message {position} of the parent was not replaced by this summary")
    if entry.get("restored"):
        raise CompactionError(f"message {position} of the parent is in this dialog already")
    group = [e for e in entries if e.get("group") == entry.get("group") and not e.get("restored")]
    found = [(e, find_in_parent(center, branch, int(e["position"]))) for e in group]
    if any(where is None for _, where in found):
        raise CompactionError("the parent dialog no longer holds that message; it cannot be put back")
    back = [(int(e["position"]), where[0].message_at(where[1])) for e, where in found if where is not None]
    placed = sorted([*ledger.get("pinned", []), *(int(e["position"]) for e in entries if e.get("restored"))])
    insert_at = summary_index + 1 + sum(1 for p in placed if p < min(p for p, _ in back))
    rest = [branch.message_at(i) for i in range(insert_at, branch.message_count)]
    for e in group:
        e["restored"] = True
    summary.meta[LEDGER_KEY] = ledger
    branch.replace_message(summary_index, summary)
    branch.truncate_to(insert_at)
    for _, message in sorted(back, key=lambda item: item[0]):
        branch.append_message(message)
    for message in rest:
        branch.append_message(message)
    return insert_at


async def compact_if_due(
    center: Center, dialog: Dialog, draft: str = "", *, models: Sequence[tuple[str, str]] = ()
) -> Dialog | None:
    """With `auto_compact` on and the next request at `auto_compact_at` of the window or more: the compacted
    branch (its summary says it was automatic), else None. Sending then goes to the branch.

    `models` (provider id, model id) are the models the request goes to, when not the dialog's own: a comparison
    sends one request to each, and the fullest window decides (every column then answers the same compacted
    dialog, so the comparison stays fair).

    When compaction declines (`CompactionError`: nothing to gain), the error is raised once and the dialog is
    left alone until it has grown by `RETRY_GROWTH` of the window — not a summary request at every send."""
    settings = _settings(center)
    if not settings.get("auto_compact"):
        return None
    threshold = settings.get("auto_compact_at", DEFAULT_AUTO_AT)
    threshold = float(threshold) if isinstance(threshold, int | float) and 0 < threshold <= 1 else DEFAULT_AUTO_AT
    fits = [check_fit(center, dialog, draft, on=on) for on in models] if models else [check_fit(center, dialog, draft)]
    known = [fit for fit in fits if fit is not None and fit.window]
    fit = max(known, key=lambda f: f.fraction, default=None)
    if fit is None or fit.fraction < threshold:
        return None
    declined = _declined.setdefault(center, {})
    last = declined.get(dialog.id)
    if last is not None and fit.used - last < fit.window * RETRY_GROWTH:
        return None
    try:
        whose = f"{fit.model_id}'s window" if models and fit.model_id else "the window"
        branch = await compact(center, dialog, note=f"automatically, at {fit.fraction:.0%} of {whose}")
    except CompactionError:
        declined[dialog.id] = fit.used
        raise
    declined.pop(dialog.id, None)
    return branch
