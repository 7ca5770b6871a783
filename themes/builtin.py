"""The themes Visindigo ships: dark, light, high contrast, colour-blind safe, one on the 16 ANSI colours, and the
no-colour one NO_COLOR selects.

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
        # Contrast (themes/contrast.py): outlines and the scrollbar at 3:1, placeholders at 4.5:1.
        "border-blurred": "#64678C",
        "scrollbar": "#6466A8",
        "text-disabled": "#9A9CAB",
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
        # Contrast (themes/contrast.py): outlines and the scrollbar at 3:1, placeholders and small headings at 4.5:1.
        "border-blurred": "#7E81A0",
        "scrollbar": "#6E72B8",
        "text-disabled": "#5E5F6B",
        "markdown-h6-color": "#4A4C5C",
        # Button labels white: the generated near-white was 4.16:1 on the amber of "Allow for this dialog".
        "button-color-foreground": "#FFFFFF",
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
        "screen-selection-background": "#00FFFF",
        "screen-selection-foreground": "#000000",
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

# Okabe and Ito's palette, told apart with any of the common colour vision deficiencies: blue and orange carry
# "good" and "bad" (success is blue, error vermilion), never red against green; every meaning also has its word.
COLOUR_BLIND = Theme(
    name="visindigo-colour-blind",
    primary="#56B4E9",
    secondary="#CC79A7",
    accent="#F0E442",
    warning="#E69F00",
    error="#E8743A",
    success="#56B4E9",
    foreground="#E8E8E8",
    background="#121417",
    surface="#1A1D21",
    panel="#2B3036",
    dark=True,
    variables={
        "footer-key-foreground": "#56B4E9",
        "input-selection-background": "#0072B2 60%",
        "block-cursor-background": "#0072B2",
        "block-cursor-foreground": "#FFFFFF",
        "block-cursor-text-style": "bold",
        "border-blurred": "#6A717C",
        "scrollbar": "#6A717C",
        "text-disabled": "#9AA0A8",
    },
)

# What the app paints under NO_COLOR (https://no-color.org): the terminal's default colours only (Textual drops
# every colour), so cursors and selections are shown by text styles instead.
NO_COLOR = Theme(
    name="visindigo-no-color",
    ansi=True,
    primary="ansi_default",
    foreground="ansi_default",
    background="ansi_default",
    surface="ansi_default",
    panel="ansi_default",
    boost="ansi_default",
    dark=True,
    variables={
        "ansi-background": "ansi_default",
        "ansi-foreground": "ansi_default",
        "block-cursor-text-style": "bold reverse",
        "block-cursor-blurred-text-style": "reverse",
        "input-cursor-text-style": "reverse",
        "footer-key-foreground": "ansi_default",
        "markdown-h1-text-style": "bold underline",
        "markdown-h2-text-style": "bold underline",
    },
)

# For plain terminals (and for users who want their terminal's own palette): every colour is one of the
# 16 ANSI colours or the terminal's default, so the terminal decides what they look like.
ANSI = Theme(
    name="visindigo-ansi",
    ansi=True,
    primary="ansi_bright_cyan",
    secondary="ansi_cyan",
    accent="ansi_bright_magenta",
    warning="ansi_yellow",
    error="ansi_bright_red",
    success="ansi_bright_green",
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
        "block-cursor-foreground": "ansi_bright_white",
        "block-cursor-background": "ansi_blue",
        "block-cursor-blurred-background": "ansi_bright_black",
        "block-cursor-blurred-foreground": "ansi_black",
        "input-cursor-background": "ansi_white",
        "input-cursor-foreground": "ansi_black",
        "input-cursor-text-style": "none",
        "input-selection-background": "ansi_blue",
        "input-selection-foreground": "ansi_bright_white",
        "screen-selection-background": "ansi_blue",
        "screen-selection-foreground": "ansi_bright_white",
        "footer-key-foreground": "ansi_bright_cyan",
        # Textual's ANSI defaults for these are dark blue and magenta, under 4.5:1 on a dark terminal.
        "markdown-h1-color": "ansi_bright_magenta",
        "markdown-h2-color": "ansi_bright_cyan",
        "markdown-h3-color": "ansi_bright_cyan",
        "link-color": "ansi_bright_cyan",
        "scrollbar": "ansi_bright_black",
        "button-color-foreground": "ansi_default",
    },
)

BUILTIN_THEMES: dict[str, Theme] = {theme.name: theme for theme in (DARK, LIGHT, HIGH_CONTRAST, COLOUR_BLIND, ANSI)}
"""Visindigo's own themes by name, in the order they are offered."""

DEFAULT_THEME = DARK.name
