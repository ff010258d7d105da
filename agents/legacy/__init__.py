"""Frozen earlier versions of the shipped players, kept as yardsticks."""
