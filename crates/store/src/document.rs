//! The trust file's format: validating its content and editing it with `toml_edit` so a
//! person's comments and ordering survive.
//!
//! ```toml
//! version = 1
//!
//! [audience.personal]
//! zones = [
//!     { path = "/home/me/project", access = "write" },
//! ]
//! patterns = [
//!     "git push origin main *",
//! ]
//! hosts = [
//!     "api.github.com",
//!     "*.example.com",
//! ]
//! ```
//!
//! `hosts` came after the first release of version 1: a file without it is still version 1
//! and reads as no granted hosts.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use serde::Deserialize;
use shellgate_rules::{Access, HostGrant, VerbPattern, ZonePath};
use toml::Spanned;
use toml_edit::{Array, ArrayOfTables, DocumentMut, InlineTable, Item, Table, TableLike, Value};

use crate::grants::{Grants, validate_audience};

mod layout;

use layout::{push_formatted, remove_formatted};

/// The only file version this build reads and writes.
pub(crate) const VERSION: i64 = 1;

/// The content of a new trust file, before any grant.
pub(crate) const TEMPLATE: &str = "\
# shellgate trust file: what this person approved with \"Always\".
# Edit it by hand or with `shellgate approvals`; comments and order are kept.
version = 1
";

/// Every audience's grants, by audience name.
pub(crate) type Audiences = BTreeMap<String, Grants>;

/// The whole file, as serde sees it (only for validation; edits go through `toml_edit`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    version: i64,
    #[serde(default)]
    audience: BTreeMap<String, RawAudience>,
}

/// One `[audience.NAME]` table.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAudience {
    #[serde(default)]
    zones: Vec<RawZone>,
    #[serde(default)]
    patterns: Vec<Spanned<String>>,
    #[serde(default)]
    hosts: Vec<Spanned<String>>,
}

/// One zone entry.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawZone {
    path: Spanned<String>,
    access: Access,
}

/// The 1-based line and column of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .map_or(0, |last| last.chars().count())
        + 1;
    (line, column)
}

/// Why `text` does not deserialize: an unknown or missing version, invalid TOML, or a bad
/// field (with its line and column).
fn explain(text: &str, err: &toml::de::Error) -> String {
    let table: toml::Table = match toml::from_str(text) {
        Ok(table) => table,
        Err(syntax) => {
            return format!(
                "not valid TOML: {}",
                at(text, syntax.span(), syntax.message().trim())
            );
        }
    };
    match table.get("version") {
        None => "it has no `version`; this shellgate reads version 1".to_owned(),
        Some(toml::Value::Integer(VERSION)) => at(text, err.span(), err.message().trim()),
        Some(other) => format!("unknown version `{other}`; this shellgate reads version {VERSION}"),
    }
}

/// Prefixes `message` with the line and column of `span`, when known.
fn at(text: &str, span: Option<Range<usize>>, message: &str) -> String {
    match span {
        Some(span) => {
            let (line, column) = line_col(text, span.start);
            format!("line {line}, column {column}: {message}")
        }
        None => message.to_owned(),
    }
}

/// Validates a trust file's content and returns its grants.
///
/// Whitespace-only content (or a file with no keys at all) is an empty store. The `Err` is a
/// one-line reason for the quarantine report.
pub(crate) fn parse(text: &str, home: Option<&Path>) -> Result<Audiences, String> {
    // The common case, a valid file, costs one parse; on failure a second, looser parse tells
    // an unknown version or plain syntax error apart from a bad field.
    let raw: RawFile = match toml::from_str(text) {
        Ok(raw) => raw,
        Err(err) => {
            // A blank or comment-only file is an empty store.
            if toml::from_str::<toml::Table>(text).is_ok_and(|table| table.is_empty()) {
                return Ok(Audiences::new());
            }
            return Err(explain(text, &err));
        }
    };
    if raw.version != VERSION {
        return Err(format!(
            "unknown version `{}`; this shellgate reads version {VERSION}",
            raw.version
        ));
    }
    let mut audiences = Audiences::new();
    for (name, raw_audience) in raw.audience {
        validate_audience(&name).map_err(|err| err.to_string())?;
        let mut grants = Grants::default();
        for zone in raw_audience.zones {
            let path = ZonePath::new(zone.path.get_ref(), home)
                .map_err(|err| at(text, Some(zone.path.span()), &err.to_string()))?;
            grants.zones.push(crate::ZoneGrant {
                path,
                access: zone.access,
            });
        }
        for pattern in raw_audience.patterns {
            let parsed = VerbPattern::new(pattern.get_ref())
                .map_err(|err| at(text, Some(pattern.span()), &err.to_string()))?;
            grants.patterns.push(parsed);
        }
        for host in raw_audience.hosts {
            let parsed = HostGrant::new(host.get_ref())
                .map_err(|err| at(text, Some(host.span()), &err.to_string()))?;
            if !grants.hosts.contains(&parsed) {
                grants.hosts.push(parsed);
            }
        }
        audiences.insert(name, grants);
    }
    Ok(audiences)
}

/// Parses the starting document for an edit: the current content, or the template.
pub(crate) fn document(text: Option<&str>) -> Result<DocumentMut, String> {
    let text = match text {
        Some(text) if !text.trim().is_empty() => text,
        _ => TEMPLATE,
    };
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|err: toml_edit::TomlError| format!("not valid TOML: {}", err.message().trim()))?;
    if !doc.contains_key("version") {
        // A file with only comments: keep them and add the version below them.
        doc.insert("version", toml_edit::value(VERSION));
    }
    Ok(doc)
}

/// The audience's table, created when `create` is set and it is missing.
fn audience_table<'d>(
    doc: &'d mut DocumentMut,
    audience: &str,
    create: bool,
) -> Result<Option<&'d mut dyn TableLike>, String> {
    let root = doc.as_table_mut();
    if !root.contains_key("audience") {
        if !create {
            return Ok(None);
        }
        let mut audiences = Table::new();
        audiences.set_implicit(true);
        root.insert("audience", Item::Table(audiences));
    }
    let Some(item) = root.get_mut("audience") else {
        return Err("`audience` vanished during the edit".to_owned());
    };
    let inline = item.is_inline_table();
    let Some(audiences) = item.as_table_like_mut() else {
        return Err("`audience` is not a table".to_owned());
    };
    if !audiences.contains_key(audience) {
        if !create {
            return Ok(None);
        }
        let fresh = if inline {
            Item::Value(Value::InlineTable(InlineTable::new()))
        } else {
            Item::Table(Table::new())
        };
        audiences.insert(audience, fresh);
    }
    match audiences
        .get_mut(audience)
        .and_then(Item::as_table_like_mut)
    {
        Some(table) => Ok(Some(table)),
        None => Err(format!("`audience.{audience}` is not a table")),
    }
}

/// The array under `key`, created (empty) when missing.
fn array_under<'t>(table: &'t mut dyn TableLike, key: &str) -> Result<&'t mut Array, String> {
    if !table.contains_key(key) {
        table.insert(key, Item::Value(Value::Array(Array::new())));
    }
    table
        .get_mut(key)
        .and_then(Item::as_array_mut)
        .ok_or_else(|| format!("`{key}` is not a list"))
}

/// Whether a zone path entry (as written) means `zone`.
fn is_zone(path: Option<&str>, zone: &ZonePath, home: Option<&Path>) -> bool {
    path.and_then(|text| ZonePath::new(text, home).ok())
        .is_some_and(|parsed| parsed == *zone)
}

/// Sets a string value in place, keeping its decoration; returns whether it changed.
fn set_keeping_decor(slot: &mut Value, text: &str) -> bool {
    if slot.as_str() == Some(text) {
        return false;
    }
    let decor = slot.decor().clone();
    *slot = Value::from(text);
    *slot.decor_mut() = decor;
    true
}

/// Adds `text` to the audience's list of strings `key` unless an entry already means the same
/// (`same` of the entry as written); returns whether the document changed.
fn add_listed(
    doc: &mut DocumentMut,
    audience: &str,
    key: &str,
    text: &str,
    same: impl Fn(&str) -> bool,
) -> Result<bool, String> {
    let Some(table) = audience_table(doc, audience, true)? else {
        return Err(format!("cannot create `audience.{audience}`"));
    };
    let array = array_under(table, key)?;
    if array.iter().any(|value| value.as_str().is_some_and(&same)) {
        return Ok(false);
    }
    push_formatted(array, Value::from(text));
    Ok(true)
}

/// Removes every entry of the audience's list of strings `key` that `same` accepts; returns
/// whether the document changed.
fn remove_listed(
    doc: &mut DocumentMut,
    audience: &str,
    key: &str,
    same: impl Fn(&str) -> bool,
) -> Result<bool, String> {
    let Some(table) = audience_table(doc, audience, false)? else {
        return Ok(false);
    };
    match table.get_mut(key) {
        None => Ok(false),
        Some(item) => match item.as_array_mut() {
            Some(array) => Ok(remove_formatted(array, |value| {
                value.as_str().is_some_and(&same)
            })),
            None => Err(format!("`{key}` is not a list")),
        },
    }
}

/// A grant kept as a list of strings under an audience (`patterns`, `hosts`).
pub(crate) trait Listed {
    /// The key of the list.
    const KEY: &'static str;
    /// The grant as written.
    fn text(&self) -> &str;
    /// Whether an entry (as written) means this grant.
    fn is(&self, text: &str) -> bool;
}

/// `Listed` for grants written by their `as_str` and read back by their `new`, kept under `$key`.
macro_rules! listed {
    ($($grant:ty => $key:literal),* $(,)?) => {$(
        impl Listed for $grant {
            const KEY: &'static str = $key;
            fn text(&self) -> &str {
                self.as_str()
            }
            fn is(&self, text: &str) -> bool {
                Self::new(text).is_ok_and(|parsed| parsed == *self)
            }
        }
    )*};
}

listed!(VerbPattern => "patterns", HostGrant => "hosts");

/// Adds `grant` to the audience's list; returns whether the document changed.
pub(crate) fn add<T: Listed>(
    doc: &mut DocumentMut,
    audience: &str,
    grant: &T,
) -> Result<bool, String> {
    add_listed(doc, audience, T::KEY, grant.text(), |text| grant.is(text))
}

/// Removes `grant` from the audience's list; returns whether the document changed.
pub(crate) fn remove<T: Listed>(
    doc: &mut DocumentMut,
    audience: &str,
    grant: &T,
) -> Result<bool, String> {
    remove_listed(doc, audience, T::KEY, |text| grant.is(text))
}

/// Adds `zone` with `access` to the audience, or changes the access of an existing entry for
/// the same directory (later duplicates are removed); returns whether the document changed.
pub(crate) fn add_zone(
    doc: &mut DocumentMut,
    audience: &str,
    zone: &ZonePath,
    access: Access,
    home: Option<&Path>,
) -> Result<bool, String> {
    let Some(table) = audience_table(doc, audience, true)? else {
        return Err(format!("cannot create `audience.{audience}`"));
    };
    if table.get("zones").is_some_and(Item::is_array_of_tables) {
        let Some(tables) = table
            .get_mut("zones")
            .and_then(Item::as_array_of_tables_mut)
        else {
            return Err("`zones` is not a list".to_owned());
        };
        return Ok(add_zone_tables(tables, zone, access, home));
    }
    let array = array_under(table, "zones")?;
    let entries = array
        .iter_mut()
        .filter_map(|value| value.as_inline_table_mut())
        .map(|entry| entry as &mut dyn TableLike);
    if let Some(mut changed) = set_zone_access(entries, zone, access, home) {
        let before = array.len();
        array.retain(first_only(|value: &Value| {
            value
                .as_inline_table()
                .is_some_and(|entry| is_zone_entry(entry, zone, home))
        }));
        changed |= array.len() != before;
        return Ok(changed);
    }
    let mut entry = InlineTable::new();
    entry.insert("path", Value::from(zone.as_str()));
    entry.insert("access", Value::from(access.as_str()));
    push_formatted(array, Value::InlineTable(entry));
    Ok(true)
}

/// [`add_zone`] for a `[[audience.NAME.zones]]` array of tables.
fn add_zone_tables(
    tables: &mut ArrayOfTables,
    zone: &ZonePath,
    access: Access,
    home: Option<&Path>,
) -> bool {
    let entries = tables.iter_mut().map(|table| table as &mut dyn TableLike);
    if let Some(changed) = set_zone_access(entries, zone, access, home) {
        let before = tables.len();
        tables.retain(first_only(|table: &Table| is_zone_entry(table, zone, home)));
        return changed || tables.len() != before;
    }
    let mut table = Table::new();
    table.insert("path", toml_edit::value(zone.as_str()));
    table.insert("access", toml_edit::value(access.as_str()));
    tables.push(table);
    true
}

/// Whether a zone entry (a table or an inline table) names the directory of `zone`.
fn is_zone_entry(entry: &dyn TableLike, zone: &ZonePath, home: Option<&Path>) -> bool {
    is_zone(entry.get("path").and_then(Item::as_str), zone, home)
}

/// Sets `access` on the first of `entries` for the directory of `zone`: `None` when there is
/// none, else whether that changed the entry.
fn set_zone_access<'e>(
    entries: impl Iterator<Item = &'e mut dyn TableLike>,
    zone: &ZonePath,
    access: Access,
    home: Option<&Path>,
) -> Option<bool> {
    let mut entries = entries;
    let entry = entries.find(|entry| is_zone_entry(&**entry, zone, home))?;
    Some(match entry.get_mut("access").and_then(Item::as_value_mut) {
        Some(slot) => set_keeping_decor(slot, access.as_str()),
        None => {
            entry.insert("access", toml_edit::value(access.as_str()));
            true
        }
    })
}

/// A `retain` filter that keeps the first element `hit` picks and drops the later ones
/// (duplicate entries for one directory).
fn first_only<T>(hit: impl Fn(&T) -> bool) -> impl FnMut(&T) -> bool {
    let mut seen = false;
    move |item| {
        let matches = hit(item);
        let keep = !matches || !seen;
        seen |= matches;
        keep
    }
}

/// Removes every entry for `zone` from the audience; returns whether the document changed.
pub(crate) fn remove_zone(
    doc: &mut DocumentMut,
    audience: &str,
    zone: &ZonePath,
    home: Option<&Path>,
) -> Result<bool, String> {
    let Some(table) = audience_table(doc, audience, false)? else {
        return Ok(false);
    };
    let Some(item) = table.get_mut("zones") else {
        return Ok(false);
    };
    if let Some(tables) = item.as_array_of_tables_mut() {
        let before = tables.len();
        tables.retain(|table| !is_zone_entry(table, zone, home));
        return Ok(tables.len() != before);
    }
    match item.as_array_mut() {
        Some(array) => Ok(remove_formatted(array, |value| {
            value
                .as_inline_table()
                .is_some_and(|entry| is_zone_entry(entry, zone, home))
        })),
        None => Err("`zones` is not a list".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn home() -> Option<&'static Path> {
        Some(Path::new("/home/u"))
    }

    fn pattern(text: &str) -> VerbPattern {
        VerbPattern::new(text).unwrap()
    }

    /// A trust file's text as an editable document.
    fn parsed(text: &str) -> DocumentMut {
        document(Some(text)).unwrap()
    }

    fn zone(text: &str) -> ZonePath {
        ZonePath::new(text, home()).unwrap()
    }

    #[test]
    fn reasons_name_the_line() {
        let cases = [
            (
                "version = 2\n",
                "unknown version `2`; this shellgate reads version 1",
            ),
            (
                "version = \"1\"\n",
                "unknown version `\"1\"`; this shellgate reads version 1",
            ),
            (
                "[audience.personal]\npatterns = []\n",
                "it has no `version`; this shellgate reads version 1",
            ),
            (
                "version = 1\n[audience.personal]\npatterns = [\"git push\"]\n",
                "line 3, column 13: `git push` has no trailing argument glob",
            ),
            (
                "version = 1\n[audience.personal]\nzones = [{ path = \"/etc\", access = \"write\" }]\n",
                "line 3, column 19: zone `/etc` is too broad",
            ),
            (
                "version = 1\n[audience.\"my agent\"]\n",
                "audience `my agent` is not a valid name",
            ),
        ];
        for (text, reason) in cases {
            assert_eq!(parse(text, home()), Err(reason.to_owned()), "{text}");
        }
        let err = parse("version = 1\nzone = 3\n", home()).unwrap_err();
        assert!(
            err.starts_with("line 2, column 1: unknown field `zone`"),
            "{err}"
        );
        let err = parse(
            "version = 1\n[audience.personal]\nzones = [{ path = \"/tmp/x\", access = \"rw\" }]\n",
            home(),
        )
        .unwrap_err();
        assert!(
            err.starts_with("line 3, column 38: unknown variant `rw`"),
            "{err}"
        );
        assert_eq!(
            parse("version = 1\ngarbage = [", home()),
            Err("not valid TOML: line 2, column 12: unclosed array, expected `]`".to_owned())
        );
    }

    #[test]
    fn blank_and_comment_only_files_are_empty() {
        assert_eq!(parse("", home()), Ok(Audiences::new()));
        assert_eq!(parse("  \n# nothing yet\n", home()), Ok(Audiences::new()));
    }

    #[test]
    fn hand_written_layouts_parse_and_expand_home() {
        let text = "version = 1\n\
            [[audience.ci.zones]]\npath = \"~/build\"\naccess = \"read\"\n\
            [audience.personal]\npatterns = [\"git   push *\"]\n";
        let audiences = parse(text, home()).unwrap();
        assert_eq!(
            audiences.get("ci").unwrap().zones,
            vec![crate::ZoneGrant {
                path: zone("/home/u/build"),
                access: Access::Read
            }]
        );
        assert_eq!(
            audiences.get("personal").unwrap().patterns,
            vec![pattern("git push *")]
        );
    }

    #[test]
    fn one_line_arrays_stay_on_one_line() {
        let mut doc = parsed("version = 1\n[audience.personal]\npatterns = [\"a *\", \"b *\"]\n");
        assert!(add(&mut doc, "personal", &pattern("c *")).unwrap());
        assert!(remove(&mut doc, "personal", &pattern("a *")).unwrap());
        assert_eq!(
            doc.to_string(),
            "version = 1\n[audience.personal]\npatterns = [\"b *\", \"c *\"]\n"
        );
        assert!(!remove(&mut doc, "personal", &pattern("a *")).unwrap());
        assert!(!remove(&mut doc, "other", &pattern("a *")).unwrap());
    }

    #[test]
    fn array_of_tables_zones_are_edited_in_place() {
        let mut doc = parsed(
            "version = 1\n\n[[audience.ci.zones]]\npath = \"~/build\" # mine\naccess = \"read\"\n",
        );
        // The first write changes the entry's access; the second finds it as it wants it.
        let build = zone("/home/u/build");
        for changed in [true, false] {
            assert_eq!(
                add_zone(&mut doc, "ci", &build, Access::Write, home()).unwrap(),
                changed
            );
        }
        assert!(add_zone(&mut doc, "ci", &zone("/tmp/out"), Access::Read, home()).unwrap());
        assert_eq!(
            doc.to_string(),
            "version = 1\n\n[[audience.ci.zones]]\npath = \"~/build\" # mine\naccess = \"write\"\n\n\
             [[audience.ci.zones]]\npath = \"/tmp/out\"\naccess = \"read\"\n"
        );
        assert!(remove_zone(&mut doc, "ci", &zone("~/build"), home()).unwrap());
        assert_eq!(
            doc.to_string(),
            "version = 1\n\n[[audience.ci.zones]]\npath = \"/tmp/out\"\naccess = \"read\"\n"
        );
    }

    #[test]
    fn duplicate_zones_collapse_into_the_first() {
        let mut doc = parsed(
            "version = 1\n[audience.p]\nzones = [{ path = \"/tmp/x\", access = \"read\" }, { path = \"/tmp/x/\", access = \"read\" }]\n",
        );
        assert!(add_zone(&mut doc, "p", &zone("/tmp/x"), Access::Read, home()).unwrap());
        assert_eq!(
            doc.to_string(),
            "version = 1\n[audience.p]\nzones = [{ path = \"/tmp/x\", access = \"read\" }]\n"
        );
    }

    /// Adds `z *` then revokes `a *`, returning both renderings.
    fn add_then_revoke(text: &str) -> (String, String) {
        let mut doc = parsed(text);
        assert!(add(&mut doc, "p", &pattern("z *")).unwrap());
        let added = doc.to_string();
        remove(&mut doc, "p", &pattern("a *")).unwrap();
        (added, doc.to_string())
    }

    #[test]
    fn end_of_line_comments_stay_with_their_element() {
        let head = "version = 1\n[audience.p]\n";
        let cases = [
            (
                "patterns = [\n    \"a *\" # c\n]\n",
                "patterns = [\n    \"a *\", # c\n    \"z *\"\n]\n",
                "patterns = [\n    \"z *\"\n]\n",
            ),
            (
                "patterns = [ # none yet\n]\n",
                "patterns = [ # none yet\n    \"z *\",\n]\n",
                "patterns = [ # none yet\n    \"z *\",\n]\n",
            ),
            (
                "patterns = [\n    # first\n    \"a *\", # a's\n    # second\n    \"b *\", # b's\n]\n",
                "patterns = [\n    # first\n    \"a *\", # a's\n    # second\n    \"b *\", # b's\n    \"z *\",\n]\n",
                "patterns = [\n    # first\n    # second\n    \"b *\", # b's\n    \"z *\",\n]\n",
            ),
            (
                "patterns = [\n  \"b *\", # b's\n  \"a *\" # a's\n]\n",
                "patterns = [\n  \"b *\", # b's\n  \"a *\", # a's\n  \"z *\"\n]\n",
                "patterns = [\n  \"b *\", # b's\n  \"z *\"\n]\n",
            ),
            (
                "patterns = []\n",
                "patterns = [\n    \"z *\",\n]\n",
                "patterns = [\n    \"z *\",\n]\n",
            ),
        ];
        for (before, added, revoked) in cases {
            let (got_added, got_revoked) = add_then_revoke(&format!("{head}{before}"));
            assert_eq!(got_added, format!("{head}{added}"), "{before}");
            assert_eq!(got_revoked, format!("{head}{revoked}"), "{before}");
        }
    }

    #[test]
    fn revoking_the_last_element_keeps_the_previous_comment() {
        let mut doc = parsed(
            "version = 1\n[audience.p]\npatterns = [\n    \"b *\", # b's\n    \"a *\" # a's\n]\n",
        );
        assert!(remove(&mut doc, "p", &pattern("a *")).unwrap());
        assert_eq!(
            doc.to_string(),
            "version = 1\n[audience.p]\npatterns = [\n    \"b *\" # b's\n]\n"
        );
        assert!(remove(&mut doc, "p", &pattern("b *")).unwrap());
        assert_eq!(
            doc.to_string(),
            "version = 1\n[audience.p]\npatterns = []\n"
        );
    }
}
