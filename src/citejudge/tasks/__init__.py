"""The three evaluators (references, rag_audit, citation_eval) behind one ``Task`` protocol.

Exports ``TASKS`` (name -> ``TaskSpec``: module, help, verdict field, flags), ``load_task`` and
the protocol types; a task module itself is imported only when ``load_task`` asks for it.
"""

# The face is the protocol module's surface: each name is re-exported explicitly ("X as X"),
# and the list of them is the protocol's own ``__all__``.
from citejudge.tasks.protocol import TASKS as TASKS
from citejudge.tasks.protocol import Checker as Checker
from citejudge.tasks.protocol import JudgedStage as JudgedStage
from citejudge.tasks.protocol import JudgeFactory as JudgeFactory
from citejudge.tasks.protocol import Task as Task
from citejudge.tasks.protocol import TaskOptions as TaskOptions
from citejudge.tasks.protocol import TaskSpec as TaskSpec
from citejudge.tasks.protocol import __all__ as __all__
from citejudge.tasks.protocol import load_task as load_task
