"""Builds the `acl` extension module from python/*.c against aclrt.h (see pyproject.toml).

One file of the module, python/impl.c, compiles the aclrt implementation; the
module links Concurrency Kit, liburcu, pthreads, libm and libdl, and exports only
PyInit_acl. Intermediate files go to build/setuptools, beside the Makefile's
own build directories.
"""
import glob
import os

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join("build", "setuptools")
os.makedirs(os.path.join(HERE, BUILD), exist_ok=True)

acl = Extension(
    "acl",
    sources=sorted(os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, "python", "*.c"))),
    include_dirs=[".", "python"],
    depends=sorted(glob.glob("aclrt.h") + glob.glob("impl/**/*.h", recursive=True) + glob.glob("backends/**/*.h", recursive=True) + glob.glob("python/*.h")),
    libraries=["ck", "urcu-cds", "urcu-bp", "urcu-common", "pthread", "m", "dl"],
    extra_compile_args=["-std=c11", "-fvisibility=hidden"],
)

setup(
    ext_modules=[acl],
    packages=[],
    py_modules=[],
    options={
        "build": {"build_base": BUILD},
        "egg_info": {"egg_base": BUILD},
    },
)
