"""``exactdp search`` (registered through ``exactdp.cli.search.register``)."""

from __future__ import annotations

import argparse
import json

import pytest

import exactdp.cli.search as cli_search

BASE = ["search", "--query", "sum", "--clip", "10,20", "--universe", "0..1000000",
        "--sizes", "0..10000", "--budget", "200"]


def _run(argv):
    parser = argparse.ArgumentParser()
    cli_search.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.run(args)


def test_a_violation_exits_1_with_the_witness_and_seed(capsys):
    assert _run(BASE + ["--claim", "U-L", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "violated" and out["seed"] == 0 and out["proof"] is False
    assert out["witness"] == {"x": [], "x_prime": ["11"], "fx": "0", "fx_prime": "11", "distance": "11"}


def test_not_found_exits_0_and_says_it_is_no_proof(capsys):
    assert _run(BASE + ["--claim", "d_in*U", "--seed", "5"]) == 1  # not-found: never a proof
    out = capsys.readouterr().out
    assert out.startswith("not-found") and "not a proof" in out and "seed=5" in out


def test_a_bad_clip_is_refused():
    from exactdp.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="--clip='10' is not 'L,U'"):
        _run(["search", "--query", "sum", "--clip", "10", "--universe", "0..9", "--sizes", "0..3",
              "--claim", "1"])
