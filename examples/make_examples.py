"""Write the example logs of the documentation with the real frameworks.

    python examples/make_examples.py

writes, beside this script:

* ``quiz.eval``: an inspect_ai log (written by ``inspect_ai.eval`` itself, ``.eval``
  format) of the task ``quiz``: 100 multiple-choice questions (options A-D), 5 epochs,
  scored by inspect's own ``pattern`` scorer, which also records each call's answer;
* ``samples_quiz.jsonl``: the ``samples_quiz_<date>.jsonl`` file that lm-evaluation-harness
  writes with ``--log_samples`` (``lm_eval.simple_evaluate`` and its
  ``EvaluationTracker``, exactly as ``lm_eval --log_samples`` saves it) for the same 100
  questions asked of another model, ``repeats: 5``, a ``generate_until`` task;
* ``quiz_two_models.csv``: both models' answers to the same questions in one long table
  (``model, example_id, call, answer, target``), for the comparison of two models;
* ``tables/``: model A's calls as the table forms ``certify analyze`` reads (the how-to
  guide on tables): ``wide.csv`` (``example_id, b1..b5`` bits), ``long.csv``
  (``example_id, call, correct``), ``answers.csv`` (``example_id, answer1..answer5,
  target``) and ``renamed.tsv`` (bits under names no documented list holds: ``item``,
  ``run_1..run_5``, and a ``note`` column to ignore);
* ``../docs/_static/quiz_vote_curves.png``: the vote-curve figure of ``certify experiment
  report quiz.eval`` that the tutorial shows.

Neither framework calls a real model: inspect_ai's ``mockllm`` model and a subclass of
lm-eval's ``LM`` answer from a table drawn here with a fixed seed. Each question i has a
latent probability q_i that a call is right (model A: a spread-out law; model B: most
questions easy, a fifth of them nearly always wrong), and a wrong call picks one of the
other options with the question's own weights, so that wrong answers often agree. Nothing
reaches the network (tiktoken gets a fake encoder, DNS lookups raise, Hugging Face
libraries are told to stay offline). Needs the ``dev`` extra (inspect-ai, lm-eval).
"""

from __future__ import annotations

import csv
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
N_QUESTIONS = 100
CALLS = 5
OPTIONS = "ABCD"
SEED = 20250101


def draw_targets(seed: int) -> list[str]:
    """Each question's right option."""
    rng = np.random.default_rng([seed, 0])
    return [OPTIONS[k] for k in rng.integers(0, len(OPTIONS), N_QUESTIONS)]


def draw_answers(seed: int, targets: list[str], model: str) -> np.ndarray:
    """answers[i, j]: the model's answer to question i at call j."""
    rng = np.random.default_rng([seed, 1 if model == "A" else 2])
    if model == "A":
        q = rng.beta(3.0, 1.4, N_QUESTIONS)
    else:
        hard = rng.random(N_QUESTIONS) < 0.2
        q = np.where(hard, rng.beta(1.0, 6.0, N_QUESTIONS), rng.beta(9.0, 1.5, N_QUESTIONS))
    answers = np.empty((N_QUESTIONS, CALLS), dtype=object)
    for i, t in enumerate(targets):
        wrong = [o for o in OPTIONS if o != t]
        split = rng.dirichlet([0.6, 0.6, 0.6])  # a question's wrong answers: often one dominates
        for j in range(CALLS):
            answers[i, j] = t if rng.random() < q[i] else wrong[rng.choice(3, p=split)]
    return answers


def question(i: int) -> str:
    return f"Question {i + 1}: which option is right? A, B, C or D?"


class _FakeEncoding:
    def encode(self, text, **_):
        return text.split()


def _no_network(*args, **kwargs):
    raise OSError("network access is disabled while writing the examples")


def _offline(mp_env: dict) -> None:
    socket.getaddrinfo = _no_network
    socket.create_connection = _no_network
    os.environ.update(mp_env)


def write_inspect_log(targets, answers, out: Path) -> None:
    """quiz.eval, written by inspect_ai's eval() with the mockllm model."""
    import tiktoken

    tiktoken.get_encoding = lambda name: _FakeEncoding()
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.log import read_eval_log, write_eval_log
    from inspect_ai.model import ModelOutput, get_model
    from inspect_ai.scorer import pattern
    from inspect_ai.solver import generate

    served: dict[str, int] = {}

    def reply(messages, tools, tool_choice, config):
        text = messages[-1].text
        i = int(text.split()[1].rstrip(":")) - 1
        j = served.get(text, 0)  # the j-th call of question i gets the j-th drawn answer
        served[text] = j + 1
        return ModelOutput.from_content(model="mockllm", content=f"ANSWER: {answers[i, j]}")

    model = get_model("mockllm/model", custom_outputs=reply)
    samples = [Sample(id=f"q{i + 1:03d}", input=question(i), target=t) for i, t in enumerate(targets)]
    task = Task(dataset=samples, solver=[generate()], scorer=pattern(r"ANSWER:\s*([A-D])"), epochs=CALLS, name="quiz")
    with tempfile.TemporaryDirectory() as logs:
        (log,) = inspect_eval(task, model=model, log_dir=logs, log_format="eval", display="none", max_samples=1)
        assert log.status == "success", log.status
        # The transcript events (inspect's step-by-step record of each sample, four fifths of
        # the bytes) are dropped with inspect's own reader and writer, to keep the file small;
        # every field certify reads is as eval() wrote it.
        log = read_eval_log(log.location)
        for sample in log.samples:
            sample.events = []
        write_eval_log(log, str(out), format="eval")


def write_lmeval_samples(targets, answers, out: Path) -> None:
    """samples_quiz.jsonl, written by lm-eval's EvaluationTracker as lm_eval --log_samples does."""
    from lm_eval import simple_evaluate
    from lm_eval.api.model import LM
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        data = root / "quiz.json"
        data.write_text(json.dumps([{"id": i + 1, "question": question(i), "target": t} for i, t in enumerate(targets)]))
        tasks = root / "tasks"
        tasks.mkdir()
        (tasks / "quiz.yaml").write_text("\n".join([
            "task: quiz", "dataset_path: json", "dataset_kwargs:", "  data_files:", f"    test: {data}",
            f"  cache_dir: {root / 'hf_cache'}", "output_type: generate_until", "test_split: test",
            'doc_to_text: "{{question}}"', 'doc_to_target: "{{target}}"', f"repeats: {CALLS}",
            "generation_kwargs:", '  until: ["\\n\\n"]', "metric_list:", "  - metric: exact_match",
            "metadata:", "  version: 1.0", ""]))

        class Programmed(LM):
            """Answers question i at its j-th repeat with answers[i, j], in a sentence."""

            def __init__(self):
                super().__init__()
                self.seen = {}

            def generate_until(self, requests):
                out = []
                for r in requests:  # lm-eval passes each request once per repeat, in repeat order
                    j = self.seen.get(r.doc_id, 0)
                    self.seen[r.doc_id] = j + 1
                    out.append(f"The answer is {answers[r.doc_id, j]}.")
                return out

            def loglikelihood(self, requests):
                return [(-1.0, False)] * len(requests)

            def loglikelihood_rolling(self, requests):
                raise NotImplementedError

        cwd = os.getcwd()
        os.chdir(root)  # lm-eval asks git for a commit hash of the working directory
        try:
            tracker = EvaluationTracker(output_path=str(root / "out"))
            results = simple_evaluate(model=Programmed(), tasks=["quiz"],
                                      task_manager=TaskManager(include_path=str(tasks), include_defaults=False),
                                      log_samples=True, evaluation_tracker=tracker, bootstrap_iters=0)
            logged = results.pop("samples")  # what lm_eval's CLI does before saving
            tracker.save_results_aggregated(results=results, samples=logged)
            tracker.save_results_samples(task_name="quiz", samples=logged["quiz"])
        finally:
            os.chdir(cwd)
        (path,) = (root / "out").rglob("samples_quiz_*.jsonl")
        shutil.copyfile(path, out)


def write_table(models: dict, out: Path) -> None:
    """Both models' answers in one long table: model, example_id, call, answer, target."""
    with out.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["model", "example_id", "call", "answer", "target"])
        for name, (targets, answers) in models.items():
            for i, t in enumerate(targets):
                for j in range(CALLS):
                    w.writerow([name, f"q{i + 1:03d}", j + 1, answers[i, j], t])


def write_tables(targets, answers, out: Path) -> None:
    """tables/: model A's calls in the table forms of the how-to guide on tables."""
    out.mkdir(exist_ok=True)
    bits = [[int(a == t) for a in row] for row, t in zip(answers, targets)]
    ids = [f"q{i + 1:03d}" for i in range(len(targets))]

    def write(name, header, rows, delimiter=","):
        with (out / name).open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, delimiter=delimiter, lineterminator="\n")
            w.writerow(header)
            w.writerows(rows)

    calls = range(1, CALLS + 1)
    write("wide.csv", ["example_id", *(f"b{j}" for j in calls)], [[i, *b] for i, b in zip(ids, bits)])
    write("long.csv", ["example_id", "call", "correct"],
          [[i, j, b[j - 1]] for i, b in zip(ids, bits) for j in calls])
    write("answers.csv", ["example_id", *(f"answer{j}" for j in calls), "target"],
          [[i, *row, t] for i, row, t in zip(ids, answers, targets)])
    write("renamed.tsv", ["item", *(f"run_{j}" for j in calls), "note"],
          [[i, *b, "checked" if k % 10 == 0 else ""] for k, (i, b) in enumerate(zip(ids, bits))], delimiter="\t")


def main() -> int:
    _offline({"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
              "HF_HOME": tempfile.mkdtemp(), "XDG_DATA_HOME": tempfile.mkdtemp(),
              "XDG_CACHE_HOME": tempfile.mkdtemp()})
    targets = draw_targets(SEED)
    a = targets, draw_answers(SEED, targets, "A")
    b = targets, draw_answers(SEED, targets, "B")  # the same questions, another latent law
    random.seed(SEED)
    np.random.seed(SEED % 2**32)
    write_inspect_log(*a, HERE / "quiz.eval")
    write_lmeval_samples(*b, HERE / "samples_quiz.jsonl")
    write_table({"model-a": a, "model-b": b}, HERE / "quiz_two_models.csv")
    write_tables(*a, HERE / "tables")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "certify.cli.main", "experiment", "report", str(HERE / "quiz.eval"),
                        "-o", str(Path(tmp) / "report"), "--no-progress"], check=True)
        shutil.copyfile(Path(tmp) / "report" / "figures" / "vote_curves.png",
                        HERE.parent / "docs" / "_static" / "quiz_vote_curves.png")
    for name in ("quiz.eval", "samples_quiz.jsonl", "quiz_two_models.csv", "tables/wide.csv", "tables/long.csv",
                 "tables/answers.csv", "tables/renamed.tsv"):
        print(f"wrote {HERE / name} ({(HERE / name).stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
