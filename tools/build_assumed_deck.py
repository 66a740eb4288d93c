"""Rewrite the shipped assumed Old One deck (the design is in simkit/datapack/assumed_deck.py).

python tools/build_assumed_deck.py
"""

from pathlib import Path

from simkit.datapack.assumed_deck import write

if __name__ == "__main__":
    write(Path(__file__).resolve().parents[1] / "simkit" / "data" / "auztralia")
