"""The Mythos card loader lives in simkit.game.mythos (the game layer reads it, and the
revenge package sits above the game layer); this name stays for existing callers."""

from simkit.game.mythos import (  # noqa: F401  (re-exported)
    COLUMNS,
    CONTENT_MODES,
    EFFECTS,
    FILE,
    PUBLIC_TAGS,
    MythosDeck,
    load_mythos,
)
