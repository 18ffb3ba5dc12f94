//! Brace expansion of literal words, as bash does it before any other expansion:
//! `{rm,-rf,~/.ssh}` is three words, `a{b,c}d` two, `x{1..3}` three.

/// Most words one brace expansion may produce; more gives up (the word stays dynamic).
const MAX_WORDS: usize = 128;

/// The words `raw` expands to, or `None` when it cannot be expanded statically (quotes,
/// escapes, expansions, an unbalanced or empty brace, too many words). A word without a brace
/// expression expands to itself.
#[must_use]
pub fn expand(raw: &str) -> Option<Vec<String>> {
    if raw.contains(['\'', '"', '\\', '$', '`']) {
        return None;
    }
    let mut out = Vec::new();
    expand_into(raw, &mut out)?;
    (out.len() <= MAX_WORDS).then_some(out)
}

fn expand_into(text: &str, out: &mut Vec<String>) -> Option<()> {
    let Some((open, close, parts)) = first_brace(text)? else {
        out.push(text.to_owned());
        return Some(());
    };
    let prefix = text.get(..open)?;
    let suffix = text.get(close + 1..)?;
    for part in parts {
        if out.len() > MAX_WORDS {
            return None;
        }
        expand_into(&format!("{prefix}{part}{suffix}"), out)?;
    }
    Some(())
}

/// The first brace expression: its `{` and `}` offsets and its alternatives. `Some(None)` when
/// there is none; `None` when it cannot be expanded.
fn first_brace(text: &str) -> Option<Option<(usize, usize, Vec<String>)>> {
    let bytes = text.as_bytes();
    let mut start = 0;
    while let Some(offset) = text.get(start..)?.find('{') {
        let open = start + offset;
        let mut depth = 0_usize;
        let mut commas = Vec::new();
        let mut close = None;
        for (i, b) in bytes.iter().enumerate().skip(open) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        close = Some(i);
                        break;
                    }
                }
                b',' if depth == 1 => commas.push(i),
                _ => {}
            }
        }
        let close = close?;
        let inner = text.get(open + 1..close)?;
        if !commas.is_empty() {
            let mut parts = Vec::with_capacity(commas.len() + 1);
            let mut from = open + 1;
            for comma in commas.into_iter().chain(std::iter::once(close)) {
                parts.push(text.get(from..comma)?.to_owned());
                from = comma + 1;
            }
            return Some(Some((open, close, parts)));
        }
        if let Some(parts) = sequence(inner) {
            return Some(Some((open, close, parts)));
        }
        if sequence_shape(inner) {
            // A sequence too long to follow.
            return None;
        }
        // `{x}` alone is literal text; look further.
        start = close + 1;
    }
    Some(None)
}

/// `1..5`, `5..1`, `a..e`, with an optional `..STEP`.
fn sequence(inner: &str) -> Option<Vec<String>> {
    let mut pieces = inner.split("..");
    let (from, to) = (pieces.next()?, pieces.next()?);
    let step: i64 = match pieces.next() {
        Some(s) => s.parse::<i64>().ok()?.checked_abs()?.max(1),
        None => 1,
    };
    if pieces.next().is_some() {
        return None;
    }
    let (a, b, letters) = match (from.parse::<i64>(), to.parse::<i64>()) {
        (Ok(a), Ok(b)) => (a, b, false),
        _ => {
            let (Some(a), Some(b)) = (single_char(from), single_char(to)) else {
                return None;
            };
            (i64::from(u32::from(a)), i64::from(u32::from(b)), true)
        }
    };
    let count = usize::try_from((a - b).abs() / step + 1).ok()?;
    if count > MAX_WORDS {
        return None;
    }
    let direction = if b >= a { step } else { -step };
    (0..count)
        .map(|n| {
            let value = a + direction * i64::try_from(n).ok()?;
            if letters {
                char::from_u32(u32::try_from(value).ok()?).map(String::from)
            } else {
                Some(value.to_string())
            }
        })
        .collect()
}

/// Whether `inner` has the shape of a sequence (`N..M`, `a..z`) whatever its length.
fn sequence_shape(inner: &str) -> bool {
    let pieces: Vec<&str> = inner.split("..").collect();
    (2..=3).contains(&pieces.len())
        && pieces.iter().all(|p| {
            !p.is_empty()
                && (p
                    .trim_start_matches('-')
                    .chars()
                    .all(|c| c.is_ascii_digit())
                    || single_char(p).is_some())
        })
}

fn single_char(text: &str) -> Option<char> {
    let mut chars = text.chars();
    let c = chars.next()?;
    (chars.next().is_none() && c.is_ascii_alphabetic()).then_some(c)
}

#[cfg(test)]
mod tests {
    use super::expand;

    #[test]
    fn expands_like_bash() {
        let cases: [(&str, Option<&[&str]>); 9] = [
            ("{rm,-rf,~/.ssh}", Some(&["rm", "-rf", "~/.ssh"])),
            ("a{b,c}d", Some(&["abd", "acd"])),
            ("x{1..3}", Some(&["x1", "x2", "x3"])),
            ("{3..1}", Some(&["3", "2", "1"])),
            ("{a..c}", Some(&["a", "b", "c"])),
            ("{a,b{1,2}}", Some(&["a", "b1", "b2"])),
            ("{x}", Some(&["{x}"])),
            ("plain", Some(&["plain"])),
            ("{1..3..2}", Some(&["1", "3"])),
        ];
        for (raw, want) in cases {
            let got = expand(raw);
            assert_eq!(
                got.as_deref(),
                want.map(|w| w.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>())
                    .as_deref(),
                "{raw}"
            );
        }
    }

    #[test]
    fn refuses_what_it_cannot_know() {
        for raw in ["{a,'b'}", "{$x,y}", "{a,b", "{1..1000}", "\\{a,b}"] {
            assert_eq!(expand(raw), None, "{raw}");
        }
    }
}
