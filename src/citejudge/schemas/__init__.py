"""JSON Schemas shipped with the package (results of each task, output lines)."""
