"""Build hooks: the model cards, prompts and calibrations in a wheel, and a C module.

A wheel carries the data folders (see citejudge.resources). ``citejudge._native`` is the
snapshot reader's C module, optional: without a C compiler the install goes on, and the reader
takes its Python paths (reading records about half as fast).

Everything else about the build is in pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
BUNDLE = {
    "models": ROOT / "models",
    "prompts": ROOT / "configs" / "prompts",
    "calibration": ROOT / "configs" / "calibration",
}


class BuildPyWithData(build_py):
    """``build_py`` that also copies the data folders into ``citejudge/_bundled/``."""

    def run(self) -> None:  # noqa: D102 - see the class docstring
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the source tree
        for name, src in BUNDLE.items():
            dst = Path(self.build_lib) / "citejudge" / "_bundled" / name
            shutil.copytree(
                src, dst, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
            )


NATIVE = Extension(
    "citejudge._native",
    sources=["src/citejudge/_native.c"],
    extra_compile_args=["-O2", "-std=c99"],
    optional=True,
)

setup(cmdclass={"build_py": BuildPyWithData}, ext_modules=[NATIVE])
