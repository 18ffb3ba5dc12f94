//! Expansions that evaluate data as code.
//!
//! Some bash expansions run the *value* of a variable (or of a command's output) as code:
//!
//! * arithmetic: `$((x))`, `$[x]`, an indexed array subscript (`${a[i]}`, `a[$i]=1`,
//!   `a=([i]=1)`) and a substring offset or length (`${s:x}`, `${s:0:$n}`) evaluate their
//!   expression, and a variable named in it is evaluated as arithmetic too. A value such as
//!   `a[$(cmd)]` therefore runs `cmd`;
//! * indirection: `${!x}` evaluates the value of `x` as a variable name, which may carry a
//!   subscript (`a[$(cmd)]`);
//! * prompt expansion: `${x@P}` expands the value like `PS1`, running its substitutions.
//!
//! A word holding one of these is code the gate cannot read: it needs a person. Arithmetic over
//! literal numbers (`$((1 + 2))`, `${s:1:2}`, `${a[0]}`, `${a[@]}`) and plain expansions
//! (`$x`, `${x:-default}`, `${#x}`, `${x@Q}`) evaluate nothing and stay as they were.
//!
//! The scan reads the raw source text of a word (quotes included): a construct inside single
//! quotes is reported too, which can only make a decision stricter.

use crate::{Assignment, ClauseGraph, Redirect, RedirectFd, RedirectTarget, Word};

/// Why `${!x}` is code.
const INDIRECT: &str =
    "an indirect expansion `${!…}` evaluates a value as a variable name, which can run commands";
/// Why `${x@P}` is code.
const PROMPT: &str = "a prompt expansion `${…@P}` runs the substitutions in a value";
/// Why arithmetic over a variable is code.
const ARITHMETIC: &str = "arithmetic over a variable evaluates its value, which can run commands";
/// Why a subscript over a variable is code.
const SUBSCRIPT: &str =
    "an array subscript is arithmetic: a variable in it is evaluated, which can run commands";
/// Why a substring offset over a variable is code.
const SUBSTRING: &str = "a substring offset or length is arithmetic: a variable in it is evaluated, which can run commands";

/// Whether an arithmetic expression reads data: it names a variable (a letter or `_`), uses an
/// expansion (`$1`, `${…}`, `$(…)`, a backquote) or is otherwise not made of numbers and
/// operators alone. `$?`, `$#`, `$$` and `$!` are always numbers and do not count.
///
/// ```
/// use shellgate_parser::evaluates::arithmetic_reads_data;
///
/// assert!(arithmetic_reads_data("x + 1"));
/// assert!(arithmetic_reads_data("$1"));
/// assert!(!arithmetic_reads_data("1 + 2 * (3 - 4)"));
/// assert!(!arithmetic_reads_data("$# > 2"));
/// ```
#[must_use]
pub fn arithmetic_reads_data(expr: &str) -> bool {
    let mut chars = expr.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            'a'..='z' | 'A'..='Z' | '_' | '`' | '\\' => return true,
            '$' => match chars.peek() {
                Some('?' | '#' | '$' | '!') => {
                    chars.next();
                }
                _ => return true,
            },
            _ => {}
        }
    }
    false
}

/// Why the shell source `text` evaluates data as code, if it does (see the module docs).
///
/// ```
/// use shellgate_parser::evaluates::evaluating_text;
///
/// assert!(evaluating_text("$((x))").is_some());
/// assert!(evaluating_text("${a[i]}").is_some());
/// assert!(evaluating_text("${s:$n}").is_some());
/// assert!(evaluating_text("${!name}").is_some());
/// assert!(evaluating_text("\"${x@P}\"").is_some());
/// assert_eq!(evaluating_text("$x ${x:-d} ${#x} ${a[0]} ${a[@]} ${s:1:2} $((1+2))"), None);
/// ```
#[must_use]
pub fn evaluating_text(text: &str) -> Option<&'static str> {
    // Fast path: most words hold no `${`, `$((` or `$[` at all.
    let bytes = text.as_bytes();
    let candidate = bytes.iter().enumerate().any(|(i, b)| {
        *b == b'$'
            && match bytes.get(i + 1) {
                Some(b'{' | b'[') => true,
                Some(b'(') => bytes.get(i + 2) == Some(&b'('),
                _ => false,
            }
    });
    if !candidate {
        return None;
    }
    let brackets = Brackets::new(text);
    for (i, _) in text.match_indices('$') {
        let rest = text.get(i + 1..).unwrap_or_default();
        let found = if rest.starts_with("((") {
            // `$(( … ))`: the expression is inside the second parenthesis.
            arithmetic_reads_data(brackets.inner(text, i + 2)).then_some(ARITHMETIC)
        } else if rest.starts_with('[') {
            arithmetic_reads_data(brackets.inner(text, i + 1)).then_some(ARITHMETIC)
        } else if rest.starts_with('{') {
            parameter(text, i + 2, brackets.inner(text, i + 1), &brackets)
        } else {
            None
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// Where each `(`, `[` and `{` of a text closes, found in one pass (quotes are not
/// considered), so every expansion is delimited in constant time.
struct Brackets {
    /// For the byte offset of an opening bracket, the offset of its closing one.
    close: Vec<usize>,
}

impl Brackets {
    fn new(text: &str) -> Self {
        let mut close = vec![usize::MAX; text.len()];
        let mut stacks: [Vec<usize>; 3] = [Vec::new(), Vec::new(), Vec::new()];
        for (i, b) in text.bytes().enumerate() {
            let (kind, opening) = match b {
                b'(' => (0, true),
                b'[' => (1, true),
                b'{' => (2, true),
                b')' => (0, false),
                b']' => (1, false),
                b'}' => (2, false),
                _ => continue,
            };
            let Some(stack) = stacks.get_mut(kind) else {
                continue;
            };
            if opening {
                stack.push(i);
            } else if let Some(open) = stack.pop()
                && let Some(slot) = close.get_mut(open)
            {
                *slot = i;
            }
        }
        Self { close }
    }

    /// The text inside the bracket at `open`; to the end of `text` when it never closes.
    fn inner<'t>(&self, text: &'t str, open: usize) -> &'t str {
        let end = self
            .close
            .get(open)
            .copied()
            .filter(|e| *e != usize::MAX)
            .unwrap_or(text.len());
        text.get(open + 1..end).unwrap_or_default()
    }

    /// Whether the bracket at `open` closes.
    fn closes(&self, open: usize) -> bool {
        self.close.get(open).is_some_and(|e| *e != usize::MAX)
    }
}

/// Judges the inside `inner` of one `${…}`, which starts at byte `at` of `text`.
fn parameter(text: &str, at: usize, inner: &str, brackets: &Brackets) -> Option<&'static str> {
    if inner.len() > 1 && inner.starts_with('!') {
        return Some(INDIRECT);
    }
    // `${#x}`, `${#a[i]}`: the length of a parameter.
    let mut pos = at;
    let mut rest = match inner.strip_prefix('#') {
        Some(after) if after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') => {
            pos += 1;
            after
        }
        _ => inner,
    };
    // The name: a variable, positional digits or one special parameter.
    let name_len = if rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len())
    } else if rest.starts_with(|c: char| c.is_ascii_digit()) {
        rest.find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len())
    } else if rest.starts_with(['@', '*', '#', '?', '-', '$', '!']) {
        1
    } else {
        return None;
    };
    rest = rest.get(name_len..).unwrap_or_default();
    pos += name_len;
    if rest.starts_with('[') {
        if !brackets.closes(pos) {
            return Some(SUBSCRIPT);
        }
        let subscript = brackets.inner(text, pos);
        if !matches!(subscript.trim(), "@" | "*") && arithmetic_reads_data(subscript) {
            return Some(SUBSCRIPT);
        }
        rest = rest.get(subscript.len() + 2..).unwrap_or_default();
    }
    if let Some(offset) = rest.strip_prefix(':')
        && !offset.starts_with(['-', '=', '?', '+'])
        && arithmetic_reads_data(offset)
    {
        return Some(SUBSTRING);
    }
    (rest == "@P").then_some(PROMPT)
}

/// Why the subscript of an assignment (`a[i]=…`, or `[i]=…` inside `a=( … )`) evaluates data.
fn subscript(index: &str) -> Option<&'static str> {
    (!matches!(index.trim(), "@" | "*") && arithmetic_reads_data(index)).then_some(SUBSCRIPT)
}

/// The subscript of an element `[i]=value` of an array assignment, if it has one.
fn element_subscript(raw: &str) -> Option<&str> {
    if !raw.starts_with('[') {
        return None;
    }
    let brackets = Brackets::new(raw);
    if !brackets.closes(0) {
        return None;
    }
    let index = brackets.inner(raw, 0);
    let after = raw.get(index.len() + 2..)?;
    (after.starts_with('=') || after.starts_with("+=")).then_some(index)
}

/// The variables a command's redirections store a descriptor number in (`{fd}>file`,
/// `{a[i]}<&0`), as written (a subscript included). A `{name[…]}` written right before a
/// redirection operator counts too, even where the parser took it for an argument.
///
/// ```
/// use shellgate_parser::{parse, ParseOptions};
/// use shellgate_parser::evaluates::descriptor_variables;
///
/// let parsed = parse("exec {fd}>/dev/null {a[i]}>/dev/null", &ParseOptions::default());
/// let clause = parsed.graph.clauses().next().unwrap();
/// assert_eq!(descriptor_variables(&clause.argv, &clause.redirects), ["fd", "a[i]"]);
/// ```
#[must_use]
pub fn descriptor_variables<'a>(words: &'a [Word], redirects: &'a [Redirect]) -> Vec<&'a str> {
    if redirects.is_empty() {
        return Vec::new();
    }
    let mut names: Vec<&str> = redirects
        .iter()
        .filter_map(|r| match &r.fd {
            Some(RedirectFd::Variable(name)) => Some(name.as_str()),
            _ => None,
        })
        .collect();
    for word in words {
        let Some(inner) = word.raw.strip_prefix('{').and_then(|w| w.strip_suffix('}')) else {
            continue;
        };
        let named = inner.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
        let adjacent = redirects.iter().any(|r| r.span.start == word.span.end);
        if named && adjacent && !names.contains(&inner) {
            names.push(inner);
        }
    }
    names
}

/// Why the words, assignments or redirections of one command evaluate data as code, with the
/// offending text: a non-literal word, an assignment's subscript, value or array element, a
/// redirect target, or the body of an unquoted heredoc (which is expanded).
///
/// ```
/// use shellgate_parser::{parse, ParseOptions};
/// use shellgate_parser::evaluates::evaluating_parts;
///
/// let parsed = parse("a[i]=1", &ParseOptions::default());
/// let clause = parsed.graph.clauses().next().unwrap();
/// assert!(evaluating_parts(&clause.argv, &clause.assignments, &clause.redirects).is_some());
/// ```
#[must_use]
pub fn evaluating_parts(
    words: &[Word],
    assignments: &[Assignment],
    redirects: &[Redirect],
) -> Option<String> {
    let word_hit = |word: &Word| {
        if word.literal {
            return None;
        }
        evaluating_text(&word.raw).map(|why| format!("`{}`: {why}", word.raw))
    };
    for word in words {
        if let Some(hit) = word_hit(word) {
            return Some(hit);
        }
    }
    for assignment in assignments {
        if let Some(why) = assignment.index.as_deref().and_then(subscript) {
            return Some(format!("`{}[…]`: {why}", assignment.name));
        }
        if let Some(hit) = assignment.value.as_ref().and_then(word_hit) {
            return Some(hit);
        }
        for element in assignment.array.iter().flatten() {
            if let Some(why) = element_subscript(&element.raw).and_then(subscript) {
                return Some(format!("`{}`: {why}", element.raw));
            }
            if let Some(hit) = word_hit(element) {
                return Some(hit);
            }
        }
    }
    // `{name}>file` stores the descriptor in `name`: a subscript in it is arithmetic, and the
    // output of a substitution in it is evaluated (`true {a[$(cat f)]}>/dev/null`).
    for name in descriptor_variables(words, redirects) {
        if let Some(open) = name.find('[') {
            let index = name.get(open + 1..).unwrap_or_default();
            let index = index.strip_suffix(']').unwrap_or(index);
            if let Some(why) = subscript(index) {
                return Some(format!("`{{{name}}}`: {why}"));
            }
        }
    }
    for redirect in redirects {
        match &redirect.target {
            RedirectTarget::Word(word) => {
                if let Some(hit) = word_hit(word) {
                    return Some(hit);
                }
            }
            RedirectTarget::Heredoc(heredoc) if !heredoc.quoted => {
                if let Some(why) = evaluating_text(&heredoc.body) {
                    return Some(format!("the heredoc `{}`: {why}", heredoc.delimiter));
                }
            }
            RedirectTarget::Heredoc(_) => {}
        }
    }
    None
}

/// Why text that no clause of `graph` accounts for evaluates data as code: the words of
/// `for`/`select` lists and `case` subjects and patterns are expanded by the shell but belong
/// to no clause. Every word, assignment, redirection and heredoc body of the clauses is
/// blanked out (each is judged with its clause, see [`evaluating_parts`]); what remains of
/// `text` (the source `graph` was parsed from) is scanned with [`evaluating_text`].
#[must_use]
pub fn unjudged_evaluation(text: &str, graph: &ClauseGraph) -> Option<String> {
    evaluating_text(text)?;
    evaluating_text(&outside_clauses(text, graph))
        .map(|why| format!("a word outside any command (a `for`, `select` or `case` word): {why}"))
}

/// What remains of the command `text` (the source `graph` was parsed from) once every clause's
/// words, assignments and redirections are blanked out: the words of `for`, `select` and
/// `case` headers, which the shell expands outside any command.
#[must_use]
pub fn outside_clauses(text: &str, graph: &ClauseGraph) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let mut blank = |span: crate::Span| blank_span(&mut bytes, span);
    for clause in graph.clauses() {
        clause.argv.iter().for_each(|w| blank(w.span));
        clause.assignments.iter().for_each(|a| blank(a.span));
        for redirect in &clause.redirects {
            blank(redirect.span);
            match &redirect.target {
                RedirectTarget::Word(word) => blank(word.span),
                RedirectTarget::Heredoc(heredoc) => blank(heredoc.body_span),
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// [`implicitly_assigned`] over the command `text` that `graph` was parsed from, without the
/// bodies of quoted heredocs: they are data, never read as shell code nor expanded (a Python
/// loop `for path in …` written to a file assigns nothing). An unquoted body is still read: its
/// `${NAME:=…}` expansions do assign.
///
/// ```
/// use shellgate_parser::{ParseOptions, evaluates::implicitly_assigned_in, parse};
///
/// let text = "cat > a.py <<'EOF'\nfor PATH in x:\n    pass\nEOF\nfor HOME in /tmp; do :; done";
/// let parsed = parse(text, &ParseOptions::default());
/// assert_eq!(implicitly_assigned_in(text, &parsed.graph), vec!["HOME"]);
/// ```
#[must_use]
pub fn implicitly_assigned_in(text: &str, graph: &ClauseGraph) -> Vec<String> {
    implicitly_assigned(&without_quoted_bodies(text, graph))
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// The command `text` that `graph` was parsed from, with the bodies of its quoted heredocs
/// blanked out: they are data, never read as shell code nor expanded.
pub(crate) fn without_quoted_bodies<'t>(
    text: &'t str,
    graph: &ClauseGraph,
) -> std::borrow::Cow<'t, str> {
    let quoted_bodies: Vec<crate::Span> = graph
        .clauses()
        .flat_map(|clause| &clause.redirects)
        .filter_map(|redirect| match &redirect.target {
            RedirectTarget::Heredoc(heredoc) if heredoc.quoted => Some(heredoc.body_span),
            _ => None,
        })
        .collect();
    if quoted_bodies.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut bytes = text.as_bytes().to_vec();
    for span in quoted_bodies {
        blank_span(&mut bytes, span);
    }
    std::borrow::Cow::Owned(String::from_utf8_lossy(&bytes).into_owned())
}

/// Overwrites the bytes of `span` with blanks (clamped to `bytes`).
fn blank_span(bytes: &mut [u8], span: crate::Span) {
    let end = span.end.min(bytes.len());
    if let Some(range) = bytes.get_mut(span.start.min(end)..end) {
        range.fill(b' ');
    }
}

/// Variables the shell source `text` assigns without an assignment word or a setter builtin:
/// the variable of a `for NAME in …` or `select NAME in …` loop, and `${NAME:=…}` /
/// `${NAME=…}` defaults. Read from the raw text, so a quoted look-alike counts too (which can
/// only make a decision stricter).
///
/// ```
/// use shellgate_parser::evaluates::implicitly_assigned;
///
/// assert_eq!(implicitly_assigned("for PATH in /tmp/x; do ls; done"), vec!["PATH"]);
/// assert_eq!(implicitly_assigned(": ${GIT_DIR:=x}; select v in a; do :; done"), vec!["GIT_DIR", "v"]);
/// assert!(implicitly_assigned("echo ${x:-a} $y").is_empty());
/// ```
#[must_use]
pub fn implicitly_assigned(text: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let is_name_char = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    // The name starting at byte `at`, if one does.
    let name_at = |at: usize| -> Option<&str> {
        let rest = text.get(at..)?;
        if !rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            return None;
        }
        let len = rest
            .bytes()
            .position(|c| !is_name_char(c))
            .unwrap_or(rest.len());
        rest.get(..len)
    };
    let bytes = text.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        match b {
            b'f' | b's' => {
                let keyword: &[u8] = if *b == b'f' { b"for" } else { b"select" };
                let after = i + keyword.len();
                let starts_word = i == 0 || bytes.get(i - 1).is_none_or(|p| !is_name_char(*p));
                if !starts_word || bytes.get(i..after) != Some(keyword) {
                    continue;
                }
                let blanks = bytes
                    .get(after..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|c| matches!(c, b' ' | b'\t'))
                    .count();
                if blanks > 0
                    && let Some(name) = name_at(after + blanks)
                {
                    names.push(name);
                }
            }
            b'$' if bytes.get(i + 1) == Some(&b'{') => {
                if let Some(name) = name_at(i + 2) {
                    let rest = bytes.get(i + 2 + name.len()..).unwrap_or_default();
                    if rest.starts_with(b":=") || rest.starts_with(b"=") {
                        names.push(name);
                    }
                }
            }
            _ => {}
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ParseOptions, parse};

    #[test]
    fn evaluating_constructs() {
        for text in [
            "$((x))",
            "$(( x ))",
            "$(($1))",
            "$[x]",
            "$[1]$((y))",
            "$((1))$[x]",
            "${!x}",
            "${!1}",
            "${x@P}",
            "\"${a[@]@P}\"",
            "${a[i]}",
            "${a[$i]}",
            "${a[i+1]}",
            "${#a[i]}",
            "${s:y}",
            "${s:$y}",
            "${s: y}",
            "${s:0:n}",
            "${@:x}",
            "${*:$1}",
            "${a[@]:i}",
            "${x:-${s:n}}",
            "${a[",
            "$((x",
        ] {
            assert!(evaluating_text(text).is_some(), "{text}");
        }
        for text in [
            "$x",
            "${x}",
            "${!}",
            "${#}",
            "${#x}",
            "${x:-a}",
            "${x:=b}",
            "${x:+c}",
            "${x:?d}",
            "${s:1}",
            "${s: -1}",
            "${s:(-1):2}",
            "${a[0]}",
            "${a[-1]}",
            "${a[@]}",
            "${a[*]}",
            "${#a[@]}",
            "${x@Q}",
            "${x@E}",
            "${x,,}",
            "${x/a/b}",
            "$((1 + 2))",
            "$(( $# + $? ))",
            "$[1]",
            "$(ls)",
            "price: 5$",
        ] {
            assert_eq!(evaluating_text(text), None, "{text}");
        }
    }

    #[test]
    fn deeply_nested_expansions_take_linear_time() {
        let started = std::time::Instant::now();
        let open = "${a:-".repeat(20_000);
        assert_eq!(evaluating_text(&open), None);
        let nested = format!("{open}x{}", "}".repeat(20_000));
        assert_eq!(evaluating_text(&nested), None);
        let arithmetic = format!("{}1{}", "$((".repeat(10_000), "))".repeat(10_000));
        assert_eq!(evaluating_text(&arithmetic), Some(ARITHMETIC));
        let digits = format!("{}1", "${a[1".repeat(10_000));
        assert_eq!(evaluating_text(&digits), Some(SUBSCRIPT));
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }

    fn first_parts(command: &str) -> Option<String> {
        let parsed = parse(command, &ParseOptions::default());
        let clause = parsed.graph.clauses().next()?;
        evaluating_parts(&clause.argv, &clause.assignments, &clause.redirects)
    }

    #[test]
    fn parts() {
        // Each input, and whether it evaluates a value as code.
        for (input, evaluates) in [
            ("a[i]=1", true),
            ("a[$i]=1 ls", true),
            ("a=([i]=1)", true),
            ("a+=([$i]=1 2)", true),
            ("x=${a[i]} ls", true),
            ("ls > ${a[i]}", true),
            ("cat <<EOF\n$((x))\nEOF", true),
            ("cat <<< ${x@P}", true),
            ("true {a[$(id)]}>/dev/null", true),
            ("true {a[i]}>/dev/null", true),
            ("exec {fd}>/dev/null", false),
            ("a[0]=1", false),
            ("a=([0]=1 [1]=x)", false),
            ("echo $x '${!x}'", false),
            ("cat <<'EOF'\n$((x))\nEOF", false),
        ] {
            assert_eq!(first_parts(input).is_some(), evaluates, "{input:?}");
        }
    }

    fn net(command: &str) -> Option<String> {
        let parsed = parse(command, &ParseOptions::default());
        unjudged_evaluation(command, &parsed.graph)
    }

    #[test]
    fn words_outside_clauses() {
        // Each input, and whether it evaluates a value as code.
        for (input, evaluates) in [
            ("for v in ${!x}; do echo; done", true),
            ("select v in ${a[i]}; do echo; done", true),
            ("case $((x)) in *) echo;; esac", true),
            ("case x in ${x@P}) echo;; esac", true),
            ("case ${!x} in esac > /dev/null", true),
            // Judged with their clauses, not here.
            ("echo ${!x}", false),
            ("a[i]=1 ls > ${a[i]}", false),
            ("cat <<EOF\n$((x))\nEOF", false),
            ("for v in a b; do echo $((1)); done", false),
        ] {
            assert_eq!(net(input).is_some(), evaluates, "{input:?}");
        }
    }
}
