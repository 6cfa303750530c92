"""Builds the `acl` extension module from python/*.c against aclrt.h (see pyproject.toml).

One file of the module, python/impl.c, compiles the aclrt implementation; the
module links Concurrency Kit, liburcu, pthreads, libm and libdl, and exports only
PyInit_acl. Intermediate files go to build/setuptools, beside the Makefile's
own build directories (setuptools keys them by interpreter).

Offline, from the packages of the machine (Debian: python3-dev,
python3-setuptools, python3-wheel, python3-venv; libck-dev, liburcu-dev):

    python3 -m venv --system-site-packages .venv
    .venv/bin/pip install --no-build-isolation .
"""
import glob
import os
import sys

from setuptools import Extension, setup

# The C code uses the API of CPython 3.10 (Py_NewRef, PyModule_AddObjectRef, ...).
if sys.version_info < (3, 10):
    sys.exit("the acl module needs Python 3.10 or later; this is %d.%d" % sys.version_info[:2])

# pip builds a wheel (and its metadata first, dist_info): setuptools before 70.1 needs the
# wheel package for both, and a virtual environment has it only from the system
# (--system-site-packages) or from pip.
if {"bdist_wheel", "dist_info"} & set(sys.argv[1:]):
    try:
        import setuptools.command.bdist_wheel  # noqa: F401  (setuptools >= 70.1)
    except ImportError:
        try:
            import wheel  # noqa: F401
        except ImportError:
            sys.exit("pip install: the `wheel` package is missing for %s (setuptools %s).\n"
                     "Offline: install python3-wheel (Debian) and create the virtual environment with\n"
                     "  python3 -m venv --system-site-packages .venv\n"
                     "Online: leave out --no-build-isolation (pip then fetches setuptools and wheel)."
                     % (sys.executable, __import__("setuptools").__version__))

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join("build", "setuptools")
os.makedirs(os.path.join(HERE, BUILD), exist_ok=True)

acl = Extension(
    "acl",
    sources=sorted(os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, "python", "*.c"))),
    include_dirs=[".", "python"],
    depends=sorted(glob.glob("aclrt.h") + glob.glob("hccl/*.h") + glob.glob("impl/**/*.h", recursive=True) + glob.glob("backends/**/*.h", recursive=True) + glob.glob("python/*.h")),
    libraries=["ck", "urcu-cds", "urcu-bp", "urcu-common", "pthread", "m", "dl"],
    extra_compile_args=["-std=c11", "-fvisibility=hidden"],
)

setup(
    ext_modules=[acl],
    packages=[],
    py_modules=[],
    options={
        "build": {"build_base": BUILD},
        "build_ext": {"parallel": os.cpu_count() or 1},
        "egg_info": {"egg_base": BUILD},
    },
)
