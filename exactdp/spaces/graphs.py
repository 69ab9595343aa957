"""Graph datasets: every simple undirected graph on a finite set of individuals, with the
node-level and edge-level neighbour relations, and the exact worst case of a query over
every neighbouring pair (seed 002, exercise 4: "a graph dataset where each individual can
contribute one node").

- :class:`Graph`: a set of nodes and a set of edges (each a sorted pair of nodes);
- :class:`GraphDomain`: every graph whose nodes are drawn from ``individuals``, with at
  most ``max_nodes`` nodes and every degree at most ``max_degree`` (both optional);
- :class:`NodeChange`: one individual's node added or removed with all its edges (what an
  individual contributes when "each individual can contribute one node");
  :class:`EdgeChange`: one edge added or removed, the nodes unchanged;
- :func:`graph_sensitivity`: the largest ``|f(g) - f(h)|`` over every neighbouring pair of
  the domain, with the pair that attains it.

Both relations are symmetric, so every pair is reached as ``(g, g minus one node or one
edge)``; removing a node or an edge keeps a graph inside the domain (fewer nodes, no
degree grows), so every neighbour pair of the domain is examined.

>>> d = GraphDomain(individuals=("a", "b", "c"))
>>> d.count(), graph_sensitivity(node_count, d, NodeChange()).value
(18, 1)
>>> print(graph_sensitivity(edge_count, d, NodeChange()).witness)
g: nodes {a,b,c}, edges {a-b, a-c}; h: nodes {b,c}, edges {}: f(g)=2, f(h)=0
"""

from __future__ import annotations

import dataclasses
import itertools
from math import comb
from typing import Callable, Hashable, Iterator

from exactdp._budget import refuse_above
from exactdp.errors import InvalidArgument

__all__ = ["Graph", "GraphDomain", "NodeChange", "EdgeChange", "GraphPair", "GraphWorstCase",
           "graph_sensitivity", "node_count", "edge_count", "DEFAULT_MAX_GRAPHS"]

DEFAULT_MAX_GRAPHS = 200_000


def _label(node: Hashable) -> str:
    return str(node)


@dataclasses.dataclass(frozen=True)
class Graph:
    """A simple undirected graph: ``nodes`` and ``edges`` (pairs of distinct nodes)."""

    nodes: frozenset
    edges: frozenset = frozenset()

    def __post_init__(self):
        nodes = frozenset(self.nodes)
        edges = frozenset(tuple(sorted(e, key=repr)) for e in self.edges)
        for e in edges:
            if len(e) != 2 or e[0] == e[1] or not set(e) <= nodes:
                raise InvalidArgument(f"edge {e!r} is not a pair of two distinct nodes of "
                                      f"{sorted(nodes, key=repr)!r}; give edges between nodes")
        object.__setattr__(self, "nodes", nodes)
        object.__setattr__(self, "edges", edges)

    def degree(self, node: Hashable) -> int:
        """The number of edges at ``node``."""
        return sum(node in e for e in self.edges)

    def without_node(self, node: Hashable) -> Graph:
        """The graph with ``node`` and every edge at it removed."""
        return Graph(self.nodes - {node}, frozenset(e for e in self.edges if node not in e))

    def __str__(self) -> str:
        nodes = ",".join(sorted(map(_label, self.nodes)))
        edges = ", ".join(sorted(f"{_label(u)}-{_label(v)}" for u, v in self.edges))
        return f"nodes {{{nodes}}}, edges {{{edges}}}"


@dataclasses.dataclass(frozen=True)
class GraphDomain:
    """Every graph on a subset of ``individuals`` (one node each), with at most
    ``max_nodes`` nodes and every degree at most ``max_degree`` (``None``: no cap)."""

    individuals: tuple
    max_nodes: int | None = None
    max_degree: int | None = None

    def __post_init__(self):
        people = tuple(self.individuals) if not isinstance(self.individuals, (str, bytes)) else ()
        if not people or len(set(people)) != len(people):
            raise InvalidArgument(f"individuals={self.individuals!r} must be a non-empty sequence "
                                  f"of distinct labels; give e.g. ('a', 'b', 'c')")
        object.__setattr__(self, "individuals", people)
        for name in ("max_nodes", "max_degree"):
            cap = getattr(self, name)
            if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 0):
                raise InvalidArgument(f"{name}={cap!r} is not a whole number >= 0 or None")

    def _sizes(self) -> range:
        top = len(self.individuals) if self.max_nodes is None else min(self.max_nodes,
                                                                       len(self.individuals))
        return range(top + 1)

    def bound(self) -> int:
        """The number of graphs before the degree cap (exact without one): ``sum over s of
        C(n, s) 2^C(s, 2)``."""
        n = len(self.individuals)
        return sum(comb(n, s) * 2 ** comb(s, 2) for s in self._sizes())

    def count(self, max_graphs: int = DEFAULT_MAX_GRAPHS) -> int:
        """The exact number of graphs (enumerated when a degree cap applies)."""
        if self.max_degree is None:
            return self.bound()
        return sum(1 for _ in self.graphs(max_graphs))

    def graphs(self, max_graphs: int = DEFAULT_MAX_GRAPHS) -> Iterator[Graph]:
        """Every graph of the domain, each once. Raises :class:`~exactdp.errors.TooLarge`
        before enumerating when :meth:`bound` exceeds ``max_graphs``."""
        refuse_above(self.bound(), max_graphs, what=f"graphs in {self.describe()}",
                     option="max_graphs", hint="use fewer individuals or a smaller max_nodes")
        for s in self._sizes():
            for nodes in itertools.combinations(self.individuals, s):
                pairs = list(itertools.combinations(nodes, 2))
                for mask in range(2 ** len(pairs)):
                    edges = frozenset(p for j, p in enumerate(pairs) if mask >> j & 1)
                    g = Graph(frozenset(nodes), edges)
                    if self.max_degree is None or all(g.degree(v) <= self.max_degree for v in nodes):
                        yield g

    def describe(self) -> str:
        text = f"graphs on {{{','.join(map(_label, self.individuals))}}}"
        if self.max_nodes is not None:
            text += f", <= {self.max_nodes} nodes"
        if self.max_degree is not None:
            text += f", degree <= {self.max_degree}"
        return text


class NodeChange:
    """Node-level neighbours: one individual's node added or removed with all its edges."""

    def smaller(self, g: Graph) -> Iterator[Graph]:
        """Every neighbour of ``g`` with one node fewer."""
        for v in sorted(g.nodes, key=repr):
            yield g.without_node(v)

    def describe(self) -> str:
        return "one node added or removed with its edges"


class EdgeChange:
    """Edge-level neighbours: one edge added or removed, the nodes unchanged."""

    def smaller(self, g: Graph) -> Iterator[Graph]:
        """Every neighbour of ``g`` with one edge fewer."""
        for e in sorted(g.edges, key=repr):
            yield Graph(g.nodes, g.edges - {e})

    def describe(self) -> str:
        return "one edge added or removed"


def node_count(g: Graph) -> int:
    """The number of nodes."""
    return len(g.nodes)


def edge_count(g: Graph) -> int:
    """The number of edges."""
    return len(g.edges)


@dataclasses.dataclass(frozen=True)
class GraphPair:
    g: Graph
    h: Graph
    fg: object
    fh: object

    def __str__(self) -> str:
        return f"g: {self.g}; h: {self.h}: f(g)={self.fg}, f(h)={self.fh}"


@dataclasses.dataclass(frozen=True)
class GraphWorstCase:
    """The largest ``|f(g) - f(h)|`` over every pair examined, and a pair attaining it."""

    value: object
    witness: GraphPair | None
    pairs: int
    scope: str
    graphs: int = 0  # the graphs of the domain, counted as they were enumerated


def graph_sensitivity(query: Callable[[Graph], object], domain: GraphDomain, relation,
                      max_graphs: int = DEFAULT_MAX_GRAPHS) -> GraphWorstCase:
    """The exact worst ``|query(g) - query(h)|`` over every neighbouring pair of ``domain``
    under ``relation`` (:class:`NodeChange` or :class:`EdgeChange`); ``query`` returns an
    exact number (int or Fraction). The witness is the first pair attaining it."""
    if not isinstance(relation, (NodeChange, EdgeChange)):
        raise InvalidArgument(f"relation={relation!r} is not a graph neighbour relation; give "
                              f"NodeChange() or EdgeChange()")
    best, witness, pairs, graphs = None, None, 0, 0
    for g in domain.graphs(max_graphs):
        graphs += 1
        fg = query(g)
        for h in relation.smaller(g):
            fh = query(h)
            pairs += 1
            d = abs(fg - fh)  # type: ignore[operator]
            if best is None or d > best:
                best, witness = d, GraphPair(g, h, fg, fh)
    if best is None:
        raise InvalidArgument(f"no neighbouring pair in {domain.describe()}; give at least one "
                              f"individual")
    scope = (f"every one of the {graphs:,} {domain.describe()} and every "
             f"neighbour ({relation.describe()}): {pairs:,} pairs")
    return GraphWorstCase(best, witness if best else None, pairs, scope, graphs)
