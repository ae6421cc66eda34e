"""Stance annotation: task files out, labels in, rounds, agreement and gold labels.

Pure functions live here; reading and writing the warehouse goes through
:mod:`warehouse.annotation`.
"""
