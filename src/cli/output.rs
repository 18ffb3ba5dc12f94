//! Standard output and standard error for every subcommand.
//!
//! `println!` panics when standard output is a pipe whose reader has gone (`shellgate eval … |
//! head -c 1`): Rust ignores `SIGPIPE`, so the write fails with `EPIPE` and the macro panics
//! (exit 101). Every subcommand writes through [`outln!`](crate::cli::output::outln) and
//! [`errln!`](crate::cli::output::errln) instead:
//!
//! - a closed standard output (`EPIPE`) ends the output: later writes are skipped and the
//!   subcommand exits with its normal code ([`finish`]); `audit --decisions -` stops reading
//!   its logs there;
//! - any other failure to write standard output (a full disk) is reported once on standard
//!   error and turns the exit status into [`Exit::Error`];
//! - a failure to write standard error is ignored: there is nowhere left to report it.

use std::fmt;
use std::io::{self, Write as _};
use std::sync::atomic::{AtomicBool, Ordering};

use super::Exit;

/// Standard output was closed by its reader.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);
/// Writing standard output failed for another reason.
static STDOUT_FAILED: AtomicBool = AtomicBool::new(false);

/// Writes to standard output and flushes, unless it is closed (see the module docs).
pub fn write_stdout(args: fmt::Arguments<'_>) {
    if STDOUT_CLOSED.load(Ordering::Relaxed) || STDOUT_FAILED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = io::stdout().lock();
    if let Err(error) = out.write_fmt(args).and_then(|()| out.flush()) {
        stdout_failed(&error);
    }
}

/// Records a failed write to standard output: closed (`EPIPE`) or failed.
pub fn stdout_failed(error: &io::Error) {
    if error.kind() == io::ErrorKind::BrokenPipe {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
    } else if !STDOUT_FAILED.swap(true, Ordering::Relaxed) {
        write_stderr(format_args!(
            "error: cannot write to standard output: {error}\n"
        ));
    }
}

/// Writes to standard error; a failure is ignored.
pub fn write_stderr(args: fmt::Arguments<'_>) {
    let mut err = io::stderr().lock();
    let _ignored = err.write_fmt(args).and_then(|()| err.flush());
}

/// The exit status of a subcommand that finished with `exit`: [`Exit::Error`] when writing
/// standard output failed (other than by being closed), else `exit`.
pub fn finish(exit: Exit) -> Exit {
    if STDOUT_FAILED.load(Ordering::Relaxed) {
        Exit::Error
    } else {
        exit
    }
}

/// Whether standard output gets colour: `--color always`, or `--color auto` (the default) on a
/// terminal that supports it, unless `NO_COLOR` is set (anstream's rules, with the choice of
/// `--color` written as its global choice).
pub fn colour() -> bool {
    anstream::AutoStream::choice(&io::stdout()) != anstream::ColorChoice::Never
}

/// `text` in `style` when standard output gets colour, else as is.
pub fn paint(text: &str, style: anstyle::Style) -> String {
    if colour() {
        format!("{style}{text}{style:#}")
    } else {
        text.to_owned()
    }
}

/// The style of a decision or outcome word: green for approved and passing, yellow for a
/// person deciding, bold red for refused and failing.
pub fn style_of(word: &str) -> anstyle::Style {
    use anstyle::{AnsiColor, Style};
    match word {
        "Approved" | "pass" | "ok" => Style::new().fg_color(Some(AnsiColor::Green.into())),
        "NeedsPrompt" | "note" => Style::new().fg_color(Some(AnsiColor::Yellow.into())),
        "HardDenied" | "FAIL" => Style::new().bold().fg_color(Some(AnsiColor::Red.into())),
        _ => Style::new(),
    }
}

/// A decision or outcome word in its colour (see [`style_of`]).
pub fn painted(word: &str) -> String {
    paint(word, style_of(word))
}

/// Prints `value` as one line of JSON. When it cannot be encoded, says so on standard error
/// (`error: cannot write the WHAT: …`) and returns the error exit, rather than print half.
///
/// # Errors
///
/// [`Exit::Error`] when `value` cannot be encoded.
pub fn json_line(value: &impl serde::Serialize, what: &str) -> Result<(), Exit> {
    match serde_json::to_string(value) {
        Ok(text) => {
            write_stdout(format_args!("{text}\n"));
            Ok(())
        }
        Err(e) => {
            write_stderr(format_args!("error: cannot write the {what}: {e}\n"));
            Err(Exit::Error)
        }
    }
}

/// `print!` that never panics (see the module docs).
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::output::write_stdout(format_args!($($arg)*))
    };
}

/// `println!` that never panics (see the module docs).
macro_rules! outln {
    () => {
        $crate::cli::output::write_stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::cli::output::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprint!` that never panics.
macro_rules! err {
    ($($arg:tt)*) => {
        $crate::cli::output::write_stderr(format_args!($($arg)*))
    };
}

/// `eprintln!` that never panics.
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::cli::output::write_stderr(format_args!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) use {err, errln, out, outln};
