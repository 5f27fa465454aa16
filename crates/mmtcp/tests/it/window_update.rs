//! MP-TCP's window update when the connection's reorder buffer drains (Linux v0.90
//! `mptcp_cleanup_rbuf`, docs/models/mptcp.md), watched event by event.

use crate::common::*;

/// Two paths, 100 Mbit/s at 20 ms and 10 Mbit/s at 60 ms one way; round robin puts every other
/// chunk on the slow path, so the fast path's data waits in the connection's buffer for it.
fn two_paths() -> String {
    let fast = PathSpec { rate: "100Mbps", delay: "20ms", core_rate: "1Gbps" };
    let slow = PathSpec { rate: "10Mbps", delay: "60ms", core_rate: "1Gbps" };
    two_path_connection(
        "10s",
        [fast, slow],
        r#", scheduler = "roundrobin", receive_buffer = "512KB""#,
        r#"{ kind = "bulk" }"#,
    )
}

/// When the connection's reorder buffer drains and the window has grown enough
/// (`mptcp_cleanup_rbuf`), the ACKs announcing it leave in the event that drained it — on
/// every subflow, carrying the new window — not when a delayed-ACK timer fires later.
#[test]
fn test_the_window_update_leaves_in_the_event_that_drains_the_reorder_buffer() {
    let mut w = world(&two_paths());
    let subflows = w.connections()[0].subflows();
    let (mut updates, mut after_drain) = (0, 0);
    loop {
        let conn = &w.connections()[0];
        let (held, data_ack, fired) = (
            conn.data_receiver().held(),
            conn.data_receiver().data_ack(),
            conn.data_receiver().stats.window_updates,
        );
        let acks: Vec<u64> =
            w.flows()[subflows.clone()].iter().map(|f| f.receiver().stats.acks_sent).collect();
        if !w.step() {
            break;
        }
        let conn = &w.connections()[0];
        if conn.data_receiver().stats.window_updates == fired {
            continue;
        }
        updates += 1;
        assert!(conn.data_receiver().data_ack() > data_ack, "an update follows a read, at {}", w.now());
        if held > 0 && conn.data_receiver().held() < held {
            after_drain += 1;
        }
        let edge = conn.data_receiver().data_ack() + conn.data_receiver().window();
        for (k, f) in w.flows()[subflows.clone()].iter().enumerate() {
            assert!(f.receiver().is_established(), "both subflows carry data by then");
            assert!(
                f.receiver().stats.acks_sent > acks[k],
                "subflow {k} sent its ACK in the same event, at {}",
                w.now()
            );
            assert_eq!(f.receiver().announced_data_edge(), edge, "subflow {k}'s ACK carries the new window");
        }
    }
    // With a fixed buffer only data leaving the reorder buffer grows the window.
    assert_eq!(after_drain, updates, "every update follows a drain");
    assert!(updates >= 5, "{updates} updates");
    let per_subflow: Vec<u64> =
        w.flows()[subflows].iter().map(|f| f.receiver().stats.window_updates).collect();
    assert_eq!(per_subflow, vec![updates; 2], "each update went out on both subflows");
}
