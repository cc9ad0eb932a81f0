"""Builds onlinear's compiled core (Cython and C) when the package is installed.

Every ``.pyx`` module under ``src/onlinear`` is an extension; the dense sweeps in
``_core/simd.h`` carry their own code for AVX2 and AVX-512, chosen when the module loads, so the
package is compiled for its architecture's baseline and runs on any CPU of it.  The rest is
compiled with ``-ffp-contract=off`` and without fast-math: its arithmetic is IEEE's, the same on
every machine.  ``ONLINEAR_DEBUG=1`` at build time compiles with bounds checks (slow; for tests
of the core).
"""
import os
import sys
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "src"
DEBUG = os.environ.get("ONLINEAR_DEBUG") == "1"

if sys.platform == "win32":
    compile_args = ["/O2", "/fp:precise"]
else:
    compile_args = ["-O3", "-fopenmp-simd", "-ffp-contract=off", "-fno-math-errno",
                    "-Wno-unused-function", "-Wno-unreachable-code"]

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": DEBUG,
    "nonecheck": False,
    "embedsignature": True,
    "cpow": True,
}


def extensions():
    modules = []
    for path in sorted(SOURCE.glob("onlinear/**/*.pyx")):
        name = ".".join(path.relative_to(SOURCE).with_suffix("").parts)
        modules.append(Extension(
            name, [str(path.relative_to(HERE))], include_dirs=[numpy.get_include(),
                                                              str(SOURCE / "onlinear" / "_core")],
            extra_compile_args=compile_args,
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_9_API_VERSION")]))
    return cythonize(modules, compiler_directives=directives, nthreads=os.cpu_count() or 1)


setup(ext_modules=extensions())
