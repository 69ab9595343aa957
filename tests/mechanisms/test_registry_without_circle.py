"""The mechanism registry is full without mechanism.py importing the models (issue 19: it
imported ``models.py`` to fill itself, an import circle). Each model registers its name
where it is defined; the package imports every model module before any of its modules runs."""

from __future__ import annotations

import subprocess
import sys

BUILT_IN = {
    "discrete-gaussian", "discrete-laplace", "exponential", "exponential-float-sampler",
    "float-laplace", "float-randomized-response", "gaussian", "laplace", "permute-and-flip",
    "randomized-response", "report-noisy-max",
}


def test_a_fresh_interpreter_importing_only_the_interface_finds_every_model():
    script = (
        "from exactdp.mechanisms.mechanism import make_mechanism, mechanism_names\n"
        "print(sorted(mechanism_names()))\n"
        "print(make_mechanism('randomized-response', p='3/4').epsilon(0, 1).value)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    names, epsilon = out.stdout.splitlines()
    assert BUILT_IN <= set(eval(names))  # other models may be added; none of these may go
    assert epsilon == "log(3)"
