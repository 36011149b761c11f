//! The value tracing through objects whose class is not written at the call: a factory whose
//! branches build different models, a method reached through `super()`, modules kept in a
//! `ModuleList` and run in a loop, a registry with no key known; and the op the log names
//! choosing which calls are traced.

mod common;

use common::tiered_suspects;

const RANK_MODELS: &str = r#"import torch
import torch.nn as nn


class Scorer(nn.Module):
    def __init__(self, n_in):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(n_in, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, feats):
        return torch.sigmoid(self.mlp(feats)).squeeze(-1)


class BiasedScorer(Scorer):
    def __init__(self, n_in, n_users):
        super().__init__(n_in)
        self.user_bias = nn.Embedding(n_users, 1)

    def bias(self, users):
        return self.user_bias(users).squeeze(-1)

    def forward(self, feats, users=None):
        return super().forward(feats) + self.bias(users)


def make_scorer(kind, n_in, n_users):
    if kind == "plain":
        return Scorer(n_in)
    return BiasedScorer(n_in, n_users)
"#;

const RANK_TRAIN: &str = r#"import sys

import torch
import torch.nn as nn

from rank_models import make_scorer


def fit(feats, users, clicked, kind):
    model = make_scorer(kind, feats.shape[1], int(users.max()) + 1)
    crit = nn.BCELoss()
    opt = torch.optim.Adam(model.parameters())
    for _ in range(3):
        p = model(feats, users)
        loss = crit(p, clicked)
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    fit(torch.randn(64, 8), torch.randint(0, 10, (64,)), torch.rand(64).round(), sys.argv[1])
"#;

/// The factory builds either model; the subclass adds a bias to its base's probabilities
/// (reached through `super().forward`), so what reaches `BCELoss` may leave [0, 1]: the sum is
/// the line to change.
#[test]
fn probabilities_plus_a_bias_in_one_branch_of_a_factory_name_the_sum() {
    let got = tiered_suspects(&[("rank_models.py", RANK_MODELS), ("train.py", RANK_TRAIN)], "bce_module_over1.async.log");
    assert_eq!(got.first().map(String::as_str), Some("rank_models.py:23 strong"), "{got:?}");
    // the sum taken before the sigmoid: probabilities in every branch
    let fixed = RANK_MODELS
        .replace("return torch.sigmoid(self.mlp(feats)).squeeze(-1)", "return torch.sigmoid(self.logit(feats))")
        .replace("return super().forward(feats) + self.bias(users)", "return torch.sigmoid(self.logit(feats) + self.bias(users))")
        .replace(
            "    def forward(self, feats):\n",
            "    def logit(self, feats):\n        return self.mlp(feats).squeeze(-1)\n\n    def forward(self, feats):\n",
        );
    let got = tiered_suspects(&[("rank_models.py", &fixed), ("train.py", RANK_TRAIN)], "bce_module_over1.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "every branch gives probabilities: {got:?}");
}

const GRAPH_LAYERS: &str = r#"import torch
import torch.nn as nn


def sum_into(values, at, rows):
    out = values.new_zeros((rows, values.shape[1]))
    return out.index_add_(0, at, values)


class Propagate(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.proj = nn.Linear(d_in, d_out)

    def forward(self, h, pairs):
        msgs = self.proj(h)[pairs[0]]
        return sum_into(msgs, pairs[1], h.shape[0])


class Stack(nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.hops = nn.ModuleList([Propagate(a, b) for a, b in zip(dims, dims[1:])])

    def forward(self, h, pairs):
        for hop in self.hops:
            h = torch.relu(hop(h, pairs))
        return h
"#;

const GRAPH_TRAIN: &str = r#"import pandas as pd
import torch
import torch.nn.functional as F

from layers import Stack

BUILDERS = {}


def builder(name):
    def put(cls):
        BUILDERS[name] = cls
        return cls
    return put


@builder("deep")
class DeepStack(Stack):
    pass


@builder("shallow")
class ShallowStack(Stack):
    pass


def load(folder):
    nodes = pd.read_csv(f"{folder}/nodes.csv")
    links = pd.read_csv(f"{folder}/links.csv")
    h = torch.tensor(nodes.drop(columns=["kind"]).to_numpy(), dtype=torch.float32)
    kind = torch.tensor(nodes["kind"].to_numpy())
    pairs = torch.tensor(links[["from_id", "to_id"]].to_numpy().T)
    return h, kind, pairs


def main(folder, arch):
    h, kind, pairs = load(folder)
    net = BUILDERS[arch]([h.shape[1], 32, 4])
    out = net(h, pairs)
    loss = F.cross_entropy(out, kind)
    loss.backward()
"#;

/// An `index_add_` assert: the scatter in the message passing is reached from the training
/// script through a registry of classes (no key known), a `ModuleList` run in a loop and a
/// helper function; the edge list is read as it is from a CSV the project does not hold. The
/// loss on the labels cannot fail an `index_add` kernel and is not traced.
#[test]
fn an_index_add_in_modules_run_from_a_list_reaches_the_edges_read_from_data() {
    let got = tiered_suspects(&[("layers.py", GRAPH_LAYERS), ("train.py", GRAPH_TRAIN)], "index_add_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("train.py:32 possible"), "{got:?}");
    assert!(!got.iter().any(|s| s.starts_with("train.py:31 ")), "the labels do not reach index_add: {got:?}");
}

const DEDUP: &str = r#"import torch


def pool_runs(logits, pad):
    preds = logits.argmax(-1)
    preds[pad] = -1
    out = []
    for row, p in zip(logits, preds):
        vals, where, counts = p.unique_consecutive(return_inverse=True, return_counts=True)
        pooled = row.new_zeros(len(vals), row.shape[-1])
        pooled.index_add_(0, where, row)
        out.append(pooled / counts.unsqueeze(-1))
    return out


if __name__ == "__main__":
    pool_runs(torch.randn(2, 9, 5), torch.zeros(2, 9, dtype=torch.bool))
"#;

/// `unique_consecutive(return_inverse=True)` gives positions into the unique values, never the
/// values: a marker among the values does not reach the scatter.
#[test]
fn the_inverse_of_unique_is_positions_not_the_marked_values() {
    let got = tiered_suspects(&[("pool.py", DEDUP)], "index_add_over.async.log");
    assert!(!got.iter().any(|s| s.starts_with("pool.py:6 ")), "the marker does not reach index_add: {got:?}");
}

const LINKS_IO: &str = r#"import csv

import torch


def read_links(path):
    with open(path, newline="") as fh:
        rows = [(int(rec["src"]), int(rec["dst"])) for rec in csv.DictReader(fh)]
    return torch.tensor(rows).t()


def symmetric(links):
    both = torch.cat([links, links.flip(0)], dim=1)
    return torch.unique(both, dim=1)


def random_split(n, frac):
    order = torch.randperm(n)
    return order[: int(frac * n)]
"#;

const LINKS_TRAIN: &str = r#"import torch

from links_io import random_split, read_links, symmetric


def smooth(h, links):
    left, right = links
    return h + h.index_select(0, left)[: h.shape[0]]


def main():
    h = torch.randn(100, 8)
    links = symmetric(read_links("links.csv"))
    keep = random_split(100, 0.8)
    out = smooth(h, links)
    print(out[keep].mean())
"#;

/// Edges read row by row with `csv.DictReader` from a file the project does not hold, turned
/// into a (2, E) tensor with `.t()`, made symmetric with `torch.cat` and `torch.unique(dim=1)`,
/// unpacked into two rows: the line that reads the ids is the origin. The project's own
/// `random_split` is its function, not torch's.
#[test]
fn ids_read_with_dictreader_and_transposed_reach_an_index_select() {
    let got = tiered_suspects(&[("links_io.py", LINKS_IO), ("train.py", LINKS_TRAIN)], "index_select_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("links_io.py:8 possible"), "{got:?}");
}

const BLEND_MODEL: &str = r#"import torch
import torch.nn as nn


class Blend(nn.Module):
    def __init__(self, dims, mix):
        super().__init__()
        self.heads = nn.ModuleList([nn.Linear(d, 1) for d in dims])
        self.register_buffer("mix", torch.tensor(mix))

    def forward(self, parts):
        each = torch.stack([torch.sigmoid(h(p)).squeeze(-1) for h, p in zip(self.heads, parts)])
        return (self.mix[:, None] * each).sum(0)
"#;

const BLEND_TRAIN: &str = r#"import torch
import torch.nn.functional as F

from blend import Blend


def step(model, parts, target):
    score = model(parts)
    return F.binary_cross_entropy(score, target)


if __name__ == "__main__":
    m = Blend([4, 6], [1.0, 0.5])
    step(m, [torch.randn(8, 4), torch.randn(8, 6)], torch.rand(8).round())
"#;

/// Probabilities of several heads blended with weights nothing normalizes: the weighted sum,
/// inside a larger expression, is the line that leaves [0, 1].
#[test]
fn a_weighted_sum_of_probabilities_names_the_blend() {
    let got = tiered_suspects(&[("blend.py", BLEND_MODEL), ("train.py", BLEND_TRAIN)], "bce_module_over1.async.log");
    assert_eq!(got.first().map(String::as_str), Some("blend.py:13 strong"), "{got:?}");
    // a mean of probabilities stays a probability
    let fixed = BLEND_MODEL.replace("(self.mix[:, None] * each).sum(0)", "each.mean(0)");
    let got = tiered_suspects(&[("blend.py", &fixed), ("train.py", BLEND_TRAIN)], "bce_module_over1.async.log");
    assert!(!got.iter().any(|s| s.starts_with("blend.py:13 ")), "{got:?}");
}

const TOK: &str = r#"class Tok:
    def __init__(self, words):
        self.vocab = {w: i + 2 for i, w in enumerate(sorted(set(words)))}

    def encode(self, text, limit):
        ids = [self.vocab.get(w, 1) for w in text.split()]
        ids = ids[:limit]
        return [0] + ids + [0]
"#;

const TOK_TRAIN: &str = r#"import argparse
import json

import torch
import torch.nn as nn

from tok import Tok


class Net(nn.Module):
    def __init__(self, vocab, width, span):
        super().__init__()
        self.words = nn.Embedding(vocab, width)
        self.where = nn.Embedding(span, width)

    def forward(self, ids):
        at = torch.arange(ids.shape[1])
        return self.words(ids) + self.where(at)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", required=True)
    opts = ap.parse_args()
    with open(opts.settings) as fh:
        conf = json.load(fh)
    texts = ["a b c d e f g h i j k l"] * 4
    tok = Tok(" ".join(texts).split())
    net = Net(64, 8, conf["model"]["span"])
    for t in texts:
        ids = torch.tensor([tok.encode(t, conf["data"]["limit"])])
        net(ids)


if __name__ == "__main__":
    main()
"#;

const TOK_RUN: &str = "#!/bin/sh\nset -e\ncd \"$(dirname \"$0\")\"\npython3 train.py --settings conf/base.json\n";

const TOK_CONF: &str = r#"{
  "model": {"span": 10},
  "data": {"limit": 10}
}
"#;

/// The settings file is named only by the project's run script (`--settings conf/base.json`,
/// a flag with no default): its numbers are read, and the cut that fills the position table
/// before two ids are added is the line to change.
#[test]
fn a_config_named_by_the_run_script_gives_the_bounds() {
    let files = [("tok.py", TOK), ("train.py", TOK_TRAIN), ("run.sh", TOK_RUN), ("conf/base.json", TOK_CONF)];
    let got = tiered_suspects(&files, "embedding_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("tok.py:7 strong"), "{got:?}");
    // without the script the settings file is not known, and nothing is proven
    let got = tiered_suspects(&files[..2], "embedding_over.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "{got:?}");
}

const KEYED_BATCHING: &str = r#"import torch

PAD = 0
IGNORE = -100


def collate(items, device):
    B = len(items)
    L = max(len(x["chars"]) for x in items)
    t = {
        "chars": torch.full((B, L), PAD, dtype=torch.long),
        "tags": torch.full((B, L), IGNORE, dtype=torch.long),
        "mask": torch.zeros(B, L, dtype=torch.bool),
    }
    for b, x in enumerate(items):
        n = len(x["chars"])
        for key in ("chars", "tags"):
            t[key][b, :n] = torch.tensor(x[key])
        t["mask"][b, :n] = True
    return {k: v.to(device) for k, v in t.items()}


def batches(data, size, device):
    for i in range(0, len(data), size):
        yield collate(data[i:i + size], device)
"#;

const KEYED_TAGGER: &str = r#"import torch.nn as nn
import torch.nn.functional as F


class Tagger(nn.Module):
    def __init__(self, n_chars, n_tags):
        super().__init__()
        self.emb = nn.Embedding(n_chars, 16, padding_idx=0)
        self.out = nn.Linear(16, n_tags)

    def forward(self, batch):
        return self.out(self.emb(batch["chars"]))


def tag_loss(logits, batch):
    return F.cross_entropy(logits.flatten(0, 1), batch["tags"].flatten(), ignore_index=-100)
"#;

const KEYED_TRAIN: &str = r#"import torch

from batching import batches
from tagger import Tagger, tag_loss


def encode(sentences, chars, tags):
    return [{"chars": [chars[c] for c in s["text"]], "tags": [tags[t] for t in s["tags"]]} for s in sentences]


def main(sentences, device="cpu"):
    chars = {c: i + 1 for i, c in enumerate(sorted({c for s in sentences for c in s["text"]}))}
    tags = {t: i for i, t in enumerate(sorted({t for s in sentences for t in s["tags"]}))}
    data = encode(sentences, chars, tags)
    model = Tagger(len(chars) + 1, len(tags)).to(device)
    opt = torch.optim.Adam(model.parameters())
    for batch in batches(data, 16, device):
        loss = tag_loss(model(batch), batch)
        opt.zero_grad()
        loss.backward()
        opt.step()
"#;

/// A batch built as a dict of buffers (characters padded with 0, tags with the marker -100)
/// whose fields a loop over their keys fills (`for key in ("chars", "tags"): t[key][b, :n] = …`)
/// and a comprehension moves to the device: the embedding of the characters is traced through
/// the characters' field only, the tags' marker (skipped by the loss) is not in it; written
/// into the characters' buffer, it is found, strong.
#[test]
fn a_field_filled_by_a_loop_over_keys_is_traced_only_where_it_is_used() {
    let files = [("batching.py", KEYED_BATCHING), ("tagger.py", KEYED_TAGGER), ("train.py", KEYED_TRAIN)];
    let got = tiered_suspects(&files, "embedding_over.async.log");
    assert!(!got.iter().any(|s| s.starts_with("batching.py:4 ") || s.starts_with("batching.py:12 ")), "{got:?}");
    let marked = KEYED_BATCHING.replace("\"chars\": torch.full((B, L), PAD", "\"chars\": torch.full((B, L), IGNORE");
    let got =
        tiered_suspects(&[("batching.py", &marked), ("tagger.py", KEYED_TAGGER), ("train.py", KEYED_TRAIN)], "embedding_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("batching.py:4 strong"), "{got:?}");
}

const LEXICON: &str = r#"from collections import Counter


class Lexicon:
    def __init__(self):
        self.index = {}
        self.words = []

    def intern(self, word):
        if word not in self.index:
            self.words.append(word)
            self.index[word] = len(self.words)
        return self.index[word]

    def __len__(self):
        return len(self.words)


def build(lines, min_count=1):
    lex = Lexicon()
    counts = Counter(w for line in lines for w in line.split())
    for w, c in counts.most_common():
        if c >= min_count:
            lex.intern(w)
    return lex
"#;

const LEXICON_TRAIN: &str = r#"import torch
import torch.nn as nn

from lexicon import build


class NextWord(nn.Module):
    def __init__(self, vocab_size, dim=32):
        super().__init__()
        self.emb = nn.Embedding(vocab_size + 1, dim)
        self.proj = nn.Linear(dim, vocab_size)

    def forward(self, prev):
        return self.proj(self.emb(prev))


def pairs(lines, lex):
    out = []
    for line in lines:
        ids = [lex.intern(w) for w in line.split()]
        out.extend(zip(ids[:-1], ids[1:]))
    return out


def train(lines):
    lex = build(lines)
    model = NextWord(len(lex))
    data = torch.tensor(pairs(lines, lex))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    for step in range(0, len(data), 32):
        chunk = data[step:step + 32]
        loss = loss_fn(model(chunk[:, 0]), chunk[:, 1])
        opt.zero_grad()
        loss.backward()
        opt.step()
"#;

/// A class that numbers words as it meets them (`self.words.append(w)` and then `self.index[w]
/// = len(self.words)`, a dict filled in a method of its own) and a head sized by `len(lex)`,
/// which its `__len__` answers: the ids run from 1 to the number of words, the head holds one
/// fewer; the numbering line is found, strong. Numbered before the append, the ids fit and
/// nothing is proven.
#[test]
fn ids_numbered_as_a_class_grows_a_list_are_compared_with_its_length() {
    let files = [("lexicon.py", LEXICON), ("train.py", LEXICON_TRAIN)];
    let got = tiered_suspects(&files, "ce_1d_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("lexicon.py:12 strong"), "{got:?}");
    let before = LEXICON.replace(
        "            self.words.append(word)\n            self.index[word] = len(self.words)\n",
        "            self.index[word] = len(self.words)\n            self.words.append(word)\n",
    );
    assert_ne!(before, LEXICON);
    let got = tiered_suspects(&[("lexicon.py", &before), ("train.py", LEXICON_TRAIN)], "ce_1d_over.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "{got:?}");
}

const SEASON_SETTINGS: &str = r#"{
  "hidden": 32,
  "heads": {
    "site": 3,
    "season": 3
  },
  "lr": 0.01
}
"#;

const SEASON_NET: &str = r#"import torch
import torch.nn as nn


class MultiHead(nn.Module):
    def __init__(self, n_in, cfg):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_in, cfg["hidden"]), nn.ReLU())
        heads = cfg["heads"]
        self.site_head = nn.Linear(cfg["hidden"], heads["site"])
        self.season_head = nn.Linear(cfg["hidden"], heads["season"])
        self.noise_head = nn.Linear(cfg["hidden"], n_in)

    def forward(self, x):
        h = self.body(x)
        return {
            "site": self.site_head(h),
            "season": self.season_head(h),
            "noise": self.noise_head(h),
        }
"#;

const SEASON_TRAIN: &str = r#"import json

import torch
import torch.nn.functional as F

from net import MultiHead


SEASONS = ["dry", "early_wet", "wet", "late_wet"]
SEASON_ID = {name: i for i, name in enumerate(SEASONS)}


def make_batch(n, n_in):
    x = torch.randn(n, n_in)
    site = torch.randint(0, 3, (n,))
    names = [SEASONS[i % len(SEASONS)] for i in range(n)]
    season = torch.tensor([SEASON_ID[s] for s in names])
    return x, site, season


def main():
    with open("settings.json") as fh:
        cfg = json.load(fh)
    model = MultiHead(16, cfg)
    opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"])
    for step in range(5):
        x, site, season = make_batch(64, 16)
        out = model(x)
        loss = F.cross_entropy(out["site"], site) + F.cross_entropy(out["season"], season)
        loss = loss + F.mse_loss(out["noise"], x)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(step, loss.item())


if __name__ == "__main__":
    main()
"#;

/// A model whose `forward` returns a dict of heads (`{"site": …, "season": …, "noise": …}`) and a
/// loss on one entry (`out["season"]`): the bound is the head that entry holds, sized by a config
/// key, not the last head the constructor builds (the noise head, as wide as the input). Real
/// CPU log of this program (PyPI torch).
#[test]
fn the_head_of_a_returned_dict_entry_is_the_entry_the_loss_reads() {
    let files = [("settings.json", SEASON_SETTINGS), ("net.py", SEASON_NET), ("train.py", SEASON_TRAIN)];
    let (got, all) = common::cpu_run_suspects(&files, "season_head_dict.log");
    assert_eq!(got.first().map(String::as_str), Some("settings.json:5"), "{got:?}");
    assert_eq!(all[0]["tier"], "strong", "{all:?}");
    // (the same heads filled into a dict entry by entry)
    let filled = SEASON_NET.replace(
        "        return {\n            \"site\": self.site_head(h),\n            \"season\": self.season_head(h),\n            \"noise\": self.noise_head(h),\n        }\n",
        "        out = {}\n        out[\"site\"] = self.site_head(h)\n        out[\"season\"] = self.season_head(h)\n        out[\"noise\"] = self.noise_head(h)\n        return out\n",
    );
    assert_ne!(filled, SEASON_NET);
    let (got, _) = common::cpu_run_suspects(
        &[("settings.json", SEASON_SETTINGS), ("net.py", &filled), ("train.py", SEASON_TRAIN)],
        "season_head_dict.log",
    );
    assert_eq!(got.first().map(String::as_str), Some("settings.json:5"), "{got:?}");
}

const ANGLE_SCORERS: &str = r#"import torch
import torch.nn as nn
import torch.nn.functional as F

SCORERS = {}


def scorer(name):
    def add(cls):
        SCORERS[name] = cls
        return cls
    return add


class Towers(nn.Module):
    def __init__(self, n_in, dim):
        super().__init__()
        self.left = nn.Linear(n_in, dim)
        self.right = nn.Linear(n_in, dim)


@scorer("bilinear")
class BilinearScorer(Towers):
    def forward(self, a, b):
        return torch.sigmoid((self.left(a) * self.right(b)).sum(-1))


@scorer("angle")
class AngleScorer(Towers):
    def forward(self, a, b):
        return F.cosine_similarity(self.left(a), self.right(b), dim=-1)
"#;

const ANGLE_FIT: &str = r#"import argparse

import torch
import torch.nn as nn

from scorers import SCORERS


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--scorer", default="bilinear")
    p.add_argument("--steps", type=int, default=3)
    return p.parse_args()


def main():
    opts = parse()
    net = SCORERS[opts.scorer](10, 8)
    crit = nn.BCELoss()
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    for step in range(opts.steps):
        a, b = torch.randn(32, 10), torch.randn(32, 10)
        y = (torch.rand(32) > 0.5).float()
        p = net(a, b)
        loss = crit(p, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(step, loss.item())


if __name__ == "__main__":
    main()
"#;

const ANGLE_RUN: &str = r#"#!/bin/bash
set -e
cd "$(dirname "$0")"
python3 fit.py --scorer angle --steps 5
"#;

/// A registry filled by a decorator (`@scorer("angle")`), the class picked by a flag whose
/// default names another one (`--scorer` defaults to `bilinear`) while the run script passes
/// `--scorer angle`: the class run is the one registered under `angle`, and its cosine
/// similarity (values in [-1, 1]) is what reaches the `BCELoss`. Without the run script the
/// default's class (a sigmoid) is traced and nothing is blamed on the cosine. Real CPU log of
/// this program run by its script (PyPI torch).
#[test]
fn the_run_script_flag_picks_the_registered_class_and_a_cosine_is_no_probability() {
    let files = [("scorers.py", ANGLE_SCORERS), ("fit.py", ANGLE_FIT), ("run.sh", ANGLE_RUN)];
    let (got, all) = common::cpu_run_suspects(&files, "angle_scorer_flag.log");
    assert_eq!(got.first().map(String::as_str), Some("scorers.py:31"), "{got:?}");
    assert_eq!(all[0]["tier"], "strong", "{all:?}");
    let (got, _) = common::cpu_run_suspects(&[("scorers.py", ANGLE_SCORERS), ("fit.py", ANGLE_FIT)], "angle_scorer_flag.log");
    assert!(!got.iter().any(|s| s == "scorers.py:31"), "{got:?}");
}

const STATION_DATA: &str = r#"import random


def load_rows(n, seed=0):
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        rows.append({
            "station": rng.choice([3, 7, 8, 12, 15, 21]),
            "tags": [rng.randint(1, 5) for _ in range(rng.randint(1, 4))],
        })
    return rows


def sizes(rows):
    stations = {r["station"] for r in rows}
    return {"stations": len(stations), "tags": 6}
"#;

const STATION_MODEL: &str = r#"import torch
import torch.nn as nn


def pooled(table, ids):
    keep = (ids > 0).float().unsqueeze(-1)
    return (table(ids) * keep).sum(1) / keep.sum(1).clamp_min(1.0)


class Encoder(nn.Module):
    def __init__(self, station_table, tag_table, dim):
        super().__init__()
        self.station_table, self.tag_table = station_table, tag_table
        self.out = nn.Linear(2 * dim, 1)

    def forward(self, station, tags):
        h = torch.cat([self.station_table(station), pooled(self.tag_table, tags)], dim=-1)
        return self.out(h).squeeze(-1)


def build(table_sizes, dim=8):
    stations = nn.Embedding(table_sizes["stations"], dim)
    tags = nn.Embedding(table_sizes["tags"], dim, padding_idx=0)
    return Encoder(stations, tags, dim)
"#;

const STATION_MAIN: &str = r#"import torch

from data import load_rows, sizes
from model import build


def batches(rows, size):
    for i in range(0, len(rows), size):
        chunk = rows[i:i + size]
        width = max(len(r["tags"]) for r in chunk)
        tags = torch.zeros(len(chunk), width, dtype=torch.long)
        for j, r in enumerate(chunk):
            tags[j, :len(r["tags"])] = torch.tensor(r["tags"])
        yield torch.tensor([r["station"] for r in chunk]), tags


def main():
    rows = load_rows(200)
    net = build(sizes(rows))
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    for station, tags in batches(rows, 32):
        loss = net(station, tags).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
"#;

/// Two tables built in a factory, handed to a module's constructor and kept with one tuple
/// assignment (`self.station_table, self.tag_table = station_table, tag_table`); the innermost
/// frame of the CPU's traceback is the line that looks up the station table and also calls a
/// helper that looks up the tag table. The traceback ends at the failing call, so the helper
/// (which would have a frame of its own) is not where it failed: the station table's size (a
/// count of distinct station codes) is the line, not the tag table's. Real CPU log of this
/// program (PyPI torch).
#[test]
fn a_table_kept_by_a_tuple_assignment_is_found_and_an_exact_traceback_skips_helpers() {
    let files = [("data.py", STATION_DATA), ("model.py", STATION_MODEL), ("main.py", STATION_MAIN)];
    let (got, _) = common::cpu_run_suspects(&files, "station_table_shared.log");
    assert_eq!(got.first().map(String::as_str), Some("data.py:17"), "{got:?}");
    assert!(!got.iter().any(|s| s.starts_with("model.py:7")), "{got:?}");
}

const LEGEND_CODES: &str = r#"import csv


class Legend:
    def __init__(self, path):
        self.code_to_name = {}
        with open(path, newline="") as fh:
            for row in csv.DictReader(fh):
                code = int(row["code"])
                self.code_to_name[code] = row["name"]
        self.name_to_code = {name: code for code, name in self.code_to_name.items()}

    def __len__(self):
        return len(self.code_to_name)

    def encode(self, name):
        return self.name_to_code[name]
"#;

const LEGEND_FIT: &str = r#"import csv
import random

import torch
import torch.nn as nn

from codes import Legend


def write_legend(path):
    rows = [(0, "water"), (1, "forest"), (2, "crop"), (4, "urban"), (5, "bare")]
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["code", "name"])
        w.writerows(rows)


def main():
    write_legend("legend.csv")
    legend = Legend("legend.csv")
    names = ["water", "forest", "crop", "urban", "bare"]
    rng = random.Random(0)
    labels = [legend.encode(rng.choice(names)) for _ in range(64)]
    y = torch.tensor(labels)
    x = torch.randn(64, 6)
    head = nn.Linear(6, len(legend))
    loss = nn.functional.cross_entropy(head(x), y)
    loss.backward()
    print(loss.item())


if __name__ == "__main__":
    main()
"#;

/// A dict filled key by key (`self.code_to_name[code] = row["name"]`, the codes read from a
/// column) and inverted (`{name: code for code, name in ….items()}`): the ids the loss gets are
/// the first dict's keys, so the column they were read from is on their chain (the codes skip
/// 3; the head counts the entries). Real CPU log of this program (PyPI torch).
#[test]
fn the_keys_a_dict_is_filled_at_are_traced_where_they_become_values() {
    let files = [("codes.py", LEGEND_CODES), ("fit.py", LEGEND_FIT)];
    let (got, _) = common::cpu_run_suspects(&files, "legend_codes_inverted.log");
    assert!(got.iter().any(|s| s == "codes.py:9"), "{got:?}");
}

const CLICK_HEADS: &str = r#"import torch.nn as nn


def mlp(sizes, out_act=None):
    mods = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        mods.append(nn.Linear(a, b))
        mods.append(nn.GELU())
    mods.pop()
    if out_act is not None:
        mods.append(out_act)
    return nn.Sequential(*mods)
"#;

const CLICK_MODEL: &str = r#"import torch.nn as nn

from heads import mlp


class ClickModel(nn.Module):
    def __init__(self, n_feat):
        super().__init__()
        self.trunk = mlp([n_feat, 32, 16])
        self.click = mlp([16, 8, 1], out_act=nn.Hardtanh())

    def forward(self, x):
        return self.click(self.trunk(x)).squeeze(-1)
"#;

const CLICK_TRAIN: &str = r#"import torch
import torch.nn as nn

from model import ClickModel

torch.manual_seed(0)
x = torch.randn(256, 12)
y = (x[:, 0] > 0).float()
net = ClickModel(12)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
bce = nn.BCELoss()
for step in range(20):
    idx = torch.randint(0, 256, (32,))
    p = net(x[idx])
    loss = bce(p, y[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
print("done", loss.item())
"#;

/// A head built by a function of the project's own that appends the squashing layer it is given
/// (`mlp([16, 8, 1], out_act=nn.Hardtanh())`): its values lie in [-1, 1], and `nn.BCELoss`
/// takes them. The line that builds the head with that layer is the suspect beside the loss
/// (either may be the one to change), above the forward's call of the head. Real CPU log of
/// this program (PyPI torch).
#[test]
fn a_head_a_factory_ends_in_a_signed_squash_is_where_the_range_is_chosen() {
    let files = [("heads.py", CLICK_HEADS), ("model.py", CLICK_MODEL), ("train.py", CLICK_TRAIN)];
    let (got, all) = common::cpu_run_suspects(&files, "head_factory_signed_squash.log");
    assert_eq!(got.get(..2), Some(&["train.py:11".to_string(), "model.py:10".to_string()][..]), "{got:?}");
    let why = all[1]["message"].as_str().unwrap();
    assert!(why.contains("Hardtanh"), "{why}");
}

const TWO_TASK: &str = r#"import torch
import torch.nn as nn
import torch.nn.functional as F


class TwoTask(nn.Module):
    """Predicts whether a mail is opened and whether it is replied to."""

    def __init__(self, d):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d, 32), nn.ReLU())
        self.p_open = nn.Sequential(nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, 1), nn.Sigmoid())
        self.p_reply = nn.Sequential(nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, x):
        h = self.enc(x)
        return self.p_open(h).squeeze(1), self.p_reply(h).squeeze(1)


def joint_loss(out, opened, replied):
    po, pr = out
    return F.binary_cross_entropy(po, opened) + 0.5 * F.binary_cross_entropy(pr, replied)


def main():
    g = torch.Generator().manual_seed(3)
    feats = torch.randn(500, 20, generator=g)
    opened = (feats[:, 1] > 0).float()
    replied = opened * (feats[:, 2] > 0.5).float()
    model = TwoTask(20)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(3):
        for i in range(0, 500, 50):
            loss = joint_loss(model(feats[i:i + 50]), opened[i:i + 50], replied[i:i + 50])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(epoch, loss.item())


if __name__ == "__main__":
    main()
"#;

/// Two heads built the same way (`nn.Sequential` of the same layers), one ending in a sigmoid and
/// one without: the second's raw scores reach `F.binary_cross_entropy`. The line that builds it
/// is the suspect, above the loss and the call that hands the scores on. Real CPU log of this
/// program (PyPI torch).
#[test]
fn a_head_built_as_its_sibling_is_but_without_the_sigmoid_is_the_suspect() {
    let files = [("nets.py", TWO_TASK)];
    let (got, all) = common::cpu_run_suspects(&files, "sibling_head_without_sigmoid.log");
    assert_eq!(got.first().map(String::as_str), Some("nets.py:13"), "{got:?}");
    let why = all[0]["message"].as_str().unwrap();
    assert!(why.contains("self.p_open"), "{why}");
    assert!(got.iter().any(|g| g == "nets.py:22"), "the loss stays a suspect: {got:?}");
}

const ONSET_NET: &str = r#"import torch
import torch.nn as nn
import torch.nn.functional as F


class OnsetNet(nn.Module):
    """Frame-wise onset probabilities, with a coarse auxiliary prediction for deep supervision."""

    def __init__(self, n_mels=40, width=32):
        super().__init__()
        self.enc1 = nn.Conv1d(n_mels, width, 5, padding=2)
        self.enc2 = nn.Conv1d(width, width, 5, padding=2, stride=2)
        self.out = nn.Conv1d(width, 1, 1)
        self.coarse = nn.Conv1d(width, 1, 1)

    def forward(self, spec):
        h1 = F.relu(self.enc1(spec))
        h2 = F.relu(self.enc2(h1))
        fine = torch.sigmoid(self.out(h1))
        coarse = F.interpolate(self.coarse(h2), size=spec.shape[-1], mode="linear", align_corners=False)
        return [fine, coarse]


def supervised_loss(preds, onsets, weights=(1.0, 0.4)):
    return sum(w * F.binary_cross_entropy(p.squeeze(1), onsets) for w, p in zip(weights, preds))


def main():
    torch.manual_seed(1)
    spec = torch.randn(16, 40, 100)
    onsets = (torch.rand(16, 100) < 0.1).float()
    net = OnsetNet()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    for step in range(10):
        loss = supervised_loss(net(spec), onsets)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("loss", loss.item())


if __name__ == "__main__":
    main()
"#;

/// A model returns a sigmoid's probabilities beside a second head's scores, resampled
/// (`F.interpolate`) and left without the sigmoid, and one loss takes both in turn (deep
/// supervision): the line that calls the second head is the suspect, above the loss. Real CPU
/// log of this program (PyPI torch).
#[test]
fn raw_scores_returned_beside_probabilities_point_at_their_head() {
    let files = [("seg1d.py", ONSET_NET)];
    let (got, all) = common::cpu_run_suspects(&files, "joined_head_without_sigmoid.log");
    assert_eq!(got.first().map(String::as_str), Some("seg1d.py:20"), "{got:?}");
    let why = all[0]["message"].as_str().unwrap();
    assert!(why.contains("self.coarse"), "{why}");
}

/// The same model returning its two outputs as a tuple (`return fine, coarse`): iterating the
/// tuple gives each of its items in turn, the second head's scores among them. Real CPU log of
/// this program (PyPI torch).
#[test]
fn a_tuple_iterated_gives_each_of_its_items() {
    let files = [("seg1d.py", ONSET_NET.replace("return [fine, coarse]", "return fine, coarse"))];
    let files = files.each_ref().map(|(n, c)| (*n, c.as_str()));
    let (got, _) = common::cpu_run_suspects(&files, "joined_tuple_head_without_sigmoid.log");
    assert_eq!(got.first().map(String::as_str), Some("seg1d.py:20"), "{got:?}");
}
