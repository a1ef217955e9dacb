"""Rendering: templates and their context, Markdown, highlighting, themes."""
