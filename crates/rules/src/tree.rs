//! A policy file as a tree of TOML values, each with the byte range of its source text: what
//! `read.rs` turns into the model of the file.
//!
//! The tree comes from TOML text ([`Tree::parse`]) or, for the embedded default policy, from
//! the binary form the build script wrote of the same text (`build.rs` includes this file):
//! both are read by the same code, so the embedded default loads exactly as any file does,
//! minus the TOML parse. The nodes sit in one flat list (the children of an array or table
//! are consecutive), and strings borrow from the text or the binary form where they can, so
//! the binary form loads with almost no allocation.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;

use serde::{Deserialize, Serialize};
use toml::de::{DeTable, DeValue};

/// A file's values; the first node is the top-level table.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Tree<'a> {
    #[serde(borrow)]
    nodes: Vec<Node<'a>>,
}

/// One value, where it is in the source, and its key when it is in a table.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Node<'a> {
    start: usize,
    end: usize,
    #[serde(borrow)]
    key: Option<Key<'a>>,
    #[serde(borrow)]
    value: Value<'a>,
}

/// A table key and where it is written.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Key<'a> {
    start: usize,
    end: usize,
    /// The key.
    #[serde(borrow)]
    pub(crate) name: Cow<'a, str>,
}

/// A TOML value; an array's items and a table's entries are the `len` nodes from `first`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum Value<'a> {
    /// A string.
    String(#[serde(borrow)] Cow<'a, str>),
    /// An integer that fits in 64 bits.
    Integer(i64),
    /// An integer too large for 64 bits, as written.
    LargeInteger(String),
    /// A float, as written.
    Float(String),
    /// A boolean.
    Boolean(bool),
    /// A date or time, as written.
    Datetime(String),
    /// An array.
    Array {
        /// The index of the first item.
        first: usize,
        /// How many items.
        len: usize,
    },
    /// A table, in key order.
    Table {
        /// The index of the first entry.
        first: usize,
        /// How many entries.
        len: usize,
    },
}

impl Key<'_> {
    /// The byte range of the key.
    pub(crate) const fn span(&self) -> Range<usize> {
        self.start..self.end
    }
}

/// A node of a tree, with the tree to find its children in.
#[derive(Clone, Copy, Debug)]
pub(crate) struct At<'t, 'a> {
    tree: &'t Tree<'a>,
    node: &'t Node<'a>,
}

impl<'t, 'a> At<'t, 'a> {
    /// The byte range of the value's source text.
    pub(crate) const fn span(&self) -> Range<usize> {
        self.node.start..self.node.end
    }

    /// The value.
    pub(crate) const fn value(&self) -> &'t Value<'a> {
        &self.node.value
    }

    /// The key of a table entry.
    pub(crate) const fn key(&self) -> Option<&'t Key<'a>> {
        self.node.key.as_ref()
    }

    /// The items of an array or the entries of a table (nothing for other values).
    pub(crate) fn children(self) -> impl Iterator<Item = At<'t, 'a>> + 't {
        let tree = self.tree;
        let range = match self.node.value {
            Value::Array { first, len } | Value::Table { first, len } => first..first + len,
            _ => 0..0,
        };
        tree.nodes
            .get(range)
            .unwrap_or_default()
            .iter()
            .map(move |node| At { tree, node })
    }
}

impl<'a> Tree<'a> {
    /// The top-level table (`None` for an empty tree, which no parse makes).
    pub(crate) fn root(&self) -> Option<At<'_, 'a>> {
        self.nodes.first().map(|node| At { tree: self, node })
    }

    /// Parses TOML text into a tree; the error is toml's, with its message and span.
    pub(crate) fn parse(text: &'a str) -> Result<Self, toml::de::Error> {
        let table = DeTable::parse(text)?;
        let span = table.span();
        let mut tree = Tree { nodes: Vec::new() };
        tree.nodes.push(Node {
            start: span.start,
            end: span.end,
            key: None,
            value: Value::Boolean(false),
        });
        let value = tree.add_table(table.into_inner());
        if let Some(root) = tree.nodes.first_mut() {
            root.value = value;
        }
        Ok(tree)
    }

    /// Adds the entries of a table as consecutive nodes, then their children.
    fn add_table(&mut self, table: DeTable<'a>) -> Value<'a> {
        let first = self.nodes.len();
        let len = table.len();
        let mut pending = Vec::with_capacity(len);
        for (key, value) in table {
            let key_span = key.span();
            let key = Key {
                start: key_span.start,
                end: key_span.end,
                name: key.into_inner(),
            };
            pending.push(self.add_leaf(Some(key), value));
        }
        self.fill(first, pending);
        Value::Table { first, len }
    }

    /// Adds one node; a container's children are left to [`Tree::fill`].
    fn add_leaf(
        &mut self,
        key: Option<Key<'a>>,
        value: toml::Spanned<DeValue<'a>>,
    ) -> Option<DeValue<'a>> {
        let span = value.span();
        let (value, container) = match value.into_inner() {
            DeValue::String(text) => (Value::String(text), None),
            DeValue::Integer(integer) => {
                let value = match i64::from_str_radix(integer.as_str(), integer.radix()) {
                    Ok(n) => Value::Integer(n),
                    Err(_) => Value::LargeInteger(integer.to_string()),
                };
                (value, None)
            }
            DeValue::Float(float) => (Value::Float(float.as_str().to_owned()), None),
            DeValue::Boolean(b) => (Value::Boolean(b), None),
            DeValue::Datetime(d) => (Value::Datetime(d.to_string()), None),
            container @ (DeValue::Array(_) | DeValue::Table(_)) => {
                (Value::Boolean(false), Some(container))
            }
        };
        self.nodes.push(Node {
            start: span.start,
            end: span.end,
            key,
            value,
        });
        container
    }

    /// Adds the children of the containers among the `pending.len()` nodes from `first`.
    fn fill(&mut self, first: usize, pending: Vec<Option<DeValue<'a>>>) {
        for (offset, container) in pending.into_iter().enumerate() {
            let value = match container {
                Some(DeValue::Table(table)) => self.add_table(table),
                Some(DeValue::Array(array)) => {
                    let first = self.nodes.len();
                    let len = array.len();
                    let items: Vec<_> = array
                        .into_iter()
                        .map(|item| self.add_leaf(None, item))
                        .collect();
                    self.fill(first, items);
                    Value::Array { first, len }
                }
                _ => continue,
            };
            if let Some(node) = self.nodes.get_mut(first + offset) {
                node.value = value;
            }
        }
    }
}

/// What the build script writes for the embedded default policy: its tree, the required
/// literals of its `raw` regexes (see `guard.rs`) by pattern, and where its lines start.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Embedded<'a> {
    /// The parsed file.
    #[serde(borrow)]
    pub(crate) tree: Tree<'a>,
    /// `raw` pattern → strings one of which occurs in every match.
    pub(crate) guards: BTreeMap<String, Vec<String>>,
    /// The byte offset of the start of every line of the text.
    pub(crate) line_starts: Vec<usize>,
}
