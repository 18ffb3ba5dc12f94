//! The tldr-pages and NL2Bash command corpora against bash's own verdict.
//!
//! `tests/data/bash-rejects.tsv` (made by `scripts/bash-rejects.sh`) lists the lines that
//! `bash -O extglob -n` rejects. Every other line must parse complete; every listed line must
//! come back incomplete, except the documented exceptions below.

use std::collections::{HashMap, HashSet};

use shellgate_parser::{ParseOptions, parse};

/// Lines bash rejects that shellgate parses completely, with the reason.
const EXCEPTIONS: &[(&str, usize, &str)] = &[];

/// Lines bash accepts that shellgate refuses (incomplete), with the reason.
const REFUSED: &[(&str, usize, &str)] = &[
    (
        "nl2bash-commands",
        494,
        "`bash -n` does not parse backquote bodies; `which <file> | xargs` inside them is a \
         syntax error when bash runs it, and shellgate parses backquotes eagerly",
    ),
    (
        "nl2bash-commands",
        1262,
        "the backquote body `;` is a syntax error when bash runs it (see line 494)",
    ),
];

fn corpus(name: &str) -> Vec<String> {
    let path = format!(
        "{}/tests/data/corpus/{name}.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn rejects() -> HashMap<String, HashSet<usize>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bash-rejects.tsv");
    let mut out: HashMap<String, HashSet<usize>> = HashMap::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        if line.starts_with('#') {
            continue;
        }
        let mut fields = line.splitn(3, '\t');
        let name = fields.next().unwrap().to_owned();
        let number: usize = fields.next().unwrap().parse().unwrap();
        out.entry(name).or_default().insert(number);
    }
    out
}

fn check(name: &str) {
    let rejects = rejects();
    let rejected = rejects.get(name).cloned().unwrap_or_default();
    let options = ParseOptions {
        cwd: Some("/work".into()),
        home: Some("/home/me".into()),
    };
    let mut failures = Vec::new();
    // Every exception must still be needed.
    let mut stale: Vec<(&str, usize)> = EXCEPTIONS
        .iter()
        .chain(REFUSED)
        .filter(|&&(n, _, _)| n == name)
        .map(|&(n, l, _)| (n, l))
        .collect();
    let (mut complete, mut incomplete) = (0, 0);
    for (index, line) in corpus(name).iter().enumerate() {
        let number = index + 1;
        let out = parse(line, &options);
        if out.complete {
            complete += 1;
        } else {
            incomplete += 1;
        }
        let bash_ok = !rejected.contains(&number);
        let excepted = EXCEPTIONS
            .iter()
            .chain(REFUSED)
            .any(|&(n, l, _)| n == name && l == number);
        if out.complete != bash_ok && excepted {
            stale.retain(|&(n, l)| !(n == name && l == number));
        }
        if out.complete != bash_ok && !excepted {
            failures.push(format!(
                "  {name}:{number} bash {} but shellgate {} ({:?}): {line}",
                if bash_ok { "accepts" } else { "rejects" },
                if out.complete { "accepts" } else { "rejects" },
                out.reason()
            ));
        }
    }
    println!(
        "{name}: {complete} complete, {incomplete} incomplete, {} bash rejects",
        rejected.len()
    );
    assert!(stale.is_empty(), "exceptions no longer needed: {stale:?}");
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn tldr_lines_match_bash() {
    check("tldr-commands");
}

#[test]
fn nl2bash_lines_match_bash() {
    check("nl2bash-commands");
}
