"""The Ray executor of ``citejudge run`` (``executor: ray``): Ray Data over CPU workers and judges.

Design
------
* **Input**: the pipeline's remaining items (input order) become a Ray Dataset of plain rows
  (``position``, ``shard``, ``id`` and the pickled :class:`~citejudge.io.Item` /
  :class:`~citejudge.io.ItemError`), cut into contiguous *shards* of at most
  :data:`SHARD_ITEMS` items (at least one shard per CPU worker); each shard is one Ray block.
* **Deterministic stage**: ``map_batches`` with the callable class :class:`CheckActor` in an
  actor pool of ``cfg.workers`` actors, one CPU each. Each actor builds the task's checker
  once (:class:`~citejudge.run.stages.TaskWorker`: the index is opened read-only in that
  worker) and turns a whole block into pickled :class:`~citejudge.io.OutputLine` objects,
  schema-validated exactly as the local executor does.
* **Judged stage**, two placements:

  - *driver* (default for cards that do not need a GPU: ``scripted``, the CPU models, vLLM on
    the CPU): the driver feeds the ordered deterministic lines through the stage the pipeline
    built, in batches of ``cfg.batch_size`` items — the very batching the local executor uses.
  - *judge actors* (cards with ``gpu: true``): a second ``map_batches`` with
    :class:`JudgeActor` in an actor pool of one actor per GPU of the cluster (``num_gpus=1``
    each). Every actor builds its own stage and judge from the model card (with the run's
    :class:`~citejudge.run.stages.JudgeBuilder` settings), i.e. one vLLM engine
    per GPU, and judges its blocks in batches of ``cfg.batch_size`` items (every request of a
    batch goes to the engine in one call, so vLLM batches continuously inside it). Ray Data
    streams blocks from the CPU pool to the GPU pool, so retrieval and judging overlap. Judge
    request statistics are summed back into the driver's judge statistics; the shared
    request cache (``cache_dir``) should be on a shared filesystem so that a resumed run reuses
    answers from every node. ``ray.data.llm`` is not used: our judge needs constrained decoding
    per answer schema, request hashing and the cache, which the backends already do.

  The pipeline always builds the stage in the driver (for the manifest), so a GPU backend must
  load its engine lazily, on its first batch.
* **Output**: the driver receives blocks (in order: ``preserve_order``), writes each shard's
  final lines to ``OUT/shards/part-<k>.jsonl`` (``run``; a ``check`` writes no shard files) (atomically, once the shard is complete; the
  folder is cleared at the start of each session because shard numbers are relative to the
  items that session processes) and yields :class:`~citejudge.io.OutputLine` objects in input
  order, so the pipeline appends the same ``results.jsonl`` bytes the local executor writes.
  Results do not depend on the shard or batch layout: judge answers are per request (greedy
  decoding, fixed seed), and ``details`` record request hashes, never cache hits.
* **Ray itself**: ``ray.init`` starts a local instance (``cfg.workers`` + 1 CPUs: one slot for
  the CPU workers each, one for a judge actor or Ray Data's own tasks) unless ``ray_address``
  names a cluster; the dashboard is off, worker logs do not go to the driver, usage statistics
  are off. A Ray instance this module started is shut down when the run ends; one that was
  already running (a cluster connection, a test fixture) is left alone. Ray 2.x binds its
  internal gRPC ports on all interfaces and rewrites 127.0.0.1 to the node's address; there is
  no supported option to keep a local instance on loopback (Ray's token authentication is on).
* **Cluster use**: ``ray_address`` (``auto`` or ``HOST:PORT``) joins a running cluster
  (``ray start --head`` / ``ray start --address=...``; the driver needs the cluster's auth token,
  e.g. ``RAY_AUTH_TOKEN``). Every node needs the same ``citejudge`` installation, and each
  :class:`CheckActor` opens the index itself, at the configured path: put the index on shared
  storage or copy it to the same path on every node. An actor that cannot start (e.g. cannot
  open the index) fails the whole run with one :class:`~citejudge.run.store.RunError` naming
  its node and the index path. Items travel through Ray's object store. The ``record`` dict of
  :func:`execute_ray` receives the address and the ids of the nodes that ran the CPU workers
  (the manifest's ``ray`` record).
"""

from __future__ import annotations

import logging
import math
import os
import pickle
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from citejudge.errors import ConfigError, MissingDependencyError
from citejudge.io import Item, ItemError, OutputLine, dumps_line
from citejudge.run.config import RunConfig
from citejudge.run.stages import JudgeBuilder, Stages, TaskWorker, judge_lines
from citejudge.run.store import RunError
from citejudge.tasks.protocol import load_task

__all__ = [
    "SHARD_ITEMS",
    "CheckActor",
    "JudgeActor",
    "execute_ray",
    "init_ray",
    "plan_shards",
    "setup_failure",
]

log = logging.getLogger(__name__)

#: Most items per shard (Ray block and ``shards/part-<k>.jsonl`` file).
SHARD_ITEMS = 2048
#: Seconds to wait for the actor pools to start (a cluster without enough CPUs fails then).
ACTOR_START_TIMEOUT_S = 600


def _ray() -> Any:
    try:
        import ray
        import ray.data  # Ray Data must be importable too
    except ImportError as exc:
        raise MissingDependencyError(
            "executor 'ray' needs Ray Data, which is not installed", hint="pip install -e '.[ray]'"
        ) from exc
    return ray


def init_ray(address: str | None, num_cpus: int) -> bool:
    """Connect to ``address`` or start a local Ray with ``num_cpus`` CPUs; True if this call started it.

    An already initialised Ray is reused as it is (and not counted as started here).
    """
    ray = _ray()
    if ray.is_initialized():
        return False
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"  # never report usage: citejudge runs offline
    kwargs: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": False,
        "ignore_reinit_error": True,
        "logging_level": logging.WARNING,
    }
    if address:
        ray.init(address=address, **kwargs)
    else:  # the node address is loopback, but Ray's own services (GCS, raylet, workers) still
        # listen on all interfaces, token-authenticated: run `executor: ray` on a trusted network
        ray.init(num_cpus=num_cpus, _node_ip_address="127.0.0.1", **kwargs)
    return True


def plan_shards(n: int, workers: int, shard_items: int = SHARD_ITEMS) -> int:
    """Items per shard for ``n`` items: at most ``shard_items``, and at least one shard per worker."""
    if n <= 0:
        return 1
    shards = max(min(workers, n), math.ceil(n / shard_items))
    return math.ceil(n / shards)


def _this_node() -> tuple[str, str]:
    """(node id, node IP address) of the Ray node this process runs on ("" outside Ray)."""
    ray = _ray()
    if not ray.is_initialized():
        return "", ""
    return ray.get_runtime_context().get_node_id(), ray.util.get_node_ip_address()


def setup_failure(cfg: RunConfig, node_id: str, node_ip: str, exc: Exception) -> str:
    """The one-line message of a CPU worker that could not start on a node."""
    where = f"Ray node {node_ip or '?'} ({node_id[:12] or 'unknown id'})"
    what = (
        f"cannot open the index {cfg.index}"
        if cfg.index is not None
        else f"cannot start the {cfg.task} worker"
    )
    return f"{where}: {what}: {type(exc).__name__}: {exc}"


class CheckActor:
    """Ray Data callable class: the deterministic stage, built once per actor.

    An actor whose worker cannot be built (e.g. the index path is not readable on its node)
    does not raise: it answers every block with that failure (``setup_error``), which the
    driver turns into one run error, rather than a Ray traceback.
    """

    def __init__(self, cfg: RunConfig, keep_items: bool = False) -> None:
        self.node_id, node_ip = _this_node()
        self.keep_items = keep_items
        self.worker: TaskWorker | None = None
        self.failure = ""
        try:
            self.worker = TaskWorker(cfg)
        except Exception as exc:
            self.failure = setup_failure(cfg, self.node_id, node_ip, exc)

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        """Rows with pickled items in, rows with pickled output lines (and the items if kept) out."""
        lines: list[bytes] = []
        for payload in batch["payload"]:
            if self.worker is None:
                lines.append(b"")
                continue
            it: Item | ItemError = pickle.loads(payload)
            lines.append(pickle.dumps(self.worker(it), protocol=pickle.HIGHEST_PROTOCOL))
        n = len(lines)
        out = {
            "position": batch["position"],
            "shard": batch["shard"],
            "line": lines,
            "node": [self.node_id] * n,
            "setup_error": [self.failure] * n,
        }
        if self.keep_items:  # a judge actor follows and needs the items
            out["payload"] = batch["payload"]
        return out


class JudgeActor:
    """Ray Data callable class: the judged stage with its own judge (one per GPU in production)."""

    def __init__(self, cfg: RunConfig, builder: JudgeBuilder) -> None:
        self.builder = builder.unbuilt()  # this actor's own judge
        self.stage = load_task(cfg.task).make_stage(cfg, self.builder)
        self.batch_size = cfg.batch_size

    def _stats(self) -> dict[str, int]:
        return self.builder.judge.stats if self.builder.judge is not None else {}

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        """Deterministic lines in, judged lines (and this block's judge statistics) out."""
        passed = {
            "position": batch["position"],
            "shard": batch["shard"],
            "node": batch["node"],
            "setup_error": batch["setup_error"],
        }
        if any(batch["setup_error"]):  # the CPU worker failed: nothing to judge
            return {**passed, "line": batch["line"], "stats": [b""] * len(batch["line"])}
        items = [pickle.loads(p) for p in batch["payload"]]
        lines = [pickle.loads(b) for b in batch["line"]]
        before = dict(self._stats())
        judged = list(judge_lines(iter(lines), items, self.stage, self.batch_size))
        delta = {k: v - before.get(k, 0) for k, v in self._stats().items()}
        stats = [pickle.dumps(delta)] + [b""] * (len(judged) - 1)
        return {
            **passed,
            "line": [pickle.dumps(ln, protocol=pickle.HIGHEST_PROTOCOL) for ln in judged],
            "stats": stats,
        }


def _card_needs_gpu(model: str | None) -> bool:
    if not model:
        return False
    from citejudge.judge.cards import load_card

    return bool(load_card(model).gpu)


def _judge_actor_count(ray: Any, stages: Stages, judge_actors: int | None) -> int:
    if stages.judged is None:
        return 0
    if judge_actors is not None:
        return max(0, judge_actors)
    if not _card_needs_gpu(stages.cfg.model):
        return 0
    gpus = int(ray.cluster_resources().get("GPU", 0))
    if gpus == 0:
        log.warning(
            "model card %s needs a GPU but the Ray cluster has none; judging in the driver",
            stages.cfg.model,
        )
    return gpus


def _rows(todo: list[Item | ItemError], per_shard: int) -> list[dict[str, Any]]:
    return [
        {
            "position": i,
            "shard": i // per_shard,
            "id": it.id,
            "payload": pickle.dumps(it, protocol=pickle.HIGHEST_PROTOCOL),
        }
        for i, it in enumerate(todo)
    ]


def _dataset(
    ray: Any, stages: Stages, todo: list[Item | ItemError], per_shard: int, actors: int, gpu: bool
) -> Any:
    cfg = stages.cfg
    n_shards = math.ceil(len(todo) / per_shard)
    ds = ray.data.from_items(_rows(todo, per_shard), override_num_blocks=n_shards)
    ctx = ds.context
    ctx.enable_progress_bars = False
    ctx.print_on_execution_start = False
    ctx.execution_options.preserve_order = True
    # Spread the shards over the whole pool: wait until every actor is up, then hand each one
    # block at a time (otherwise locality sends the driver's blocks to the actors on its node).
    ctx.wait_for_min_actors_s = ACTOR_START_TIMEOUT_S
    ctx.max_tasks_in_flight_per_actor = 1
    ds = ds.map_batches(
        CheckActor,
        fn_constructor_args=(cfg, actors > 0),
        batch_size=None,
        batch_format="numpy",
        compute=ray.data.ActorPoolStrategy(size=cfg.workers),
        num_cpus=1,
    )
    if actors:
        resources: dict[str, Any] = {"num_gpus": 1, "num_cpus": 1} if gpu else {"num_cpus": 1}
        ds = ds.map_batches(
            JudgeActor,
            fn_constructor_args=(cfg, stages.judge_builder.unbuilt()),
            batch_size=None,
            batch_format="numpy",
            compute=ray.data.ActorPoolStrategy(size=actors),
            **resources,
        )
    return ds


def _ordered(
    ds: Any, n: int, stats: dict[str, int] | None, nodes: set[str], index: Path | None
) -> Iterator[OutputLine]:
    """Output lines in input order, whatever order blocks arrive in.

    Sums judge statistics into ``stats`` and collects the ids of the nodes that ran the CPU
    workers into ``nodes``; a worker that could not start fails the run (:class:`RunError`).
    """
    pending: dict[int, bytes] = {}
    nxt = 0
    for batch in ds.iter_batches(batch_size=None, batch_format="numpy"):
        failed = next((str(e) for e in batch["setup_error"] if e), "")
        if failed:
            hint = (
                f"every Ray node opens the index {index} itself: put it on shared storage or copy it "
                "to the same path on each node"
                if index is not None
                else "every Ray node needs the same citejudge installation"
            )
            raise RunError(failed, hint=hint)
        nodes.update(str(x) for x in batch["node"] if x)
        for pos, blob in zip(batch["position"], batch["line"], strict=True):
            pending[int(pos)] = blob
        if stats is not None:
            for blob in batch["stats"]:
                if blob:
                    for k, v in pickle.loads(blob).items():
                        stats[k] = stats.get(k, 0) + v
        while nxt in pending:
            line: OutputLine = pickle.loads(pending.pop(nxt))
            yield line
            nxt += 1
    if nxt != n:
        raise RuntimeError(f"the Ray pipeline returned {nxt} of {n} lines")


class _ShardWriter:
    """Writes ``shards/part-<k>.jsonl`` once shard ``k``'s lines are all through."""

    def __init__(self, folder: Path | None, per_shard: int, n: int) -> None:
        if folder is not None:
            if folder.exists():
                shutil.rmtree(folder)
            folder.mkdir(parents=True)
        self.folder, self.per_shard, self.n = folder, per_shard, n
        self.buf: list[bytes] = []
        self.pos = 0

    def add(self, line: OutputLine) -> None:
        if self.folder is None:
            return
        self.buf.append(dumps_line(line.to_dict()))
        self.pos += 1
        if self.pos % self.per_shard == 0 or self.pos == self.n:
            k = (self.pos - 1) // self.per_shard
            path = self.folder / f"part-{k:05d}.jsonl"
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_bytes(b"".join(self.buf))
            os.replace(tmp, path)
            self.buf = []


def execute_ray(
    stages: Stages,
    todo: list[Item | ItemError],
    shards_dir: Path | None = None,
    *,
    judge_actors: int | None = None,
    record: dict[str, Any] | None = None,
) -> Iterator[OutputLine]:
    """Output lines for ``todo`` in input order, computed on Ray (see the module docstring).

    ``shards_dir`` receives ``part-<k>.jsonl`` per shard (None: no shard files).
    ``judge_actors`` overrides where the judged stage runs: None = by the model card (one actor
    per GPU for GPU cards, else the driver), 0 = the driver, N = N judge actors.
    ``record`` (if given) receives ``address`` (``cfg.ray_address``) and ``nodes`` (sorted ids of
    the Ray nodes whose CPU workers returned lines), updated as blocks arrive.
    """
    cfg = stages.cfg
    if cfg.executor != "ray":
        raise ConfigError("execute_ray needs a config with executor: ray")
    n = len(todo)
    if n == 0:
        return
    ray = _ray()
    started = init_ray(cfg.ray_address, cfg.workers + 1)
    try:
        per_shard = plan_shards(n, cfg.workers)
        actors = _judge_actor_count(ray, stages, judge_actors)
        gpu = actors > 0 and judge_actors is None
        ds = _dataset(ray, stages, todo, per_shard, actors, gpu)
        log.info(
            "ray: %d items in %d shard(s) of <= %d, %d CPU worker(s), judge in %s",
            n,
            math.ceil(n / per_shard),
            per_shard,
            cfg.workers,
            f"{actors} actor(s)" if actors else "the driver",
        )
        shards = _ShardWriter(shards_dir, per_shard, n)
        stats = stages.judge.stats if (actors and stages.judge is not None) else None
        nodes: set[str] = set()
        lines = _ordered(ds, n, stats, nodes, cfg.index)
        if stages.judged is not None and not actors:
            lines = judge_lines(lines, todo, stages.judged, cfg.batch_size)
        for line in lines:
            shards.add(line)
            if record is not None and len(nodes) != len(record.get("nodes", ())):
                record.update(address=cfg.ray_address, nodes=sorted(nodes))
            yield line
        if record is not None:
            record.update(address=cfg.ray_address, nodes=sorted(nodes))
    finally:
        if started:
            ray.shutdown()
