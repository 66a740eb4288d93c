"""The Revenge Port-flip rule, once, for the combat kernels and the game's port defence.

revenge-of-the-old-ones-rules.txt: "If your Port survives an attack, but took 2 or more
damage, the Port token is flipped to Strength 2, and remains at 2 thereafter." The 2 is
the data pack's ``port.flip_threshold``; what "survives" means is the caller's (a combat
alone: every Old One gone with the token still up; the game: the Port not lost, with a
strength-4 side to flip).
"""

from simkit.kernels.low.jit import kernel


@kernel(inline="always")
def port_flips(survived, port_hits, flip_threshold):
    """True if a Port that survived an attack after taking ``port_hits`` damage flips."""
    return survived & (port_hits >= flip_threshold)
