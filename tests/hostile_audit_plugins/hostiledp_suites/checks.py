"""Checks that exit, raise, hang, return garbage, move the working directory, or report a
violation without a witness or without a replay; one well-behaved audit beside them."""
import os
import sys
import tempfile
import time

from hostiledp_suites import WITNESS, Finding, Replay, Verdict, audit, holds

DISTRIBUTION = "hostiledp"


def _sys_exit():
    sys.exit(0)


def _os_exit():
    os._exit(0)


def _raises():
    raise RuntimeError("the check broke")


def _not_a_finding():
    return "holds"


def _hangs():
    time.sleep(3600)


def _chdir():
    os.chdir(tempfile.gettempdir())
    return holds()


def _violated_not_replayed():
    return Finding(claim="1", truth="2", verdict=Verdict.VIOLATED, witness=WITNESS)


def _confirmed_without_witness():
    return Finding(claim="1", truth="2", verdict=Verdict.VIOLATED, replay=Replay.CONFIRMED)


def audits():
    return [audit("fine", holds), audit("sys-exit", _sys_exit), audit("os-exit", _os_exit),
            audit("raises", _raises), audit("not-a-finding", _not_a_finding), audit("hangs", _hangs),
            audit("chdir", _chdir), audit("violated-not-replayed", _violated_not_replayed),
            audit("confirmed-without-witness", _confirmed_without_witness)]
