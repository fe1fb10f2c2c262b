"""Check and batch runs: options, the pipeline, its manifest, report and comparison of run directories.

Exports ``RunConfig`` (and its loading and validation), ``run_check`` and ``run`` (the one
pipeline behind ``citejudge check`` and ``citejudge run``), ``RunManifest`` and the run store.
"""

from citejudge.run.config import RunConfig, load_config, validate_config
from citejudge.run.manifest import RunManifest
from citejudge.run.pipeline import RunSummary, run, run_check, used_model
from citejudge.run.store import RunError, read_done

__all__ = [
    "RunConfig",
    "RunError",
    "RunManifest",
    "RunSummary",
    "load_config",
    "read_done",
    "run",
    "run_check",
    "used_model",
    "validate_config",
]
