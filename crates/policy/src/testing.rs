//! Test helpers shared by the unit tests of this crate.

use std::path::PathBuf;

use shellgate_rules::Policy;

use crate::evaluator::GateEvaluator;
use crate::trust::TrustState;

/// The embedded default policy's gate, and the `personal` state of a command run in the project
/// `/home/u/proj` by home `/home/u`, symbolic links not resolved.
pub(crate) fn default_gate_and_state() -> (GateEvaluator, TrustState) {
    let gate = GateEvaluator::new(Policy::embedded_default().unwrap());
    let state = crate::examples::example_state(&gate, "personal").unwrap();
    (gate, state)
}

/// A new directory with the subdirectories `dirs`, by its canonical path (so symbolic links
/// into it resolve to paths below that one), and the guard that removes it.
pub(crate) fn temp_tree(dirs: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for sub in dirs {
        std::fs::create_dir_all(root.join(sub)).unwrap();
    }
    (dir, root)
}
