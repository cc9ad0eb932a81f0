"""Dedicated solvers of the per-round optimization problems that a closed form does not cover."""
