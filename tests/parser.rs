//! The parser through its public API and the `shellgate parse` binary, one test binary: the
//! verb hints and the `--json` contract (`cli`), the tldr-pages and NL2Bash corpora against
//! bash's own verdict (`corpora`), the fast scanner against the grammar (`fast_path`), the
//! tree-sitter-bash corpus (`tree_sitter`) and bounded work (`limits`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test helpers may unwrap: a failure is a test failure"
)]

#[path = "parser/cli.rs"]
mod cli;

#[path = "parser/corpora.rs"]
mod corpora;

#[path = "parser/fast_path.rs"]
mod fast_path;

#[path = "parser/limits.rs"]
mod limits;

#[path = "parser/tree_sitter.rs"]
mod tree_sitter;
