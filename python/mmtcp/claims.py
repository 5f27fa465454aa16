"""The paper's claims an experiment checks, read from experiment.toml and checked when the
experiment loads: `[[claims]]`, one per statement of the paper, and `[[readings]]`, the readings
of the parameters the paper does not state. `mmtcp.claim_verdicts` evaluates them on a sweep's
runs; experiments/README.md ("Claims") is the user's documentation and states the policy.

A claim is the paper's sentence (`quote`, `where` in the paper, `source`: which paper), the
paper's number (`paper`, or "qualitative"), a one-line statement of what is tested (`claim`) and
one predicate, `kind`, over terms:

- `value`: the mean of the term `at`, within `min` / `max` (or `target` ± `tolerance`);
- `ratio`: mean at `at` / mean at `over`, within bounds;
- `difference`: the mean over the seeds of (`at` - `over`), within bounds;
- `greater` / `less`: `at` beats / is below `over` by at least `min_effect` (relative, default
  5 %) or `min_difference` (absolute, in the metric's unit): a tie never holds;
- `order`: the terms of `points` strictly decreasing (`direction`, the default) or increasing,
  each step by the minimum effect.

A term is a selector (a table of override path → value, as in the grid), or a table
`{ ratio = [term, term] }` / `{ difference = [term, term] }`: that quantity per seed (a
sensitivity, e.g. throughput at 100 ms over throughput at 10 ms).

The points a sentence covers are `cases`: fragments merged into every selector (or, under a key
`at` / `over`, into that term's only; a case's `metric` replaces the claim's), a list of tables
or a list of such lists whose cartesian product is taken, judged with the sentence's
`quantifier` ("all", the default, "any", or "K of N"). A `[[readings]]` entry names a reading of
an unstated parameter and the overrides that stand for it (`set`: a table merged into each
selector, or a list of tables tried in order, the first that matches the sweep winning); a
selector that no alternative changes keeps its value (the reading does not touch that side), and
`when` restricts a reading to the selectors that have the values it gives. A
claim is evaluated at the paper's setting (its selectors as written) and under every reading
that changes at least one of its selectors (or those it lists in `readings`).

Selecting points: a point matches a selector when it has every one of those overrides (numbers
compare by value; a table or a list of tables in the selector matches when each of its keys is
present with that value; if that matches several values of the path, the one equal to the
selector's is taken, and without one the selector is an error), and it has no other override of
its own except the paths listed in `pool`. Points matched together differ only in `pool` paths;
their runs are pooled seed by seed. So a claim names a grid value for every grid path, or pools
over it explicitly; a new grid path or value makes a claim an error at load time, not a silent
change.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mmtcp._core import ScenarioError
from mmtcp.sweep_spec import Point, SweepSpec

KINDS = ("value", "ratio", "difference", "greater", "less", "order")
SETTING = "setting"
"""The name of the paper's setting among a claim's variants (the selectors as written)."""

CLAIM_KEYS = (
    "id",
    "claim",
    "quote",
    "where",
    "source",
    "paper",
    "headline",
    "own",
    "figure",
    "kind",
    "metric",
    "over_metric",
    "at",
    "over",
    "points",
    "cases",
    "quantifier",
    "pool",
    "readings",
    "min",
    "max",
    "target",
    "tolerance",
    "min_effect",
    "min_difference",
    "direction",
    "untestable",
)
READING_KEYS = ("name", "about", "set", "when")
_TEXT_KEYS = ("id", "claim", "quote", "where", "paper")
_UNTESTABLE_KEYS = ("id", "claim", "quote", "where", "source", "paper", "headline", "own", "figure")
_KIND_KEYS = {
    "value": ("at",),
    "ratio": ("at", "over"),
    "difference": ("at", "over"),
    "greater": ("at", "over"),
    "less": ("at", "over"),
    "order": ("points",),
}
_SELECTOR_KEYS = ("at", "over", "points")
_BOUND_KEYS = ("min", "max", "target", "tolerance")
_EFFECT_KEYS = ("min_effect", "min_difference")
_OPERATIONS = ("ratio", "difference")
DEFAULT_MIN_EFFECT = 0.05
"""The relative effect a `greater`, `less` or `order` claim needs when it gives none."""
FIGURE_TOLERANCE = 0.15
"""The relative tolerance of a `target` read off a figure (a `target` without `tolerance`)."""
_TIE_ZONE = (1 / (1 + DEFAULT_MIN_EFFECT), 1 + DEFAULT_MIN_EFFECT)


@dataclass(frozen=True)
class Term:
    """A selector (`op` None, `selector` the table) or a quantity computed per seed from two
    terms (`op` "ratio" or "difference", `parts` the two)."""

    op: str | None = None
    selector: Mapping[str, Any] | None = None
    parts: tuple[Term, ...] = ()

    def leaves(self) -> list[Mapping[str, Any]]:
        if self.op is None:
            assert self.selector is not None
            return [self.selector]
        return [leaf for part in self.parts for leaf in part.leaves()]

    def map_leaves(self, change: Any) -> Term:
        """This term with every selector replaced by `change(selector)`."""
        if self.op is None:
            return Term(selector=change(self.selector))
        return Term(op=self.op, parts=tuple(p.map_leaves(change) for p in self.parts))


@dataclass(frozen=True)
class Reading:
    """One `[[readings]]` table: a reading of a parameter the paper does not state."""

    name: str
    about: str
    alternatives: tuple[Mapping[str, Any], ...]
    when: Mapping[str, Any] | None = None
    """Only selectors that match these values (as a selector matches a point) are changed."""


@dataclass(frozen=True)
class Case:
    """One point a claim's sentence covers: its label and its terms, resolved for one variant,
    and the metric it reads when not the claim's (a sentence about several percentiles)."""

    label: str
    terms: tuple[Term, ...]
    metric: str | None = None
    bounds: tuple[float | None, float | None] | None = None
    """The case's own bounds (a sentence with a number per point), else the claim's."""


@dataclass(frozen=True)
class Claim:
    """One `[[claims]]` table of an experiment.toml, checked.

    Attributes:
        terms: `(at,)` for `value`, `(at, over)` for the comparisons, the `points` for `order`,
            as written (without cases or readings).
        variants: the paper's setting (`SETTING`) then each reading that bears on the claim,
            mapped to its cases with their terms resolved against the full sweep.
        needed: cases of `variants` a `quantifier` needs to hold ("all": every one).
        low, high: the bounds of `value`, `ratio` and `difference` (None: unbounded).
        untestable: why the statement cannot be tested (then there is no predicate).
        origin: names the claim in messages: `<file>: claims[<index>] (<id>)`.
    """

    id: str
    claim: str
    quote: str
    where: str
    source: str
    paper: str
    headline: bool
    own: bool
    figure: str | None
    kind: str | None
    metric: str | None
    over_metric: str | None
    terms: tuple[Term, ...]
    quantifier: str
    needed: int
    pool: tuple[str, ...]
    low: float | None
    high: float | None
    min_effect: float | None
    min_difference: float | None
    direction: str
    untestable: str | None
    variants: Mapping[str, tuple[Case, ...]]
    readings_about: Mapping[str, str]
    origin: str

    @property
    def term_names(self) -> list[str]:
        return term_names(self.kind, len(self.terms))


def term_names(kind: str | None, count: int) -> list[str]:
    if kind == "order":
        return [f"points[{i}]" for i in range(count)]
    return list(_KIND_KEYS.get(kind or "", ()))


def parse_readings(tables: Any, where: str) -> list[Reading]:
    """Checks the `[[readings]]` tables (their overrides are checked against the claims)."""
    if tables is None:
        return []
    if not isinstance(tables, list) or not all(isinstance(t, Mapping) for t in tables):
        raise ScenarioError(f"{where}: readings: expected [[readings]] tables")
    readings: list[Reading] = []
    for index, table in enumerate(tables):
        at = f"{where}: readings[{index}]"
        unknown = [key for key in table if key not in READING_KEYS]
        if unknown:
            raise ScenarioError(
                f"{at}: unknown key {unknown[0]!r}; allowed: {', '.join(READING_KEYS)}"
            )
        name = table.get("name")
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name):
            raise ScenarioError(f"{at}: name: expected a name of letters, digits, '.', '_', '-'")
        if name == SETTING or any(r.name == name for r in readings):
            raise ScenarioError(f"{at}: name: {name!r} is taken")
        about = table.get("about")
        if not isinstance(about, str) or not about.strip():
            raise ScenarioError(f"{at} ({name}): about: expected what the reading stands for")
        overrides = table.get("set")
        alternatives = overrides if isinstance(overrides, list) else [overrides]
        if not alternatives or not all(isinstance(a, Mapping) and a for a in alternatives):
            raise ScenarioError(
                f"{at} ({name}): set: expected a table of override path → value, or a list "
                "of such tables (alternatives, the first that matches a selector's points wins)"
            )
        when = table.get("when")
        if when is not None and (not isinstance(when, Mapping) or not when):
            raise ScenarioError(
                f"{at} ({name}): when: expected a table of override path → value: the selectors "
                "the reading changes"
            )
        readings.append(
            Reading(
                name,
                " ".join(about.split()),
                tuple(dict(a) for a in alternatives),
                dict(when) if when is not None else None,
            )
        )
    return readings


def parse_claims(
    tables: Any,
    where: str,
    full: SweepSpec,
    quick: SweepSpec | None = None,
    readings: Sequence[Reading] = (),
    source: str | None = None,
) -> list[Claim]:
    """Checks the `[[claims]]` tables against the full sweep (every selector, at the paper's
    setting and under every reading, must match its points) and the quick one (a selector may
    match nothing there, but not ambiguously). `source` is the experiment's default paper."""
    if not isinstance(tables, list) or not all(isinstance(t, Mapping) for t in tables):
        raise ScenarioError(f"{where}: claims: expected [[claims]] tables")
    full_points = full.expand()
    quick_points = quick.expand() if quick is not None else []
    claims: list[Claim] = []
    used: set[str] = set()
    for index, table in enumerate(tables):
        origin = f"{where}: claims[{index}]"
        ident = table.get("id")
        if isinstance(ident, str) and ident.strip():
            origin = f"{origin} ({ident})"
        claim = _parse_claim(table, origin, source, readings, full, full_points)
        if any(other.id == claim.id for other in claims):
            raise ScenarioError(f"{origin}: id: {claim.id!r} is the id of another claim")
        case_metrics = [("cases: metric", c.metric) for c in claim.variants.get(SETTING, ())]
        for key, metric in (
            ("metric", claim.metric),
            ("over_metric", claim.over_metric),
            *case_metrics,
        ):
            if full.metrics is not None and metric is not None and metric not in full.metrics:
                raise ScenarioError(f"{origin}: {key}: {metric} is not one of the sweep's metrics")
        if quick is not None:
            for variant, cases in claim.variants.items():
                for case in cases:
                    for leaf in (leaf for term in case.terms for leaf in term.leaves()):
                        select(
                            leaf,
                            claim.pool,
                            quick_points,
                            quick.fixed,
                            f"{origin}: {variant} (quick)",
                            allow_none=True,
                        )
        used.update(claim.variants)
        claims.append(claim)
    for reading in readings:
        if reading.name not in used:
            raise ScenarioError(
                f"{where}: readings: {reading.name!r} changes no selector of any claim; its "
                "`set` matches no point of the sweep, or no claim selects the points it changes"
            )
    return claims


def _parse_claim(
    table: Mapping[str, Any],
    origin: str,
    default_source: str | None,
    readings: Sequence[Reading],
    full: SweepSpec,
    full_points: Sequence[Point],
) -> Claim:
    unknown = [key for key in table if key not in CLAIM_KEYS]
    if unknown:
        raise ScenarioError(
            f"{origin}: unknown key {unknown[0]!r}; allowed: {', '.join(CLAIM_KEYS)}"
        )
    for key in _TEXT_KEYS:
        if not isinstance(table.get(key), str) or not table[key].strip():
            raise ScenarioError(f"{origin}: {key}: expected a non-empty string")
    source = table.get("source", default_source)
    if not isinstance(source, str) or not source.strip():
        raise ScenarioError(
            f'{origin}: source: expected the paper quoted, e.g. "Polese et al. 2017a" (or the '
            "experiment's top-level `source`)"
        )
    flags = {}
    for key in ("headline", "own"):
        value = table.get(key, False)
        if not isinstance(value, bool):
            raise ScenarioError(f"{origin}: {key}: expected true or false")
        flags[key] = value
    figure = table.get("figure")
    if figure is not None and not isinstance(figure, str):
        raise ScenarioError(f"{origin}: figure: expected a string")
    text = {key: " ".join(table[key].split()) for key in _TEXT_KEYS}
    common = {
        "id": table["id"].strip(),
        "claim": text["claim"],
        "quote": text["quote"],
        "where": text["where"],
        "source": " ".join(source.split()),
        "paper": text["paper"],
        "headline": flags["headline"],
        "own": flags["own"],
        "figure": figure,
        "origin": origin,
    }
    if "untestable" in table:
        why = table["untestable"]
        if not isinstance(why, str) or not why.strip():
            raise ScenarioError(f"{origin}: untestable: expected why the statement is not testable")
        extra = [key for key in table if key not in (*_UNTESTABLE_KEYS, "untestable")]
        if extra:
            raise ScenarioError(f"{origin}: {extra[0]}: an untestable claim has no predicate")
        return Claim(
            **common,
            kind=None,
            metric=None,
            over_metric=None,
            terms=(),
            quantifier="all",
            needed=0,
            pool=(),
            low=None,
            high=None,
            min_effect=None,
            min_difference=None,
            direction="decreasing",
            untestable=" ".join(why.split()),
            variants={},
            readings_about={},
        )
    kind = table.get("kind")
    if kind not in KINDS:
        raise ScenarioError(f"{origin}: kind: {kind!r} is not one of {', '.join(KINDS)}")
    metric = table.get("metric")
    if not isinstance(metric, str) or not metric.strip():
        raise ScenarioError(f"{origin}: metric: expected a non-empty string")
    for key in _SELECTOR_KEYS:
        if key in table and key not in _KIND_KEYS[kind]:
            raise ScenarioError(f"{origin}: {key}: not a key of a {kind!r} claim")
        if key not in table and key in _KIND_KEYS[kind]:
            raise ScenarioError(f"{origin}: {key}: a {kind!r} claim needs it")
    if kind == "order":
        points = table["points"]
        if not isinstance(points, list) or len(points) < 2:
            raise ScenarioError(f"{origin}: points: expected a list of at least 2 terms")
        terms = tuple(_term(p, f"{origin}: points[{i}]") for i, p in enumerate(points))
    else:
        terms = tuple(_term(table[key], f"{origin}: {key}") for key in _KIND_KEYS[kind])
    min_effect, min_difference = _effect(table, kind, origin)
    over_metric = table.get("over_metric")
    if over_metric is not None:
        if kind not in ("ratio", "difference", "greater", "less"):
            raise ScenarioError(f"{origin}: over_metric: only a claim with `over` has one")
        if not isinstance(over_metric, str) or not over_metric.strip():
            raise ScenarioError(f"{origin}: over_metric: expected a non-empty string")
    direction = table.get("direction", "decreasing")
    if "direction" in table and kind != "order":
        raise ScenarioError(f"{origin}: direction: only an 'order' claim has one")
    if direction not in ("decreasing", "increasing"):
        raise ScenarioError(f"{origin}: direction: expected 'decreasing' or 'increasing'")
    pool = table.get("pool", [])
    if not isinstance(pool, list) or not all(isinstance(p, str) and p for p in pool):
        raise ScenarioError(f"{origin}: pool: expected a list of override paths")
    for term in terms:
        for leaf in term.leaves():
            for key in leaf:
                if key in pool:
                    raise ScenarioError(f"{origin}: pool: {key} is also a key of a selector")
    cases = _cases(table.get("cases"), kind, origin)
    every_case_bounded = all(case[4] is not None for case in cases)
    if every_case_bounded and not any(key in table for key in _BOUND_KEYS):
        low = high = None
    else:
        low, high = _bounds(table, kind, origin)
    if over_metric is not None and any(case[3] is not None for case in cases):
        raise ScenarioError(
            f"{origin}: cases: metric: not with over_metric (which metric at over?)"
        )
    quantifier, needed = _quantifier(table.get("quantifier", "all"), len(cases), origin)
    chosen = _chosen_readings(table, readings, origin)
    variants, about = _variants(
        kind, terms, cases, tuple(pool), chosen, "readings" in table, full, full_points, origin
    )
    return Claim(
        **common,
        kind=kind,
        metric=metric,
        over_metric=over_metric,
        terms=terms,
        quantifier=quantifier,
        needed=needed,
        pool=tuple(pool),
        low=low,
        high=high,
        min_effect=min_effect,
        min_difference=min_difference,
        direction=direction,
        untestable=None,
        variants=variants,
        readings_about=about,
    )


def _term(value: Any, origin: str) -> Term:
    if isinstance(value, Mapping) and len(value) == 1 and next(iter(value)) in _OPERATIONS:
        ((op, parts),) = value.items()
        if not isinstance(parts, list) or len(parts) != 2:
            raise ScenarioError(f"{origin}: {op}: expected a list of two terms")
        return Term(
            op=op, parts=tuple(_term(p, f"{origin}: {op}[{i}]") for i, p in enumerate(parts))
        )
    if not isinstance(value, Mapping):
        raise ScenarioError(
            f'{origin}: expected a table of "override.path" = value, e.g. '
            f'{{ "link.bottleneck.buffer" = "250pkt" }}, or {{ ratio = [term, term] }} / '
            "{ difference = [term, term] }"
        )
    bad = [key for key in value if key in _OPERATIONS]
    if bad:
        raise ScenarioError(f"{origin}: {bad[0]}: a derived term is a table with that key alone")
    return Term(selector=dict(value))


CaseSpec = tuple[
    str,
    dict[str, Any],
    dict[str, dict[str, Any]],
    str | None,
    tuple[float | None, float | None] | None,
]
"""A case as written: its label, the overrides merged into every selector, those merged into one
term's selectors only (`at` / `over`), the metric it reads instead of the claim's, and its own
bounds."""
_TERM_FRAGMENTS = ("at", "over")


def _cases(value: Any, kind: str, origin: str) -> list[CaseSpec]:
    """(label, overrides for every selector, overrides per term) per case; one unlabelled empty
    case without `cases`."""
    if value is None:
        return [("", {}, {}, None, None)]
    if not isinstance(value, list) or not value:
        raise ScenarioError(f"{origin}: cases: expected a non-empty list of tables (or of lists)")
    if all(isinstance(v, Mapping) for v in value):
        factors = [value]
    elif all(isinstance(v, list) and v and all(isinstance(x, Mapping) for x in v) for v in value):
        factors = value
    else:
        raise ScenarioError(
            f"{origin}: cases: expected a list of tables, or a list of lists of tables (their "
            "cartesian product)"
        )
    cases: list[CaseSpec] = []
    for combination in itertools.product(*factors):
        common: dict[str, Any] = {}
        per_term: dict[str, dict[str, Any]] = {}
        metric: str | None = None
        bounds: tuple[float | None, float | None] | None = None
        labels = []
        for part in combination:
            part = dict(part)
            label = part.pop("label", None)
            own_bounds = {key: part.pop(key) for key in _BOUND_KEYS if key in part}
            if own_bounds:
                if bounds is not None:
                    raise ScenarioError(f"{origin}: cases: bounds are set by two factors")
                if kind not in ("value", "ratio", "difference"):
                    raise ScenarioError(
                        f"{origin}: cases: {next(iter(own_bounds))}: only a value, ratio or "
                        "difference claim has bounds"
                    )
                bounds = _bounds(own_bounds, kind, f"{origin}: cases")
            if label is not None and not isinstance(label, str):
                raise ScenarioError(f"{origin}: cases: label: expected a string")
            if not part:
                raise ScenarioError(f"{origin}: cases: a case sets no override")
            shown = []
            if "metric" in part:
                if metric is not None:
                    raise ScenarioError(f"{origin}: cases: metric is set by two factors")
                metric = part.pop("metric")
                if not isinstance(metric, str) or not metric.strip():
                    raise ScenarioError(f"{origin}: cases: metric: expected a metric path")
                shown.append(metric.rsplit(".", 1)[-1])
            for name in _TERM_FRAGMENTS:
                if name not in part:
                    continue
                fragment = part.pop(name)
                if name not in _KIND_KEYS[kind]:
                    raise ScenarioError(f"{origin}: cases: {name}: not a term of a {kind!r} claim")
                if not isinstance(fragment, Mapping) or not fragment:
                    raise ScenarioError(
                        f"{origin}: cases: {name}: expected a table of overrides for that term"
                    )
                mine = per_term.setdefault(name, {})
                overlap = [key for key in fragment if key in mine or key in common]
                if overlap:
                    raise ScenarioError(f"{origin}: cases: {overlap[0]} is set twice")
                mine.update(fragment)
                shown.append(f"{name} {_label(fragment)}")
            overlap = [
                key
                for key in part
                if key in common or any(key in mine for mine in per_term.values())
            ]
            if overlap:
                raise ScenarioError(f"{origin}: cases: {overlap[0]} is set by two factors")
            common.update(part)
            if part:
                shown.insert(0, _label(part))
            labels.append(label if label is not None else ", ".join(shown))
        cases.append((", ".join(labels), common, per_term, metric, bounds))
    labels = [label for label, *_ in cases]
    if len(set(labels)) != len(labels):
        raise ScenarioError(f"{origin}: cases: two cases have the same label; give `label`s")
    return cases


def _label(fragment: Mapping[str, Any]) -> str:
    """`distance_m=100`, from the last component of each path (repeats given once)."""
    parts: list[str] = []
    for path, value in fragment.items():
        text = value if isinstance(value, str) else json.dumps(value, default=str)
        part = f"{path.rsplit('.', 1)[-1]}={text}"
        if part not in parts:
            parts.append(part)
    return ", ".join(parts)


def _quantifier(value: Any, count: int, origin: str) -> tuple[str, int]:
    if value == "all":
        return "all", count
    if value == "any":
        return "any", 1
    match = re.fullmatch(r"(\d+) of (\d+)", value) if isinstance(value, str) else None
    if match is None:
        raise ScenarioError(f'{origin}: quantifier: expected "all", "any" or "K of N"')
    needed, total = int(match[1]), int(match[2])
    if total != count:
        raise ScenarioError(f"{origin}: quantifier: {value!r}, but the claim has {count} case(s)")
    if not 1 <= needed <= total:
        raise ScenarioError(f"{origin}: quantifier: K must be between 1 and N")
    return value, needed


def _chosen_readings(
    table: Mapping[str, Any], readings: Sequence[Reading], origin: str
) -> list[Reading]:
    if "readings" not in table:
        return list(readings)
    names = table["readings"]
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ScenarioError(f"{origin}: readings: expected a list of reading names")
    known = {r.name: r for r in readings}
    for name in names:
        if name not in known:
            allowed = ", ".join(known) or "none: the experiment has no [[readings]]"
            raise ScenarioError(f"{origin}: readings: {name!r} is not a reading ({allowed})")
    return [known[name] for name in names]


def _variants(
    kind: str,
    terms: tuple[Term, ...],
    cases: list[CaseSpec],
    pool: tuple[str, ...],
    readings: Sequence[Reading],
    listed: bool,
    full: SweepSpec,
    full_points: Sequence[Point],
    origin: str,
) -> tuple[dict[str, tuple[Case, ...]], dict[str, str]]:
    """The setting's cases (every selector must match the full sweep), then each reading's."""

    def merged(fragment: Mapping[str, Any]) -> Any:
        return lambda selector: {**selector, **fragment}

    names = term_names(kind, len(terms))
    setting = tuple(
        Case(
            label,
            tuple(
                term.map_leaves(merged({**common, **per_term.get(name, {})}))
                for name, term in zip(names, terms, strict=True)
            ),
            metric,
            bounds,
        )
        for label, common, per_term, metric, bounds in cases
    )
    for case in setting:
        for leaf in (leaf for term in case.terms for leaf in term.leaves()):
            where = f"{origin}: {SETTING}" + (f", case {case.label}" if case.label else "")
            select(leaf, pool, full_points, full.fixed, where)
    variants = {SETTING: setting}
    about = {}
    for reading in readings:
        changed = False

        def resolve(selector: Mapping[str, Any], reading: Reading = reading) -> Mapping[str, Any]:
            nonlocal changed
            if reading.when is not None and not all(
                key in selector and matches(value, selector[key])
                for key, value in reading.when.items()
            ):
                return selector
            for alternative in reading.alternatives:
                if any(key in pool for key in alternative):
                    continue  # the claim pools over what the reading sets
                candidate = {**selector, **alternative}
                found = select(candidate, pool, full_points, full.fixed, origin, allow_none=True)
                if found:
                    if candidate != selector:
                        changed = True
                    return candidate
            return selector

        resolved = tuple(
            Case(
                case.label,
                tuple(term.map_leaves(resolve) for term in case.terms),
                case.metric,
                case.bounds,
            )
            for case in setting
        )
        if changed:
            variants[reading.name] = resolved
            about[reading.name] = reading.about
        elif listed:
            raise ScenarioError(
                f"{origin}: readings: {reading.name!r} changes none of the claim's selectors "
                "(no point of the sweep has its overrides there)"
            )
    return variants, about


def _bounds(table: Mapping[str, Any], kind: str, origin: str) -> tuple[float | None, float | None]:
    if kind not in ("value", "ratio", "difference"):
        _refuse(
            table,
            _BOUND_KEYS,
            f"a {kind!r} claim has no bounds; it needs min_effect or min_difference",
            origin,
        )
        return None, None
    low, high, target, tolerance = (_number(table, k, origin) for k in _BOUND_KEYS)
    if target is not None:
        if low is not None or high is not None:
            raise ScenarioError(f"{origin}: target: give either target (and tolerance) or min/max")
        if tolerance is None:
            tolerance = FIGURE_TOLERANCE
        if tolerance < 0:
            raise ScenarioError(
                f"{origin}: tolerance: expected a relative tolerance >= 0, e.g. 0.2"
            )
        spread = abs(target) * tolerance
        low, high = target - spread, target + spread
    elif tolerance is not None:
        raise ScenarioError(f"{origin}: tolerance: only with a target")
    if low is None and high is None:
        raise ScenarioError(f"{origin}: min: give min, max, or target (and tolerance)")
    if low is not None and high is not None and low > high:
        raise ScenarioError(f"{origin}: min: {low:g} is above max {high:g}")
    # A bound at a tie lets a tie (or a 0.1 % effect) hold: comparisons say how large an effect.
    for key, bound in (("min", low), ("max", high)):
        if bound is None:
            continue
        if kind == "ratio" and _TIE_ZONE[0] < bound < _TIE_ZONE[1] and target is None:
            raise ScenarioError(
                f"{origin}: {key}: a ratio bound of {bound:g} lets a tie hold; use kind = "
                '"greater" or "less" (with min_effect) to say one beats the other'
            )
        if kind == "difference" and bound == 0:
            raise ScenarioError(
                f"{origin}: {key}: a difference bound of 0 lets a tie hold; use kind = "
                '"greater" or "less" (with min_difference) to say one beats the other'
            )
    return low, high


def _effect(table: Mapping[str, Any], kind: str, origin: str) -> tuple[float | None, float | None]:
    if kind not in ("greater", "less", "order"):
        _refuse(table, _EFFECT_KEYS, "only a comparison or an order has one", origin)
        return None, None
    relative, absolute = (_number(table, k, origin) for k in _EFFECT_KEYS)
    if relative is not None and absolute is not None:
        raise ScenarioError(f"{origin}: min_effect: give min_effect or min_difference, not both")
    if absolute is not None:
        if absolute <= 0:
            raise ScenarioError(f"{origin}: min_difference: expected a positive difference")
        return None, absolute
    if relative is None:
        return DEFAULT_MIN_EFFECT, None
    if relative <= 0:
        raise ScenarioError(f"{origin}: min_effect: expected a positive relative effect, e.g. 0.05")
    return relative, None


def _refuse(table: Mapping[str, Any], keys: Sequence[str], why: str, origin: str) -> None:
    """A `ScenarioError` naming the first of `keys` that `table` has, with `why`."""
    for key in keys:
        if key in table:
            raise ScenarioError(f"{origin}: {key}: {why}")


def _number(table: Mapping[str, Any], key: str, origin: str) -> float | None:
    value = table.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ScenarioError(f"{origin}: {key}: expected a number, not {value!r}")
    if not math.isfinite(value):
        raise ScenarioError(f"{origin}: {key}: expected a finite number")
    return float(value)


def matches(wanted: Any, actual: Any) -> bool:
    """Whether a selector value matches a point's value: numbers by value (not booleans), a table
    by the keys it gives, a list element by element, anything else by equality.

    >>> matches(50, 50.0), matches(True, 1), matches([{"kind": "pep"}], [{"kind": "pep", "x": 1}])
    (True, False, True)
    """
    if isinstance(wanted, bool) or isinstance(actual, bool):
        return isinstance(wanted, bool) and isinstance(actual, bool) and wanted == actual
    if isinstance(wanted, (int, float)) and isinstance(actual, (int, float)):
        return float(wanted) == float(actual)
    if isinstance(wanted, Mapping):
        return isinstance(actual, Mapping) and all(
            key in actual and matches(value, actual[key]) for key, value in wanted.items()
        )
    if isinstance(wanted, list):
        return (
            isinstance(actual, list)
            and len(wanted) == len(actual)
            and all(matches(w, a) for w, a in zip(wanted, actual, strict=True))
        )
    return bool(wanted == actual)


def select(
    selector: Mapping[str, Any],
    pool: Sequence[str],
    points: Sequence[Point],
    fixed: Mapping[str, Any],
    where: str,
    allow_none: bool = False,
) -> list[Point]:
    """The points `selector` picks (see the module's docstring); a `ScenarioError` if none
    (unless `allow_none`) or if they differ in a path that is not pooled."""
    found = []
    for point in points:
        values = {**fixed, **point.overrides}
        if not all(key in values and matches(v, values[key]) for key, v in selector.items()):
            continue
        if all(key in selector or key in pool for key in point.overrides):
            found.append(point)
    if not found and not allow_none:
        raise ScenarioError(
            f"{where}: matches no point of the sweep; a point matches when it has these "
            f"overrides and no other except the pooled ones (pool = [...]): "
            f"{json.dumps(dict(selector), default=str)}"
        )
    for key, wanted in selector.items():
        distinct = {_key_text({**fixed, **p.overrides}[key]) for p in found}
        if len(distinct) < 2:
            continue
        # A table given in part matches several values: the one equal to it wins, if any.
        exact = [p for p in found if {**fixed, **p.overrides}[key] == wanted]
        if not exact:
            raise ScenarioError(
                f"{where}: matches several points that differ in {key} "
                f"({found[0].id}, {found[1].id}); give its whole value"
            )
        found = exact
    return found


def _key_text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)
