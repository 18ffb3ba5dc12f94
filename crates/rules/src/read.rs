//! Reading a file's tree (`tree.rs`) into its model (`raw.rs`), with located schema errors.
//!
//! A table is read key by key ([`Table::get`] and friends); every key a reader asks for is a
//! key the table knows, so once the reader is done ([`Table::finish`]) any key left unread is
//! an unknown key, reported with the closest known one. There is no list of keys to keep in
//! step with the reader. A value of the wrong type and a missing key are reported with what
//! was expected; nothing here looks at the text of another library's error.

use std::collections::BTreeMap;
use std::ops::Range;

use crate::error::{PolicyError, SourceFile, did_you_mean};
use crate::raw::Spanned;
use crate::tree::{At, Value};

/// The errors of reading one file.
pub(crate) struct Reader<'f> {
    file: &'f SourceFile,
    pub(crate) errors: Vec<PolicyError>,
}

impl<'f> Reader<'f> {
    pub(crate) const fn new(file: &'f SourceFile) -> Self {
        Self {
            file,
            errors: Vec::new(),
        }
    }

    /// Records that `node` is not of the type `T` reads.
    pub(crate) fn wrong_type<T: Read>(&mut self, node: At<'_, '_>) {
        let expected = T::EXPECTED;
        self.errors.push(self.file.error(
            PolicyError::WrongType,
            node.span(),
            format!("invalid type: {}, expected {expected}", found(node)),
            "wrong type",
            Some(format!("write {expected} here")),
        ));
    }

    /// Reads a whole value as `T`, or records why it cannot.
    pub(crate) fn read<T: Read>(&mut self, node: At<'_, '_>) -> Option<T> {
        let value = T::read(node, self);
        if value.is_none() && T::REPORTS_OWN_ERRORS {
            return None;
        }
        if value.is_none() {
            self.wrong_type::<T>(node);
        }
        value
    }

    /// Reads `node` as a table with `read`, then reports its unknown keys.
    pub(crate) fn table<'t, 'a, T>(
        &mut self,
        node: At<'t, 'a>,
        read: impl FnOnce(&mut Table<'t, 'a, '_, 'f>) -> T,
    ) -> Option<T> {
        let Value::Table { .. } = node.value() else {
            return None;
        };
        let mut table = Table {
            span: node.span(),
            entries: node
                .children()
                .filter_map(|entry| Some((entry.key()?.0, entry)))
                .collect(),
            used: 0,
            known: Known::default(),
            reader: self,
        };
        let value = read(&mut table);
        table.finish();
        Some(value)
    }
}

/// How `node`'s value is described in a wrong-type error.
fn found(node: At<'_, '_>) -> String {
    let text = node.str().unwrap_or_default();
    match node.value() {
        Value::String => format!("string {text:?}"),
        Value::Integer(n) => format!("integer `{n}`"),
        Value::LargeInteger => format!("integer `{text}` (too large)"),
        Value::Float => format!("floating point `{text}`"),
        Value::Boolean(b) => format!("boolean `{b}`"),
        Value::Datetime => format!("datetime `{text}`"),
        Value::Array { .. } => "a list".to_owned(),
        Value::Table { .. } => "a table".to_owned(),
    }
}

/// The most entries of one table that are looked up (one bit each); later ones count as
/// unknown keys. No table of the model takes nearly this many keys, and keys are unique, so a
/// table with more entries has unknown keys anyway.
const MAX_ENTRIES: u32 = u64::BITS;

/// The most known keys remembered for "did you mean" (no table of the model has as many).
const MAX_KNOWN: usize = 32;

/// The keys a reader asked for.
struct Known {
    names: [&'static str; MAX_KNOWN],
    len: usize,
}

impl Default for Known {
    fn default() -> Self {
        Self {
            names: [""; MAX_KNOWN],
            len: 0,
        }
    }
}

impl Known {
    fn push(&mut self, name: &'static str) {
        if let Some(slot) = self.names.get_mut(self.len) {
            *slot = name;
            self.len += 1;
        }
    }

    fn names(&self) -> &[&'static str] {
        self.names.get(..self.len).unwrap_or_default()
    }
}

/// A table being read: the keys asked for are known, the others unknown.
pub(crate) struct Table<'t, 'a, 'r, 'f> {
    span: Range<usize>,
    /// The entries with their keys, in key order.
    entries: Vec<(&'t str, At<'t, 'a>)>,
    /// Bit `i`: entry `i` was read.
    used: u64,
    known: Known,
    reader: &'r mut Reader<'f>,
}

impl<'t, 'a> Table<'t, 'a, '_, '_> {
    /// The value of `key`, if present (the key becomes known).
    pub(crate) fn node(&mut self, key: &'static str) -> Option<At<'t, 'a>> {
        self.known.push(key);
        let (index, node) = self
            .entries
            .iter()
            .enumerate()
            .find_map(|(i, (name, node))| (*name == key).then_some((i, *node)))?;
        self.used |= u32::try_from(index)
            .ok()
            .and_then(|i| 1_u64.checked_shl(i))
            .unwrap_or(0);
        Some(node)
    }

    /// `key` read by `read`, when present.
    pub(crate) fn with<T>(
        &mut self,
        key: &'static str,
        read: impl FnOnce(At<'t, 'a>, &mut Reader<'_>) -> Option<T>,
    ) -> Option<T> {
        let node = self.node(key)?;
        read(node, self.reader)
    }

    /// `key` read as `T`, when present and of the right type.
    pub(crate) fn get<T: Read>(&mut self, key: &'static str) -> Option<T> {
        let node = self.node(key)?;
        self.reader.read(node)
    }

    /// `key` read as `T`; its default when absent (or of the wrong type, reported).
    pub(crate) fn or_default<T: Read + Default>(&mut self, key: &'static str) -> T {
        self.get(key).unwrap_or_default()
    }

    /// `key` read as `T`; a missing key is reported (and the default returned).
    pub(crate) fn required<T: Read + Default>(&mut self, key: &'static str) -> T {
        if let Some(node) = self.node(key) {
            return self.reader.read(node).unwrap_or_default();
        }
        let error = self.reader.file.error(
            PolicyError::MissingKey,
            self.span.clone(),
            format!("missing key `{key}`"),
            "in this table",
            Some(format!("add `{key} = …` to this table")),
        );
        self.reader.errors.push(error);
        T::default()
    }

    /// Reports every key no reader asked for.
    fn finish(self) {
        for (index, (_, entry)) in self.entries.iter().enumerate() {
            let read = u32::try_from(index)
                .ok()
                .filter(|i| *i < MAX_ENTRIES)
                .is_some_and(|i| self.used & (1 << i) != 0);
            let Some((name, key_span)) = entry.key().filter(|_| !read) else {
                continue;
            };
            let known = self.known.names();
            let help = did_you_mean(name, known.iter().copied()).unwrap_or_else(|| {
                if known.is_empty() {
                    "this table takes no keys".to_owned()
                } else {
                    format!(
                        "expected one of {}",
                        known
                            .iter()
                            .map(|k| format!("`{k}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }
            });
            let error = self.reader.file.error(
                PolicyError::UnknownKey,
                key_span,
                format!("unknown key `{name}`"),
                "unknown key",
                Some(help),
            );
            self.reader.errors.push(error);
        }
    }
}

/// A model type read from a tree value.
pub(crate) trait Read: Sized {
    /// What a value must be, as in "expected a string".
    const EXPECTED: &'static str;
    /// Whether [`Read::read`] records its own errors when it fails (tables and lists do; a
    /// plain value leaves the wrong-type error to the caller).
    const REPORTS_OWN_ERRORS: bool = false;
    /// The value, or `None` when `node` is not one.
    fn read(node: At<'_, '_>, reader: &mut Reader<'_>) -> Option<Self>;
}

impl Read for String {
    const EXPECTED: &'static str = "a string";
    fn read(node: At<'_, '_>, _: &mut Reader<'_>) -> Option<Self> {
        node.str().map(str::to_owned)
    }
}

/// Implements [`Read`] for a type held in one variant of [`Value`].
macro_rules! read_scalar {
    ($type:ty, $variant:ident, $expected:literal) => {
        impl Read for $type {
            const EXPECTED: &'static str = $expected;
            fn read(node: At<'_, '_>, _: &mut Reader<'_>) -> Option<Self> {
                match node.value() {
                    Value::$variant(value) => Some(value),
                    _ => None,
                }
            }
        }
    };
}

read_scalar!(i64, Integer, "an integer");
read_scalar!(bool, Boolean, "`true` or `false`");

impl<T: Read> Read for Spanned<T> {
    const EXPECTED: &'static str = T::EXPECTED;
    const REPORTS_OWN_ERRORS: bool = T::REPORTS_OWN_ERRORS;
    fn read(node: At<'_, '_>, reader: &mut Reader<'_>) -> Option<Self> {
        T::read(node, reader).map(|value| Self::new(node.span(), value))
    }
}

/// A list: every element is read (and every bad one reported).
impl<T: Read> Read for Vec<T> {
    const EXPECTED: &'static str = "a list";
    const REPORTS_OWN_ERRORS: bool = true;
    fn read(node: At<'_, '_>, reader: &mut Reader<'_>) -> Option<Self> {
        let Value::Array { len, .. } = node.value() else {
            reader.wrong_type::<Self>(node);
            return None;
        };
        let mut out = Vec::with_capacity(len);
        let mut ok = true;
        for item in node.children() {
            match reader.read(item) {
                Some(value) => out.push(value),
                None => ok = false,
            }
        }
        ok.then_some(out)
    }
}

/// A table of names to values (`options = { "-o" = "write" }`).
impl<T: Read> Read for BTreeMap<Spanned<String>, T> {
    const EXPECTED: &'static str = "a table";
    const REPORTS_OWN_ERRORS: bool = true;
    fn read(node: At<'_, '_>, reader: &mut Reader<'_>) -> Option<Self> {
        let Value::Table { .. } = node.value() else {
            reader.wrong_type::<Self>(node);
            return None;
        };
        let mut out = Self::new();
        let mut ok = true;
        for entry in node.children() {
            match (entry.key(), reader.read(entry)) {
                (Some((name, span)), Some(value)) => {
                    out.insert(Spanned::new(span, name.to_owned()), value);
                }
                _ => ok = false,
            }
        }
        ok.then_some(out)
    }
}

/// Implements [`Read`] for a table of the model with the body reading its keys.
macro_rules! read_table {
    ($type:ty, |$table:ident| $body:expr) => {
        impl $crate::read::Read for $type {
            const EXPECTED: &'static str = "a table";
            const REPORTS_OWN_ERRORS: bool = true;
            fn read(
                node: $crate::tree::At<'_, '_>,
                reader: &mut $crate::read::Reader<'_>,
            ) -> Option<Self> {
                let before = reader.errors.len();
                let value = reader.table(node, |$table| $body);
                if value.is_none() {
                    reader.wrong_type::<Self>(node);
                }
                value.filter(|_| reader.errors.len() == before)
            }
        }
    };
}

pub(crate) use read_table;

/// Declares a table of the file and its reader: each field is read under its own name as key,
/// with `get` (optional), `or_default` (absent is the default) or `required` (a missing key is
/// an error). The fields are the keys the table takes: there is no other list of them.
macro_rules! table {
    (
        $(#[$doc:meta])*
        $name:ident {
            $($(#[$field_doc:meta])* $field:ident : $type:ty = $how:ident),* $(,)?
        }
    ) => {
        $(#[$doc])*
        #[derive(Debug, Default)]
        pub(crate) struct $name {
            $($(#[$field_doc])* pub(crate) $field: $type,)*
        }

        $crate::read::read_table!($name, |t| $name {
            $($field: t.$how(stringify!($field)),)*
        });
    };
}

pub(crate) use table;
