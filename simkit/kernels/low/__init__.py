"""The low kernels: state layouts and small njit helpers that strategies may use.

They import nothing above themselves, so ``strategies`` can build on them while the
engine kernels in :mod:`simkit.kernels` build on ``strategies`` (see tests/test_layers.py).
"""
