"""A broken config.toml does not stop the app: it starts, and each problem is shown with file and key."""

from __future__ import annotations

from pathlib import Path

from tests.tui.helpers import make_app, settle
from visindigo.engine import Center


async def test_the_app_starts_with_a_broken_config_and_shows_each_problem(tmp_path: Path) -> None:
    config = tmp_path / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        'theme = 5\n[providers.good]\nkind = "scripted"\n[providers.bad]\nkind = "openai"\nbase_url = "ftp://x"\n',
        encoding="utf-8",
    )
    center = Center.open(tmp_path)
    try:
        app = make_app(center=center)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            assert app.main_screen is not None  # started, not stopped by the config
            shown = [str(n.message) for n in app._notifications]
            assert f"{config}: theme: expected text in quotes, found a whole number" in "\n".join(shown)
            assert any(s.startswith(f"{config}: providers.bad.base_url: must be an http") for s in shown)
            assert [p.id for p in center.providers] == ["good"]  # the rest of the file is in use
    finally:
        center.close()
