//! Errors a user can cause: bad scenario files, bad traces, out-of-range parameters.
//!
//! Every error renders as one line that names the file, the field and what is allowed, e.g.
//! `scenarios/demo.toml: link[1].rate: "-5Gbps" is not a rate; expected a non-negative number with a unit (bps, kbps, Mbps, Gbps, Tbps), e.g. "10Gbps"`.
//! Internal invariants are not errors of this kind: they are bugs, and panic.

use std::fmt;
use std::path::Path;

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

/// The most characters of a message or a field an error keeps: an error quotes what it refuses,
/// and what it refuses may be a 280 KB value or a whole trace line.
const MAX_ERROR_PART: usize = 400;

/// `text`, cut to [`MAX_ERROR_PART`] characters with the number left out said.
fn bounded(text: String) -> String {
    let Some((cut, _)) = text.char_indices().nth(MAX_ERROR_PART) else { return text };
    let left = text[cut..].chars().count();
    format!("{}… ({left} more characters)", &text[..cut])
}

impl InputError {
    pub fn new(file: impl Into<String>, field: impl Into<String>, message: impl Into<String>) -> Self {
        InputError { file: file.into(), field: bounded(field.into()), message: bounded(message.into()) }
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

/// Where a configuration table came from (file and field), for error messages and for resolving
/// the relative paths it holds (trace files).
#[derive(Clone, Copy, Debug)]
pub struct InputContext<'a> {
    /// The scenario file (`<string>` for in-memory scenarios).
    pub scenario_file: &'a str,
    /// Dotted path of the table in that file, e.g. `link[1].channel`.
    pub field: &'a str,
    /// Directory that relative trace paths are resolved against (the scenario file's directory).
    pub base_dir: &'a Path,
}

impl InputContext<'_> {
    /// The dotted path of key `name` inside the table.
    pub fn path_of(&self, name: &str) -> String {
        if self.field.is_empty() {
            name.to_string()
        } else {
            format!("{}.{}", self.field, name)
        }
    }

    /// An error about key `name` of the table.
    pub fn error(&self, name: &str, message: impl Into<String>) -> InputError {
        InputError::new(self.scenario_file, self.path_of(name), message)
    }
}

/// Marks an error message from a table deserialised on its own ([`nested`]): `NESTED`, the path
/// inside the table, `NESTED` again, the message.
const NESTED: char = '\u{1}';

/// Deserialises `table` as `T` on its own, for a configuration chosen by a key (e.g. `kind`)
/// whose variants an internally tagged serde enum would read without tracking their keys' paths.
/// The error carries the path inside the table, which [`split_nested`] recovers.
pub fn nested<T: serde::de::DeserializeOwned>(table: serde_json::Value) -> Result<T, String> {
    serde_path_to_error::deserialize::<_, T>(table)
        .map_err(|e| nested_error(&e.path().to_string(), e.inner()))
}

/// An error at `path` inside a table deserialised on its own (see [`nested`]).
pub fn nested_error(path: &str, message: impl fmt::Display) -> String {
    format!("{NESTED}{path}{NESTED}{message}")
}

/// The path inside the table and the message of an error made by [`nested_error`]; `None` for
/// any other message.
pub fn split_nested(message: &str) -> Option<(&str, &str)> {
    message.strip_prefix(NESTED)?.split_once(NESTED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_messages_and_fields_are_cut_and_say_how_much() {
        let e =
            InputError::new("f.toml", "k".repeat(500), format!("\"{}\" is not a rate", "x".repeat(280_000)));
        assert!(e.to_string().len() < 1000, "{}", e.to_string().len());
        assert!(e.message.ends_with("(279616 more characters)"), "{}", &e.message[380..]);
        assert!(e.field.ends_with("(100 more characters)"));
        assert_eq!(InputError::new("f", "a", "short").message, "short");
    }
}
