"""store stage (built by a later issue)."""
