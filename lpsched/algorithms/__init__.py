"""Searches and constructions on top of the models: steady state, max-stretch, checks."""
