//! Required literals of a regex: a small set of strings at least one of which occurs in
//! every match, so a text that contains none of them cannot match and the regex need not
//! even be compiled for it.
//!
//! The build script computes them for the embedded default policy's `raw` regexes (parsing
//! a regex costs about a third of compiling it, too much to do at every start-up); the
//! policy then compiles a `raw` regex only when its guard is met (see `lazy.rs`).
//!
//! Soundness, by induction over the regex's HIR, for `required(h)` = R and `exact(h)` = E:
//! every string `h` matches is an element of E (E over-approximates the language), and
//! contains an element of R as a substring. A concatenation's match contains a match of each
//! part, and of each run of consecutive parts, as a substring; an alternation's match is a
//! match of one branch; a repetition of at least one contains a match of its body. A set
//! holding the empty string guards nothing and is never returned.

use regex_syntax::hir::{Class, Hir, HirKind};

/// The most strings a set may hold.
const MAX_SET: usize = 64;

/// The most characters a class may hold to count as a set of one-character strings.
const MAX_CLASS: u32 = 4;

/// Strings at least one of which occurs in every match of `pattern` (parsed as `regex`
/// parses it), or `None` when no useful set is found (or the pattern does not parse).
pub(crate) fn required_literals(pattern: &str) -> Option<Vec<String>> {
    let hir = regex_syntax::Parser::new().parse(pattern).ok()?;
    let mut set = required(&hir)?;
    set.sort();
    set.dedup();
    Some(set)
}

/// A useful required set of `hir`: non-empty strings only.
fn required(hir: &Hir) -> Option<Vec<String>> {
    if let Some(set) = exact(hir).filter(|s| useful(s)) {
        return Some(set);
    }
    match hir.kind() {
        HirKind::Capture(capture) => required(&capture.sub),
        HirKind::Repetition(rep) if rep.min >= 1 => required(&rep.sub),
        HirKind::Alternation(branches) => {
            let mut union = Vec::new();
            for branch in branches {
                union.extend(required(branch)?);
            }
            (union.len() <= MAX_SET && useful(&union)).then_some(union)
        }
        HirKind::Concat(parts) => {
            let mut best: Option<Vec<String>> = None;
            let mut consider = |candidate: Option<Vec<String>>| {
                if let Some(c) = candidate.filter(|c| useful(c))
                    && best.as_ref().is_none_or(|b| better(&c, b))
                {
                    best = Some(c);
                }
            };
            // Runs of consecutive parts with exact sets: their product occurs contiguously.
            let mut run: Option<Vec<String>> = None;
            for part in parts {
                match exact(part) {
                    Some(set) => {
                        consider(Some(set.clone()));
                        run = Some(match run.take() {
                            None => set,
                            Some(prefix) => match product(&prefix, &set) {
                                Some(p) => p,
                                None => {
                                    consider(Some(prefix));
                                    set
                                }
                            },
                        });
                    }
                    None => {
                        consider(run.take());
                        consider(required(part));
                    }
                }
            }
            consider(run);
            best
        }
        HirKind::Empty
        | HirKind::Literal(_)
        | HirKind::Class(_)
        | HirKind::Look(_)
        | HirKind::Repetition(_) => None,
    }
}

/// A set of strings containing every match of `hir`, when small.
fn exact(hir: &Hir) -> Option<Vec<String>> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Some(vec![String::new()]),
        HirKind::Literal(literal) => std::str::from_utf8(&literal.0)
            .ok()
            .map(|s| vec![s.to_owned()]),
        HirKind::Class(Class::Unicode(class)) => {
            let mut size = 0u32;
            for range in class.iter() {
                size = size.saturating_add(u32::from(range.end()) - u32::from(range.start()) + 1);
            }
            if size > MAX_CLASS {
                return None;
            }
            let mut out = Vec::new();
            for range in class.iter() {
                for c in range.start()..=range.end() {
                    out.push(c.to_string());
                }
            }
            Some(out)
        }
        HirKind::Class(Class::Bytes(_)) => None,
        HirKind::Capture(capture) => exact(&capture.sub),
        HirKind::Repetition(rep) => {
            let body = exact(&rep.sub)?;
            match (rep.min, rep.max) {
                (0, Some(1)) => {
                    let mut out = body;
                    out.push(String::new());
                    (out.len() <= MAX_SET).then_some(out)
                }
                (min, Some(max)) if min == max && min <= 4 => {
                    let mut out = vec![String::new()];
                    for _ in 0..min {
                        out = product(&out, &body)?;
                    }
                    Some(out)
                }
                _ => None,
            }
        }
        HirKind::Concat(parts) => {
            let mut out = vec![String::new()];
            for part in parts {
                out = product(&out, &exact(part)?)?;
            }
            Some(out)
        }
        HirKind::Alternation(branches) => {
            let mut out = Vec::new();
            for branch in branches {
                out.extend(exact(branch)?);
                if out.len() > MAX_SET {
                    return None;
                }
            }
            Some(out)
        }
    }
}

/// Every `a + b`, when there are not too many.
fn product(left: &[String], right: &[String]) -> Option<Vec<String>> {
    if left.len().saturating_mul(right.len()) > MAX_SET {
        return None;
    }
    Some(
        left.iter()
            .flat_map(|a| right.iter().map(move |b| format!("{a}{b}")))
            .collect(),
    )
}

/// A set that can guard: non-empty, small, without the empty string.
fn useful(set: &[String]) -> bool {
    !set.is_empty() && set.len() <= MAX_SET && set.iter().all(|s| !s.is_empty())
}

/// Whether `a` is a better guard than `b`: a longer shortest string, then fewer strings.
fn better(a: &[String], b: &[String]) -> bool {
    let shortest = |s: &[String]| s.iter().map(String::len).min().unwrap_or(0);
    (shortest(a), std::cmp::Reverse(a.len())) > (shortest(b), std::cmp::Reverse(b.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lits(pattern: &str) -> Option<Vec<String>> {
        required_literals(pattern)
    }

    fn v(items: &[&str]) -> Option<Vec<String>> {
        let mut out: Vec<String> = items.iter().map(|s| (*s).to_owned()).collect();
        out.sort();
        Some(out)
    }

    #[test]
    fn literal_and_runs() {
        assert_eq!(lits("abc"), v(&["abc"]));
        assert_eq!(lits(r"(?:^|\s)mkfs\.[a-z]+"), v(&["mkfs."]));
        assert_eq!(lits(r"/dev/(?:tcp|udp)/"), v(&["/dev/tcp/", "/dev/udp/"]));
        assert_eq!(lits("https?://x"), v(&["http://x", "https://x"]));
        // The one part every match has beats the run with optional quotes around it.
        assert_eq!(lits(r#"(?:^|\s)["']?\\?mv["']?\s+"#), v(&["mv"]));
    }

    #[test]
    fn alternation_needs_every_branch() {
        assert_eq!(lits(r"(?:curl|wget)\s+\S+"), v(&["curl", "wget"]));
        assert_eq!(lits(r"(?:curl|\w+)\s"), None);
        assert_eq!(lits(r"(?:curl\s+x|wget\s+y)"), v(&["curl", "wget"]));
    }

    #[test]
    fn optional_and_unbounded_parts_guard_nothing() {
        assert_eq!(lits("a?"), None);
        assert_eq!(lits("(?:abc)*"), None);
        assert_eq!(lits(r"\w+"), None);
        assert_eq!(lits("^$"), None);
        assert_eq!(lits("(?:abc)+"), v(&["abc"]));
    }

    #[test]
    fn case_insensitive_letters_expand_with_unicode_folds() {
        let set = lits("(?i)ok").unwrap();
        // `k` folds to the Kelvin sign too.
        assert!(set.contains(&"ok".to_owned()));
        assert!(set.contains(&"OK".to_owned()));
        assert!(set.contains(&"o\u{212a}".to_owned()));
    }

    #[test]
    fn invalid_pattern_has_no_guard() {
        assert_eq!(lits("(unclosed"), None);
    }
}
