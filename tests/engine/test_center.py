"""Center: the registry of dialogs and shared configuration (in memory)."""

import pytest

from visindigo.engine import Capability, Center, InvalidFunctionId, ModelInfo, NoModelAvailable, Provider
from visindigo.engine.commands import command


@command()
def ping() -> str:
    """Answer pong."""
    return "pong"


def test_create_dialog_registers_it_and_records_the_branch() -> None:
    center = Center()
    parent = center.create_dialog()
    child = center.create_dialog(branch_from=parent)
    assert center.get_dialog(parent.id) is parent
    assert child.branch_from_id == parent.id
    assert {s.id: s.branch_from_id for s in center.dialog_summaries()} == {parent.id: "", child.id: parent.id}


def test_removing_a_dialog_keeps_its_branches_reachable() -> None:
    center = Center()
    root = center.create_dialog()
    middle = center.create_dialog(branch_from=root)
    leaf_a = center.create_dialog(branch_from=middle)
    leaf_b = center.create_dialog(branch_from=middle)
    assert center.remove_dialog(middle.id) is True
    assert center.get_dialog(middle.id) is None
    assert leaf_a.branch_from_id == root.id and leaf_b.branch_from_id == root.id
    assert center.remove_dialog(middle.id) is False


def test_center_functions_obey_the_id_rule() -> None:
    center = Center()
    center.add_function(ping)
    assert center.function_ids == ["ping"]
    with pytest.raises(InvalidFunctionId):

        @command(names=["ok"])
        def fine() -> None:
            """Fine."""

        fine.names[0] = "not ok"
        center.add_function(fine)


def test_the_first_provider_becomes_the_default() -> None:
    center = Center()
    assert center.default_provider is None
    a = Provider("a", base_url="http://127.0.0.1:1/v1/")
    b = Provider("b")
    center.add_provider(a).add_provider(b)
    assert center.default_provider is a
    assert a.base_url == "http://127.0.0.1:1/v1"
    center.default_provider_id = "b"
    assert center.default_provider is b
    center.remove_provider("b")
    assert center.default_provider is a


def test_provider_keys_never_show_in_repr(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_PROVIDER_KEY", "sk-secret-from-env")
    provider = Provider("p", api_key_env="TEST_PROVIDER_KEY")
    assert provider.api_key == "sk-secret-from-env"
    explicit = Provider("q", api_key="sk-explicit")
    assert "sk-" not in repr(provider) + repr(explicit)


def test_pick_model_prefers_the_requested_model_when_it_fits() -> None:
    text = ModelInfo("small", capabilities=Capability.TEXT)
    vision = ModelInfo("vision", capabilities=Capability.TEXT | Capability.IMAGE)
    provider = Provider("p", models=[text, vision])
    assert provider.pick_model(Capability.TEXT, "vision") is vision
    assert provider.pick_model(Capability.TEXT, "") is text
    assert provider.pick_model(Capability.TEXT | Capability.IMAGE, "small") is vision
    assert provider.pick_model(Capability.TEXT, "unknown") is text
    with pytest.raises(NoModelAvailable, match="supports text, tools"):
        provider.pick_model(Capability.TEXT | Capability.TOOLS, "small")
    with pytest.raises(NoModelAvailable, match="has no models"):
        Provider("empty").pick_model()


def test_regenerate_branches_a_copy_cut_before_the_last_answer() -> None:
    from visindigo.engine import Role, Skill

    center = Center()
    dialog = center.create_dialog()
    dialog.title = "Kyoto"
    dialog.add_skill(Skill("tone", "brief"))
    dialog.add_function(ping)
    dialog.append_message(Role.USER, "q1").append_message(Role.ASSISTANT, "a1")
    dialog.append_message(Role.USER, "q2").append_message(Role.ASSISTANT, "a2")
    branch = center.regenerate(dialog)
    assert branch.id != dialog.id
    assert branch.branch_from_id == dialog.id
    assert [m.content for m in branch.messages] == ["q1", "a1", "q2"]
    assert [m.content for m in dialog.messages] == ["q1", "a1", "q2", "a2"]  # nothing is lost
    assert branch.title == "Kyoto" and [s.name for s in branch.skills] == ["tone"]
    assert branch.get_function("ping") is ping
    assert center.get_dialog(branch.id) is branch


def test_branch_at_cuts_before_an_edited_question() -> None:
    from visindigo.engine import Role

    center = Center()
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "q1").append_message(Role.ASSISTANT, "a1").append_message(Role.USER, "q2")
    branch = center.branch_at(dialog, 2)
    branch.append_message(Role.USER, "q2 edited")
    assert [m.content for m in branch.messages] == ["q1", "a1", "q2 edited"]
    assert dialog.last_message.content == "q2"
    assert center.regenerate(center.create_dialog()).message_count == 0
