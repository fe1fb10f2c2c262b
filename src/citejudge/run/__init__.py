"""Batch runs: config, resumable runner, report and comparison of run directories."""

from citejudge.run.config import RunConfig, load_config
from citejudge.run.runner import RunError, RunSummary, read_done, run

__all__ = ["RunConfig", "RunError", "RunSummary", "load_config", "read_done", "run"]
