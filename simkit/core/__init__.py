"""Game-neutral machinery shared by every game module (no game names in here)."""
