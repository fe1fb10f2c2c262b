"""JSON Schemas shipped with the package (results of each task, output lines, run manifest).

A data folder: the ``*.json`` files are read through :mod:`citejudge.schema`; no Python names.
"""

__all__: list[str] = []
