"""The template library on a real folder: reading, precedence, create/edit/duplicate/delete, remembered values."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from visindigo.engine import Center, Prompt
from visindigo.engine.templates.library import TemplateError, TemplateLibrary


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_missing_folder_is_an_empty_library_and_is_created_on_first_write(tmp_path: Path) -> None:
    folder = tmp_path / "prompts"
    library = TemplateLibrary(folder)
    assert library.entries() == [] and library.problems == []
    entry = library.create(Prompt("Hello world", "Say hi to {{name}}", tags=("x",)))
    assert entry.path == folder / "hello-world.md"
    expected = '+++\nname = "Hello world"\ntags = ["x"]\n+++\n\nSay hi to {{name}}\n'
    assert entry.path.read_text(encoding="utf-8") == expected
    assert TemplateLibrary(folder).file_prompts() == [Prompt("Hello world", "Say hi to {{name}}", tags=("x",))]


def test_unreadable_files_are_reported_skipped_and_left_untouched(tmp_path: Path) -> None:
    good = write(tmp_path, "good.md", '+++\nname = "Good"\n+++\nok {{x}}\n')
    bad = write(tmp_path, "bad.md", "+++\nname = oops\n+++\nbody\n")
    empty = write(tmp_path, "empty.md", '+++\nname = "Empty"\n+++\n\n')
    twin = write(tmp_path, "good2.md", '+++\nname = "Good"\n+++\nother\n')
    (tmp_path / "binary.md").write_bytes(b"\xff\xfe\x00bad")
    write(tmp_path, "notes.txt", "ignored")
    write(tmp_path, ".hidden.md", "ignored")
    library = TemplateLibrary(tmp_path)
    assert [p.name for p in library.file_prompts()] == ["Good"]
    assert library.path_of("Good") == good
    messages = sorted(str(p) for p in library.problems)
    assert messages == [
        "bad.md: the front matter is not valid TOML (Invalid value (at line 1, column 8))",
        "binary.md: is not UTF-8 text",
        "empty.md: has no template text",
        "good2.md: uses the name 'Good' of good.md; skipped",
    ]
    assert bad.read_text() == "+++\nname = oops\n+++\nbody\n"
    assert empty.exists() and twin.exists()


def test_dialog_wins_over_file_which_wins_over_center(tmp_path: Path) -> None:
    write(tmp_path, "a.md", '+++\nname = "shared"\n+++\nfrom the file\n')
    write(tmp_path, "b.md", '+++\nname = "file-only"\n+++\nfile\n')
    center = Center()
    center.add_prompt(Prompt("shared", "from the center"))
    center.add_prompt(Prompt("center-only", "center"))
    dialog = center.create_dialog()
    library = TemplateLibrary(tmp_path)

    entries = {e.name: e for e in library.entries(dialog)}
    assert {n: (e.source, e.template.content) for n, e in entries.items()} == {  # type: ignore[union-attr]
        "center-only": ("center", "center"),
        "file-only": ("file", "file"),
        "shared": ("file", "from the file"),
    }
    dialog.add_prompt(Prompt("shared", "from the dialog"))
    shared = library.get("shared", dialog)
    assert shared is not None and shared.source == "dialog" and not shared.editable
    assert [e.name for e in library.entries(dialog)] == ["center-only", "file-only", "shared"]


def test_create_refuses_duplicates_and_invalid_templates(tmp_path: Path) -> None:
    library = TemplateLibrary(tmp_path)
    library.create(Prompt("A", "text"))
    with pytest.raises(TemplateError, match=r"A template named 'A' already exists\."):
        library.create(Prompt(" A ", "other"))
    with pytest.raises(TemplateError, match="needs a name"):
        library.create(Prompt("  ", "text"))
    with pytest.raises(TemplateError, match="needs some text"):
        library.create(Prompt("B", "  \n"))
    with pytest.raises(TemplateError, match="one line"):
        library.create(Prompt("B\nC", "x"))


def test_names_that_slug_alike_get_distinct_files(tmp_path: Path) -> None:
    library = TemplateLibrary(tmp_path)
    first = library.create(Prompt("Code review", "a"))
    second = library.create(Prompt("code  REVIEW", "b"))
    third = library.create(Prompt("代码 审查!", "c"))
    assert [first.path.name, second.path.name, third.path.name] == [  # type: ignore[union-attr]
        "code-review.md", "code-review-2.md", "代码-审查.md"]


def test_update_rewrites_in_place_and_may_rename(tmp_path: Path) -> None:
    path = write(tmp_path, "t.md", '+++\nname = "Old"\nmodel = "keep-me"\n+++\nold text\n')
    library = TemplateLibrary(tmp_path)
    library.remember("prompt:Old", {"x": "1"})
    entry = library.update("Old", Prompt("New", "new {{x}}", description="d", tags=("t",)))
    assert entry.path == path
    expected = '+++\nname = "New"\ndescription = "d"\ntags = ["t"]\nmodel = "keep-me"\n+++\n\nnew {{x}}\n'
    assert path.read_text() == expected
    assert [p.name for p in library.file_prompts()] == ["New"]
    assert library.remembered("prompt:Old") == {}


def test_update_refuses_a_name_in_use_and_unknown_names(tmp_path: Path) -> None:
    library = TemplateLibrary(tmp_path)
    library.create(Prompt("A", "a"))
    library.create(Prompt("B", "b"))
    with pytest.raises(TemplateError, match="'B' already exists"):
        library.update("A", Prompt("B", "x"))
    with pytest.raises(TemplateError, match="no template file named 'Z'"):
        library.update("Z", Prompt("Z", "x"))
    assert library.path_of("A") is not None and library.path_of("A").read_text().endswith("\na\n")  # type: ignore[union-attr]


def test_update_refuses_to_overwrite_a_file_changed_on_disk(tmp_path: Path) -> None:
    library = TemplateLibrary(tmp_path)
    path = library.create(Prompt("A", "mine")).path
    assert path is not None
    path.write_text('+++\nname = "A"\n+++\nsomeone else edited this file\n', encoding="utf-8")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000))
    with pytest.raises(TemplateError, match="changed on disk after it was read; reload"):
        library.update("A", Prompt("A", "my edit"))
    assert "someone else" in path.read_text()
    library.reload()
    library.update("A", Prompt("A", "my edit"))
    assert path.read_text().endswith("\nmy edit\n")


def test_duplicate_makes_numbered_copies_of_any_local_template(tmp_path: Path) -> None:
    library = TemplateLibrary(tmp_path)
    original = Prompt("Plan", "plan {{x}}", description="d", tags=("a",))
    first = library.duplicate(original)
    second = library.duplicate(original)
    assert (first.name, second.name) == ("Plan (copy)", "Plan (copy 2)")
    assert first.template == Prompt("Plan (copy)", "plan {{x}}", description="d", tags=("a",))
    assert first.source == "file"


def test_delete_moves_the_file_to_the_trash(tmp_path: Path) -> None:
    library = TemplateLibrary(tmp_path)
    path = library.create(Prompt("Gone", "bye")).path
    assert path is not None
    library.remember("prompt:Gone", {"a": "b"})
    target = library.delete("Gone")
    assert not path.exists()
    assert target.parent == tmp_path / ".trash" and target.read_text().endswith("\nbye\n")
    assert library.entries() == [] and TemplateLibrary(tmp_path).entries() == []
    assert library.remembered("prompt:Gone") == {}
    with pytest.raises(TemplateError, match="no template file named 'Gone'"):
        library.delete("Gone")


def test_a_delete_that_cannot_move_the_file_is_a_clear_error_and_keeps_it(tmp_path: Path) -> None:
    library = TemplateLibrary(tmp_path)
    path = library.create(Prompt("Kept", "text")).path
    assert path is not None
    (tmp_path / ".trash").write_text("a file where the trash folder should be")
    with pytest.raises(TemplateError, match=r"Could not move kept\.md to .*\.trash: File exists\."):
        library.delete("Kept")
    assert path.read_text().endswith("\ntext\n")
    assert [p.name for p in library.file_prompts()] == ["Kept"]


def test_writes_are_atomic_and_leave_no_temporary_files(tmp_path: Path) -> None:
    library = TemplateLibrary(tmp_path)
    for i in range(5):
        library.create(Prompt(f"T{i}", "x"))
    library.update("T1", Prompt("T1", "y"))
    library.remember("prompt:T1", {"a": "1"})
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def test_remembered_values_persist_in_a_given_file(tmp_path: Path) -> None:
    values = tmp_path / "state" / "form-values.json"
    library = TemplateLibrary(tmp_path / "prompts", values_path=values)
    library.remember("prompt:A", {"x": "1", "y": "two"})
    assert json.loads(values.read_text()) == {"prompt:A": {"x": "1", "y": "two"}}
    assert TemplateLibrary(tmp_path / "prompts", values_path=values).remembered("prompt:A") == {"x": "1", "y": "two"}


def test_a_damaged_values_file_is_moved_aside_not_overwritten(tmp_path: Path) -> None:
    values = tmp_path / ".values.json"
    values.write_text("{not json", encoding="utf-8")
    library = TemplateLibrary(tmp_path)
    assert library.remembered("prompt:A") == {}
    library.remember("prompt:A", {"x": "1"})
    assert (tmp_path / ".values.json.bad").read_text() == "{not json"
    assert json.loads(values.read_text()) == {"prompt:A": {"x": "1"}}


def test_a_write_failure_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x")
    library = TemplateLibrary(blocker / "prompts")
    with pytest.raises(TemplateError, match="Could not write"):
        library.create(Prompt("A", "a"))
    assert library.entries() == []
