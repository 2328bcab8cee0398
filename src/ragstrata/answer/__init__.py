"""answer stage (built by a later issue)."""
