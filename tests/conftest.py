"""What the suite ran with, printed in pytest's header: results that depend on rounding can differ
with the instruction set of the compiled core's dense sweeps (``ONLINEAR_CPU=generic`` forces the
baseline) and with the BLAS kernel numpy and scipy pick, so a report names both, next to the
versions of the numeric stack."""
import platform
from importlib.metadata import PackageNotFoundError, version

PACKAGES = ("onlinear", "numpy", "scipy", "Cython", "scikit-learn", "pandas", "hypothesis")


def _version(package):
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def pytest_report_header(config):
    import numpy  # noqa: F401  (loads numpy's BLAS, so that threadpoolctl can see it)
    import scipy.linalg  # noqa: F401  (and scipy's)
    from threadpoolctl import threadpool_info

    from onlinear._core.primal import simd_instruction_set

    blas = sorted({f"{info.get('internal_api')} {info.get('version')} "
                   f"({info.get('architecture', '?')})"
                   for info in threadpool_info() if info.get("user_api") == "blas"})
    return [
        f"onlinear stack: Python {platform.python_version()}, "
        + ", ".join(f"{p} {_version(p)}" for p in PACKAGES),
        f"compiled core's dense sweeps: {simd_instruction_set()}; "
        f"BLAS: {'; '.join(blas) or 'none found'}",
    ]
