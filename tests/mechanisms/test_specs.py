"""One record per mechanism (exactdp.mechanisms.specs): every reader lists exactly the
mechanisms the table gives it, and a new record reaches every reader."""

from __future__ import annotations

import contextlib
import io
import re
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from exactdp.cli import main
from exactdp.errors import InvalidArgument
from exactdp.mechanisms import specs
from exactdp.mechanisms.accounting import rdp as rdp_module
from exactdp.mechanisms.accounting.accountant import MECHANISMS, account
from exactdp.mechanisms.mechanism import _parameters, make_mechanism, mechanism_names
from exactdp.mechanisms.models.randomized_response import RandomizedResponse

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
import exactdp_cli  # noqa: E402 - the docs' own extension, from docs/_ext


def _help(command: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        main([command, "--help"])
    return out.getvalue()


def _option_names(account_help: str) -> tuple[str, ...]:
    """The names the ``--mechanism NAME`` option's help lists (argparse may wrap at hyphens)."""
    text = re.sub(r"-\s+", "-", " ".join(account_help.split()))
    text = text.split("--mechanism NAME one of ")[1].split(" (repeat for a list)")[0]
    return tuple(text.split(", "))


def test_every_reference_resolves_and_every_proof_exists():
    for s in specs.SPECS:
        for op in s.operations():
            assert callable(specs.resolve(getattr(s, op))), (s.name, op)
        for proof in s.proofs:
            assert (ROOT / "proofs" / proof).is_file(), (s.name, proof)
    assert len({s.name for s in specs.SPECS}) == len(specs.SPECS)


def test_each_reader_lists_exactly_the_table():
    assert sorted(mechanism_names()) == sorted(specs.names("model"))
    assert MECHANISMS == specs.names("account")
    assert specs.names("account") == ("discrete-laplace", "randomized-response", "gaussian", "discrete-gaussian",
                                      "laplace", "exponential", "permute-and-flip", "report-noisy-max")
    account_help = _help("account")
    listed = [line.split()[0] for line in account_help.split("each --param applying to the --mechanism before it):\n")[1]
              .split("\nEvery mechanism also takes")[0].splitlines() if line.startswith("  ") and line[2] != " "]
    assert tuple(listed) == specs.names("account")
    assert _option_names(account_help) == specs.names("account")
    privacy_help = _help("privacy")
    for name in specs.names("model"):
        assert f"\n  {name} " in privacy_help, name
    assert [row[0] for row in exactdp_cli.mechanism_rows()] == list(specs.names())


def test_help_lines_name_only_parameters_the_code_accepts():
    # the model's accepted and required names come from its constructor's signature; the help
    # line in the record names no parameter the model refuses and every one it requires
    said = {s.name: set(re.findall(r"\b([a-z_]+)=", s.help)) for s in specs.SPECS}
    for s in specs.SPECS:
        if s.model is None:
            continue
        accepted, required = _parameters(specs.resolve(s.model))
        assert said[s.name] <= set(accepted), (s.name, said[s.name] - set(accepted))
        assert set(required) <= said[s.name], (s.name, set(required) - said[s.name])
    assert _parameters(specs.resolve(specs.spec("report-noisy-max").model)) == (
        ["noise", "epsilon", "sensitivity", "max_candidates"], ["noise", "epsilon"])
    # the accountant's builder names what it takes when refusing an unknown one
    for name in specs.names("account"):
        with pytest.raises(InvalidArgument, match=rf"^{name} has no parameter zzz; its parameters are ") as e:
            specs.resolve(specs.spec(name).account)({"zzz": "1"})
        accepted = set(str(e.value).split("its parameters are ")[1].split(", "))
        mentioned = set(re.findall(r"\b([a-z_]+)=", specs.spec(name).help_for("account")))
        assert mentioned <= accepted, (name, mentioned - accepted)
    assert set(re.findall(r"\b([a-z_]+)=", specs.spec("gaussian").help_for("account"))) == {"sigma", "sensitivity",
                                                                                             "sampling", "rate"}


def test_operations_each_mechanism_has():
    assert specs.spec("gaussian").operations() == ("model", "account", "rdp")
    assert specs.spec("laplace").operations() == ("model", "account")
    assert specs.spec("float-laplace").operations() == ("model",)
    with pytest.raises(InvalidArgument, match=r"mechanism='float-laplace' is not one the accountant composes; "
                                              r"use one of discrete-laplace, randomized-response"):
        account("float-laplace", 1, delta="1e-6", params={"scale": 1})
    with pytest.raises(InvalidArgument, match=r"mechanism='nope' is not known; use one of discrete-gaussian, "):
        make_mechanism("nope")
    with pytest.raises(InvalidArgument, match=r"mechanism='laplace' has no Renyi DP computation yet \(it is "
                                              r"composed on the certified loss grid only\)"):
        rdp_module.rdp("laplace", 1, orders=[2], params={"scale": 1})


def test_a_record_without_rdp_is_refused_by_rdp_naming_those_with_it(monkeypatch):
    plain = specs.MechanismSpec("coin", "p=P", account="exactdp.mechanisms.accounting.accountant:_randomized_response")
    monkeypatch.setattr(specs, "SPECS", specs.SPECS + (plain,))
    assert account("coin", 1, epsilon=0, params={"p": "3/4"}).delta_upper >= Fraction(1, 2)
    with pytest.raises(InvalidArgument, match=r"mechanism='coin' has no Renyi DP computation yet; the RDP view "
                                              r"covers discrete-laplace, randomized-response, gaussian, "
                                              r"discrete-gaussian, exponential, permute-and-flip, report-noisy-max"):
        rdp_module.rdp("coin", 1, orders=[2], params={"p": "3/4"})


def test_a_new_record_reaches_every_reader(monkeypatch):
    # a made-up mechanism: randomized response under another name, composed as randomized response
    new = specs.MechanismSpec(
        "coin-flip", "p=P (probability of the truth)",
        model="exactdp.mechanisms.models.randomized_response:RandomizedResponse",
        account="exactdp.mechanisms.accounting.accountant:_randomized_response",
        rdp="exactdp.mechanisms.accounting.rdp:_randomized_response_part",
        account_help="p=P, composed as randomized response")
    monkeypatch.setattr(specs, "SPECS", specs.SPECS + (new,))
    m = make_mechanism("coin-flip", p="3/4")
    assert isinstance(m, RandomizedResponse) and m.p == Fraction(3, 4)
    assert mechanism_names()["coin-flip"] == "p=P (probability of the truth)"
    r = account("coin-flip", 2, epsilon=0, params={"p": "3/4"})
    plain = account("randomized-response", 2, epsilon=0, params={"p": "3/4"})
    assert (r.delta_lower, r.delta_upper) == (plain.delta_lower, plain.delta_upper)
    # delta(0) of two RR(3/4) steps is their total variation: (9 - 1)/16 on outcome (0, 0) = 1/2
    assert r.delta_lower <= Fraction(1, 2) <= r.delta_upper and r.delta_upper - r.delta_lower < Fraction(1, 10**9)
    assert "  coin-flip            p=P, composed as randomized response" in _help("account")
    assert _option_names(_help("account"))[-2:] == ("report-noisy-max", "coin-flip")
    assert "\n  coin-flip " in _help("privacy")
    assert ("coin-flip", "p=P (probability of the truth)", "exact model (privacy), accountant (account), "
            "Renyi DP (--rdp)") in exactdp_cli.mechanism_rows()
    assert rdp_module.rdp("coin-flip", 1, orders=[2], params={"p": "3/4"}).upper == \
        rdp_module.rdp("randomized-response", 1, orders=[2], params={"p": "3/4"}).upper


def test_importing_the_ledger_or_the_account_help_loads_no_sympy():
    import subprocess

    for code in ("import sys, exactdp.mechanisms.accounting.ledger; print('sympy' in sys.modules)",
                 "import sys, contextlib, io\nfrom exactdp.cli import main\n"
                 "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
                 "    main(['account', '--help'])\nprint('sympy' in sys.modules)"):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert done.stdout.strip() == "False", done.stderr
