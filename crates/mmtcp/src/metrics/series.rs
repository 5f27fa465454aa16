//! The sampled time series of one kind of entity (flows, link directions, processor columns), in
//! long form: each sampling interval adds one row per entity, holding the entity's key columns
//! (e.g. `flow`, `subflow`) and one value per metric.
//!
//! Values are kept time-major (sample `s`, entity `e` at `s × entities + e`) in one `Vec<f64>` per
//! metric, reserved for the whole run at build time, so sampling never allocates; they become the
//! table's columns as they are, and cross into Python as numpy arrays. A metric that does not
//! apply to an entity (an MP-TCP connection has no cwnd; a wired link no SINR) is null in the
//! entity's rows; NaN is a value ("no RTT sample in this interval").

use super::table::{Table, TableColumn, TextCoder, Values};

/// An entity key column: one value per entity.
#[derive(Clone, Debug)]
pub enum KeyValues {
    Text(Vec<String>),
    /// An integer key that some entities lack (an MP-TCP subflow's index; null for the flow).
    Int(Vec<Option<i64>>),
}

#[derive(Clone, Debug, Default)]
pub struct EntitySeries {
    name: String,
    keys: Vec<(String, KeyValues)>,
    entities: usize,
    metrics: Vec<String>,
    /// `applies[e × metrics + m]`: whether metric `m` applies to entity `e`.
    applies: Vec<bool>,
    /// Per metric, time-major.
    values: Vec<Vec<f64>>,
    /// Values pushed in the current sample (`entities × metrics` when it is complete).
    pushed: usize,
}

impl EntitySeries {
    /// A series named `name` of `applies.len() / metrics.len()` entities, keyed by `keys` (each
    /// with one value per entity), with room reserved for `rows` samples.
    pub fn new(
        name: &str,
        keys: Vec<(String, KeyValues)>,
        metrics: Vec<String>,
        applies: Vec<bool>,
        rows: usize,
    ) -> Self {
        let entities = if metrics.is_empty() { 0 } else { applies.len() / metrics.len() };
        assert_eq!(entities * metrics.len(), applies.len(), "one applicability per entity and metric");
        for (key, values) in &keys {
            let n = match values {
                KeyValues::Text(v) => v.len(),
                KeyValues::Int(v) => v.len(),
            };
            assert_eq!(n, entities, "key {key} has {n} values for {entities} entities");
        }
        let values = metrics.iter().map(|_| Vec::with_capacity(rows * entities)).collect();
        EntitySeries { name: name.to_string(), keys, entities, metrics, applies, values, pushed: 0 }
    }

    /// Values the whole run holds: samples × entities × metrics.
    pub fn cells(entities: usize, metrics: usize, rows: usize) -> usize {
        entities * metrics * rows
    }

    /// Appends the next entity's values in this sample (entities in order, then the next
    /// sample's first); `row` holds one value per metric.
    pub fn push(&mut self, row: &[f64]) {
        debug_assert_eq!(row.len(), self.metrics.len(), "one value per metric");
        for (column, &v) in self.values.iter_mut().zip(row) {
            column.push(v);
        }
        self.pushed += 1;
        if self.pushed == self.entities {
            self.pushed = 0;
        }
    }

    /// Samples recorded.
    pub fn rows(&self) -> usize {
        debug_assert_eq!(self.pushed, 0, "a sample is complete");
        self.values.first().map_or(0, |v| v.len()) / self.entities.max(1)
    }

    /// The long-form table: `time_s` (the sample times, `times[s]` for sample `s`), the key
    /// columns, then the metrics; rows ordered by time, then entity.
    pub fn into_table(self, times: &[f64]) -> Table {
        let samples = self.rows();
        assert!(self.entities == 0 || times.len() == samples, "one time per sample");
        let n = samples * self.entities;
        let entity_of_row = |r: usize| r % self.entities;
        let mut columns = Vec::with_capacity(1 + self.keys.len() + self.metrics.len());
        let time: Vec<f64> = (0..n).map(|r| times[r / self.entities]).collect();
        columns.push(TableColumn::new("time_s", Values::F64(time)));
        for (key, values) in self.keys {
            columns.push(match values {
                KeyValues::Text(names) => {
                    let mut coder = TextCoder::default();
                    let codes_of: Vec<u32> = names.iter().map(|s| coder.code(s)).collect();
                    let codes = (0..n).map(|r| codes_of[entity_of_row(r)]).collect();
                    TableColumn::new(key, Values::Text { dictionary: coder.into_dictionary(), codes })
                }
                KeyValues::Int(ints) => {
                    let values = (0..n).map(|r| ints[entity_of_row(r)].unwrap_or(0)).collect();
                    let valid = (0..n).map(|r| ints[entity_of_row(r)].is_some()).collect();
                    TableColumn::with_validity(key, Values::I64(values), valid)
                }
            });
        }
        let m = self.metrics.len();
        for (k, (metric, values)) in self.metrics.into_iter().zip(self.values).enumerate() {
            let valid = (0..n).map(|r| self.applies[entity_of_row(r) * m + k]).collect();
            columns.push(TableColumn::with_validity(metric, Values::F64(values), valid));
        }
        Table::new(self.name, n, columns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(rows: usize) -> EntitySeries {
        EntitySeries::new(
            "flows",
            vec![
                ("flow".into(), KeyValues::Text(vec!["a".into(), "c".into(), "c".into()])),
                ("subflow".into(), KeyValues::Int(vec![None, Some(0), None])),
            ],
            vec!["goodput_bps".into(), "cwnd_bytes".into()],
            vec![true, true, true, true, true, false],
            rows,
        )
    }

    #[test]
    fn rows_are_time_then_entity_with_keys_repeated() {
        let mut s = series(2);
        for t in 0..2 {
            for e in 0..3 {
                s.push(&[(10 * t + e) as f64, 100.0 + e as f64]);
            }
        }
        assert_eq!(s.rows(), 2);
        let t = s.into_table(&[0.1, 0.2]);
        assert_eq!(t.rows, 6);
        assert_eq!(t.column("time_s").unwrap().values, Values::F64(vec![0.1, 0.1, 0.1, 0.2, 0.2, 0.2]));
        assert_eq!(
            t.column("flow").unwrap().values,
            Values::Text { dictionary: vec!["a".into(), "c".into()], codes: vec![0, 1, 1, 0, 1, 1] }
        );
        let sub = t.column("subflow").unwrap();
        assert_eq!(sub.valid, Some(vec![false, true, false, false, true, false]));
        assert_eq!(
            t.column("goodput_bps").unwrap().values,
            Values::F64(vec![0.0, 1.0, 2.0, 10.0, 11.0, 12.0])
        );
        let cwnd = t.column("cwnd_bytes").unwrap();
        assert_eq!(cwnd.valid, Some(vec![true, true, false, true, true, false]), "n/a for entity 2");
        assert_eq!(t.column("goodput_bps").unwrap().valid, None, "applies everywhere: no validity");
    }

    #[test]
    fn an_early_stop_keeps_only_the_samples_taken() {
        let mut s = series(100);
        for e in 0..3 {
            s.push(&[e as f64, 0.0]);
        }
        let t = s.into_table(&[0.5]);
        assert_eq!(t.rows, 3);
        assert_eq!(EntitySeries::cells(3, 2, 100), 600);
    }

    #[test]
    #[should_panic(expected = "key flow has 1 values for 2 entities")]
    fn keys_must_name_every_entity() {
        EntitySeries::new(
            "x",
            vec![("flow".into(), KeyValues::Text(vec!["a".into()]))],
            vec!["m".into()],
            vec![true, true],
            1,
        );
    }
}
