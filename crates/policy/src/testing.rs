//! Test helpers shared by the unit tests of this crate.

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
