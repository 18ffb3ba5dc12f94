//! The clause graph: clauses in source order plus typed edges (petgraph).

use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef as _;

use crate::clause::Clause;

/// How two clauses are related.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum EdgeKind {
    /// `;` or a newline between two list elements.
    Sequence,
    /// `&&`.
    And,
    /// `||`.
    Or,
    /// `|` or `|&`.
    Pipe,
    /// `&`: the first element runs in the background, the second starts right away.
    Background,
    /// The target runs inside a substitution, process substitution or heredoc body of the
    /// source's words (the target's `parent` is the source).
    Contains,
}

/// The clauses of a command line and the edges between them.
///
/// Node `i` of [`ClauseGraph::petgraph`] is clause `i` of [`ClauseGraph::clauses`]: clauses
/// are ordered by start offset, and a nested clause follows the clause that contains it.
/// `Sequence`/`And`/`Or`/`Pipe`/`Background` edges join the first clause of one list element
/// to the first clause of the next.
#[derive(Clone, Debug, Default)]
pub struct ClauseGraph {
    graph: DiGraph<Clause, EdgeKind>,
}

impl PartialEq for ClauseGraph {
    /// Two graphs are equal when their clauses (spans ignored) and edges are equal.
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self.clauses().eq(other.clauses())
            && self.edges().collect::<Vec<_>>() == other.edges().collect::<Vec<_>>()
    }
}

impl Eq for ClauseGraph {}

impl ClauseGraph {
    /// Builds the graph from clauses in emission order and edges between emission indices:
    /// sorts the clauses by start offset (a container before what it contains) and remaps
    /// `parent` and the edges.
    pub(crate) fn from_emitted(
        mut clauses: Vec<Clause>,
        edges: &[(usize, usize, EdgeKind)],
    ) -> Self {
        let key = |c: &Clause| (c.span.start, c.depth);
        if clauses.windows(2).all(|w| match w {
            [a, b] => key(a) <= key(b),
            _ => true,
        }) {
            // Already in order (the common case): no permutation needed.
            let mut graph = DiGraph::with_capacity(clauses.len(), edges.len());
            for clause in clauses {
                graph.add_node(clause);
            }
            let mut sorted_edges = edges.to_vec();
            sorted_edges.sort_by_key(|&(a, b, _)| (a, b));
            for (a, b, kind) in sorted_edges {
                graph.add_edge(NodeIndex::new(a), NodeIndex::new(b), kind);
            }
            return Self { graph };
        }
        let mut order: Vec<usize> = (0..clauses.len()).collect();
        order.sort_by_key(|&i| clauses.get(i).map_or((0, 0), |c| (c.span.start, c.depth)));
        let mut position = vec![0usize; clauses.len()];
        for (new, &old) in order.iter().enumerate() {
            if let Some(slot) = position.get_mut(old) {
                *slot = new;
            }
        }
        for clause in &mut clauses {
            clause.parent = clause.parent.and_then(|p| position.get(p).copied());
        }
        let mut slots: Vec<Option<Clause>> = clauses.into_iter().map(Some).collect();
        let mut graph = DiGraph::with_capacity(slots.len(), edges.len());
        for &old in &order {
            if let Some(clause) = slots.get_mut(old).and_then(Option::take) {
                graph.add_node(clause);
            }
        }
        let mut sorted_edges: Vec<(usize, usize, EdgeKind)> = edges
            .iter()
            .filter_map(|&(a, b, kind)| Some((*position.get(a)?, *position.get(b)?, kind)))
            .collect();
        sorted_edges.sort_by_key(|&(a, b, _)| (a, b));
        for (a, b, kind) in sorted_edges {
            graph.add_edge(NodeIndex::new(a), NodeIndex::new(b), kind);
        }
        Self { graph }
    }

    /// The clauses in order of their start offset; a nested clause follows its container.
    pub fn clauses(&self) -> impl Iterator<Item = &Clause> {
        self.graph.node_weights()
    }

    /// The number of clauses.
    #[must_use]
    pub fn len(&self) -> usize {
        self.graph.node_count()
    }

    /// True when there are no clauses.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.graph.node_count() == 0
    }

    /// The clause at position `i` of [`ClauseGraph::clauses`].
    #[must_use]
    pub fn get(&self, i: usize) -> Option<&Clause> {
        self.graph.node_weight(NodeIndex::new(i))
    }

    /// The edges as `(from, to, kind)`, indices being positions in [`ClauseGraph::clauses`],
    /// sorted by `(from, to)`.
    pub fn edges(&self) -> impl Iterator<Item = (usize, usize, EdgeKind)> + '_ {
        let mut edges: Vec<(usize, usize, EdgeKind)> = self
            .graph
            .edge_references()
            .map(|e| (e.source().index(), e.target().index(), *e.weight()))
            .collect();
        edges.sort_by_key(|&(a, b, _)| (a, b));
        edges.into_iter()
    }

    /// The underlying petgraph graph (node index `i` is clause `i`).
    #[must_use]
    pub const fn petgraph(&self) -> &DiGraph<Clause, EdgeKind> {
        &self.graph
    }
}
