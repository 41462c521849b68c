"""Views of the model that need no Qt: text, JSON (and later HTML and Markdown)."""
