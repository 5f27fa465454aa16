//! Errors a user can cause: bad scenario files, bad traces, out-of-range parameters.
//!
//! Every error renders as one line that names the file, the field and what is allowed, e.g.
//! `scenarios/demo.toml: link[1].rate: "-5Gbps" is not a rate; expected a non-negative number with a unit (bps, kbps, Mbps, Gbps, Tbps), e.g. "10Gbps"`.
//! Internal invariants are not errors of this kind: they are bugs, and panic.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    /// File the input came from (`<string>` for in-memory scenarios).
    pub file: String,
    /// Dotted path of the offending field (`link[1].channel.los_rate`), or `line N` in a trace;
    /// empty when the problem is with the file as a whole.
    pub field: String,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl InputError {
    pub fn new(file: impl Into<String>, field: impl Into<String>, message: impl Into<String>) -> Self {
        InputError { file: file.into(), field: field.into(), message: message.into() }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One line, whatever the message held.
        let message = self.message.replace('\n', " ");
        if self.field.is_empty() {
            write!(f, "{}: {}", self.file, message)
        } else {
            write!(f, "{}: {}: {}", self.file, self.field, message)
        }
    }
}

impl std::error::Error for InputError {}
