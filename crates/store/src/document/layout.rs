//! Laying out the trust file's arrays when an element is added or removed, so the person's
//! layout and comments survive: one element per line or all on one line, end-of-line comments
//! staying with their element.

use toml_edit::{Array, Value};

/// The indentation of one element in a multi-line array.
const INDENT: &str = "    ";

/// The raw text of a decoration part (empty when unset).
fn raw(part: Option<&toml_edit::RawString>) -> String {
    part.and_then(|raw| raw.as_str()).unwrap_or("").to_owned()
}

/// Appends `value` to `array`, following the array's existing layout: one element per line for
/// a new or multi-line array, `a, b, c` for a one-line array.
///
/// In a multi-line array the text between the last comma and the end of its line (an
/// end-of-line comment such as `"a", # why`) belongs to the element before it, so it stays on
/// that line and the new element starts on the next one.
pub(super) fn push_formatted(array: &mut Array, mut value: Value) {
    normalize_last_suffix(array);
    let trailing = raw(Some(array.trailing()));
    let last_prefix = array.iter().last().map(|last| raw(last.decor().prefix()));
    let multi_line = last_prefix
        .as_deref()
        .is_none_or(|prefix| prefix.contains('\n'));
    let prefix = if multi_line {
        let indent = last_prefix
            .as_deref()
            .and_then(|prefix| prefix.rsplit_once('\n'))
            .map_or(INDENT, |(_, indent)| indent)
            .to_owned();
        match trailing.split_once('\n') {
            Some((line_end, rest)) => {
                array.set_trailing(format!("\n{rest}"));
                format!("{line_end}\n{indent}")
            }
            None => {
                array.set_trailing("\n");
                format!("\n{indent}")
            }
        }
    } else {
        " ".to_owned()
    };
    if last_prefix.is_none() {
        array.set_trailing_comma(true);
    }
    value.decor_mut().set_prefix(prefix);
    value.decor_mut().set_suffix("");
    array.push_formatted(value);
}

/// Without a trailing comma, the last element's end-of-line comment is parsed as its suffix
/// (`"a" # why` then a newline); move it into the array's trailing text, which renders the same,
/// so that the edits above find it where a trailing comma would have put it.
fn normalize_last_suffix(array: &mut Array) {
    if array.trailing_comma() {
        return;
    }
    let trailing = raw(Some(array.trailing()));
    let Some(last) = array.iter_mut().last() else {
        return;
    };
    let suffix = raw(last.decor().suffix());
    if suffix.contains('\n') {
        last.decor_mut().set_suffix("");
        array.set_trailing(format!("{suffix}{trailing}"));
    }
}

/// The decoration that replaces `next` (the prefix of the element after a removed one, or the
/// array's trailing text) when the element with prefix `removed` goes, in a multi-line array.
///
/// `removed` = end-of-line text of the element before it, newline, the removed element's own
/// comment lines, its indentation; `next` = the removed element's end-of-line text, newline,
/// the rest. The result keeps the earlier element's end-of-line comment and the person's
/// comment lines, and drops only the removed element's end-of-line comment. `None` for
/// one-line layouts.
fn merge_on_removal(removed: &str, next: &str) -> Option<String> {
    let (line_end, own) = removed.split_once('\n')?;
    let (_, next_rest) = next.split_once('\n')?;
    Some(match own.rsplit_once('\n') {
        Some((comment_lines, _indent)) => format!("{line_end}\n{comment_lines}\n{next_rest}"),
        None => format!("{line_end}\n{next_rest}"),
    })
}

/// Removes the elements for which `remove` holds, keeping the comments around them (except
/// each removed element's own end-of-line comment); returns whether any was removed.
pub(super) fn remove_formatted(array: &mut Array, remove: impl Fn(&Value) -> bool) -> bool {
    normalize_last_suffix(array);
    let mut changed = false;
    let mut index = 0;
    while index < array.len() {
        if !array.get(index).is_some_and(&remove) {
            index += 1;
            continue;
        }
        let removed = raw(array.remove(index).decor().prefix());
        changed = true;
        let next = match array.get(index) {
            Some(next) => raw(next.decor().prefix()),
            None => raw(Some(array.trailing())),
        };
        let merged = merge_on_removal(&removed, &next);
        match (array.get_mut(index), merged) {
            (Some(next), Some(merged)) => next.decor_mut().set_prefix(merged),
            (None, Some(merged)) => array.set_trailing(merged),
            // One-line layout: keep `[a, b]` from becoming `[ b]` when `a` goes.
            (Some(next), None) if index == 0 => next.decor_mut().set_prefix(removed),
            (Some(_) | None, None) => {}
        }
    }
    if changed && array.is_empty() {
        if raw(Some(array.trailing())).trim().is_empty() {
            array.set_trailing("");
        }
        array.set_trailing_comma(false);
    }
    changed
}
