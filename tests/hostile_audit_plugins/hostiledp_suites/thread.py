"""A check that leaves a thread running that is not a daemon (it waits on :data:`STOP`,
which the test sets afterwards; in a child process it would run for an hour)."""
import threading

from hostiledp_suites import audit, holds

DISTRIBUTION = "hostiledp"
STOP = threading.Event()


def _leaves_a_thread():
    threading.Thread(target=STOP.wait, args=(3600,), name="left-behind").start()
    return holds()


def audits():
    return [audit("thread", _leaves_a_thread)]
