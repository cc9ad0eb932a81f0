"""Builds onlinear's compiled core (Cython and C) when the package is installed.

Every ``.pyx`` module under ``src/onlinear`` is an extension; the dense sweeps in
``_core/simd.h`` carry their own code for AVX2 and AVX-512, chosen when the module loads, so the
package is compiled for its architecture's baseline and runs on any CPU of it.  The rest is
compiled with ``-ffp-contract=off`` and without fast-math: its arithmetic is IEEE's, the same on
every machine.  ``ONLINEAR_DEBUG=1`` at build time compiles with bounds checks (slow; for tests
of the core).
"""
import importlib.util
import os
import sys
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "src"
DEBUG = os.environ.get("ONLINEAR_DEBUG") == "1"
SHARED_UTILITY = "onlinear._core._cyutility"

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


def generate_rule_tables():
    """The compiled side of the rule table (``rules/codegen.py``), written before anything is
    compiled (loaded by path: the package cannot be imported before it is built)."""
    path = SOURCE / "onlinear" / "rules" / "codegen.py"
    spec = importlib.util.spec_from_file_location("_onlinear_rule_codegen", path)
    codegen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(codegen)
    codegen.write(path.parent)


def extensions():
    generate_rule_tables()
    modules = []
    # the C headers the modules include (the dense sweeps): a changed header recompiles them
    headers = [str(path.relative_to(HERE)) for path in sorted(SOURCE.glob("onlinear/_core/*.h"))]
    for path in sorted(SOURCE.glob("onlinear/**/*.pyx")):
        name = ".".join(path.relative_to(SOURCE).with_suffix("").parts)
        modules.append(Extension(
            name, [str(path.relative_to(HERE))], include_dirs=[numpy.get_include(),
                                                              str(SOURCE / "onlinear" / "_core")],
            extra_compile_args=compile_args, depends=headers,
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_9_API_VERSION")]))
    # Cython's memoryview code, once for the package rather than once a module: a third of the
    # generated C, and of the compile time, was twenty copies of it.
    modules.append(Extension(SHARED_UTILITY, [SHARED_UTILITY.replace(".", "/").join(["src/", ".c"])],
                             extra_compile_args=compile_args))
    return cythonize(modules, compiler_directives=directives, nthreads=os.cpu_count() or 1,
                     shared_utility_qualified_name=SHARED_UTILITY)


class ParallelBuildExt(build_ext):
    """Compiles the extensions side by side, one per core (``pip install`` builds serially)."""

    def finalize_options(self):
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1


setup(ext_modules=extensions(), cmdclass={"build_ext": ParallelBuildExt})
