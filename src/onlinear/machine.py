"""What the compiled core runs on in this process: the instruction set of its dense sweeps.

The core is compiled for its architecture's baseline and carries its own code for AVX2 and
AVX-512, chosen when it loads (``ONLINEAR_CPU=generic`` forces the baseline, as CI runs it).
Reports that state their machine (``onlinear reproduce``'s provenance) read it here.

Examples
--------
>>> from onlinear.machine import instruction_set
>>> instruction_set() in ("avx512", "avx2", "generic")
True
"""
from ._core.primal import simd_instruction_set

__all__ = ["instruction_set"]


def instruction_set() -> str:
    """The instruction set of the dense sweeps this process uses: ``"avx512"``, ``"avx2"`` or
    ``"generic"`` (the baseline)."""
    return simd_instruction_set()
