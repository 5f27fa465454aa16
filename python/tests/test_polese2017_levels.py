"""The level of polese2017-retx's calibrated 28 GHz uplink against the papers' (issue 26):
single-path CUBIC with HARQ + RLC AM over a 10 s bulk upload carries about 2.86 Gbit/s at 50 m
and about 450 Mbit/s at 150 m (Polese et al. 2017a §IV, Polese et al. 2017b). Each calibration
factor (docs/models/ns3-mmwave-2017.md) has its own known-answer test in the crate; this is the
whole link at once, at the channel states the papers' words point to: LOS at 50 m ("the UE is in
LOS with very high probability"), NLOS at 150 m (the state whose ns-3 level is the papers')."""

from __future__ import annotations

import statistics

import pytest
from helpers import REPO

import mmtcp

SCENARIO = REPO / "experiments" / "polese2017" / "retx" / "scenario.toml"
DISTANCE = "link.air.radio.channel.distance_m"
VISIBILITY = "link.air.radio.channel.visibility"


def _goodput(seed: int, distance: float, visibility: str) -> float:
    result = mmtcp.run(SCENARIO, seed=seed, overrides={DISTANCE: distance, VISIBILITY: visibility})
    return result.summary["flows"][0]["goodput_bps"]


@pytest.mark.core
def test_calibrated_uplink_in_los_at_50_m_carries_the_papers_level():
    # In LOS the link runs at ns-3's top MCS, 21 of 24 symbols: 2.99 Gbit/s of PHY rate, of
    # which TCP's goodput is about 2.86 (the uncalibrated link carried 4.1).
    goodput = _goodput(1, 50.0, "los")
    assert 0.8 * 2.86e9 <= goodput <= 1.2 * 2.86e9, goodput


@pytest.mark.core
def test_calibrated_uplink_in_nlos_at_150_m_carries_the_papers_level():
    # NLOS runs spread from outage to 2.5 Gbit/s with the shadowing draw; their mean over 15
    # seeds is the level.
    mean = statistics.fmean(_goodput(seed, 150.0, "nlos") for seed in range(1, 16))
    assert 0.8 * 450e6 <= mean <= 1.2 * 450e6, mean
