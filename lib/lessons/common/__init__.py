"""What every page shares: one voice for sentences, the time split, what surrounds a chart, the live policy."""
