//! Files that make a program run code the command brings: a toolchain's build files
//! (`settings.toolchain_code`), a repository program's configuration
//! (`settings.repository_programs`, `settings.repository_config`), and the modules an
//! interpreter imports from its working directory first (`[[interpreter]]` `imports_cwd`).

use std::path::{Path, PathBuf};

use shellgate_rules::Policy;

use crate::display;
use crate::paths;

use super::verdict::Judged;

/// Why `judged` runs code this command brings through a file it writes (`known`: the paths it
/// writes, content included), one reason per kind of file.
pub(super) fn brought_by_files(judged: &Judged, known: &[PathBuf], policy: &Policy) -> Vec<String> {
    let named = |w: &Path, is: &dyn Fn(&str) -> bool| {
        w.file_name().and_then(|n| n.to_str()).is_some_and(is)
    };
    // A configuration file applies in its directory and below it (`.npmrc` and `conftest.py`
    // of a parent directory, a bare repository's `config` above `git -C repo/refs`); one in a
    // hidden directory applies from that directory's parent (`.cargo/config.toml` above
    // `crates/a`, `.mvn/jvm.config`).
    let applies_in = |w: &Path, dir: &Path| {
        w.parent().is_some_and(|p| {
            let hidden = p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with('.'));
            paths::is_within(dir, p)
                || (hidden && p.parent().is_some_and(|up| paths::is_within(dir, up)))
        })
    };
    let mut why = Vec::new();
    // A toolchain runs the build files, tests and configuration below its working directory:
    // one this command writes, or the whole directory written by it (cloned, copied).
    if let Some(w) = judged.runs_below.as_ref().and_then(|dir| {
        known.iter().find(|w| {
            paths::is_within(dir, w)
                || ((paths::is_within(w, dir) || applies_in(w, dir))
                    && named(w, &|n| {
                        policy.is_toolchain_code(n) || policy.is_hook_file(n)
                    }))
        })
    }) {
        why.push(format!(
            "runs the project's build files, tests or configuration, and this command writes `{}`: code it brings, which the gate cannot read",
            display::escape(&w.to_string_lossy())
        ));
    }
    // A repository the command copied or made, or whose configuration it wrote, names the
    // programs git runs (`core.fsmonitor`, `core.sshCommand`) or where npm sends its token.
    if let Some(w) = judged.repository.as_ref().and_then(|dir| {
        known.iter().find(|w| {
            paths::is_within(dir, w)
                || (applies_in(w, dir) && named(w, &|n| policy.is_repository_config(n)))
                // (A hook anywhere below: `core.hooksPath` may name any directory.)
                || ((paths::is_within(w, dir) || applies_in(w, dir))
                    && named(w, &|n| policy.is_hook_file(n)))
        })
    }) {
        why.push(format!(
            "runs in a repository whose configuration this command writes (`{}`): it can name programs that run or a host that receives credentials",
            display::escape(&w.to_string_lossy())
        ));
    }
    // `python3 -c`/`-m` imports from its working directory first: a module written there
    // (`argparse.py`, a compiled `.pyc` or `.so`, `json/__init__.py`, a copied package, or the
    // directory written as a whole: `cp /tmp/argparse.py .`) shadows the library.
    let module = |w: &Path| {
        w.extension()
            .is_none_or(|e| e == "py" || e == "pyc" || e == "so")
    };
    // (What the interpreter writes itself, it writes after its imports: `python3 -m venv venv`.)
    let own: std::collections::HashSet<&PathBuf> = judged.own_writes.iter().collect();
    if let Some(w) = judged.imports_from.iter().find_map(|dir| {
        known.iter().filter(|w| !own.contains(w)).find(|w| {
            let parent = w.parent();
            paths::is_within(dir, w)
                || (parent == Some(dir.as_path()) && module(w))
                || (named(w, &|n| n == "__init__.py")
                    && parent.and_then(Path::parent) == Some(dir.as_path()))
        })
    }) {
        why.push(format!(
            "imports modules first from a directory where this command writes `{}`: code it brings, which the gate cannot read",
            display::escape(&w.to_string_lossy())
        ));
    }
    why
}
