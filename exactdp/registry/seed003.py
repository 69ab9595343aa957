"""Every sensitivity seed 003's notebook (*Global Sensitivity From Scratch*) printed (kind
``"sensitivity"``): scenarios (a) and (b), and the small dataset "a_s", each value a claim
re-checked under the notebook's own conventions, at ``k = 1, 2`` (every ``k`` with
``all_k``). Its bounded mode is ``ChangeDistance <= k`` with both datasets in the space; its
unbounded mode is exactly ``k`` records added or removed, release-centred, neighbours drawn
from the pool. The notebook computed in floats, so a printed value a hair below the exact
one is a genuine (if tiny) violation; each claim expects
:data:`~exactdp.checkers.builtin.FLOAT_CLOSE`.
"""

from __future__ import annotations

import json
from importlib import resources

from exactdp.checkers.builtin import FLOAT_CLOSE, BuiltinClaim
from exactdp.queries import count, mean, median, percentile, std, sum_, variance
from exactdp.spaces import ChangeDistance, Metric, SubMultisets, SymmetricDistance

__all__ = ["claims", "seed003_claims", "seed003_tables", "replicated_pool"]


def claims(all_k: bool = False) -> list[BuiltinClaim]:
    """The registry's entry point: ``k = 1, 2``, or every ``k`` the notebook printed."""
    return seed003_claims(None if all_k else (1, 2))


_SEED003_QUERIES = {
    "mean": mean, "median": median, "count": count, "sum": sum_, "std": std(0),
    "var": variance(0), "percentile_25": percentile(25), "percentile_50": percentile(50),
    "percentile_75": percentile(75), "percentile_90": percentile(90),
}


def replicated_pool(values: list, release_size: int) -> list:
    """Seed 003's scenario (b) universe: every value of the range ``release_size`` times
    (the notebook's ``[1, 2]*4``), so that a release may repeat any value up to its size.

    >>> replicated_pool([1, 2], 3)
    [1, 2, 1, 2, 1, 2]
    """
    return list(values) * release_size


def seed003_tables() -> dict:
    """The notebook's printed tables (see ``exactdp/data/seed003_tables.json``), each run's
    ``universe`` included: stored for scenario (a), computed by :func:`replicated_pool`
    from the value ranges and the release size where the run gives ``value_ranges``."""
    text = resources.files("exactdp").joinpath("data/seed003_tables.json").read_text("utf-8")
    data = json.loads(text)
    for run in data["runs"].values():
        if "value_ranges" in run:
            run["universe"] = {column: replicated_pool(values, run["release_size"])
                               for column, values in run["value_ranges"].items()}
    return data


def seed003_claims(ks: tuple[int, ...] | None = (1, 2)) -> list[BuiltinClaim]:
    """Every value seed 003's notebook printed, at ``k`` in ``ks`` (every ``k`` if None)."""
    data = seed003_tables()
    runs = data["runs"]
    out = []
    for row in data["tables"]:
        scenario, column, mode, k = row["scenario"], row["column"], row["mode"], row["k"]
        if ks is not None and k not in ks:
            continue
        run = runs[scenario]
        space = SubMultisets(run["universe"][column], size=run["release_size"])
        if mode == "unbounded":
            metric: Metric = SymmetricDistance()
            options = {"exact_k": True, "scope": "release-centred"}
        else:
            metric = ChangeDistance()
            options = {}
        query = _SEED003_QUERIES[row["query"]]
        out.append(BuiltinClaim(
            f"s003/{scenario}/{column}/{mode}/k={k}/{row['query']}",
            f"seed 003 notebook, scenario ({scenario}), column {column}, {mode}, k={k}",
            f"the notebook prints sensitivity {row['value']}", row["value"], query, space,
            metric, k, FLOAT_CLOSE, options))
    return out
