"""A small synthetic call store (CSV of correctness bits) for the report's table and figure tests.

Three policies on one data set, K = 5 calls, with latent per-example accuracies q_i drawn
from known laws: a spread-out law above 1/2 (voting helps), a law at 1/2, and a
"stable" policy whose calls always agree (q_i in {0, 1}: every interval of a gain has zero
width, the case where a band must still be visible).
"""

from __future__ import annotations

import numpy as np

N, K = 300, 5


def write_store(path, seed: int = 20261124):
    """Write the CSV store to ``path`` and return ``{policy: bits array (N, K)}``."""
    rng = np.random.default_rng(seed)
    qs = {"spread": rng.beta(4.0, 1.5, N), "half": rng.beta(1.2, 1.2, N), "stable": (rng.random(N) < 0.7).astype(float)}
    lines = ["example_id,dataset,policy," + ",".join(f"b{j}" for j in range(K))]
    bits = {}
    for pol, q in qs.items():
        b = (rng.random((N, K)) < q[:, None]).astype(int)
        bits[pol] = b
        lines += [f"e{i},ds,{pol}," + ",".join(str(x) for x in row) for i, row in enumerate(b)]
    path.write_text("\n".join(lines) + "\n")
    return bits
