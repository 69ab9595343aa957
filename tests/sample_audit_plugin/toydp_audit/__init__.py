"""exactdp's audit of toydp: an adapter (:mod:`toydp_audit.adapter`, the only module that
imports toydp) and a suite (:mod:`toydp_audit.suite`, declared in the entry-point group
``exactdp.audits``)."""
