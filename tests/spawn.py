"""Starting a command the way a terminal does, for tests that send it Ctrl-C.

A shell without job control starts a background command (``make test &``, a CI step, a
nohup) with SIGINT ignored, and a child inherits an ignored signal across exec. Python then
leaves SIGINT ignored, and so does simkit's command line (it only replaces Python's own
handler, so ``nohup simkit ...`` stays deaf to Ctrl-C as the user asked). A test that sends
SIGINT must therefore start its command with SIGINT at the default, as an interactive shell
does, or the outcome depends on how the suite itself was launched (it once made a tune test
hang in 3 of 4 background suite runs).
"""

from __future__ import annotations

import signal


def sigint_as_from_a_terminal() -> None:
    """``preexec_fn`` for subprocess: the child starts with SIGINT's default disposition."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
