//! Reading a scenario: TOML or JSON text → overrides → typed `Scenario`, with one-line errors.
//!
//! Both formats go through one document model (`serde_json::Value`) so that `--set` overrides
//! work the same on either, and deserialisation is tracked with `serde_path_to_error` so an error
//! names the field (`link[1].rate`), not just a line number.

use super::schema::Scenario;
use crate::error::{split_nested, InputError};
use crate::transport::tcp::profile;
use serde_json::{Map, Value};

/// Parses TOML text into the document model. `file` names the source in errors.
pub fn parse_toml(text: &str, file: &str) -> Result<Value, InputError> {
    let table: toml::Table = toml::from_str(text).map_err(|e| {
        let position = e.span().map(|span| {
            let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
            format!("line {line}")
        });
        let message = e.message().trim().replace('\n', " ");
        InputError::new(file, position.unwrap_or_default(), format!("not valid TOML: {message}"))
    })?;
    let table = toml::Value::Table(table);
    if let Some(path) = non_finite(&table, String::new()) {
        return Err(InputError::new(file, path, NON_FINITE));
    }
    serde_json::to_value(table).map_err(|e| InputError::new(file, "", format!("unsupported TOML value: {e}")))
}

/// TOML has `nan` and `inf`; the document model (JSON) does not, and would make them null, which
/// an optional key reads as "use the default".
const NON_FINITE: &str = "nan and inf are not allowed; expected a finite number";

/// The path (`link[1].forward.loss`) of the first `nan` or `inf` in `value`.
fn non_finite(value: &toml::Value, path: String) -> Option<String> {
    let join = |key: &str| if path.is_empty() { key.to_string() } else { format!("{path}.{key}") };
    match value {
        toml::Value::Float(x) if !x.is_finite() => Some(path),
        toml::Value::Table(table) => table.iter().find_map(|(key, v)| non_finite(v, join(key))),
        toml::Value::Array(items) => {
            items.iter().enumerate().find_map(|(i, v)| non_finite(v, format!("{path}[{i}]")))
        }
        _ => None,
    }
}

/// Parses JSON text into the document model.
pub fn parse_json(text: &str, file: &str) -> Result<Value, InputError> {
    serde_json::from_str(text)
        .map_err(|e| InputError::new(file, format!("line {}", e.line()), format!("not valid JSON: {e}")))
}

/// Parses an override's value as a TOML value (`20`, `0.5`, `true`, `"x"`, `{ a = 1 }`),
/// falling back to the raw text as a string (`20ms`, `newreno`); `Err` with the message for a
/// value holding `nan` or `inf`.
fn override_value(text: &str) -> Result<Value, String> {
    let text = text.trim();
    let Some(value) =
        toml::from_str::<toml::Table>(&format!("v = {text}")).ok().and_then(|mut t| t.remove("v"))
    else {
        return Ok(Value::String(text.to_string()));
    };
    if let Some(inner) = non_finite(&value, String::new()) {
        let at = if inner.is_empty() { String::new() } else { format!(" (at {inner})") };
        return Err(format!("{NON_FINITE}{at}"));
    }
    Ok(serde_json::to_value(value).unwrap_or_else(|_| Value::String(text.to_string())))
}

/// The most keys an override path may have: the deepest scenario paths have seven
/// (`flow.f.transport.subflows.0.path.1`), so 16 leaves room, and a path of thousands of keys
/// stops before it builds as many nested tables (whose reading would overflow the stack).
const MAX_PATH_SEGMENTS: usize = 16;

/// Applies `path=value`. Path segments are keys; inside an array (`link`, `flow`, `node`) a
/// segment is a 0-based index or the `name` of an element. Missing tables on the way are
/// created; a key that the schema does not know is caught when the document is deserialised.
pub fn apply_override(doc: &mut Value, path: &str, value: &str, file: &str) -> Result<(), InputError> {
    let field = format!("--set {path}");
    let err = |message: String| InputError::new(file, field.clone(), message);
    let segments: Vec<&str> = path.split('.').collect();
    if path.is_empty() || segments.iter().any(|s| s.is_empty()) {
        return Err(err("the path must be keys separated by dots, e.g. link.0.delay".into()));
    }
    if segments.len() > MAX_PATH_SEGMENTS {
        return Err(err(format!(
            "{} keys deep; no scenario key is deeper than {MAX_PATH_SEGMENTS}",
            segments.len()
        )));
    }
    let mut node = doc;
    for (i, segment) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        let here = || segments[..i].join(".");
        node = match node {
            Value::Object(map) => {
                if last {
                    map.insert(segment.to_string(), override_value(value).map_err(err)?);
                    return Ok(());
                }
                map.entry(segment.to_string()).or_insert_with(|| Value::Object(Default::default()))
            }
            Value::Array(items) => {
                let len = items.len();
                let index = match segment.parse::<usize>() {
                    Ok(k) if k < len => k,
                    Ok(k) => {
                        return Err(err(format!(
                            "{} has {len} entries; index {k} does not exist (indexes start at 0)",
                            here()
                        )))
                    }
                    Err(_) => items
                        .iter()
                        .position(|item| item.get("name").and_then(Value::as_str) == Some(segment))
                        .ok_or_else(|| {
                            err(format!(
                                "{} has no entry named \"{segment}\"; use a name or a 0-based index",
                                here()
                            ))
                        })?,
                };
                if last {
                    items[index] = override_value(value).map_err(err)?;
                    return Ok(());
                }
                &mut items[index]
            }
            _ => return Err(err(format!("{} is a value, not a table; it has no key \"{segment}\"", here()))),
        };
    }
    unreachable!("the loop returns at the last segment")
}

/// The key serde complained about in an "unknown field" message.
fn unknown_key(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("unknown field `")?;
    rest.split('`').next()
}

/// Deserialises the document into the schema, after filling each flow's transport keys from its
/// profile ([`profile::fill_in`]).
pub fn deserialize(mut doc: Value, file: &str) -> Result<Scenario, InputError> {
    if let Some(Value::Array(flows)) = doc.get_mut("flow") {
        let mut bundles = profile::Bundles::default();
        for (i, flow) in flows.iter_mut().enumerate() {
            let Some(flow) = flow.as_object_mut() else { continue };
            let transport = flow.entry("transport").or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(table) = transport {
                profile::fill_in_with(table, &mut bundles).map_err(|(key, message)| {
                    InputError::new(file, format!("flow[{i}].transport.{key}"), message)
                })?;
            }
        }
    }
    let scenario: Scenario = deserialize_as(&doc, file)?;
    // serde fills a table from a list of its values in field order; a scenario never means that.
    if let Some(steps) = list_for_table_in(&doc, &scenario) {
        let path = path_text(&steps);
        return Err(InputError::new(file, path, "expected a table ({ key = value, ... }), found a list"));
    }
    Ok(scenario)
}

/// [`list_for_table`] over the whole scenario, serialising only what can hold such a place: the
/// entries of `node`, `link` and `flow` that have a list somewhere (a star of 10⁴ UEs would
/// otherwise be serialised whole, a third of its set-up), and the other tables together.
fn list_for_table_in(doc: &Value, scenario: &Scenario) -> Option<Vec<Step>> {
    fn entries<T: serde::Serialize>(key: &str, doc: &Value, resolved: &[T]) -> Option<Vec<Step>> {
        let Value::Array(given) = doc else { return None };
        given.iter().zip(resolved).enumerate().find_map(|(i, (entry, kept))| {
            if !entry.is_array() && !has_list_below(entry) {
                return None;
            }
            let kept = serde_json::to_value(kept).expect("a scenario always serialises");
            let mut path = list_for_table(entry, &kept)?;
            path.push(Step::Index(i));
            path.push(Step::Key(key.to_string()));
            Some(path)
        })
    }
    let Value::Object(top) = doc else { return None };
    let rest = Scenario {
        simulation: scenario.simulation.clone(),
        metrics: scenario.metrics.clone(),
        nodes: Vec::new(),
        links: Vec::new(),
        flows: Vec::new(),
    };
    let rest = serde_json::to_value(&rest).expect("a scenario always serialises");
    top.iter().find_map(|(key, value)| match key.as_str() {
        "node" => entries(key, value, &scenario.nodes),
        "link" => entries(key, value, &scenario.links),
        "flow" => entries(key, value, &scenario.flows),
        _ => rest.get(key).and_then(|kept| {
            let mut path = list_for_table(value, kept)?;
            path.push(Step::Key(key.clone()));
            Some(path)
        }),
    })
}

/// Whether a list appears anywhere inside `value` (itself excluded).
fn has_list_below(value: &Value) -> bool {
    match value {
        Value::Object(fields) => fields.values().any(|v| v.is_array() || has_list_below(v)),
        Value::Array(items) => items.iter().any(|v| v.is_array() || has_list_below(v)),
        _ => false,
    }
}

/// One step of a field path, innermost first as [`list_for_table`] builds it.
enum Step {
    Key(String),
    Index(usize),
}

/// A path of steps (innermost first) as text: `link[1].forward`.
fn path_text(steps: &[Step]) -> String {
    let mut text = String::new();
    for step in steps.iter().rev() {
        match step {
            Step::Key(key) if text.is_empty() => text.push_str(key),
            Step::Key(key) => {
                text.push('.');
                text.push_str(key);
            }
            Step::Index(i) => text.push_str(&format!("[{i}]")),
        }
    }
    text
}

/// The first place where the document has a list and the scenario it gave has a table, as the
/// steps of its field path, innermost first (the path is built only once found).
fn list_for_table(doc: &Value, resolved: &Value) -> Option<Vec<Step>> {
    match (doc, resolved) {
        (Value::Array(_), Value::Object(_)) => Some(Vec::new()),
        (Value::Object(given), Value::Object(kept)) => given.iter().find_map(|(key, value)| {
            let mut path = kept.get(key).and_then(|r| list_for_table(value, r))?;
            path.push(Step::Key(key.clone()));
            Some(path)
        }),
        (Value::Array(given), Value::Array(kept)) if given.len() == kept.len() => {
            given.iter().zip(kept).enumerate().find_map(|(i, (g, k))| {
                let mut path = list_for_table(g, k)?;
                path.push(Step::Index(i));
                Some(path)
            })
        }
        _ => None,
    }
}

/// Deserialises a document into any configuration type, with the errors of [`deserialize`]:
/// the field's dotted path, unknown keys with the allowed ones.
pub fn deserialize_as<T: serde::de::DeserializeOwned>(doc: &Value, file: &str) -> Result<T, InputError> {
    serde_path_to_error::deserialize::<_, T>(doc).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        let message = e.inner().to_string();
        let (path, message) = match split_nested(&message) {
            Some((inner, message)) => {
                let path = match (path.is_empty(), inner) {
                    (_, ".") => path,
                    (true, inner) => inner.to_string(),
                    (false, inner) => format!("{path}.{inner}"),
                };
                (path, message.to_string())
            }
            None => (path, message),
        };
        match unknown_key(&message) {
            Some(key) => {
                let expected = message.split_once(", expected ").map(|(_, a)| a);
                let allowed: Vec<&str> =
                    expected.map(|a| a.split('`').skip(1).step_by(2).collect()).unwrap_or_default();
                let listed =
                    expected.map(|a| format!("; allowed: {}", a.replace('`', ""))).unwrap_or_default();
                let field = unknown_key_field(doc, &path, key, &allowed);
                InputError::new(file, field, format!("unknown key \"{key}\"{listed}"))
            }
            None => InputError::new(file, path, message),
        }
    })
}

/// The path of an unknown `key` that serde reported at `path`, in a table whose keys are
/// `allowed`. serde_path_to_error already ends the path with the key, except at the top level
/// and inside flattened tables (`flow.transport` flattens the TCP keys), where it stops at the
/// flattening table: then the key is in that table itself or in a table nested in it
/// (`transport.cubic`), the first one that holds the key and mostly allowed keys besides.
fn unknown_key_field(doc: &Value, path: &str, key: &str, allowed: &[&str]) -> String {
    if path == key || path.ends_with(&format!(".{key}")) {
        return path.to_string();
    }
    let join = |path: &str| if path.is_empty() { key.to_string() } else { format!("{path}.{key}") };
    let holds = |value: &Value| {
        value.as_object().is_some_and(|table| {
            let others = table.keys().filter(|k| *k != key);
            let (known, unknown) =
                others.fold(
                    (0, 0),
                    |(a, b), k| {
                        if allowed.contains(&k.as_str()) {
                            (a + 1, b)
                        } else {
                            (a, b + 1)
                        }
                    },
                );
            table.contains_key(key) && known >= unknown
        })
    };
    match value_at(doc, path) {
        Some(table) if !holds(table) => {
            nested_holder(table, path.to_string(), &holds).map_or_else(|| join(path), |at| join(&at))
        }
        _ => join(path),
    }
}

/// The path of the first table under `value` (breadth first) that `holds`.
fn nested_holder(value: &Value, path: String, holds: &dyn Fn(&Value) -> bool) -> Option<String> {
    let mut queue = std::collections::VecDeque::from([(value, path)]);
    while let Some((value, path)) = queue.pop_front() {
        match value {
            Value::Object(table) => {
                for (k, v) in table {
                    let inner = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                    if holds(v) {
                        return Some(inner);
                    }
                    queue.push_back((v, inner));
                }
            }
            Value::Array(items) => {
                queue.extend(items.iter().enumerate().map(|(i, v)| (v, format!("{path}[{i}]"))))
            }
            _ => {}
        }
    }
    None
}

/// The value at a field path as errors write it (`flow[0].transport`).
fn value_at<'a>(doc: &'a Value, path: &str) -> Option<&'a Value> {
    if path.is_empty() {
        return Some(doc);
    }
    path.split('.').try_fold(doc, |value, segment| {
        let (key, indices) = segment.split_once('[').map_or((segment, ""), |(k, rest)| (k, rest));
        let value = if key.is_empty() { value } else { value.get(key)? };
        indices
            .split('[')
            .filter(|s| !s.is_empty())
            .try_fold(value, |value, index| value.get(index.strip_suffix(']')?.parse::<usize>().ok()?))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: &str = "test.toml";

    fn load(text: &str) -> Result<Scenario, InputError> {
        deserialize(parse_toml(text, F)?, F)
    }

    #[test]
    fn nan_and_inf_are_refused_in_files_and_overrides() {
        let e = load("[simulation]\nduration = \"1s\"\n[[node]]\nname = \"a\"\nx = { y = [1.0, nan] }\n")
            .unwrap_err();
        assert_eq!((e.field.as_str(), e.message.as_str()), ("node[0].x.y[1]", NON_FINITE));
        let mut doc = parse_toml("[[link]]\nname = \"l\"\n", "f.toml").unwrap();
        for value in ["nan", "-inf", "{ loss = inf }"] {
            let e = apply_override(&mut doc, "link.l.forward", value, "f.toml").unwrap_err();
            assert!(e.field == "--set link.l.forward" && e.message.starts_with(NON_FINITE), "{e}");
        }
        apply_override(&mut doc, "link.l.forward", "{ loss = 0.5 }", "f.toml").unwrap();
    }

    #[test]
    fn an_override_path_of_thousands_of_keys_is_refused_before_it_builds_anything() {
        let mut doc = parse_toml("", "f.toml").unwrap();
        let path = "a.".repeat(5000) + "b";
        let e = apply_override(&mut doc, &path, "1", "f.toml").unwrap_err();
        assert!(e.message.contains("5001 keys deep"), "{e}");
        assert_eq!(doc, Value::Object(Map::new()), "nothing was created");
        apply_override(&mut doc, &("a.".repeat(15) + "b"), "1", "f.toml").unwrap();
    }

    #[test]
    fn a_list_where_a_table_belongs_is_refused() {
        let base = "[[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Gbps\"\n";
        let e = load(&format!("{base}forward = [0.5, 0.5, 0.5]\n")).unwrap_err();
        assert_eq!((e.field.as_str(), e.message.contains("found a list")), ("link[0].forward", true), "{e}");
        let e = load(&format!("simulation = []\n{base}")).unwrap_err();
        assert_eq!(e.field, "simulation", "{e}");
        assert!(load(base).is_ok(), "lists where lists belong (between) stay accepted");
    }

    #[test]
    fn empty_scenario_takes_every_default() {
        let s = load("").unwrap();
        assert_eq!(s, Scenario::default());
    }

    #[test]
    fn unknown_key_names_the_field_and_the_allowed_keys() {
        let e = load("[[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Gbps\"\nbogus = 1\n").unwrap_err();
        assert_eq!(e.field, "link[0].bogus");
        assert!(e.message.contains("unknown key \"bogus\""), "{}", e.message);
        assert!(e.message.contains("between"), "lists allowed keys: {}", e.message);
        let top = load("colour = 1").unwrap_err();
        assert_eq!(top.field, "colour");
    }

    #[test]
    fn unknown_key_in_a_table_nested_in_a_flattened_one_names_that_table() {
        // transport flattens the TCP keys; cubic is a table among them.
        let flow = "[[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n[[link]]\nbetween = [\"a\", \"b\"]\n[[flow]]\nfrom = \"a\"\nto = \"b\"\n";
        let e = load(&format!("{flow}transport = {{ cubic = {{ nonsense = 1 }} }}")).unwrap_err();
        assert_eq!(e.field, "flow[0].transport.cubic.nonsense", "{e}");
        assert!(e.message.contains("beta"), "lists cubic's keys: {e}");
        let e = load(&format!("{flow}transport = {{ nonsense = 1, cubic = {{ beta = 0.5 }} }}")).unwrap_err();
        assert_eq!(e.field, "flow[0].transport.nonsense", "{e}");
        // A key valid at the transport level but not inside cubic is placed inside cubic.
        let e = load(&format!("{flow}transport = {{ cubic = {{ mss = 1 }} }}")).unwrap_err();
        assert_eq!(e.field, "flow[0].transport.cubic.mss", "{e}");
    }

    #[test]
    fn field_paths_lead_to_their_values() {
        let doc: Value =
            serde_json::json!({"flow": [{"transport": {"cubic": {"beta": 0.5}}}], "m": [[1, 2]]});
        assert_eq!(value_at(&doc, "flow[0].transport.cubic.beta"), Some(&serde_json::json!(0.5)));
        assert_eq!(value_at(&doc, "m[0][1]"), Some(&serde_json::json!(2)));
        assert_eq!(value_at(&doc, ""), Some(&doc));
        assert_eq!(value_at(&doc, "flow[1]"), None);
        assert_eq!(value_at(&doc, "flow[x]"), None);
    }

    #[test]
    fn bad_quantity_names_its_path() {
        let e = load("[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"-5Gbps\"\n").unwrap_err();
        assert_eq!(e.field, "link[0].rate");
        assert!(e.message.contains("\"-5Gbps\" is not a rate"), "{}", e.message);
        assert_eq!(e.to_string().lines().count(), 1);
    }

    #[test]
    fn toml_syntax_error_gives_the_line() {
        let e = load("[simulation]\nduration = \n").unwrap_err();
        assert_eq!(e.field, "line 2");
        assert!(e.message.starts_with("not valid TOML"));
        assert_eq!(e.to_string().lines().count(), 1);
    }

    #[test]
    fn overrides_by_index_and_by_name() {
        let mut doc = parse_toml("[[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\n", F).unwrap();
        apply_override(&mut doc, "flow.0.start", "2s", F).unwrap();
        apply_override(&mut doc, "flow.f.transport.cc", "newreno", F).unwrap();
        apply_override(&mut doc, "simulation.seed", "7", F).unwrap();
        let s = deserialize(doc, F).unwrap();
        assert_eq!(s.flows[0].start.to_string(), "2s");
        assert_eq!(s.flows[0].transport.tcp.cc, crate::transport::cc::CcKind::NewReno);
        assert_eq!(s.simulation.seed, 7);
    }

    #[test]
    fn override_errors_are_one_line_and_name_the_path() {
        let mut doc = parse_toml("[[flow]]\nfrom = \"a\"\nto = \"b\"\n", F).unwrap();
        let e = apply_override(&mut doc, "flow.3.start", "1s", F).unwrap_err();
        assert_eq!(e.field, "--set flow.3.start");
        assert!(e.message.contains("index 3 does not exist"));
        let e = apply_override(&mut doc, "flow.x.start", "1s", F).unwrap_err();
        assert!(e.message.contains("no entry named \"x\""));
        let e = apply_override(&mut doc, "flow..start", "1s", F).unwrap_err();
        assert!(e.message.contains("separated by dots"));
        // A key the schema does not know is reported when deserialising.
        apply_override(&mut doc, "flow.0.colour", "red", F).unwrap();
        assert_eq!(deserialize(doc, F).unwrap_err().field, "flow[0].colour");
    }

    #[test]
    fn override_values_are_typed() {
        assert_eq!(override_value("20"), Ok(Value::from(20)));
        assert_eq!(override_value("true"), Ok(Value::from(true)));
        assert_eq!(override_value("20ms"), Ok(Value::from("20ms")));
        assert_eq!(override_value("\"quoted\""), Ok(Value::from("quoted")));
    }
}
