//! What the project's toolchain builds in a command (`g++ -o app main.cpp`, `make`): its
//! outputs — the files it names and anything below its working directory — are the project's
//! code, unless what it built from is not: a source this command writes (`cat > main.cpp <<EOF
//! … EOF; g++ -o app main.cpp; ./app`), anything the command writes below the build's working
//! directory (a header, a `go` file), a source outside the run zones (`g++ -o app /tmp/x.c`), or
//! one not known statically. Then its outputs count as written by the command: code it brings
//! (see [`Run::judge_written_code`]).

use std::path::{Path, PathBuf};

use crate::paths;

use super::run::Run;

/// One toolchain clause's inputs and outputs.
#[derive(Debug, Default)]
pub(super) struct Build {
    /// The index of the invocation that builds.
    owner: usize,
    /// Its working directory: what the command writes below it may be a source.
    dir: Option<PathBuf>,
    /// The paths it reads.
    inputs: Vec<PathBuf>,
    /// Its working directory and the paths it writes through its operands and option values.
    outputs: Vec<PathBuf>,
    /// It reads a path not known statically.
    unknown_input: bool,
}

impl Run<'_> {
    /// Starts recording a toolchain clause that runs in `cwd`.
    pub(super) fn start_build(&self, cwd: Option<&Path>) {
        let dir = cwd.map(Path::to_path_buf);
        let build = Build {
            owner: self.judged.len(),
            outputs: dir.iter().cloned().collect(),
            dir,
            inputs: Vec::new(),
            unknown_input: cwd.is_none(),
        };
        if let Ok(mut building) = self.building.try_borrow_mut() {
            *building = Some(build);
        }
    }

    /// Ends the toolchain clause being recorded, if any.
    pub(super) fn finish_build(&self) {
        let build = self
            .building
            .try_borrow_mut()
            .ok()
            .and_then(|mut b| b.take());
        if let (Some(build), Ok(mut builds)) = (build, self.builds.try_borrow_mut()) {
            builds.push(build);
        }
    }

    /// Records a write of the toolchain clause being recorded; false when none is.
    pub(super) fn record_build_output(&self, path: &Path) -> bool {
        self.with_build(|build| build.outputs.push(path.to_path_buf()))
    }

    /// Records a read of the toolchain clause being recorded (`None`: not known statically).
    pub(super) fn record_build_input(&self, path: Option<&Path>) {
        self.with_build(|build| match path {
            Some(path) => build.inputs.push(path.to_path_buf()),
            None => build.unknown_input = true,
        });
    }

    fn with_build(&self, f: impl FnOnce(&mut Build)) -> bool {
        match self.building.try_borrow_mut() {
            Ok(mut building) => building.as_mut().map(f).is_some(),
            Err(_) => false,
        }
    }

    /// Adds to `written` the outputs of every build whose inputs are not all the project's
    /// own, until no more are added (one build's output may be another's source); returns
    /// them with the index of the invocation that builds them.
    pub(super) fn add_brought_builds(&self, written: &mut Vec<PathBuf>) -> Vec<(usize, PathBuf)> {
        let mut builds = self.builds.take();
        let mut outputs = Vec::new();
        loop {
            let touched = |path: &PathBuf| {
                written
                    .iter()
                    .any(|w| paths::is_within(w, path) || paths::is_within(path, w))
            };
            // (A build outside the run zones asks by itself; its directory is not a source.)
            let (brought, kept): (Vec<Build>, Vec<Build>) = builds.into_iter().partition(|build| {
                build.unknown_input
                    || build.dir.as_ref().is_some_and(touched)
                    || build
                        .inputs
                        .iter()
                        .any(|input| self.state.run_zone_for(input).is_none() || touched(input))
            });
            if brought.is_empty() {
                return outputs;
            }
            for build in brought {
                written.extend(build.outputs.iter().cloned());
                outputs.extend(build.outputs.into_iter().map(|p| (build.owner, p)));
            }
            builds = kept;
        }
    }
}
