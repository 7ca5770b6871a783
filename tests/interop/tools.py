"""The tools the llama-server tests offer (also used by the loopback tests of its recorded responses)."""

from __future__ import annotations

from visindigo.engine.commands import command

__all__ = ["get_time", "get_weather"]


@command()
def get_time(tz: str) -> dict[str, str]:
    """The current time in a time zone."""
    return {"tz": tz, "time": "12:00"}


@command()
def get_weather(city: str) -> dict[str, str]:
    """The weather in a city."""
    return {"city": city, "weather": "sunny"}
