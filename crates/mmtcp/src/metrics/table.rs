//! Column tables: what a run writes per entity (flows, subflows, link directions, processors) —
//! their summaries and their long-form time series — as typed columns that cross into Python as
//! numpy arrays and become parquet files without one Python object per value.
//!
//! A column's values are one typed vector (`f64`, `u64`, `i64`, `bool`, or text as a dictionary of
//! distinct strings and one code per row); rows where a column does not apply are null, marked
//! in an optional validity vector (a `false` row is null, as Arrow's validity bitmap has it).
//!
//! [`FlatRows`] builds a table from nested JSON values (one per row), flattening objects into
//! dotted column names (`rtt_ms.p99`) in the order fields first appear.

use serde_json::{Map, Value};

/// A column's values.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    F64(Vec<f64>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    Bool(Vec<bool>),
    /// Text: `codes[i]` indexes `dictionary`.
    Text {
        dictionary: Vec<String>,
        codes: Vec<u32>,
    },
}

impl Values {
    pub fn len(&self) -> usize {
        match self {
            Values::F64(v) => v.len(),
            Values::U64(v) => v.len(),
            Values::I64(v) => v.len(),
            Values::Bool(v) => v.len(),
            Values::Text { codes, .. } => codes.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One named column; `valid[i] == false` marks row `i` null (`None`: no null).
#[derive(Clone, Debug, PartialEq)]
pub struct TableColumn {
    pub name: String,
    pub values: Values,
    pub valid: Option<Vec<bool>>,
}

impl TableColumn {
    pub fn new(name: impl Into<String>, values: Values) -> Self {
        TableColumn { name: name.into(), values, valid: None }
    }

    /// `values` with the rows where `valid` is false null; a validity with no false is dropped.
    pub fn with_validity(name: impl Into<String>, values: Values, valid: Vec<bool>) -> Self {
        debug_assert_eq!(values.len(), valid.len(), "one validity per row");
        let valid = valid.iter().any(|v| !v).then_some(valid);
        TableColumn { name: name.into(), values, valid }
    }

    /// Whether row `i` holds a value.
    pub fn is_valid(&self, i: usize) -> bool {
        self.valid.as_ref().is_none_or(|v| v[i])
    }
}

/// A named table: columns of equal length.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub name: String,
    pub rows: usize,
    pub columns: Vec<TableColumn>,
}

impl Table {
    pub fn new(name: impl Into<String>, rows: usize, columns: Vec<TableColumn>) -> Self {
        for c in &columns {
            assert_eq!(c.values.len(), rows, "column {} has {} rows, not {rows}", c.name, c.values.len());
        }
        Table { name: name.into(), rows, columns }
    }

    pub fn column(&self, name: &str) -> Option<&TableColumn> {
        self.columns.iter().find(|c| c.name == name)
    }
}

/// Text values coded against a dictionary of the distinct strings, in first-seen order.
#[derive(Debug, Default)]
pub struct TextCoder {
    dictionary: Vec<String>,
    index: std::collections::HashMap<String, u32>,
}

impl TextCoder {
    /// The code of `text`, added to the dictionary if new.
    pub fn code(&mut self, text: &str) -> u32 {
        if let Some(&c) = self.index.get(text) {
            return c;
        }
        let c = self.dictionary.len() as u32;
        self.dictionary.push(text.to_string());
        self.index.insert(text.to_string(), c);
        c
    }

    pub fn into_dictionary(self) -> Vec<String> {
        self.dictionary
    }
}

/// One value of a flattened row.
#[derive(Clone, Debug)]
enum Cell {
    U64(u64),
    I64(i64),
    F64(f64),
    Bool(bool),
    Text(String),
}

/// Rows of nested JSON objects flattened into a table: an object's fields become columns named
/// by their dotted path (`rtt_ms.p50`), a list of strings one text column (joined by `→`), and
/// a field missing or null in a row is null there. Columns keep the order in which their fields
/// first appear; a column of integers that meets a fraction becomes `f64`.
#[derive(Debug, Default)]
pub struct FlatRows {
    names: Vec<String>,
    index: std::collections::HashMap<String, usize>,
    cells: Vec<Vec<Option<Cell>>>,
    rows: usize,
}

impl FlatRows {
    /// Appends a row: `value`'s fields, leaving out those named in `skip` (top-level names).
    pub fn push(&mut self, value: &Map<String, Value>, skip: &[&str]) {
        let mut path = String::new();
        for (key, v) in value {
            if skip.contains(&key.as_str()) {
                continue;
            }
            path.clear();
            path.push_str(key);
            self.flatten(&mut path, v);
        }
        self.rows += 1;
        for column in &mut self.cells {
            column.resize(self.rows, None);
        }
    }

    fn flatten(&mut self, path: &mut String, value: &Value) {
        let cell = match value {
            Value::Null => None,
            Value::Bool(b) => Some(Cell::Bool(*b)),
            Value::Number(n) => Some(if let Some(u) = n.as_u64() {
                Cell::U64(u)
            } else if let Some(i) = n.as_i64() {
                Cell::I64(i)
            } else {
                Cell::F64(n.as_f64().unwrap_or(f64::NAN))
            }),
            Value::String(s) => Some(Cell::Text(s.clone())),
            Value::Array(items) => Some(Cell::Text(
                items
                    .iter()
                    .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
                    .collect::<Vec<_>>()
                    .join("→"),
            )),
            Value::Object(fields) => {
                let len = path.len();
                for (key, v) in fields {
                    path.truncate(len);
                    path.push('.');
                    path.push_str(key);
                    self.flatten(path, v);
                }
                path.truncate(len);
                return;
            }
        };
        let column = match self.index.get(path.as_str()) {
            Some(&c) => c,
            None => {
                self.index.insert(path.clone(), self.names.len());
                self.names.push(path.clone());
                self.cells.push(vec![None; self.rows]);
                self.names.len() - 1
            }
        };
        self.cells[column].push(cell);
    }

    /// The table, named `name`, with `keys` (columns built by the caller, one value per row) first.
    pub fn into_table(self, name: &str, keys: Vec<TableColumn>) -> Table {
        let rows = self.rows;
        let mut columns = keys;
        for (name, cells) in self.names.into_iter().zip(self.cells) {
            columns.push(typed_column(name, cells));
        }
        Table::new(name, rows, columns)
    }
}

/// A column of cells as one typed vector: the type of its values (integers that meet a fraction
/// become `f64`, signed and unsigned integers `i64`; text with anything else, text).
fn typed_column(name: String, cells: Vec<Option<Cell>>) -> TableColumn {
    let valid: Vec<bool> = cells.iter().map(Option::is_some).collect();
    let kinds = |f: fn(&Cell) -> bool| cells.iter().flatten().all(f);
    let values = if kinds(|c| matches!(c, Cell::Bool(_))) && cells.iter().any(Option::is_some) {
        Values::Bool(cells.iter().map(|c| matches!(c, Some(Cell::Bool(true)))).collect())
    } else if kinds(|c| matches!(c, Cell::U64(_))) {
        Values::U64(cells.iter().map(|c| if let Some(Cell::U64(u)) = c { *u } else { 0 }).collect())
    } else if kinds(|c| matches!(c, Cell::U64(_) | Cell::I64(_))) {
        let int = |c: &Option<Cell>| match c {
            Some(Cell::U64(u)) => i64::try_from(*u).unwrap_or(i64::MAX),
            Some(Cell::I64(i)) => *i,
            _ => 0,
        };
        Values::I64(cells.iter().map(int).collect())
    } else if kinds(|c| matches!(c, Cell::U64(_) | Cell::I64(_) | Cell::F64(_))) {
        let float = |c: &Option<Cell>| match c {
            Some(Cell::U64(u)) => *u as f64,
            Some(Cell::I64(i)) => *i as f64,
            Some(Cell::F64(f)) => *f,
            _ => f64::NAN,
        };
        Values::F64(cells.iter().map(float).collect())
    } else {
        let mut coder = TextCoder::default();
        let codes = cells
            .iter()
            .map(|c| match c {
                Some(Cell::Text(s)) => coder.code(s),
                Some(Cell::U64(u)) => coder.code(&u.to_string()),
                Some(Cell::I64(i)) => coder.code(&i.to_string()),
                Some(Cell::F64(f)) => coder.code(&f.to_string()),
                Some(Cell::Bool(b)) => coder.code(&b.to_string()),
                None => coder.code(""),
            })
            .collect();
        Values::Text { dictionary: coder.into_dictionary(), codes }
    };
    TableColumn::with_validity(name, values, valid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn nested_fields_become_dotted_columns_in_first_seen_order() {
        let mut rows = FlatRows::default();
        rows.push(&object(json!({"name": "a", "rtt": {"p50": 1.5, "n": 3}, "skip": 1})), &["skip"]);
        rows.push(&object(json!({"name": "b", "rtt": {"p50": null, "n": 4}, "extra": true})), &["skip"]);
        let t = rows.into_table("t", Vec::new());
        let names: Vec<&str> = t.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["name", "rtt.p50", "rtt.n", "extra"]);
        assert_eq!(t.rows, 2);
        let name = t.column("name").unwrap();
        assert_eq!(name.values, Values::Text { dictionary: vec!["a".into(), "b".into()], codes: vec![0, 1] });
        assert_eq!(name.valid, None);
        let p50 = t.column("rtt.p50").unwrap();
        assert!(p50.is_valid(0) && !p50.is_valid(1));
        assert!(matches!(&p50.values, Values::F64(v) if v[0] == 1.5));
        assert_eq!(t.column("rtt.n").unwrap().values, Values::U64(vec![3, 4]));
        let extra = t.column("extra").unwrap();
        assert_eq!(extra.values, Values::Bool(vec![false, true]));
        assert!(!extra.is_valid(0) && extra.is_valid(1), "a field missing from a row is null there");
    }

    #[test]
    fn integers_that_meet_a_fraction_become_floats_and_lists_join() {
        let mut rows = FlatRows::default();
        rows.push(&object(json!({"x": 3, "path": ["s", "gw", "d"]})), &[]);
        rows.push(&object(json!({"x": 2.5, "path": ["s", "d"]})), &[]);
        rows.push(&object(json!({"x": -1})), &[]);
        let t = rows.into_table("t", Vec::new());
        assert_eq!(t.column("x").unwrap().values, Values::F64(vec![3.0, 2.5, -1.0]));
        let path = t.column("path").unwrap();
        assert!(matches!(&path.values, Values::Text { dictionary, codes }
            if dictionary[codes[0] as usize] == "s→gw→d" && dictionary[codes[1] as usize] == "s→d"));
        assert!(!path.is_valid(2));
    }

    #[test]
    fn a_column_with_no_value_at_all_is_all_null() {
        let mut rows = FlatRows::default();
        rows.push(&object(json!({"c": null})), &[]);
        let t = rows.into_table("t", Vec::new());
        let c = t.column("c").unwrap();
        assert!(!c.is_valid(0));
    }

    #[test]
    #[should_panic(expected = "column k has 1 rows, not 2")]
    fn columns_of_another_length_are_refused() {
        Table::new("t", 2, vec![TableColumn::new("k", Values::U64(vec![1]))]);
    }
}
