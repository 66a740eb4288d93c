"""simkit: a balance lab for AuZtralia, Revenge of the Old Ones and Project Athena."""

__version__ = "0.1.0"

# Bumped whenever simulated behaviour changes (never for refactors or speed-ups).
# 6: chance in named streams (setup, Old One deck, movement, Mythos, OOP, seats)
# 7: the streams are xoshiro256** states seeded in the kernel from (chunk key, game, stream)
ENGINE_VERSION = 7
