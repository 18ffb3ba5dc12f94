//! A policy file as a tree of TOML values, each with the byte range of its source text: what
//! `read.rs` turns into the model of the file.
//!
//! The tree comes from TOML text ([`Tree::parse`]) or, for the embedded default policy, from
//! the binary form the build script wrote of the same text (`build.rs` includes this file):
//! both are read by the same code, so the embedded default loads exactly as any file does,
//! minus the TOML parse.
//!
//! The nodes are records of seven numbers in one flat list (the children of an array or table
//! are consecutive), and a string or key written without escapes is kept as its place in the
//! source text. The binary form is those records as they are, so loading it decodes nothing:
//! a node is read when a reader asks for it.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;

use serde::{Deserialize, Serialize};
use toml::de::{DeTable, DeValue};

/// The numbers of one record: start, end, key start, key end, kind, a, b.
const WORDS: usize = 7;

/// The bytes of one record.
const RECORD: usize = WORDS * 4;

/// A key start meaning "no key" (an array item or the top-level table).
const NO_KEY: u32 = u32::MAX;

/// A key start meaning "the key is own string `key end`" (a quoted key with escapes, which
/// errors show at its value).
const OWN_KEY: u32 = u32::MAX - 1;

/// The kinds of value a record holds, and what `a` and `b` are for each.
mod kind {
    /// `a..b` of the source.
    pub(super) const SOURCE_STRING: u32 = 0;
    /// Own string `a`.
    pub(super) const OWN_STRING: u32 = 1;
    /// The integer `a | b << 32`.
    pub(super) const INTEGER: u32 = 2;
    /// An integer too large for 64 bits, as own string `a`.
    pub(super) const LARGE_INTEGER: u32 = 3;
    /// A float, as own string `a`.
    pub(super) const FLOAT: u32 = 4;
    /// The boolean `a != 0`.
    pub(super) const BOOLEAN: u32 = 5;
    /// A date or time, as own string `a`.
    pub(super) const DATETIME: u32 = 6;
    /// `b` items from record `a`.
    pub(super) const ARRAY: u32 = 7;
    /// `b` entries from record `a`.
    pub(super) const TABLE: u32 = 8;
}

/// A file's values; the first record is the top-level table.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Tree<'a> {
    /// The text the strings are in (not part of the binary form: see [`Tree::in_source`]).
    #[serde(skip)]
    source: &'a str,
    /// The records, each [`WORDS`] little-endian `u32`s.
    #[serde(borrow)]
    records: Cow<'a, [u8]>,
    /// Strings that are not in the source as written, by index.
    #[serde(borrow)]
    own: Vec<Cow<'a, str>>,
}

/// A TOML value as a record holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Value {
    /// A string (read it with [`At::str`]).
    String,
    /// An integer that fits in 64 bits.
    Integer(i64),
    /// An integer too large for 64 bits (read its text with [`At::str`]).
    LargeInteger,
    /// A float (its text with [`At::str`]).
    Float,
    /// A boolean.
    Boolean(bool),
    /// A date or time (its text with [`At::str`]).
    Datetime,
    /// An array of `len` items.
    Array {
        /// The index of the first item.
        first: usize,
        /// How many items.
        len: usize,
    },
    /// A table of `len` entries, in key order.
    Table {
        /// The index of the first entry.
        first: usize,
        /// How many entries.
        len: usize,
    },
}

/// One record, decoded.
#[derive(Clone, Copy)]
struct Record([u32; WORDS]);

impl Record {
    fn start(self) -> usize {
        self.0[0] as usize
    }
    fn end(self) -> usize {
        self.0[1] as usize
    }
    fn kind(self) -> u32 {
        self.0[4]
    }
    fn a(self) -> u32 {
        self.0[5]
    }
    fn b(self) -> u32 {
        self.0[6]
    }
}

/// A node of a tree, with the tree to find its children and text in.
#[derive(Clone, Copy)]
pub(crate) struct At<'t, 'a> {
    tree: &'t Tree<'a>,
    record: Record,
}

impl std::fmt::Debug for At<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("At").field("span", &self.span()).finish()
    }
}

impl<'t, 'a> At<'t, 'a> {
    /// The byte range of the value's source text.
    pub(crate) fn span(&self) -> Range<usize> {
        self.record.start()..self.record.end()
    }

    /// The value.
    pub(crate) fn value(&self) -> Value {
        let (a, b) = (self.record.a(), self.record.b());
        match self.record.kind() {
            kind::SOURCE_STRING | kind::OWN_STRING => Value::String,
            kind::INTEGER => Value::Integer((u64::from(a) | (u64::from(b) << 32)) as i64),
            kind::LARGE_INTEGER => Value::LargeInteger,
            kind::FLOAT => Value::Float,
            kind::BOOLEAN => Value::Boolean(a != 0),
            kind::DATETIME => Value::Datetime,
            kind::ARRAY => Value::Array {
                first: a as usize,
                len: b as usize,
            },
            kind::TABLE => Value::Table {
                first: a as usize,
                len: b as usize,
            },
            // A record no writer makes: read as an empty table, which no reader takes.
            _ => Value::Table { first: 0, len: 0 },
        }
    }

    /// The key of a table entry and where it is written.
    pub(crate) fn key(&self) -> Option<(&'t str, Range<usize>)> {
        let [_, _, start, end, ..] = self.record.0;
        match start {
            NO_KEY => None,
            OWN_KEY => Some((self.tree.own(end), self.span().start..self.span().start)),
            _ => Some((self.tree.slice(start, end), start as usize..end as usize)),
        }
    }

    /// Whether this is the table entry `name`.
    #[cfg_attr(
        not(test),
        allow(dead_code, reason = "the build script and the tests use it")
    )]
    pub(crate) fn is_key(&self, name: &str) -> bool {
        self.key().is_some_and(|(key, _)| key == name)
    }

    /// The text of a string, or of a large integer, float or date as written.
    pub(crate) fn str(&self) -> Option<&'t str> {
        let (a, b) = (self.record.a(), self.record.b());
        match self.record.kind() {
            kind::SOURCE_STRING => Some(self.tree.slice(a, b)),
            kind::OWN_STRING | kind::LARGE_INTEGER | kind::FLOAT | kind::DATETIME => {
                Some(self.tree.own(a))
            }
            _ => None,
        }
    }

    /// The items of an array or the entries of a table (nothing for other values).
    pub(crate) fn children(self) -> impl Iterator<Item = At<'t, 'a>> + 't {
        let tree = self.tree;
        let range = match self.value() {
            Value::Array { first, len } | Value::Table { first, len } => first..first + len,
            _ => 0..0,
        };
        range.filter_map(move |i| tree.at(i))
    }
}

impl<'a> Tree<'a> {
    /// The top-level table (`None` for an empty tree, which no parse makes).
    pub(crate) fn root(&self) -> Option<At<'_, 'a>> {
        self.at(0)
    }

    /// Record `index`.
    fn at(&self, index: usize) -> Option<At<'_, 'a>> {
        let bytes = self.records.get(index * RECORD..(index + 1) * RECORD)?;
        let mut words = [0; WORDS];
        for (word, chunk) in words.iter_mut().zip(bytes.chunks_exact(4)) {
            *word = u32::from_le_bytes(chunk.try_into().unwrap_or_default());
        }
        Some(At {
            tree: self,
            record: Record(words),
        })
    }

    /// The tree with the text its strings are in: the binary form leaves it out, so the
    /// embedded default is given its text after it loads.
    pub(crate) const fn in_source(mut self, source: &'a str) -> Self {
        self.source = source;
        self
    }

    fn slice(&self, start: u32, end: u32) -> &str {
        self.source
            .get(start as usize..end as usize)
            .unwrap_or_default()
    }

    fn own(&self, index: u32) -> &str {
        self.own.get(index as usize).map_or("", |s| s.as_ref())
    }

    /// Parses TOML text into a tree; the error is toml's, with its message and span. Offsets
    /// past 4 GiB are not representable; no policy file comes near.
    pub(crate) fn parse(text: &'a str) -> Result<Self, toml::de::Error> {
        let table = DeTable::parse(text)?;
        let span = table.span();
        let mut writer = Writer {
            source: text,
            records: Vec::new(),
            own: Vec::new(),
        };
        writer.records.push([0; WORDS]);
        let (kind, a, b) = writer.add_table(table.into_inner());
        if let Some(root) = writer.records.first_mut() {
            *root = [word(span.start), word(span.end), NO_KEY, NO_KEY, kind, a, b];
        }
        Ok(Self {
            source: text,
            records: Cow::Owned(
                writer
                    .records
                    .iter()
                    .flat_map(|record| record.iter().flat_map(|w| w.to_le_bytes()))
                    .collect(),
            ),
            own: writer.own,
        })
    }
}

/// A number of a record (saturated: see [`Tree::parse`]).
fn word(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX - 2)
}

/// Builds the records of a parsed file.
struct Writer<'a> {
    source: &'a str,
    records: Vec<[u32; WORDS]>,
    own: Vec<Cow<'a, str>>,
}

impl<'a> Writer<'a> {
    /// A string of the source: its place when it is a slice of the source, else its index
    /// among the own strings; `(true, start, end)` or `(false, index, 0)`.
    fn place(&mut self, text: Cow<'a, str>) -> (bool, u32, u32) {
        if let Cow::Borrowed(slice) = &text {
            let offset = (slice.as_ptr() as usize).wrapping_sub(self.source.as_ptr() as usize);
            let end = offset.saturating_add(slice.len());
            let same = self
                .source
                .get(offset..end)
                .is_some_and(|at| std::ptr::eq(at, *slice));
            if same {
                return (true, word(offset), word(end));
            }
        }
        self.own.push(text);
        (false, word(self.own.len() - 1), 0)
    }

    /// Adds the entries of a table as consecutive records, then their children.
    fn add_table(&mut self, table: DeTable<'a>) -> (u32, u32, u32) {
        let first = self.records.len();
        let len = table.len();
        let mut pending = Vec::with_capacity(len);
        for (key, value) in table {
            // A key is where its name is written (inside its quotes); an escaped one is an
            // own string, shown at its value.
            let key = match self.place(key.into_inner()) {
                (true, start, end) => (start, end),
                (false, index, _) => (OWN_KEY, index),
            };
            pending.push(self.add_leaf(Some(key), value));
        }
        self.fill(first, pending);
        (kind::TABLE, word(first), word(len))
    }

    /// Adds one record; a container's children are left to [`Writer::fill`].
    fn add_leaf(
        &mut self,
        key: Option<(u32, u32)>,
        value: toml::Spanned<DeValue<'a>>,
    ) -> Option<DeValue<'a>> {
        let span = value.span();
        let own = |writer: &mut Self, kind: u32, text: String| {
            writer.own.push(Cow::Owned(text));
            (kind, word(writer.own.len() - 1), 0)
        };
        let (fields, container) = match value.into_inner() {
            DeValue::String(text) => match self.place(text) {
                (true, start, end) => ((kind::SOURCE_STRING, start, end), None),
                (false, index, _) => ((kind::OWN_STRING, index, 0), None),
            },
            DeValue::Integer(integer) => {
                match i64::from_str_radix(integer.as_str(), integer.radix()) {
                    Ok(n) => {
                        let bits = n as u64;
                        ((kind::INTEGER, bits as u32, (bits >> 32) as u32), None)
                    }
                    Err(_) => (own(self, kind::LARGE_INTEGER, integer.to_string()), None),
                }
            }
            DeValue::Float(float) => (own(self, kind::FLOAT, float.as_str().to_owned()), None),
            DeValue::Boolean(b) => ((kind::BOOLEAN, u32::from(b), 0), None),
            DeValue::Datetime(d) => (own(self, kind::DATETIME, d.to_string()), None),
            container @ (DeValue::Array(_) | DeValue::Table(_)) => {
                ((kind::TABLE, 0, 0), Some(container))
            }
        };
        let (key_start, key_end) = key.unwrap_or((NO_KEY, NO_KEY));
        let (kind, a, b) = fields;
        self.records.push([
            word(span.start),
            word(span.end),
            key_start,
            key_end,
            kind,
            a,
            b,
        ]);
        container
    }

    /// Adds the children of the containers among the `pending.len()` records from `first`.
    fn fill(&mut self, first: usize, pending: Vec<Option<DeValue<'a>>>) {
        for (offset, container) in pending.into_iter().enumerate() {
            let (kind, a, b) = match container {
                Some(DeValue::Table(table)) => self.add_table(table),
                Some(DeValue::Array(array)) => {
                    let start = self.records.len();
                    let len = array.len();
                    let items: Vec<_> = array
                        .into_iter()
                        .map(|item| self.add_leaf(None, item))
                        .collect();
                    self.fill(start, items);
                    (kind::ARRAY, word(start), word(len))
                }
                _ => continue,
            };
            if let Some(record) = self.records.get_mut(first + offset) {
                record[4] = kind;
                record[5] = a;
                record[6] = b;
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
