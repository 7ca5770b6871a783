"""The four themes Visindigo ships: dark, light, high contrast, and one on the 16 ANSI colours.

Each is a plain `textual.theme.Theme`; the application's TCSS refers only to theme variables (`$primary`,
`$surface`, `$text-muted`, ...), so everything on screen follows whichever theme is active, ours, Textual's own
or a user's.
"""

from __future__ import annotations

from textual.theme import Theme

DARK = Theme(
    name="visindigo-dark",
    primary="#8B8CFF",
    secondary="#5FB3B3",
    accent="#E6B450",
    warning="#E6B450",
    error="#F07178",
    success="#8BD49C",
    foreground="#D8DAE6",
    background="#14151F",
    surface="#1C1E2B",
    panel="#2A2D45",
    dark=True,
    variables={
        "footer-key-foreground": "#8B8CFF",
        "input-selection-background": "#8B8CFF 35%",
        "block-cursor-text-style": "bold",
    },
)

LIGHT = Theme(
    name="visindigo-light",
    primary="#3F46C8",
    secondary="#1F7A7A",
    accent="#B35C00",
    warning="#A85D00",
    error="#C0283A",
    success="#2E7D32",
    foreground="#1F2130",
    background="#F6F6FB",
    surface="#EBECF4",
    panel="#DDE0EE",
    dark=False,
    variables={
        "footer-key-foreground": "#3F46C8",
        "input-selection-background": "#3F46C8 25%",
    },
)

# Pure black and white with saturated signal colours; nothing is drawn at reduced alpha, so muted and
# disabled text stay readable (WCAG contrast of every pair used here is at least 7:1).
HIGH_CONTRAST = Theme(
    name="visindigo-high-contrast",
    primary="#FFFF00",
    secondary="#00FFFF",
    accent="#FF80FF",
    warning="#FFB000",
    error="#FF5050",
    success="#00FF60",
    foreground="#FFFFFF",
    background="#000000",
    surface="#000000",
    panel="#202020",
    boost="#303030",
    dark=True,
    luminosity_spread=0.05,
    text_alpha=1.0,
    variables={
        "text": "#FFFFFF",
        "text-muted": "#E0E0E0",
        "text-disabled": "#B0B0B0",
        "foreground-muted": "#E0E0E0",
        "border": "#FFFF00",
        "border-blurred": "#FFFFFF",
        "block-cursor-background": "#FFFF00",
        "block-cursor-foreground": "#000000",
        "block-cursor-text-style": "bold",
        "block-cursor-blurred-background": "#FFFFFF",
        "block-cursor-blurred-foreground": "#000000",
        "input-cursor-background": "#FFFF00",
        "input-cursor-foreground": "#000000",
        "input-selection-background": "#00FFFF",
        "input-selection-foreground": "#000000",
        "footer-key-foreground": "#FFFF00",
        "footer-background": "#000000",
        "footer-foreground": "#FFFFFF",
        "button-focus-text-style": "bold reverse",
        "button-color-foreground": "#000000",
        "link-color": "#00FFFF",
        "scrollbar": "#FFFFFF",
        "scrollbar-hover": "#FFFF00",
        "scrollbar-active": "#FFFF00",
        "scrollbar-background": "#202020",
    },
)

# For plain terminals (and for users who want their terminal's own palette): every colour is one of the
# 16 ANSI colours or the terminal's default, so the terminal decides what they look like.
ANSI = Theme(
    name="visindigo-ansi",
    ansi=True,
    primary="ansi_bright_blue",
    secondary="ansi_cyan",
    accent="ansi_magenta",
    warning="ansi_yellow",
    error="ansi_red",
    success="ansi_green",
    foreground="ansi_default",
    background="ansi_default",
    surface="ansi_default",
    panel="ansi_default",
    boost="ansi_default",
    dark=True,
    variables={
        "ansi-background": "ansi_black",
        "ansi-foreground": "ansi_white",
        "border": "ansi_bright_blue",
        "border-blurred": "ansi_bright_black",
        "block-cursor-foreground": "ansi_black",
        "block-cursor-background": "ansi_bright_blue",
        "block-cursor-blurred-background": "ansi_bright_black",
        "block-cursor-blurred-foreground": "ansi_default",
        "input-cursor-background": "ansi_white",
        "input-cursor-foreground": "ansi_black",
        "input-cursor-text-style": "none",
        "input-selection-background": "ansi_blue",
        "input-selection-foreground": "ansi_bright_white",
        "screen-selection-background": "ansi_blue",
        "screen-selection-foreground": "ansi_bright_white",
        "footer-key-foreground": "ansi_bright_blue",
        "button-color-foreground": "ansi_default",
    },
)

BUILTIN_THEMES: dict[str, Theme] = {theme.name: theme for theme in (DARK, LIGHT, HIGH_CONTRAST, ANSI)}
"""Visindigo's own themes by name, in the order they are offered."""

DEFAULT_THEME = DARK.name
