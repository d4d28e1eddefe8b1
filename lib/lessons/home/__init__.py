"""Home: the one-minute answer from the shipped recordings."""
