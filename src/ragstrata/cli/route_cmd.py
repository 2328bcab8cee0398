"""`ragstrata route` and `ragstrata schema` (filled in by the router work)."""
