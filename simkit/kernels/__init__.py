"""numba kernels (njit only). Importing the package first drops stale cache files
(simkit.numba_cache): numba checks a cached function against its own file only."""

from simkit.numba_cache import drop_stale_kernel_cache

drop_stale_kernel_cache()
