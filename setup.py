"""Build hook: a wheel carries the model cards, prompts and calibrations (see citejudge.resources).

Everything else about the build is in pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
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


setup(cmdclass={"build_py": BuildPyWithData})
