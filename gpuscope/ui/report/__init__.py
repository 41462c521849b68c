"""The Report page and the report drawn as a picture."""
