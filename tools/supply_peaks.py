"""How many of the box's unlimited-in-the-engine tokens simulated games use (base
Components: 157 Resource Tokens, 17 Victory Point Tokens; Revenge adds "Extra VP and Sanity
tokens", a number not printed). The engine does not cap these supplies; this measures
whether a cap would ever bind.

    .venv/bin/python tools/supply_peaks.py --games 500

Per game it reads the state at two moments: right after setup (every resource token on
the board: later the board only loses tokens) and at the end (tokens on the board plus in
the players' hands, and VP tokens, which are only ever gained, so the end is their peak).
Resources in hand mid-game may exceed the end's count; the board at setup plus the end's
hands bounds the tokens in play from above only if no token is taken twice, so both
figures are printed as what they are. Prints one JSON line per mode.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from simkit.game.engine import Engine, make_spec
from simkit.game.streams import game_streams
from simkit.kernels.low import game_layout as L

# base Components; Revenge adds "Extra VP and Sanity tokens" without a number, so in Revenge
# the 17 are a floor of the VP supply, not its size
BOX = {"resource_tokens": 157, "vp_tokens": 17}
CASES = {
    "base 4p": ("base", 4, {}),
    "revenge 4 humans": ("revenge", 4, {"oop": "mythos"}),
    "revenge 2 humans": ("revenge", 2, {"oop": "rusher"}),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    eng = Engine()
    res = slice(L.H_RES, L.H_RES + L.NUM_RES)
    hands = slice(L.P_RES, L.P_RES + L.NUM_RES)
    for name, (mode, players, extra) in CASES.items():
        spec = make_spec(mode, players, "balanced", **extra)
        setup, end, vp = [], [], []
        for g in range(args.games):
            eng.set_up(game_streams((args.seed, 0, g)), spec)
            setup.append(int(eng.state.hx[:, res].sum()))
            eng.play((args.seed, 0, g), spec)
            X = eng.state
            n = int(X.g[L.G_NUM_PLAYERS])
            end.append(int(X.hx[:, res].sum() + X.pl[:n, hands].sum()))
            # a collected Spawn tile is counted in P_VP_TOKENS but is its own tile, not a token
            vp.append(int(X.pl[:n, L.P_VP_TOKENS].sum() - X.pl[:n, L.P_SPAWNS].sum()))
        print(
            json.dumps(
                {
                    "case": name,
                    "games": args.games,
                    "resource_tokens_on_board_at_setup_max": max(setup),
                    "resource_tokens_board_and_hands_at_end_max": max(end),
                    "resource_tokens_in_box": BOX["resource_tokens"],
                    "vp_tokens_peak_max": max(vp),
                    "vp_tokens_peak_p99": float(np.percentile(vp, 99)),
                    "vp_tokens_in_box": BOX["vp_tokens"],
                }
            )
        )


if __name__ == "__main__":
    main()
