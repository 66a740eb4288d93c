"""Pluggable decision makers: combat policies now, whole-game players later."""
