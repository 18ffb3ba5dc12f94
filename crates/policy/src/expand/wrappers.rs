//! Wrappers (`sudo`, `env`, `timeout`, `xargs`, `git -C`, `find -exec` …): the options that
//! carry a command, in the three wrapper modes — `prefix` (options, assignments and
//! positionals before the command), `strip` (value options removed from the command) and
//! `exec-option` (`-exec … ;` commands).

use std::ops::Range;
use std::path::{Path, PathBuf};

use shellgate_parser::{Assignment, Word};
use shellgate_rules::flags::flag_is;
use shellgate_rules::{ExecMode, PrefixMode, Wrapper, WrapperMode, WrapperOptions};

use super::words::{is_name, synthetic_word};
use super::{Opaque, Via, Walker};

impl Walker<'_> {
    pub(super) fn wrapper(&mut self, index: usize, wrapper: &Wrapper, trusted: bool, depth: usize) {
        let Some(inv) = self.ex.invocations.get(index) else {
            return;
        };
        let words = inv.words.clone();
        let cwd = inv.cwd.clone();
        let home = inv.home.clone();
        let start = wrapper.verb.len();
        match &wrapper.mode {
            WrapperMode::Prefix(prefix) => {
                let strict = !wrapper.privileged;
                let Some(found) = prefix_inner(prefix, strict, &words, start, cwd, home.as_deref())
                else {
                    return;
                };
                if trusted && found.transparent {
                    self.mark_wrapper(index, wrapper.privileged);
                }
                if !found.transparent {
                    self.mark_judged_wrapper(index);
                }
                if let Some(option) = found.unknown {
                    self.set_opaque(
                        index,
                        Opaque::UnknownOption {
                            wrapper: wrapper.verb.join(" "),
                            option,
                        },
                    );
                }
                if let Some(raw) = found.dynamic {
                    self.dynamic(index, &dynamic_argument(&raw, &wrapper.verb));
                }
                let inner_words = words
                    .get(found.start..)
                    .map(<[Word]>::to_vec)
                    .unwrap_or_default();
                self.inner(
                    index,
                    inner_words,
                    found.assignments,
                    found.cwd,
                    Via::Wrapper,
                    prefix.appends_args,
                    depth,
                );
            }
            WrapperMode::Strip(options) => {
                let view = shellgate_rules::CommandView {
                    words: &words,
                    assignments: &[],
                    redirects: &[],
                    cwd: None,
                    home: None,
                };
                let harmless = |setting: &str| self.policy.sets_harmless_program(&view, setting);
                let Some(stripped) =
                    strip_inner(options, &words, start, cwd, home.as_deref(), &harmless)
                else {
                    return;
                };
                let Stripped {
                    words: inner_words,
                    cwd: inner_cwd,
                    transparent,
                    dynamic,
                } = stripped;
                if trusted && transparent {
                    self.mark_wrapper(index, wrapper.privileged);
                }
                if !transparent {
                    self.mark_judged_wrapper(index);
                }
                if let Some(raw) = dynamic {
                    self.dynamic(index, &dynamic_argument(&raw, &wrapper.verb));
                }
                self.inner(
                    index,
                    inner_words,
                    Vec::new(),
                    inner_cwd,
                    Via::Wrapper,
                    false,
                    depth,
                );
            }
            WrapperMode::ExecOption(exec) => {
                // The files it runs the command on are found below its read operands.
                let found_below = self.finder_roots(exec, &words, cwd.as_deref(), home.as_deref());
                for range in exec_option_inners(exec, &words, start) {
                    // `-execdir`/`-okdir` style options run in each found file's directory.
                    let in_found_dir = range
                        .start
                        .checked_sub(1)
                        .and_then(|i| words.get(i))
                        .is_some_and(|option| option.cooked.ends_with("dir"));
                    let inner_words = words.get(range).map(<[Word]>::to_vec).unwrap_or_default();
                    if inner_words.is_empty() {
                        continue;
                    }
                    let inner_cwd = if in_found_dir { None } else { cwd.clone() };
                    let spliced = inner_words
                        .iter()
                        .find(|w| super::words::holds_placeholder(&w.cooked))
                        .map(|w| w.raw.clone());
                    let inner_index = self.ex.invocations.len();
                    self.found_below = Some(found_below.clone());
                    self.inner(
                        index,
                        inner_words,
                        Vec::new(),
                        inner_cwd,
                        Via::ExecOption,
                        true,
                        depth,
                    );
                    // The finder writes each found file's name into this word: what the word
                    // is (a path, shell code, an awk program) is not known until it runs, and
                    // a file name can inject code. Its code is still parsed and judged.
                    if let Some(raw) = spliced {
                        self.dynamic(
                            inner_index,
                            &format!("`{raw}` gets each found file's name spliced into it"),
                        );
                    }
                }
            }
        }
    }
}

struct PrefixInner {
    start: usize,
    assignments: Vec<Assignment>,
    cwd: Option<PathBuf>,
    /// False when a `judged_flags` option was given: the wrapper is judged by itself.
    transparent: bool,
    /// The first option the wrapper's entry does not list (non-privileged wrappers only).
    unknown: Option<String>,
    /// The first option value or positional with expansions (raw): the shell may split it into
    /// several words (`timeout $T ls` with `T='1 rm -rf ~'` runs `rm`), so where the command
    /// starts is not known.
    dynamic: Option<String>,
}

/// Whether `token` is one of `flags` (long options also by unambiguous prefix).
pub(super) fn listed(token: &str, flags: &[String]) -> bool {
    flags.iter().any(|f| flag_is(token, f))
}

/// Whether `token` is exactly one of `flags`.
pub(super) fn exactly(token: &str, flags: &[String]) -> bool {
    flags.iter().any(|f| f == token)
}

/// A directory option's value resolved against `cwd` (`None` when it cannot be known).
fn moved(value: Option<&Word>, cwd: Option<&Path>, home: Option<&Path>) -> Option<PathBuf> {
    crate::paths::working_directory(value?, cwd, home)
}

/// Options, assignments and positionals of a prefix-mode wrapper; `None` when it runs no
/// command (no words left, or a query flag such as `command -v`). With `strict`, the first
/// option the entry lists nowhere is reported.
fn prefix_inner(
    prefix: &PrefixMode,
    strict: bool,
    words: &[Word],
    start: usize,
    mut cwd: Option<PathBuf>,
    home: Option<&Path>,
) -> Option<PrefixInner> {
    let mut i = start;
    let mut transparent = true;
    let mut unknown: Option<String> = None;
    let mut dynamic: Option<String> = None;
    let mut note_value = |word: Option<&Word>| {
        if let Some(word) = word.filter(|w| !w.literal) {
            dynamic.get_or_insert_with(|| word.raw.clone());
        }
    };
    let options = &prefix.options;
    let known = |name: &str| {
        exactly(name, &options.value_flags)
            || exactly(name, &options.cwd_flags)
            || listed(name, &prefix.query_flags)
            || listed(name, &options.judged_flags)
            || listed(name, &options.flags)
            || (!name.starts_with("--")
                && [&prefix.query_flags, &options.judged_flags, &options.flags]
                    .iter()
                    .any(|list| exactly(name, list)))
    };
    let mut stopped = false;
    // Options: up to the first non-option (wrappers stop option parsing there).
    while let Some(word) = words.get(i) {
        let text = word.cooked.as_str();
        if !word.literal {
            break;
        }
        if exactly(text, &prefix.stop_at) {
            stopped = true;
            i += 1;
            break;
        }
        if !(text.len() > 1 && text.starts_with('-')) {
            break;
        }
        if let Some(long) = text.strip_prefix("--").map(|_| text) {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            // An option spelt exactly as one the entry lists is that option, never an
            // abbreviation of a longer one (`uv run --extra` is not `--extra-index-url`).
            let exact = |list: &[String]| exactly(name, list);
            let exact_other = exact(&prefix.options.value_flags)
                || exact(&prefix.options.cwd_flags)
                || exact(&prefix.options.flags);
            if exact(&prefix.query_flags) || (!exact_other && listed(name, &prefix.query_flags)) {
                return None;
            }
            if exact(&prefix.options.judged_flags)
                || (!exact_other && listed(name, &prefix.options.judged_flags))
            {
                transparent = false;
            }
            if strict && unknown.is_none() && !known(name) {
                unknown = Some(text.to_owned());
            }
            let takes = exactly(name, &prefix.options.value_flags)
                || exactly(name, &prefix.options.cwd_flags);
            if takes && inline.is_none() {
                i += 1;
                note_value(words.get(i));
            }
            if exactly(name, &prefix.options.cwd_flags) {
                cwd = match inline {
                    Some(v) => moved(
                        Some(&synthetic_word(v.to_owned(), word.span)),
                        cwd.as_deref(),
                        home,
                    ),
                    None => moved(words.get(i), cwd.as_deref(), home),
                };
            }
            i += 1;
            continue;
        }
        if exactly(text, &prefix.query_flags) {
            return None;
        }
        if exactly(text, &prefix.options.judged_flags) {
            transparent = false;
        }
        // A single-dash word the entry lists whole (`arch -x86_64`) is not a bundle of letters.
        if exactly(text, &prefix.options.flags) {
            i += 1;
            continue;
        }
        if exactly(text, &prefix.options.value_flags) || exactly(text, &prefix.options.cwd_flags) {
            if exactly(text, &prefix.options.cwd_flags) {
                cwd = moved(words.get(i + 1), cwd.as_deref(), home);
            }
            note_value(words.get(i + 1));
            i += 2;
            continue;
        }
        let body = text.get(1..).unwrap_or_default();
        for (pos, c) in body.char_indices() {
            let name = format!("-{c}");
            if exactly(&name, &prefix.query_flags) {
                return None;
            }
            if exactly(&name, &prefix.options.judged_flags) {
                transparent = false;
            }
            if strict && unknown.is_none() && !known(&name) {
                unknown = Some(text.to_owned());
            }
            let is_cwd = exactly(&name, &prefix.options.cwd_flags);
            if is_cwd || exactly(&name, &prefix.options.value_flags) {
                let rest = body.get(pos + c.len_utf8()..).unwrap_or_default();
                if rest.is_empty() {
                    if is_cwd {
                        cwd = moved(words.get(i + 1), cwd.as_deref(), home);
                    }
                    note_value(words.get(i + 1));
                    i += 1;
                } else if is_cwd {
                    cwd = moved(
                        Some(&synthetic_word(rest.to_owned(), word.span)),
                        cwd.as_deref(),
                        home,
                    );
                }
                break;
            }
        }
        i += 1;
    }
    let mut assignments = Vec::new();
    if prefix.assignments {
        while let Some(word) = words.get(i) {
            let Some((name, value)) = word.cooked.split_once('=') else {
                break;
            };
            // The wrapper reads its own argument list, where quotes are gone: `env 'A=b c' cmd`
            // sets `A` like `env A='b c' cmd` does.
            if !is_name(name) {
                break;
            }
            assignments.push(Assignment {
                name: name.to_owned(),
                index: None,
                append: false,
                value: Some(Word {
                    raw: value.to_owned(),
                    cooked: value.to_owned(),
                    literal: word.literal,
                    features: word.features,
                    span: word.span,
                }),
                array: None,
                span: word.span,
            });
            i += 1;
        }
    }
    // `mise x node@20 python@3.12 -- CMD`: the words before `--` are the wrapper's own.
    if let Some(end) = words
        .get(i..)
        .unwrap_or_default()
        .iter()
        .position(|w| w.literal && exactly(&w.cooked, &prefix.positionals_until))
    {
        for word in words.get(i..i + end).unwrap_or_default() {
            note_value(Some(word));
            transparent = false;
        }
        i += end + 1;
    }
    let mut skip = prefix.positionals;
    while skip > 0 && words.get(i).is_some() {
        note_value(words.get(i));
        skip -= 1;
        i += 1;
    }
    // `npm exec tsc --package=x`: npm's option, not `tsc`'s (`npm exec -- tsc --x` passes it).
    if prefix.options_anywhere && !stopped {
        let own_option = words
            .get(i + 1..)
            .unwrap_or_default()
            .iter()
            .take_while(|w| !(w.literal && exactly(&w.cooked, &prefix.stop_at)))
            .any(|w| !w.literal || (w.cooked.len() > 1 && w.cooked.starts_with('-')));
        if own_option {
            transparent = false;
        }
    }
    (i < words.len()).then_some(PrefixInner {
        start: i,
        assignments,
        cwd,
        transparent,
        unknown,
        dynamic,
    })
}

/// Why a wrapper's inner command is not known: one of its option values or positionals, `raw`,
/// has expansions, which the shell may split into several words.
fn dynamic_argument(raw: &str, verb: &[String]) -> String {
    format!(
        "`{}`: an argument of `{}` with expansions may become several words, so the command it \
         runs is not known",
        crate::display::escape(raw),
        verb.join(" ")
    )
}

/// A strip-mode wrapper's command with its options removed.
struct Stripped {
    /// The wrapper's verb and the words after the removed options (`git log`).
    words: Vec<Word>,
    /// The working directory the inner command runs in.
    cwd: Option<PathBuf>,
    /// False when a `judged_flags` option (not a plain setting) was removed.
    transparent: bool,
    /// The first removed option value with expansions (raw): the shell may split it, so the
    /// words after it are not known to be the command (`git -C $D log` with `D='. -c
    /// core.pager=sh'`).
    dynamic: Option<String>,
}

/// `git -C DIR log` → (`git log`, DIR, transparent), `mvn -q compile` → (`mvn compile`, …);
/// `None` when none of the value flags or flags is present. Stripping a `judged_flags` option
/// makes the wrapper non-transparent, unless its value is a plain setting or sets a pager or
/// an editor to a harmless program (`harmless`: `core.pager=cat`).
fn strip_inner(
    options: &WrapperOptions,
    words: &[Word],
    start: usize,
    mut cwd: Option<PathBuf>,
    home: Option<&Path>,
    harmless: &dyn Fn(&str) -> bool,
) -> Option<Stripped> {
    let mut kept: Vec<Word> = words.get(..start)?.to_vec();
    let mut stripped = false;
    let mut transparent = true;
    let mut dynamic: Option<String> = None;
    let mut i = start;
    while let Some(word) = words.get(i) {
        let text = word.cooked.as_str();
        let option = word.literal && text.len() > 1 && text.starts_with('-');
        if !option || text == "--" {
            break;
        }
        let (name, inline): (&str, Option<String>) = if text.starts_with("--") {
            match text.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None => (text, None),
            }
        } else if text.chars().count() > 2
            && options
                .value_flags
                .iter()
                .any(|f| f.len() == 2 && text.starts_with(f.as_str()))
        {
            let name = text.get(..2).unwrap_or_default();
            (name, text.get(2..).map(str::to_owned))
        } else {
            (text, None)
        };
        if exactly(name, &options.value_flags) {
            stripped = true;
            let value = match inline {
                Some(v) => Some(synthetic_word(v, word.span)),
                None => {
                    i += 1;
                    words.get(i).cloned()
                }
            };
            let harmless_program = value
                .as_ref()
                .is_some_and(|v| v.literal && harmless(&v.cooked));
            if exactly(name, &options.judged_flags)
                && !plain_setting(options, value.as_ref())
                && !harmless_program
            {
                transparent = false;
            }
            if let Some(value) = value.as_ref().filter(|v| !v.literal) {
                dynamic.get_or_insert_with(|| value.raw.clone());
            }
            if exactly(name, &options.cwd_flags) {
                cwd = moved(value.as_ref(), cwd.as_deref(), home);
            }
        } else if inline.is_none() && exactly(name, &options.flags) {
            stripped = true;
        } else {
            kept.push(word.clone());
        }
        i += 1;
    }
    if !stripped {
        return None;
    }
    kept.extend(words.get(i..).unwrap_or_default().iter().cloned());
    Some(Stripped {
        words: kept,
        cwd,
        transparent,
        dynamic,
    })
}

/// Whether a judged option's value is a literal setting whose key is one of the wrapper's
/// `plain_settings` (`user.email=a@b`; `color.ui`).
fn plain_setting(options: &WrapperOptions, value: Option<&Word>) -> bool {
    value.is_some_and(|value| {
        let key = value
            .cooked
            .split_once('=')
            .map_or(value.cooked.as_str(), |(key, _)| key)
            .to_ascii_lowercase();
        value.literal
            && !key.is_empty()
            && options
                .plain_settings
                .iter()
                .any(|glob| glob.is_match(&key))
    })
}

/// The word ranges of every `-exec … ;` style inner command.
/// A finder's own words: without the commands its exec options carry (`find . -exec cat {} ;
/// -print` → `find . -print`), so that its roles name only its own operands.
pub(crate) fn finder_own_words(exec: &ExecMode, words: &[Word]) -> Vec<Word> {
    let carried = exec_option_inners(exec, words, 1);
    words
        .iter()
        .enumerate()
        .filter(|(i, _)| {
            !carried
                .iter()
                .any(|r| (r.start.saturating_sub(1)..=r.end).contains(i))
        })
        .map(|(_, w)| w.clone())
        .collect()
}

fn exec_option_inners(exec: &ExecMode, words: &[Word], start: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut i = start;
    while let Some(word) = words.get(i) {
        if word.literal && exactly(&word.cooked, &exec.exec_options) {
            let begin = i + 1;
            let mut end = begin;
            while let Some(w) = words.get(end) {
                let terminator = w.literal
                    && exactly(&w.cooked, &exec.terminators)
                    && (w.cooked != "+"
                        || end > begin && words.get(end - 1).is_some_and(|p| p.cooked == "{}"));
                if terminator {
                    break;
                }
                end += 1;
            }
            out.push(begin..end);
            i = end + 1;
        } else {
            i += 1;
        }
    }
    out
}

impl Walker<'_> {
    /// The directories a finder searches: its read operands among its own words (not the
    /// commands its exec options carry), cooked to the paths the policy resolved.
    pub(super) fn finder_roots(
        &self,
        exec: &ExecMode,
        words: &[Word],
        cwd: Option<&Path>,
        home: Option<&Path>,
    ) -> Vec<Word> {
        let own = words
            .iter()
            .position(|w| w.literal && exactly(&w.cooked, &exec.exec_options))
            .unwrap_or(words.len());
        let view = shellgate_rules::CommandView {
            words: words.get(..own).unwrap_or_default(),
            assignments: &[],
            redirects: &[],
            cwd,
            home,
        };
        self.policy
            .roles(&view)
            .into_iter()
            .filter(|r| r.role == shellgate_rules::Role::ReadPath)
            .filter_map(|r| {
                let word = words.get(r.index)?;
                let mut root = word.clone();
                root.cooked = r.text;
                Some(root)
            })
            .collect()
    }
}
