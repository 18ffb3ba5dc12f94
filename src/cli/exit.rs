//! Process exit codes. These are a contract that other programs check (see README.md).

use std::process::ExitCode;

/// The exit status of a `shellgate` invocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// 0: approved, clean, complete or done.
    Ok,
    /// 1: usage, validation or internal error.
    Error,
    /// 2: needs a person (eval), incomplete parse (parse), unreadable store (approvals).
    NeedsPrompt,
    /// 3: hard denied (eval).
    HardDenied,
}

impl Exit {
    /// The numeric code.
    #[must_use]
    pub const fn code(self) -> u8 {
        match self {
            Self::Ok => 0,
            Self::Error => 1,
            Self::NeedsPrompt => 2,
            Self::HardDenied => 3,
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> Self {
        Self::from(exit.code())
    }
}
