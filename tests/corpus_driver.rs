//! The one driver for the data-driven corpora in `tests/corpus/*.toml`: one runner module per
//! corpus kind, each printing the failing case's name and input.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: a failed step, or a corpus that cannot be read, fails the test loudly"
)]

#[path = "driver/corpus.rs"]
mod corpus;

#[path = "driver/parser.rs"]
mod parser;

#[path = "driver/clause_text.rs"]
mod clause_text;

#[path = "driver/gate.rs"]
mod gate;

#[path = "driver/rules.rs"]
mod rules;

#[path = "driver/adversarial.rs"]
mod adversarial;

#[path = "driver/grants.rs"]
mod grants;
#[path = "driver/redirects.rs"]
mod redirects;
