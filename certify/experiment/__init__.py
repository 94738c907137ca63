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

Configuration
-------------

* :func:`load_config` -- read and validate an experiment TOML file.
* :class:`ExperimentConfig` -- a whole experiment: datasets x policies x ``repeats`` calls, kept in one store.
* :class:`DatasetConfig` -- one dataset: where its examples come from and how many are drawn.
* :class:`PolicyConfig` -- a policy (condition): backend x model x decoding options x seed base.
* :class:`BackendConfig` -- how calls reach a model: kind, endpoints and operational limits.
* :func:`check_embedded_capacity` -- refuse a context length or a number of model instances the machine cannot hold.
* :data:`MAX_EMBEDDED_N_CTX` -- largest context of the embedded model (Gemma 3 270M's training context).

The call protocol (Appendix "Additional experimental protocol details")
-----------------------------------------------------------------------

* :data:`TASKS` -- the built-in tasks by name.
* :class:`Task` -- a task: its text fields, how they become a prompt body, and its answers.
* :data:`YES_NO` -- the answers of a yes/no task (the paper's tasks), in the order choice mode reads them.
* :func:`instruction_prefix` -- the instruction for a task with these answers; for Yes/No, the paper's.
* :data:`INSTRUCTION_PREFIX` -- the fixed instruction of ``prompt_strategy="direct"`` (the paper's).
* :func:`answer_schema` -- the JSON schema a request for a task with these answers asks the server to satisfy.
* :data:`ANSWER_SCHEMA` -- the paper's schema: the one of every yes/no task.
* :func:`build_prompt` -- the exact prompt: instruction prefix, two blank lines, task body, trailing newline.
* :func:`call_seed` -- per-call decoding seed, a stable hash of the paper's four pieces.
* :func:`parse_answer` -- parse a raw output: JSON field ``answer`` first, then a word-bounded regex fallback.
* :class:`ParsedAnswer` -- the outcome of parsing one raw model output.

Data sets
---------

* :func:`load_population` -- all examples the data set's source offers, before the draw.
* :func:`draw_examples` -- the data set's N drawn examples, read from its draw file or drawn and written once.
* :class:`Example` -- one example.
* :func:`normalize` -- collapse every whitespace run to one space, strip, and keep the first ``cap`` characters.

Backends
--------

* :func:`make_backend` -- the backend of kind ``cfg.kind`` (imported lazily: each kind has its own dependencies).
* :class:`CallRequest` -- one call to make.
* :class:`CallResult` -- what a backend returned for one call (before parsing).

The embedded model
------------------

* :func:`resolve_model_path` -- the GGUF file of a model: ``gemma3:270m`` (packaged) or a ``.gguf`` path.
* :func:`load_model` -- the loaded model, shared within the process (loading costs seconds).
* :func:`choice_probability` -- law of one call's answer over the allowed answers, from their next-token logits.
* :func:`draw_answer` -- one call's answer, drawn from its law with the call's seed.
* :class:`OllamaServer` -- the Ollama-API-compatible server over the embedded model (``certify serve-ollama``).

Running and the run store
-------------------------

* :func:`run_experiment` -- make every call of a config that its store does not hold yet.
* :class:`RunSummary` -- what one invocation of :func:`run_experiment` did.
* :class:`RunStore` -- an open run store.
* :class:`CallRecord` -- everything recorded about one call.
* :class:`LatentRecord` -- an example's latent answer law under a policy (embedded ``choice`` mode).
* :func:`export_bits` -- write the store's correctness bits to a file.
* :func:`status` -- one :class:`StatusRow` per (dataset, policy) the store knows, in name order.
* :class:`StatusRow` -- progress and quality of one (dataset, policy).

Errors
------

* :exc:`BackendError` -- a model backend could not serve a call: unreachable, missing model, or bad reply.
* :exc:`EndpointError` -- a configured endpoint does not speak the backend's API (a wrong base URL, most likely).
* :exc:`DatasetError` -- a data set could not be read or fetched (hub unreachable, file damaged).
* :exc:`StoreError` -- the run store cannot be used as asked (another experiment's, or damaged).
* :exc:`StoreInUseError` -- another process is running an experiment on the same store (one writer per store).
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
