"""The Compare page: cards side by side, and what fits on each."""
