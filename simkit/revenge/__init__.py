"""Revenge of the Old Ones: data for the Old One player (Mythos cards) and its rules."""
