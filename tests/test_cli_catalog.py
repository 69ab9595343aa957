"""`exactdp catalog` and the catalogue part of `exactdp verify`."""

import json

import sympy

from exactdp.cli import main
import importlib

catalogue_module = importlib.import_module("exactdp.symbolic.catalogue")
from exactdp.symbolic.catalogue import Entry, Truth
from exactdp.symbolic.symbols import U, L

KEYS = {"id", "source", "statistic", "neighbors", "published", "derived", "symbols",
        "verdict", "witness"}


def test_catalog_json_has_the_promised_keys_and_values(capsys):
    assert main(["catalog", "--only", "s002/table/sum/LU", "--json"]) == 0
    [obj] = [o for o in json.loads(capsys.readouterr().out) if o["id"] == "s002/table/sum/LU"]
    assert KEYS <= obj.keys()
    assert obj["published"] == "d_in*Max(U, Abs(L))"
    assert sympy.sympify(obj["derived"]) == sympy.sympify("d_in*Max(Abs(L), Abs(U))")
    assert set(obj["symbols"]) == {"L", "U", "d_in"}
    # on its grid, d_in*Max(U, |L|) equals the truth somewhere (L = 0, U = 3, d_in = 1: 3)
    assert (obj["verdict"], obj["evidence"], obj["tight"]) == ("holds-on-grid", "bit-exact-grid", True)
    assert obj["witness"]["parameters"] == {"L": 0, "U": 3, "d_in": 1}


def test_catalog_json_witness_of_a_violated_published_formula(capsys):
    assert main(["catalog", "--only", "s000/clipped-sum/add-remove", "--json"]) == 0
    [obj] = json.loads(capsys.readouterr().out)
    assert obj["verdict"] == "violated"
    w = obj["witness"]
    assert set(w) >= {"parameters", "pair"} and set(w["pair"]) >= {"x", "x_prime", "fx", "fx_prime"}
    # the pair really breaks the published U - L at those parameters
    p = {k: sympy.Rational(v) for k, v in w["parameters"].items()}
    published = sympy.sympify(obj["published"]).subs({sympy.Symbol(k): v for k, v in p.items()})
    moved = abs(sympy.Rational(w["pair"]["fx"]) - sympy.Rational(w["pair"]["fx_prime"]))
    assert moved > published


def test_catalog_lists_every_seed(capsys):
    assert main(["catalog", "--json"]) == 0
    ids = [o["id"] for o in json.loads(capsys.readouterr().out)]
    assert len(ids) == len(set(ids))
    assert {i.split("/")[0] for i in ids} == {"s000", "s001", "s002"}


def test_a_failing_derived_formula_makes_verify_and_catalog_exit_1(monkeypatch, capsys):
    from exactdp.checkers.sensitivity import sensitivity
    from exactdp.spaces import IntegerRange, Multisets

    def truth(p):
        return Truth.from_result(sensitivity("sum", Multisets(IntegerRange(p["L"], p["U"]), sizes=(0, 2))))

    bad = Entry("zz/bad", "test", "sum", "add-remove", None, U - L,
                {"L": "lower", "U": "upper"}, [dict(L=1, U=3)], truth)
    monkeypatch.setattr(catalogue_module, "catalogue", lambda: [bad])
    assert main(["catalog"]) == 1
    out = capsys.readouterr().out
    assert "DERIVED FORMULA FAILS" in out and "1 derived formula(s) failed" in out
    assert main(["verify", "--only", "zz"]) == 1
    assert main(["verify", "--only", "zz", "--no-catalogue"]) == 2  # nothing left to check
    assert "matches no built-in claim" in capsys.readouterr().err


def test_unknown_prefix_is_an_error(capsys):
    assert main(["catalog", "--only", "nope"]) == 2
    assert "--only='nope' matches no catalogue id" in capsys.readouterr().err
