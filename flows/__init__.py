"""Prefect flows. Flows only orchestrate: the logic they call lives in :mod:`tasks`."""
