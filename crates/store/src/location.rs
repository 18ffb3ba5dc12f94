//! Where the trust file lives.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::StoreError;

/// The environment variable that names the trust file, overriding the default location.
pub const TRUST_ENV: &str = "SHELLGATE_TRUST";

/// The trust file's name inside the configuration directory.
pub const TRUST_FILE_NAME: &str = "trust.toml";

/// Resolves the trust file from the process environment; see [`resolve_trust_path`].
///
/// # Errors
///
/// [`StoreError::NoLocation`] when no source names a location.
pub fn default_trust_path(explicit: Option<&Path>) -> Result<PathBuf, StoreError> {
    resolve_trust_path(explicit, |name| std::env::var_os(name))
}

/// Resolves the trust file, first match wins:
///
/// 1. `explicit` (the `--trust FILE` option);
/// 2. `$SHELLGATE_TRUST`;
/// 3. `$XDG_CONFIG_HOME/shellgate/trust.toml` (only when `XDG_CONFIG_HOME` is absolute, as the
///    XDG base directory specification requires);
/// 4. `$HOME/.config/shellgate/trust.toml` (only when `HOME` is absolute).
///
/// Empty variables count as unset. `env` looks a variable up, so tests need not touch the
/// process environment.
///
/// # Errors
///
/// [`StoreError::NoLocation`] when no source names a location.
pub fn resolve_trust_path(
    explicit: Option<&Path>,
    env: impl Fn(&str) -> Option<OsString>,
) -> Result<PathBuf, StoreError> {
    if let Some(path) = explicit {
        return Ok(path.to_path_buf());
    }
    let var = |name: &str| {
        env(name)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    };
    if let Some(path) = var(TRUST_ENV) {
        return Ok(path);
    }
    if let Some(config) = var("XDG_CONFIG_HOME").filter(|path| path.is_absolute()) {
        return Ok(config.join("shellgate").join(TRUST_FILE_NAME));
    }
    if let Some(home) = var("HOME").filter(|path| path.is_absolute()) {
        return Ok(home.join(".config").join("shellgate").join(TRUST_FILE_NAME));
    }
    Err(StoreError::NoLocation)
}

/// The home directory used to expand `~` in zones: `$HOME` when it is set and absolute.
#[must_use]
pub fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
        .filter(|path| path.is_absolute())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            vars.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| OsString::from(value))
        }
    }

    #[test]
    fn precedence_is_flag_then_variable_then_xdg_then_home() {
        let all = [
            ("SHELLGATE_TRUST", "/env/trust.toml"),
            ("XDG_CONFIG_HOME", "/xdg"),
            ("HOME", "/home/u"),
        ];
        type Case<'a> = (Option<&'a Path>, &'a [(&'a str, &'a str)], &'a str);
        let cases: [Case<'_>; 6] = [
            (Some(Path::new("/flag.toml")), &all, "/flag.toml"),
            (None, &all, "/env/trust.toml"),
            (None, &all[1..], "/xdg/shellgate/trust.toml"),
            (None, &all[2..], "/home/u/.config/shellgate/trust.toml"),
            (
                None,
                &[
                    ("SHELLGATE_TRUST", ""),
                    ("XDG_CONFIG_HOME", "relative"),
                    ("HOME", "/home/u"),
                ],
                "/home/u/.config/shellgate/trust.toml",
            ),
            (Some(Path::new("rel.toml")), &[], "rel.toml"),
        ];
        for (explicit, vars, expected) in cases {
            let got = resolve_trust_path(explicit, env(vars)).unwrap();
            assert_eq!(got, PathBuf::from(expected), "{explicit:?} {vars:?}");
        }
    }

    #[test]
    fn nothing_set_is_an_error() {
        let err = resolve_trust_path(None, env(&[("HOME", "")])).unwrap_err();
        assert!(matches!(err, StoreError::NoLocation));
        assert_eq!(err.to_string(), "cannot find where the trust file lives");
    }
}
