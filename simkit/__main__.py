"""`python -m simkit ...` behaves exactly like the `simkit` script."""

from simkit.cli import run

run()
