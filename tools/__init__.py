"""Developer scripts (not shipped): generators of committed data, run from the repository root."""
