"""Seeded games of every mode and player kind, one hash line per kind: two checkouts that
print the same lines play the same games (summary rows and event logs).

    PYTHONPATH=DIR .venv/bin/python tools/hash_games.py > DIR.txt    # for each checkout
    diff OLD.txt NEW.txt

The golden logs (tests/test_game_golden.py) pin six games; a speed change that must not
alter play is checked here on a few thousand, with the learned players and every search
option (public and actual models, peek, halving, the Old One player's search) included.
"""

from __future__ import annotations

import hashlib

from simkit.game.engine import Engine, make_spec

S = "experiments/strategies/"
LEARNED = {
    "difficulty": "normal",
    "oop": f"learned:{S}learned_adv_oop_revenge_2h_normal.toml",
}
CASES = [  # (mode, players, strategies, options, games)
    ("base", 2, "economist,hunter", {}, 300),
    ("base", 3, "random", {}, 200),
    ("base", 4, "balanced,defender,hunter,economist", {}, 200),
    ("base", 2, f"learned:{S}learned_base_2p.toml,balanced", {}, 200),
    ("revenge", 2, "balanced", {"difficulty": "normal", "oop": "rusher"}, 300),
    ("revenge", 3, "balanced", {"difficulty": "hard", "oop": "mythos"}, 200),
    ("revenge", 4, "balanced", {"difficulty": "heroic", "oop": "random"}, 200),
    ("revenge", 2, f"learned:{S}learned_adv_revenge_2h_normal.toml", LEARNED, 200),
    ("mythos-solo", 1, "balanced", {"difficulty": "normal"}, 300),
    ("base", 2, "search:rollouts=2,balanced", {}, 4),
    ("base", 2, "search:rollouts=2:model=actual,balanced", {}, 3),
    ("base", 2, "search:rollouts=2:peek=1,balanced", {}, 3),
    ("base", 2, "search:rollouts=2:halving=1,balanced", {}, 3),
    ("revenge", 2, "balanced", {"difficulty": "normal", "oop": "search:rollouts=2"}, 4),
    ("revenge", 2, "search:rollouts=2", {"difficulty": "hard", "oop": "rusher"}, 2),
    ("base", 2, "search:rollouts=2:objective=margin,balanced", {}, 3),
    (
        "revenge",
        2,
        "balanced",
        {"difficulty": "hard", "oop": "search:rollouts=2:mythos=1:sites=1"},
        2,
    ),
    (
        "revenge",
        2,
        "balanced",
        {"difficulty": "normal", "oop": "search:rollouts=3:halving=1:objective=margin"},
        2,
    ),
]


def main() -> None:
    eng = Engine()
    for mode, n, strategies, options, games in CASES:
        spec = make_spec(mode, n, strategies, **options)
        rows, logs = eng.play_many(spec, 7, 1, games, log=True)
        digest = hashlib.sha256(rows.tobytes())
        for log in logs:
            digest.update(log.tobytes())
        oop = options.get("oop", "")
        print(mode, n, strategies, oop, games, digest.hexdigest()[:16], flush=True)


if __name__ == "__main__":
    main()
