//! `shellgate install claude-code|codex|gemini [--file PATH] [--uninstall] [--dry-run]`: merge
//! the hook into the agent's settings file, or take it out.
//!
//! The file is read whole, edited as JSON (every other key and hook kept, in order; see
//! [`shellgate::install`]), and — only when something changed — the old file is copied to a
//! backup and the new text written atomically (temporary file, `sync_all`, rename). The change
//! is printed as a unified diff. A file that is not JSON, or whose `hooks` are not laid out as
//! the agent reads them, is left alone (exit 1).

use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use shellgate::hook::shell_quote;
use shellgate::install;

use super::Exit;
use super::output::{errln, out, outln};
use super::program;

/// Put the shellgate hook into an agent's settings file (or take it out).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The agent: `claude-code`, `codex` or `gemini`.
    #[arg(value_name = "AGENT", value_parser = ["claude-code", "codex", "gemini"])]
    agent: String,
    /// The settings file (default: the agent's user-level file: `~/.claude/settings.json`,
    /// `~/.codex/hooks.json` or `~/.gemini/settings.json`).
    #[arg(long, value_name = "PATH")]
    file: Option<PathBuf>,
    /// Remove shellgate's hook instead (every other hook stays).
    #[arg(long)]
    uninstall: bool,
    /// Print the change without writing anything.
    #[arg(long)]
    dry_run: bool,
    /// The shellgate program the hook runs (default: `shellgate` when that is this program on
    /// `PATH`, else this program's absolute path).
    #[arg(long, value_name = "PATH")]
    program: Option<PathBuf>,
}

/// Runs `shellgate install`.
pub fn run(args: &Args) -> Exit {
    let agent = program::agent_named(&args.agent);
    let path = match &args.file {
        Some(file) => file.clone(),
        None => match shellgate_store::home_dir() {
            Some(home) => install::user_settings_path(agent, &home, program::env_path),
            None => {
                errln!("error: no home directory (set HOME, or name the file with --file)");
                return Exit::Error;
            }
        },
    };
    // A settings file that is a symbolic link (a dotfiles checkout) is edited where it points.
    let path = fs::canonicalize(&path).unwrap_or(path);
    let shown = path.display();
    let old = match fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => {
            errln!("error: cannot read `{shown}`: {e}");
            return Exit::Error;
        }
    };
    let edited = install::parse_settings(old.as_deref().unwrap_or_default()).and_then(|settings| {
        if args.uninstall {
            install::uninstall(agent, settings)
        } else {
            let program = match &args.program {
                Some(program) => shell_quote(&program.display().to_string()),
                None => program::hook_program(),
            };
            install::install(agent, settings, &install::hook_command(&program, agent))
        }
    });
    let edit = match edited {
        Ok(edit) => edit,
        Err(e) => {
            errln!("error: `{shown}`: {e}");
            errln!(
                "  help: fix the file by hand, or name another one with --file; nothing was written"
            );
            return Exit::Error;
        }
    };
    if !edit.changed {
        if args.uninstall {
            outln!("no shellgate hook for {agent} in `{shown}`; nothing changed");
        } else {
            outln!(
                "the {agent} hook is already in `{shown}` (`{}`); nothing changed",
                edit.found.join("`, `")
            );
        }
        return Exit::Ok;
    }
    let new = install::render_settings(&edit.settings);
    let verb = match (args.uninstall, args.dry_run) {
        (false, false) => "installed the",
        (false, true) => "would install the",
        (true, false) => "removed the",
        (true, true) => "would remove the",
    };
    outln!(
        "{verb} {agent} hook {} `{shown}`",
        if args.uninstall { "from" } else { "in" }
    );
    out!("{}", diff(&path, old.as_deref().unwrap_or_default(), &new));
    if args.dry_run {
        outln!("dry run: nothing was written");
        return Exit::Ok;
    }
    match write(&path, old.is_some(), &new) {
        Ok(Some(backup)) => {
            outln!("backup of the old file: `{}`", backup.display());
            Exit::Ok
        }
        Ok(None) => Exit::Ok,
        Err(e) => {
            errln!("error: cannot write `{shown}`: {e}");
            Exit::Error
        }
    }
}

/// The change as a unified diff.
fn diff(path: &Path, old: &str, new: &str) -> String {
    let name = path.display().to_string();
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&name, &name)
        .to_string()
}

/// Copies the old file to a backup (when there is one) and writes `new` atomically, keeping
/// the old file's permissions (a new file is readable by its owner only: settings may hold
/// secrets). Returns the backup's path.
fn write(path: &Path, existed: bool, new: &str) -> io::Result<Option<PathBuf>> {
    let mode = match fs::metadata(path) {
        Ok(meta) => meta.permissions().mode() & 0o7777,
        Err(_) => 0o600,
    };
    let backup = if existed {
        let (backup, mut file) = create_backup(path, mode)?;
        io::copy(&mut fs::File::open(path)?, &mut file)?;
        file.sync_all()?;
        Some(backup)
    } else {
        if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            fs::create_dir_all(dir)?;
        }
        None
    };
    shellgate_store::replace_file(path, new.as_bytes(), mode)?;
    Ok(backup)
}

/// Creates `FILE.shellgate-backup`, else `FILE.shellgate-backup.N` for the first free N, with
/// `mode`: an earlier backup is never overwritten, and a name that is taken in any way — a
/// symbolic link included, even one pointing nowhere (a repository can commit
/// `settings.json.shellgate-backup -> ../../.bash_profile`) — is skipped, never followed.
fn create_backup(path: &Path, mode: u32) -> io::Result<(PathBuf, fs::File)> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut name = path.as_os_str().to_owned();
    name.push(".shellgate-backup");
    let candidates = std::iter::once(PathBuf::from(&name)).chain((1..10_000_u32).map(|n| {
        let mut numbered = name.clone();
        numbered.push(format!(".{n}"));
        PathBuf::from(numbered)
    }));
    for candidate in candidates {
        // `create_new` is O_CREAT|O_EXCL: it fails on any existing name, links included.
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&candidate)
        {
            Ok(file) => return Ok((candidate, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("too many backups; remove some"))
}
