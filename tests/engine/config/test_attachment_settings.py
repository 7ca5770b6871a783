"""The provider settings the attachments read are checked like the others: a wrong value is a problem, not
silently a default."""

from __future__ import annotations

from visindigo.engine.attachments import image_limits_for, text_limit
from visindigo.engine.config import load_config
from visindigo.engine.paths import Paths

from .conftest import write


def test_attachment_settings_are_checked_and_applied(paths: Paths) -> None:
    write(
        paths,
        """
[providers.p]
kind = "openai"
base_url = "http://127.0.0.1:9"

[providers.p.settings]
attachment_text_limit = 20000
image_long_side = "big"
image_max_bytes = 1000000
""",
    )
    config, problems = load_config(paths)
    assert [p.key for p in problems] == ["providers.p.settings.image_long_side"]
    [provider] = config.providers()
    assert text_limit(provider.settings) == 20_000
    limits = image_limits_for(provider.kind, provider.settings)
    assert (limits.long_side, limits.max_bytes) == (2048, 1_000_000)  # the bad value left out: the default
