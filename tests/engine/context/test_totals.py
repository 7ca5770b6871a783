"""Totals of a dialog and of its branch family, each answer once, read back from a real SQLite store."""

from __future__ import annotations

from pathlib import Path

from visindigo.engine import Center, Message, ModelInfo, Provider, Role
from visindigo.engine.context.totals import dialog_totals, family_totals


def answer(answer_id: str, tokens_in: int, out: int, *, model: str = "house", cached: int = 0) -> Message:
    usage = {"input_tokens": tokens_in, "output_tokens": out, "cached_tokens": cached, "cache_write_tokens": 0}
    usage.update({"answer": answer_id, "at": 1_700_000_000.0})
    meta = {"provider_id": "gateway", "model_id": model, "usage": usage}
    return Message(Role.ASSISTANT, f"answer {answer_id}", meta=meta)


def priced_center(home: Path) -> Center:
    center = Center.open(home)
    models = [ModelInfo("house", extra={"price": {"input": 2.0, "output": 10.0}}), ModelInfo("mystery")]
    center.add_provider(Provider("gateway", kind="openai", base_url="https://gw.example.invalid/v1", models=models))
    return center


def test_a_family_counts_each_answer_once_across_its_branches_and_a_dialog_its_whole_history(tmp_path: Path) -> None:
    center = priced_center(tmp_path)
    try:
        root = center.create_dialog()
        root.title = "Trip"
        root.append_message(Role.USER, "q1")
        root.append_message(answer("a1", 1_000, 100))
        root.append_message(Role.USER, "q2")
        root.append_message(answer("a2", 2_000, 200))
        branch = center.branch_at(root, 3)  # holds a copy of a1; answers q2 again
        branch.append_message(answer("b2", 3_000, 300, cached=1_000))
        deeper = center.branch_at(branch, 4)  # a branch of the branch: copies of a1 and b2, one answer of its own
        deeper.append_message(Role.USER, "q3")
        deeper.append_message(answer("c3", 500, 50, model="mystery"))  # no price anywhere: unknown
        other = center.create_dialog()  # another family: never in these totals
        other.append_message(Role.USER, "elsewhere")
        other.append_message(answer("x1", 9_999, 999))
        ids = (root.id, branch.id, deeper.id)
    finally:
        center.close()

    center = priced_center(tmp_path)  # everything read back from the file
    try:
        root, branch, deeper = (center.get_dialog(each) for each in ids)
        assert root is not None and branch is not None and deeper is not None
        family = family_totals(center, branch)
        assert family.dialogs == 3 and family.answers == 4  # a1, a2, b2, c3: the copies of a1 and b2 once
        assert family.input_tokens == 6_500 and family.output_tokens == 650 and family.cached_tokens == 1_000
        known = (1_000 * 2 + 100 * 10 + 2_000 * 2 + 200 * 10 + 3_000 * 2 + 300 * 10) / 1_000_000
        assert abs(family.cost - known) < 1e-12 and family.unknown_cost == 1
        assert family.money() == f"${known:,.4f} + 1 unknown"
        assert family_totals(center, root) == family == family_totals(center, deeper)  # any member: the same family

        own = dialog_totals(center, deeper)  # its whole history: the copies it holds count here
        assert own.answers == 3 and own.input_tokens == 4_500 and own.unknown_cost == 1
        alone = center.get_dialog(other_id(center, ids))
        assert alone is not None and family_totals(center, alone).answers == 1
        assert family_totals(center, alone).dialogs == 1
    finally:
        center.close()


def other_id(center: Center, family: tuple[str, ...]) -> str:
    return next(s.id for s in center.dialog_summaries() if s.id not in family)
