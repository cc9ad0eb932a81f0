"""What the suite ran with, printed in pytest's header: results that depend on rounding can differ
with the CPU model numba compiles for and with the BLAS kernel numpy and scipy pick, so a report
names both, next to the versions of the numeric stack."""
import platform
from importlib.metadata import PackageNotFoundError, version

PACKAGES = ("onlinear", "numpy", "scipy", "numba", "llvmlite", "scikit-learn", "pandas",
            "hypothesis")


def _version(package):
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def pytest_report_header(config):
    import llvmlite.binding
    import numba
    import numpy  # noqa: F401  (loads numpy's BLAS, so that threadpoolctl can see it)
    import scipy.linalg  # noqa: F401  (and scipy's)
    from threadpoolctl import threadpool_info

    blas = sorted({f"{info.get('internal_api')} {info.get('version')} "
                   f"({info.get('architecture', '?')})"
                   for info in threadpool_info() if info.get("user_api") == "blas"})
    cpu = numba.config.CPU_NAME or llvmlite.binding.get_host_cpu_name()
    return [
        f"onlinear stack: Python {platform.python_version()}, "
        + ", ".join(f"{p} {_version(p)}" for p in PACKAGES),
        f"numba compiles for CPU: {cpu}; BLAS: {'; '.join(blas) or 'none found'}",
    ]
