//! The shim's output, typed: the witness of a guarded op's first bad value (`witness-*.json`),
//! a sweep of the datasets (`sweep-*.json`), the marker each armed process leaves
//! (`loaded-*.json`) and a call the CPU mapping could not map (`unmapped-*.json`).
//! `python/cudasleuth_shim/output.schema.json` is the one description of these files: the shim's
//! tests and the Rust tests validate what the shim writes against it.
//!
//! These types are how the Rust side reads the files. The report keeps the witness and sweep as
//! the shim wrote them (`Report::witness` is its JSON, so nothing is lost in the output); the
//! floors read them through `Witness::of` and `Sweep::of`. A field the shim may write as `null`
//! reads as absent; numbers read whether the shim wrote them as integers or floats.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// `null` (or a missing key) as the type's default.
fn null_as_default<'de, D: Deserializer<'de>, T: Default + Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// An integer written as an integer or a float (`3` or `3.0`); anything else reads as absent.
fn int<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    let v = Option::<Value>::deserialize(d)?;
    Ok(v.and_then(|v| v.as_i64().or_else(|| v.as_f64().map(|f| f as i64))))
}

/// The typed view of a file the shim wrote (one that does not follow the schema reads as the
/// type's default: the schema tests on both sides keep the two in step).
fn view<T: serde::de::DeserializeOwned + Default>(v: &Value) -> T {
    serde_json::from_value(v.clone()).unwrap_or_default()
}

/// A JSON value as a sentence shows it: a string as itself, null as `?`.
pub fn show(v: &Value) -> String {
    match v {
        Value::Null => "?".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// What the guarded op's bound was: `n_classes = 3`, `num_embeddings = 50257`, `mask_shape = [4]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Bound {
    #[serde(deserialize_with = "null_as_default")]
    pub name: Option<String>,
    pub value: Value,
}

impl Bound {
    /// `n_classes = 3`.
    pub fn text(&self) -> String {
        format!("{} = {}", self.name.as_deref().unwrap_or("bound"), show(&self.value))
    }
}

/// One bad element: where in the tensor, its value (absent with `--no-values`), its sample.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Bad {
    pub position: Value,
    pub value: Value,
    #[serde(deserialize_with = "int")]
    pub sample: Option<i64>,
}

/// A frame of the stack that called the op (innermost last), or the place a provenance names.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Place {
    #[serde(deserialize_with = "null_as_default")]
    pub file: Option<String>,
    #[serde(deserialize_with = "int")]
    pub line: Option<i64>,
    #[serde(deserialize_with = "null_as_default")]
    pub code: Option<String>,
    #[serde(deserialize_with = "null_as_default")]
    pub function: Option<String>,
    #[serde(deserialize_with = "null_as_default")]
    pub user_code: bool,
}

/// How the bad value came to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProvenanceKind {
    /// A line of the project turned a good value into the bad one (proven by a replay).
    CodeLine,
    /// The value was already bad when read: no line of `__getitem__` changed it.
    RawData,
    /// `__getitem__` returned a value in range; it went bad later (collate, training step).
    OutsideGetitem,
    /// The sample could not be replayed.
    NotReplayable,
    /// A kind this build does not know.
    #[default]
    #[serde(other)]
    Other,
}

/// Where the bad value was born, as far as the run could tell.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Provenance {
    pub kind: ProvenanceKind,
    #[serde(flatten)]
    pub place: Place,
    #[serde(deserialize_with = "null_as_default")]
    pub variable: Option<String>,
    pub before: Value,
    pub after: Value,
    pub value: Value,
    #[serde(deserialize_with = "int")]
    pub sample: Option<i64>,
    #[serde(deserialize_with = "int")]
    pub replays: Option<i64>,
    #[serde(deserialize_with = "null_as_default")]
    pub reason: Option<String>,
}

/// The batch the bad value was in: its sample indices.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Batch {
    #[serde(deserialize_with = "null_as_default")]
    pub indices: Vec<Value>,
}

/// Another process's witness, listed in the first one's (`other_ranks`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct OtherRank {
    pub rank: Value,
    pub pid: Value,
    pub op: Value,
    pub sample: Value,
    pub value: Value,
}

/// A guarded op's first bad value (`witness-*.json`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Witness {
    #[serde(deserialize_with = "null_as_default")]
    pub op: Option<String>,
    #[serde(deserialize_with = "null_as_default")]
    pub category: Option<String>,
    #[serde(deserialize_with = "null_as_default")]
    pub predicate: Option<String>,
    /// Which operand was bad (`target`, `input`, `indices`…).
    #[serde(deserialize_with = "null_as_default")]
    pub tensor: Option<String>,
    pub bound: Option<Bound>,
    #[serde(deserialize_with = "null_as_default")]
    pub bad: Vec<Bad>,
    #[serde(deserialize_with = "int")]
    pub bad_count: Option<i64>,
    #[serde(deserialize_with = "null_as_default")]
    pub stack: Vec<Place>,
    pub batch: Option<Batch>,
    /// The operands saved as .npy, by name, relative to the out directory.
    #[serde(deserialize_with = "null_as_default")]
    pub tensors: BTreeMap<String, String>,
    #[serde(deserialize_with = "int")]
    pub rank: Option<i64>,
    pub cuda_launch_blocking: Option<bool>,
    #[serde(deserialize_with = "null_as_default")]
    pub ignore_index: Option<f64>,
    pub provenance: Option<Provenance>,
    /// Added when several processes wrote a witness (the first one keeps the others here).
    #[serde(deserialize_with = "null_as_default")]
    pub other_ranks: Vec<OtherRank>,
    /// The born-at pass's result, added by repro (`born-*.json`).
    pub born: Option<Born>,
}

/// A line of a born-at chain: where, the code, the variable it set, the value after it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct BornStep {
    #[serde(flatten)]
    pub place: Place,
    #[serde(deserialize_with = "null_as_default")]
    pub variable: Option<String>,
    pub value: Value,
    /// `call` (the op's line or the module's constructor), `pass`, `origin`.
    #[serde(deserialize_with = "null_as_default")]
    pub role: Option<String>,
    /// On the origin: `made` (computed there from good inputs), `count` (a count or largest
    /// value), `size` (positions counted from another value's length), `read` (taken as it
    /// came) or `joined` (a constant put into the data there, the constant passed in by a
    /// library call the run could not follow upstream); for a value checked against a range,
    /// `layer` (a module's learned output, bounded by nothing), `mixed` (values inside the
    /// range combined with one that never was) or `weighted` (values inside the range weighted
    /// and summed).
    #[serde(deserialize_with = "null_as_default")]
    pub kind: Option<String>,
    /// On the origin: the numbers its inputs held before the line ran.
    pub before: Value,
    /// On the origin: the first container of integers that collected the value on its way to
    /// the op (the origin itself, or the list its numbers were gathered into), summarized.
    pub population: Option<Population>,
    /// On a bound's origin that counts (`n = len(freq)`): the integers of what it counted (a
    /// dict's keys, a set's or list's elements), summarized.
    pub counted: Option<Population>,
}

/// The integer values a container held, summarized by the born-at pass.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
pub struct Population {
    pub min: i64,
    pub max: i64,
    pub distinct: i64,
    /// How many of the distinct values lie inside the op's bound (`0 <= v < n`); absent from a
    /// shim that did not count them.
    #[serde(default)]
    pub inside: Option<i64>,
}

/// A value (or bound) followed back from where it was used to where it was born.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct BornChain {
    #[serde(deserialize_with = "null_as_default")]
    pub chain: Vec<BornStep>,
    pub born: Option<BornStep>,
    /// Why the chain stops short of the origin.
    #[serde(deserialize_with = "null_as_default")]
    pub reason: Option<String>,
}

/// A line the static analysis named, as the born-at pass saw it: how often it ran, what it set.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Watched {
    #[serde(deserialize_with = "null_as_default")]
    pub file: Option<String>,
    #[serde(deserialize_with = "int")]
    pub line: Option<i64>,
    #[serde(deserialize_with = "int")]
    pub ran: Option<i64>,
    #[serde(deserialize_with = "null_as_default")]
    pub seen: Vec<BTreeMap<String, Value>>,
}

/// The born-at pass (`born-*.json`): the second, traced run of the command.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Born {
    /// The second run met the first run's violation (op and value); nothing is confirmed otherwise.
    pub same_witness: bool,
    pub value_chain: Option<BornChain>,
    pub bound_chain: Option<BornChain>,
    #[serde(deserialize_with = "null_as_default")]
    pub watch: Vec<Watched>,
}

impl Witness {
    /// The typed view of a witness as the shim wrote it.
    pub fn of(v: &Value) -> Witness {
        view(v)
    }

    /// The user frame that called the op (the innermost one).
    pub fn user_frame(&self) -> Option<&Place> {
        self.stack.iter().rev().find(|f| f.user_code)
    }

    /// The provenance's kind, `Other` when there is none.
    pub fn provenance_kind(&self) -> ProvenanceKind {
        self.provenance.as_ref().map_or(ProvenanceKind::Other, |p| p.kind)
    }

    /// One line that says what the witness caught: op, value, bound, which sample.
    pub fn caught_line(&self) -> String {
        let op = self.op.as_deref().unwrap_or("a guarded op");
        let tensor = self.tensor.as_deref().unwrap_or("value");
        let first = self.bad.first();
        let value = first.map(|b| show(&b.value)).unwrap_or_else(|| "?".into());
        let mut s = format!("{op}: {tensor} value {value}");
        if let Some(b) = &self.bound {
            s.push_str(&format!(" out of range ({})", b.text()));
        } else if let Some(p) = &self.predicate {
            s.push_str(&format!(" breaks `{p}`"));
        }
        let count = self.bad_count.unwrap_or(1);
        if count > 1 {
            s.push_str(&format!(", {count} bad elements in the batch"));
        }
        if let Some(sample) = first.and_then(|b| b.sample) {
            s.push_str(&format!(", sample {sample}"));
        }
        if let Some(r) = self.rank {
            s.push_str(&format!(" (rank {r})"));
        }
        s
    }
}

/// The bad sample a sweep found.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SweptSample {
    #[serde(deserialize_with = "null_as_default")]
    pub field: Option<String>,
    #[serde(deserialize_with = "null_as_default")]
    pub name: Option<String>,
    pub index: Value,
    pub value: Value,
    pub bound: Value,
}

/// One dataset a sweep went through.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SweptDataset {
    #[serde(deserialize_with = "null_as_default")]
    pub class: Option<String>,
    pub length: Option<Value>,
    pub checked: Option<Value>,
    #[serde(deserialize_with = "null_as_default")]
    pub bad: Vec<SweptSample>,
}

/// Every sample of the script's datasets checked against the model's bounds (`sweep-*.json`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Sweep {
    pub bounds: Option<BTreeMap<String, Value>>,
    #[serde(deserialize_with = "null_as_default")]
    pub datasets: Vec<SweptDataset>,
    /// Why nothing was swept (the script never iterated a DataLoader).
    #[serde(deserialize_with = "null_as_default")]
    pub note: Option<String>,
}

impl Sweep {
    pub fn of(v: &Value) -> Sweep {
        view(v)
    }

    /// Whether any sample of any dataset was checked.
    pub fn checked_any(&self) -> bool {
        !self.datasets.is_empty()
    }

    /// How many bad samples, over all datasets.
    pub fn bad_samples(&self) -> usize {
        self.datasets.iter().map(|d| d.bad.len()).sum()
    }
}

/// The marker an armed process leaves (`loaded-*.json`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Loaded {
    #[serde(deserialize_with = "null_as_default")]
    pub cpu: bool,
}

impl Loaded {
    pub fn of(v: &Value) -> Loaded {
        view(v)
    }
}

/// A call the CPU mapping could not map (`unmapped-*.json`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Unmapped {
    pub call: Value,
    pub file: Value,
    pub line: Value,
}

impl Unmapped {
    pub fn of(v: &Value) -> Unmapped {
        view(v)
    }
}

/// What the born-at pass follows: the caught value, and the range it broke when it is followed
/// by its range. Integers (labels, indices, ids) are followed by equality; a probability or a
/// rate by its range (any element outside it); a whole number given as a target (a class
/// index 3.0 where a 0/1 label belongs) by equality, as the integer it is. None: nothing to
/// follow.
pub fn born_followed(w: &Value) -> Option<(Value, Option<Value>)> {
    let value = w.get("bad").and_then(|b| b.get(0)).and_then(|b| b.get("value")).cloned().unwrap_or(Value::Null);
    let range = value_range(w);
    if let Some(n) = value.as_f64().filter(|v| v.fract() == 0.0 && v.abs() < 1e15) {
        if range.is_some() && w.get("tensor").and_then(|t| t.as_str()) == Some("target") {
            return Some((serde_json::json!(n as i64), None));
        }
    }
    if value.is_i64() || value.is_u64() || range.is_some() {
        return Some((value, range));
    }
    None
}

/// The range every element of the witness's tensor must lie in, for a check of one element
/// at a time (`[0, 1]` for a probability, `[0, null]` for a rate or a weight that must not be
/// negative); None for an index (followed by equality) or a check of a whole row (a row sum).
fn value_range(w: &Value) -> Option<Value> {
    let bound = w.get("bound");
    if bound.and_then(|b| b.get("name")).and_then(|n| n.as_str()) == Some("range") {
        let v = bound.and_then(|b| b.get("value"))?.as_array()?;
        if v.len() == 2 && v.iter().all(|x| x.is_number()) {
            return Some(Value::Array(v.clone()));
        }
        return None;
    }
    let predicate = w.get("predicate").and_then(|p| p.as_str()).unwrap_or_default();
    let category = w.get("category").and_then(|c| c.as_str()).unwrap_or_default();
    (category == "invalid_distribution" && predicate.ends_with(">= 0") && !predicate.contains("sum")).then(|| serde_json::json!([0, null]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_witness_reads_typed_with_nulls_and_floats() {
        let w = Witness::of(&serde_json::json!({
            "op": "nll_loss", "tensor": "target", "category": "label_out_of_range",
            "bound": {"name": "n_classes", "value": 3}, "bad": [{"position": [5], "value": 3, "sample": 41.0}],
            "bad_count": 2, "batch": null, "stack": null, "rank": null,
            "provenance": {"kind": "code_line", "file": "/p/d.py", "line": 23, "variable": "label", "before": 2, "after": 3}
        }));
        assert_eq!(w.bad[0].sample, Some(41));
        assert!(w.batch.is_none() && w.stack.is_empty() && w.rank.is_none());
        assert_eq!(w.provenance_kind(), ProvenanceKind::CodeLine);
        assert_eq!(w.provenance.unwrap().place.line, Some(23));
        assert_eq!(
            Witness::of(&serde_json::json!({"op": "x", "provenance": {"kind": "a new kind"}})).provenance_kind(),
            ProvenanceKind::Other
        );
    }
}

#[cfg(test)]
mod followed_tests {
    use super::*;
    use serde_json::json;

    fn witness(tensor: &str, value: Value, bound: Value, predicate: &str, category: &str) -> Value {
        json!({"op": "x", "tensor": tensor, "bad": [{"value": value}], "bound": bound, "predicate": predicate, "category": category})
    }

    #[test]
    fn what_the_born_pass_follows() {
        let range = json!({"name": "range", "value": [0, 1]});
        // an index: by equality
        let w = witness("target", json!(7), json!({"name": "n_classes", "value": 5}), "0 <= t < n", "label_out_of_range");
        assert_eq!(born_followed(&w), Some((json!(7), None)));
        // a probability: by its range
        let w = witness("input", json!(1.25), range.clone(), "0 <= input <= 1", "probability_out_of_range");
        assert_eq!(born_followed(&w), Some((json!(1.25), Some(json!([0, 1])))));
        // a class index given as a 0/1 target: by equality, as an integer
        let w = witness("target", json!(3.0), range.clone(), "0 <= target <= 1", "probability_out_of_range");
        assert_eq!(born_followed(&w), Some((json!(3), None)));
        // a whole number as the input is still a probability out of range (2.0 = 1 + 1)
        let w = witness("input", json!(2.0), range, "0 <= input <= 1", "probability_out_of_range");
        assert_eq!(born_followed(&w), Some((json!(2.0), Some(json!([0, 1])))));
        // a negative probability for multinomial: no upper end; a row that sums to 0: nothing
        let w = witness("input", json!(-0.5), json!(null), "probabilities finite and >= 0", "invalid_distribution");
        assert_eq!(born_followed(&w), Some((json!(-0.5), Some(json!([0, null])))));
        let w = witness("input", json!(0.0), json!(null), "sum of each row's probabilities > 0", "invalid_distribution");
        assert_eq!(born_followed(&w), None);
    }
}
