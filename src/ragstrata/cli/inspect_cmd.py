"""`ragstrata inspect` (filled in by the ingestion work)."""
