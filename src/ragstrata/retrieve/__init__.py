"""retrieve stage (built by a later issue)."""
