"""The timeline of a dialog family, forks from any message, tail forks and labels — the rules, without Textual.

The *timeline* lists every question of a family (all its branches) once, in the order asked: a question a
branch shares with the dialog it branched from (copied with the history) belongs to the older dialog. Each
entry names its branch (① ② … as the tree numbers them), the model that answered it, its first words and its
label, and the screen jumps to `(dialog_id, index)`. A labelled message that is not a question (an answer, a
tool call or result) is an entry too, right after its question (`kind` says what it is): a label is put on a
message to find it again, whatever the message is.

A *label* is a short name on one message (`meta["label"]`, saved with the message in its row — no schema change:
the other fields of a message's `meta` live there too). A *fork* is a new branch whose history ends at a message
(an answer, a tool call or a tool result, not only a question). A *tail fork* is a new dialog holding only the last
N turns, whose first message says where they came from (`meta["forked_from"]`): a fresh start with less context,
not an alternative of the old dialog, so it is not nested in the tree as a branch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from visindigo.engine import Center, Dialog, Message, Role
from visindigo.engine.branching import ASKING_ROLES, common_prefix
from visindigo.engine.lookup import SearchHit
from visindigo.engine.sanitize import clean_line

LABEL_LIMIT = 40
FIRST_WORDS = 60
BRANCH_MARKS = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"


def branch_mark(ordinal: int) -> str:
    """① for the first dialog of a family, ② … for its branches; "#21" past the circled numbers."""
    return BRANCH_MARKS[ordinal - 1] if 1 <= ordinal <= len(BRANCH_MARKS) else f"#{ordinal}"


@dataclass(frozen=True, slots=True)
class TimelineEntry:
    """One question of the family, where it is, who answered it, and its label."""

    dialog_id: str
    index: int
    branch: str
    model: str
    first_words: str
    label: str
    asked_at: float
    #: "question", or what a labelled message of another kind is ("answer", "tool call", "tool result", …).
    kind: str = "question"

    def matches(self, query: str) -> bool:
        """Every word of `query` is in the first words, the label, the branch mark, the model or the kind."""
        haystack = f"{self.first_words} {self.label} {self.branch} {self.model} {self.kind}".casefold()
        return all(word in haystack for word in query.casefold().split())


def label_of(message: Message) -> str:
    """The message's label ("" for none), made safe for one line."""
    value = message.meta.get("label", "") if message.meta else ""
    return clean_line(str(value), LABEL_LIMIT) if value else ""


def _words(message: Message) -> str:
    """A message's first words; a tool call without text is named by its functions."""
    words = clean_line(message.content, FIRST_WORDS) or clean_line(message.name, FIRST_WORDS)
    if not words:
        calls = message.parsed_tool_calls()
        function = [call.get("function") for call in calls]
        words = clean_line(", ".join(str(f.get("name", "")) for f in function if isinstance(f, dict)), FIRST_WORDS)
    return words


def _answering_model(messages: Sequence[Message], index: int, fallback: str) -> str:
    for message in messages[index + 1 :]:
        if message.role in ASKING_ROLES:
            break
        if message.role is Role.ASSISTANT and message.meta.get("model_id"):
            return clean_line(str(message.meta["model_id"]), 60)
    return fallback


def timeline(family: Iterable[Dialog], ordinals: dict[str, int] | None = None) -> list[TimelineEntry]:
    """Every question of `family` once, on the oldest dialog that has it, in the order they were asked."""
    members = sorted(family, key=lambda d: (d.created_at, d.id))
    ordinals = ordinals or {}
    entries: list[TimelineEntry] = []
    seen: list[Dialog] = []
    for number, dialog in enumerate(members, start=1):
        messages = dialog.messages
        shared = max((common_prefix(messages, other.messages) for other in seen), default=0)
        seen.append(dialog)
        mark = branch_mark(ordinals.get(dialog.id, number))
        for index in range(shared, len(messages)):
            message = messages[index]
            question = message.role in ASKING_ROLES
            label = label_of(message)
            if not question and not label:
                continue
            if question:
                model = _answering_model(messages, index, clean_line(dialog.model_id, 60))
            else:
                model = clean_line(str(message.meta.get("model_id", "")), 60) if message.meta else ""
            entries.append(
                TimelineEntry(
                    dialog_id=dialog.id,
                    index=index,
                    branch=mark,
                    model=model,
                    first_words=_words(message),
                    label=label,
                    # a branch's own questions come after what it was branched from, in the order made
                    asked_at=dialog.created_at + index * 1e-6,
                    kind="question" if question else message_kind(message),
                )
            )
    return sorted(entries, key=lambda e: (e.asked_at, e.index))


def filter_timeline(entries: Sequence[TimelineEntry], query: str) -> list[TimelineEntry]:
    return [entry for entry in entries if entry.matches(query)] if query.strip() else list(entries)


# --- labels ----------------------------------------------------------------------------------------------------


def set_label(dialog: Dialog, index: int, label: str) -> str:
    """Label message `index` ("" removes the label); returns the label as kept (one line, at most 40 characters).

    `replace_message` emits MessageUpdated, which the store's tracker writes to the message's row.
    """
    if not 0 <= index < dialog.message_count:
        raise IndexError(f"no message {index + 1} in this dialog")
    kept = clean_line(" ".join(label.split()), LABEL_LIMIT)
    message = dialog.message_at(index)
    meta = dict(message.meta or {})
    if kept:
        meta["label"] = kept
    else:
        meta.pop("label", None)
    dialog.replace_message(index, replace(message, meta=meta))
    return kept


def labelled(family: Iterable[Dialog]) -> list[tuple[str, int, str]]:
    """(dialog id, index, label) of every labelled message of the family, each shared message once."""
    found: list[tuple[str, int, str]] = []
    seen: list[Dialog] = []
    for dialog in sorted(family, key=lambda d: (d.created_at, d.id)):
        messages = dialog.messages
        shared = max((common_prefix(messages, other.messages) for other in seen), default=0)
        seen.append(dialog)
        found += [(dialog.id, i, label) for i in range(shared, len(messages)) if (label := label_of(messages[i]))]
    return found


def label_hits(family: Iterable[Dialog], query: str) -> list[SearchHit]:
    """The family's labelled messages whose label has every word of `query`, as dialog search hits."""
    words = query.casefold().split()
    if not words:
        return []
    titles = {dialog.id: dialog.title for dialog in family}
    return [
        SearchHit(dialog_id, clean_line(titles.get(dialog_id, "")), index, f"#{label}")
        for dialog_id, index, label in labelled(family)
        if all(word.lstrip("#") in label.casefold() for word in words)
    ]


def labels_found(
    center: Center, family: Iterable[Dialog], root_of: Callable[[str], str], query: str, limit: int
) -> list[SearchHit]:
    """The labels that match `query`: the shown family's first (as they are in memory), then, when a word of the
    query begins with # (the labels' mark), every other dialog's (`Center.label_search`: a scan of the stored
    messages, ~0.1 s for 200,000 of them, bench/store_scale.py, so not on every search); a labelled message that
    branches copied is listed once per family (`root_of`)."""

    def key(hit: SearchHit) -> tuple[str, int, str]:
        return root_of(hit.dialog_id), hit.message_index, hit.snippet

    found = label_hits(family, query)
    if not any(word.startswith("#") for word in query.split()):
        return found
    seen = {key(hit) for hit in found}
    for hit in center.label_search(query, limit=limit):
        if key(hit) not in seen:
            seen.add(key(hit))
            found.append(hit)
    return found


def labels_by_dialog(family: Iterable[Dialog]) -> dict[str, list[str]]:
    """The family's labels per dialog (each shared message on the oldest dialog), for the tree."""
    grouped: dict[str, list[str]] = {}
    for dialog_id, _index, label in labelled(family):
        grouped.setdefault(dialog_id, []).append(label)
    return grouped


# --- forks -----------------------------------------------------------------------------------------------------


def fork_at(center: Center, dialog: Dialog, index: int) -> Dialog:
    """A new branch of `dialog` whose history ends with message `index` (any message: answer, tool call, result)."""
    if not 0 <= index < dialog.message_count:
        raise IndexError(f"no message {index + 1} in this dialog")
    branch = center.branch_at(dialog, index + 1)
    return branch


def turn_starts(messages: Sequence[Message]) -> list[int]:
    """Where each turn begins: at each question (a system message before the first one starts nothing)."""
    return [i for i, message in enumerate(messages) if message.role in ASKING_ROLES]


def tail_fork(center: Center, dialog: Dialog, turns: int) -> Dialog:
    """A new dialog with the last `turns` turns of `dialog` (its system messages kept), pointing back at it."""
    starts = turn_starts(dialog.messages)
    if turns < 1 or not starts:
        raise ValueError("there is no turn to take" if not starts else "take at least one turn")
    start = starts[-min(turns, len(starts))]
    fresh = Dialog(center)
    dialog.copy_to(fresh)  # configuration and messages; the messages are replaced next
    for function_id in dialog.function_ids:
        fresh.add_function(dialog.get_function(function_id))
    systems = [m for m in dialog.messages[:start] if m.role is Role.SYSTEM]
    kept = systems + list(dialog.messages[start:])
    fresh.clear_messages()
    fresh.branch_from_id = ""  # not a branch: its history does not begin where the old dialog's does
    first = len(systems)
    for position, message in enumerate(kept):
        if position == first:
            origin = {"dialog_id": dialog.id, "index": start, "title": clean_line(dialog.title, 80)}
            meta = {**(message.meta or {}), "forked_from": origin}
            message = replace(message, meta=meta)
        fresh.append_message(message)
    taken = min(turns, len(starts))
    fresh.title = clean_line(f"{dialog.title or 'Dialog'} (last {taken} turn{'s' if taken != 1 else ''})", 120)
    center.add_dialog(fresh)
    return fresh


def forked_from(dialog: Dialog) -> tuple[str, int] | None:
    """Where a tail fork came from: (dialog id, message index), or None."""
    for message in dialog.messages[:3]:
        origin = message.meta.get("forked_from") if message.meta else None
        if isinstance(origin, dict) and isinstance(origin.get("dialog_id"), str):
            return origin["dialog_id"], int(origin.get("index", 0))
    return None


def turns_problem(most: int) -> Callable[[str], str | None]:
    """The check for "how many turns": a whole number from 1 to `most`."""

    def check(text: str) -> str | None:
        if not text.isdigit() or not 1 <= int(text) <= most:
            return f"A whole number from 1 to {most}, please."
        return None

    return check


def message_kind(message: Message) -> str:
    """ "answer", "tool call", "tool result", "system message" or "question", for the notices."""
    if message.role is Role.ASSISTANT:
        return "tool call" if message.tool_calls else "answer"
    return {Role.TOOL: "tool result", Role.SYSTEM: "system message"}.get(message.role, "question")
