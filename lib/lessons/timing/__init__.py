"""Timing pitfalls: what a matmul timing measures with and without each mistake (view), and its words (words)."""
