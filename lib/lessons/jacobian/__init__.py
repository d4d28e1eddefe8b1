"""Jacobian: seed 003, the vectorised Jacobian on CPU and GPU."""
