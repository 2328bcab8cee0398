"""relations."""
