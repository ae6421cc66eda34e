"""Stance detection: datasets, evidence selection, models and evaluation."""
