"""The one limit the probe and gpuscope's side of it share. Standard library only and
nothing else: gpuscope's own process imports this module, never the probe's others."""

from __future__ import annotations

# A smoke test killed sooner than this was cut short by the inspection's time budget, not shown
# to hang: a first CUDA or HIP context (with cuBLAS) can take seconds on a large GPU in a VM
# (an H200 needed more than the 3 s a 10 s budget left it). It is "unfinished", not "failed".
SMOKE_HANG_S = 30.0
