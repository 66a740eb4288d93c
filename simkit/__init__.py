"""simkit: a balance lab for AuZtralia, Revenge of the Old Ones and Project Athena."""

__version__ = "0.1.0"

# Bumped whenever simulated behaviour changes (never for refactors or speed-ups).
# 6: chance in named streams (setup, Old One deck, movement, Mythos, OOP, seats)
# 7: the streams are xoshiro256** states seeded in the kernel from (chunk key, game, stream)
# 8: printed deck sizes (30 Mythos cards, 51 Personalities; unknown texts are blanks), the
#    Outpost supply read from units.toml, readings of open rule texts as switches
# 9: honest search: Revelations re-dealt from every undrawn card of a level, the Mythos
#    pile re-dealt in Mythos Solo, opponents rolled out with a public model by default
ENGINE_VERSION = 9
