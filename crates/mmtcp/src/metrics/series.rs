//! The sampled time series: named float columns, one row per sampling interval.
//!
//! Columns are plain `Vec<f64>` reserved for the whole run at build time, so sampling never
//! allocates; they cross into Python as numpy arrays without per-sample objects.

/// One time-series column: `values[i]` was sampled at `time_s[i]` (the first column).
#[derive(Clone, Debug)]
pub struct Column {
    pub name: String,
    pub values: Vec<f64>,
}

#[derive(Debug, Default)]
pub struct TimeSeries {
    columns: Vec<Column>,
}

impl TimeSeries {
    /// `rows` is the expected number of rows (capacity reserved up front).
    pub fn new(names: Vec<String>, rows: usize) -> Self {
        let columns =
            names.into_iter().map(|name| Column { name, values: Vec::with_capacity(rows) }).collect();
        TimeSeries { columns }
    }

    /// Appends one row; `values` must hold one value per column, in column order.
    pub fn push_row(&mut self, values: impl IntoIterator<Item = f64>) {
        let mut n = 0;
        for (column, v) in self.columns.iter_mut().zip(values) {
            column.values.push(v);
            n += 1;
        }
        debug_assert_eq!(n, self.columns.len(), "row width");
    }

    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.values.len())
    }

    pub fn into_columns(self) -> Vec<Column> {
        self.columns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_line_up() {
        let mut ts = TimeSeries::new(vec!["time_s".into(), "x".into()], 4);
        ts.push_row([0.1, 5.0]);
        ts.push_row([0.2, 7.0]);
        assert_eq!(ts.rows(), 2);
        let cols = ts.into_columns();
        assert_eq!(cols[0].values, vec![0.1, 0.2]);
        assert_eq!(cols[1].name, "x");
        assert_eq!(cols[1].values, vec![5.0, 7.0]);
    }
}
