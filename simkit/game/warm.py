"""Compile the game engine ahead of its first use, in a process of its own.

    python -m simkit.game.warm [PARENT_PID]

numba compiles a kernel the first time it is called and keeps the machine code in its
on-disk cache; another process that needs the same kernel later loads it from there.
So a command that will play games after other work (``simkit demo`` computes combat odds
first) starts this in the background: the game engine compiles on the second core while
the first one computes, and the later Engine call loads it in seconds. Every game mode
runs through the same entry point (simkit.kernels.game_loop.play_chunk), so two Revenge
games on the shipped pack compile it for all of them; with PARENT_PID it exits as soon
as that process is gone.
"""

from __future__ import annotations

import os
import subprocess
import sys


def compile_engine() -> None:
    from simkit.game.engine import Engine, make_spec

    Engine().play_many(make_spec("revenge", 2, "balanced"), 0, 0, 2)


def compile_player_turn() -> None:
    """Compile the human seats' turn (player_turn and what it calls) into the disk cache.

    The background warm-up compiles the engine top-down and reaches player_turn last (the
    Old Ones' turns come first), so a process that is idle meanwhile can compile it
    here and the warm-up then loads it from the cache (same argument types as in
    play_chunk). It plays one turn of a throwaway base game."""
    from simkit.game.engine import Engine, make_spec
    from simkit.game.streams import game_streams
    from simkit.kernels.game_actions import player_turn

    eng = Engine()
    rngs = game_streams((0, 0, 0))
    eng.set_up(rngs, make_spec("base", 2, "balanced"))
    player_turn(rngs, eng.S, eng.X, eng.W, 0)


def start_in_background() -> subprocess.Popen:
    """The warm-up as a child process (quiet; it dies with this one)."""
    return subprocess.Popen(
        [sys.executable, "-m", "simkit.game.warm", str(os.getpid())],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def main(argv: list[str]) -> int:
    import socket

    from simkit.core.watch import watch_parent

    if len(argv) > 1 or (argv and not argv[0].isdigit()):
        print("usage: python -m simkit.game.warm [PARENT_PID]", file=sys.stderr)
        return 2
    if argv:
        watch_parent((socket.gethostname(), int(argv[0])))
    compile_engine()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
