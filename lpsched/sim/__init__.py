"""Discrete-event simulation: a small general core and the platform simulators on top."""
