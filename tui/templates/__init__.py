"""Prompt templates in the app: the form generated from a template, the editor, the library and its search."""
