"""The three evaluators (references, rag_audit, citation_eval) behind one ``Task`` protocol.

Exports ``TASKS`` (name -> ``TaskSpec``: module, help, verdict field, flags), ``load_task`` and
the protocol types; a task module itself is imported only when ``load_task`` asks for it.
"""

from citejudge.tasks.protocol import (
    TASKS,
    Checker,
    JudgedStage,
    JudgeFactory,
    Task,
    TaskOptions,
    TaskSpec,
    load_task,
)

__all__ = [
    "TASKS",
    "Checker",
    "JudgeFactory",
    "JudgedStage",
    "Task",
    "TaskOptions",
    "TaskSpec",
    "load_task",
]
