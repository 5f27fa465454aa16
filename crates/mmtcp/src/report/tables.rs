//! The per-entity summary tables: what `summary.json` says of each flow and link, one row per
//! entity, every entity of the run (docs/metrics.md, "Tables").
//!
//! - `flow_summary`: per scenario flow (`subflow` null), each MP-TCP connection followed by a row
//!   per subflow (`subflow` = its index); the fields of the summary's entries, nested ones as
//!   dotted columns (`rtt_ms.p99`, `dropped_segments.by_cause.queue_full`);
//! - `link_summary`: per link direction (`link`, `direction` = `fwd` / `rev`), with the link's
//!   `kind`, the direction's fields and, for a radio stack, `radio.*`;
//! - `flow_drops`: per flow and place where its packets were dropped (`dropped_segments.by_place`
//!   of the summary: `<link> <from>→<to>` or `<node> receive buffer`), the segments dropped there.

use super::{FlowSummary, LinkSummary};
use crate::metrics::table::{FlatRows, TextCoder};
use crate::metrics::{Table, TableColumn, Values};
use serde_json::{Map, Value};

/// `flow_summary`, `link_summary` and `flow_drops` of the summary's entries.
pub(super) fn summary_tables(flows: &[FlowSummary<'_>], links: &[LinkSummary<'_>]) -> Vec<Table> {
    let (flow_summary, flow_drops) = flow_tables(flows);
    vec![flow_summary, link_table(links), flow_drops]
}

fn object(value: impl serde::Serialize) -> Map<String, Value> {
    match serde_json::to_value(value).expect("a summary entry always serialises") {
        Value::Object(fields) => fields,
        other => unreachable!("a summary entry is an object, not {other}"),
    }
}

/// Key columns in the making: text keys coded as rows are added.
#[derive(Default)]
struct TextKey {
    coder: TextCoder,
    codes: Vec<u32>,
}

impl TextKey {
    fn push(&mut self, text: &str) {
        let code = self.coder.code(text);
        self.codes.push(code);
    }

    fn column(self, name: &str) -> TableColumn {
        TableColumn::new(name, Values::Text { dictionary: self.coder.into_dictionary(), codes: self.codes })
    }
}

fn flow_tables(flows: &[FlowSummary<'_>]) -> (Table, Table) {
    let mut rows = FlatRows::default();
    let (mut flow, mut subflow, mut subflow_valid) = (TextKey::default(), Vec::new(), Vec::new());
    let (mut drop_flow, mut drop_place, mut drop_segments) =
        (TextKey::default(), TextKey::default(), Vec::new());
    for f in flows {
        let mut fields = object(f);
        if let Some(Value::Object(dropped)) = fields.get_mut("dropped_segments") {
            if let Some(Value::Object(places)) = dropped.remove("by_place") {
                for (place, segments) in places {
                    drop_flow.push(f.name);
                    drop_place.push(&place);
                    drop_segments.push(segments.as_u64().expect("drops are counts"));
                }
            }
        }
        rows.push(&fields, &["name", "subflows"]);
        flow.push(f.name);
        subflow.push(0);
        subflow_valid.push(false);
        for (k, s) in f.subflows.iter().flatten().enumerate() {
            rows.push(&object(s), &["name"]);
            flow.push(f.name);
            subflow.push(k as i64);
            subflow_valid.push(true);
        }
    }
    let keys =
        vec![flow.column("flow"), TableColumn::with_validity("subflow", Values::I64(subflow), subflow_valid)];
    let drops = Table::new(
        "flow_drops",
        drop_segments.len(),
        vec![
            drop_flow.column("flow"),
            drop_place.column("place"),
            TableColumn::new("segments", Values::U64(drop_segments)),
        ],
    );
    (rows.into_table("flow_summary", keys), drops)
}

fn link_table(links: &[LinkSummary<'_>]) -> Table {
    let mut rows = FlatRows::default();
    let (mut link, mut direction, mut kind) = (TextKey::default(), TextKey::default(), TextKey::default());
    for l in links {
        for (tag, d) in ["fwd", "rev"].into_iter().zip(&l.directions) {
            rows.push(&object(d), &[]);
            link.push(l.name);
            direction.push(tag);
            kind.push(l.kind);
        }
    }
    let keys = vec![link.column("link"), direction.column("direction"), kind.column("kind")];
    rows.into_table("link_summary", keys)
}
