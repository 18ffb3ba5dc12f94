//! The pest parser generated from `bash.pest`. Private: consumers see clauses, not pairs.

/// The generated parser.
#[derive(pest_derive::Parser)]
#[grammar = "bash.pest"]
pub(crate) struct BashParser;
