//! Turns the embedded default policy into a form that loads without parsing TOML.
//!
//! `policies/default.toml` stays the source of truth. This script copies it into `OUT_DIR`
//! (so `DEFAULT_POLICY` is exactly the text converted here) and writes
//! `default_policy.bin`: the file's raw serde model (with every span) in postcard form, plus
//! the required literals of its `raw` regexes (see `src/guard.rs`). When the file does not
//! parse, the binary form is left empty and loading falls back to parsing the text, which
//! reports the errors with file, line and column as for any policy file.

use std::collections::BTreeMap;
use std::error::Error;
use std::path::PathBuf;

#[allow(
    dead_code,
    reason = "the build script uses only the model's serde impls"
)]
#[path = "src/raw.rs"]
mod raw;

#[allow(dead_code, reason = "shared with the library's tests")]
#[path = "src/guard.rs"]
mod guard;

fn main() -> Result<(), Box<dyn Error>> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    let source = manifest.join("../../policies/default.toml");
    println!("cargo::rerun-if-changed={}", source.display());
    println!("cargo::rerun-if-changed=src/raw.rs");
    println!("cargo::rerun-if-changed=src/guard.rs");
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    let text = std::fs::read_to_string(&source)?;
    let binary = match toml::from_str::<raw::RawFile>(&text) {
        Ok(file) => {
            let guards: BTreeMap<String, Vec<String>> = file
                .deny
                .iter()
                .filter_map(|rule| rule.get_ref().raw.as_ref())
                .filter_map(|pattern| {
                    let pattern = pattern.get_ref();
                    guard::required_literals(pattern).map(|set| (pattern.clone(), set))
                })
                .collect();
            let line_starts = std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .collect();
            postcard::to_stdvec(&raw::Embedded {
                file,
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
