"""Which files a user can mean: the `@` list of the start folder, and a paste that is nothing but dropped files."""

from __future__ import annotations

from pathlib import Path

from visindigo.engine.attachments import files_under, pasted_paths


def test_the_list_is_shallow_first_and_leaves_out_hidden_and_build_folders(tmp_path: Path) -> None:
    for name in ("README.md", "src/app.py", "src/deep/er/x.py", "docs/a.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    for skipped in (".git/config", "node_modules/pkg/index.js", "__pycache__/a.pyc", ".venv/bin/python",
                    ".hidden/secret.txt", "src/.cache/blob"):  # fmt: skip
        (tmp_path / skipped).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / skipped).write_text("x")
    (tmp_path / ".env").write_text("KEY=1")  # a hidden file (not a folder) is a file one may attach
    (tmp_path / "root").symlink_to("/", target_is_directory=True)  # a link to / is not walked into
    assert files_under(tmp_path) == [".env", "README.md", "docs/a.md", "src/app.py", "src/deep/er/x.py"]


def test_the_list_stops_at_its_limit(tmp_path: Path) -> None:
    for number in range(30):
        (tmp_path / f"f{number:02d}.txt").write_text("x")
    assert files_under(tmp_path, limit=10) == [f"f{number:02d}.txt" for number in range(10)]


def test_a_paste_of_dropped_files_is_read_as_a_shell_would(tmp_path: Path) -> None:
    shots = tmp_path / "My Shots"
    shots.mkdir()
    (shots / "a b.png").write_bytes(b"x")
    (tmp_path / "README.md").write_text("x")
    quoted, escaped = f"'{shots}/a b.png'", f"{shots}/a\\ b.png".replace("My Shots", "My\\ Shots")
    assert pasted_paths(quoted, tmp_path) == [f"{shots}/a b.png"]
    assert pasted_paths(f"{escaped}  {quoted}\n", tmp_path) == [f"{shots}/a b.png"] * 2
    assert pasted_paths(f"file://{str(shots).replace(' ', '%20')}/a%20b.png", tmp_path) == [f"{shots}/a b.png"]
    assert pasted_paths("./README.md", tmp_path) == ["./README.md"]  # relative to the start folder


def test_anything_else_is_text_to_paste(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("x")
    (tmp_path / "folder").mkdir()
    for text in ("README.md",  # a bare word stays a word even where such a file exists
                 f"see {tmp_path}/README.md",  # words that are not files
                 f"{tmp_path}/missing.png", f"{tmp_path}/folder", f"'{tmp_path}/README.md",  # unclosed quote
                 "", "   ", f"{tmp_path}/README.md " * 1000):  # fmt: skip
        assert pasted_paths(text, tmp_path) == [], text
