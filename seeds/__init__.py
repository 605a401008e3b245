"""Company-A book generator: the deterministic world every app is seeded from."""
