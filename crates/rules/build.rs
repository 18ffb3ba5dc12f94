//! Turns the embedded default policy into a form that loads without parsing TOML.
//!
//! `policies/default.toml` stays the source of truth. This script copies it into `OUT_DIR`
//! (so `DEFAULT_POLICY` is exactly the text converted here) and writes
//! `default_policy.bin`: the file's tree of values (with every span, see `src/tree.rs`) in
//! postcard form, plus the required literals of its `raw` regexes (see `src/guard.rs`). The
//! library reads that tree exactly as it reads the tree of any file it parses. When the file
//! does not parse, the binary form is left empty and loading falls back to parsing the text,
//! which reports the errors with file, line and column as for any policy file.

use std::collections::BTreeMap;
use std::error::Error;
use std::path::PathBuf;

#[allow(
    dead_code,
    reason = "the build script uses only the tree and its serde impls"
)]
#[path = "src/tree.rs"]
mod tree;

#[allow(dead_code, reason = "shared with the library's tests")]
#[path = "src/guard.rs"]
mod guard;

fn main() -> Result<(), Box<dyn Error>> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    let source = manifest.join("../../policies/default.toml");
    println!("cargo::rerun-if-changed={}", source.display());
    println!("cargo::rerun-if-changed=src/tree.rs");
    println!("cargo::rerun-if-changed=src/guard.rs");
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    let text = std::fs::read_to_string(&source)?;
    let binary = match tree::Tree::parse(&text) {
        Ok(tree) => {
            let guards: BTreeMap<String, Vec<String>> = raw_patterns(&tree)
                .into_iter()
                .filter_map(|pattern| {
                    guard::required_literals(pattern).map(|set| (pattern.to_owned(), set))
                })
                .collect();
            let line_starts = std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .collect();
            postcard::to_stdvec(&tree::Embedded {
                tree,
                guards,
                line_starts,
            })?
        }
        Err(_) => Vec::new(),
    };
    std::fs::write(out.join("default.toml"), &text)?;
    std::fs::write(out.join("default_policy.bin"), binary)?;
    Ok(())
}

/// The `raw` regexes of the `[[deny]]` and `[[ask]]` tables of a file's tree.
fn raw_patterns<'t>(file: &'t tree::Tree<'_>) -> Vec<&'t str> {
    let mut out = Vec::new();
    for rules in file.root().into_iter().flat_map(|root| root.children()) {
        if !rules.is_key("deny") && !rules.is_key("ask") {
            continue;
        }
        for rule in rules.children() {
            let raw = rule.children().filter(|entry| entry.is_key("raw"));
            out.extend(raw.filter_map(|entry| entry.str()));
        }
    }
    out
}
