#![doc = include_str!("../README.md")]

pub use shellgate_parser::{
    Assignment, Clause, ClauseGraph, Context, Operator, ParseOptions, ParseOutput, Redirect,
    RedirectOp, RedirectTarget, Span, Word, parse,
};

pub mod audit;
pub mod hook;
