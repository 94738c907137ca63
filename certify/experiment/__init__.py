"""Repeated-call LLM experiments: the paper's protocol, data sets, backends and run store.

This subpackage produces the correctness bits that the math core analyses; the
core never imports it. See ``certify/experiment/README.md`` for the config
format, the seed hash, the built-in tasks, the store schema and the exports.

Typical use::

    from certify.experiment import load_config, run_experiment, RunStore, export_bits
    cfg = load_config("examples/embedded.toml")
    run_experiment(cfg)
    with RunStore(cfg.store) as store:
        export_bits(store, "bits.parquet", fmt="parquet", layout="wide")
"""

from __future__ import annotations

from ._backends import CallRequest, CallResult, make_backend
from ._backends._embedded import choice_probability, draw_answer, load_model, resolve_model_path
from ._config import (
    MAX_EMBEDDED_N_CTX,
    BackendConfig,
    DatasetConfig,
    ExperimentConfig,
    PolicyConfig,
    check_embedded_capacity,
    load_config,
)
from ._datasets import Example, draw_examples, load_population, normalize
from ._errors import BackendError, DatasetError, EndpointError, StoreError, StoreInUseError
from ._export import StatusRow, export_bits, status
from ._protocol import (
    ANSWER_SCHEMA,
    INSTRUCTION_PREFIX,
    TASKS,
    YES_NO,
    ParsedAnswer,
    Task,
    answer_schema,
    build_prompt,
    call_seed,
    instruction_prefix,
    parse_answer,
)
from ._runner import RunSummary, run_experiment
from ._server import OllamaServer
from ._store import CallRecord, LatentRecord, RunStore

__all__ = [
    "ANSWER_SCHEMA",
    "INSTRUCTION_PREFIX",
    "MAX_EMBEDDED_N_CTX",
    "TASKS",
    "YES_NO",
    "BackendConfig",
    "BackendError",
    "CallRecord",
    "CallRequest",
    "CallResult",
    "DatasetConfig",
    "DatasetError",
    "EndpointError",
    "Example",
    "ExperimentConfig",
    "LatentRecord",
    "OllamaServer",
    "ParsedAnswer",
    "PolicyConfig",
    "RunStore",
    "RunSummary",
    "StatusRow",
    "StoreError",
    "StoreInUseError",
    "Task",
    "answer_schema",
    "build_prompt",
    "call_seed",
    "check_embedded_capacity",
    "choice_probability",
    "draw_answer",
    "draw_examples",
    "export_bits",
    "instruction_prefix",
    "load_config",
    "load_model",
    "load_population",
    "make_backend",
    "normalize",
    "parse_answer",
    "resolve_model_path",
    "run_experiment",
    "status",
]
