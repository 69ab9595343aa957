"""The enumeration engine (layer 3, beside the checkers; see DESIGN.md, "Engine").

:mod:`.door` chooses the engine once from the space's kind and takes the front doors'
:class:`~.options.Options`. A *plan* (:mod:`.plan`) fixes once the space, the relation, ``d_in``, the query, the
scope and the budgets; the value *tables* (:mod:`.tables`, filled level by level by
:mod:`.incremental`), the *neighbour strategies* (:mod:`.neighbours`) and the pair
*scans* (:mod:`.scan`) compute on it (each query kind's evaluators: :mod:`.kinds`); *backends* (:mod:`.backends`) run it as partitions
of the source datasets (:mod:`.partitions`) submitted to a
``concurrent.futures.Executor``: inline (serial), a process pool, or a Dask
``distributed.Client`` (:mod:`.cluster`). Sequences and privacy units use the edit graph
(:mod:`.edits`). The engine never imports :mod:`exactdp.checkers`: the front doors
(``sensitivity``, ``verify_claim``, ...) call it and turn its raw answers into verdicts.

Nothing is imported here: importing :mod:`exactdp.engine` stays free.
"""
