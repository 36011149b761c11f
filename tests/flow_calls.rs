//! The value tracing across calls that do not name their callee, as a user meets them: a real
//! H200 log of the kernel assert, a project of three files, and the line that made the bound
//! reachable only through a registry, a subclass's constructor, `**kwargs` or a comprehension;
//! and a mask applied after the op it should have guarded.

mod common;

use common::tiered_suspects;

const REG_MODELS: &str = r#"import torch.nn as nn

REGISTRY = {}


def register(key):
    def deco(cls):
        REGISTRY[key] = cls
        return cls
    return deco


class Classifier(nn.Module):
    def __init__(self, width, n_out):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, width), nn.GELU())
        self.out = nn.Linear(width, n_out)

    def forward(self, x):
        return self.out(self.body(x))


@register("wide")
class WideClassifier(Classifier):
    def __init__(self, n_out, **extra):
        super().__init__(256, n_out)


def create(key, **kwargs):
    return REGISTRY[key](**kwargs)
"#;

const REG_DATA: &str = r#"import torch
from torch.utils.data import Dataset


class Events(Dataset):
    def __init__(self, records):
        kinds = sorted({r["kind"] for r in records})
        self.kinds = kinds
        self.x = torch.randn(len(records), 16)
        self.y = torch.tensor([kinds.index(r["kind"]) for r in records])

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]
"#;

const REG_TRAIN: &str = r#"import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from data import Events
from models import create


def run(records):
    ds = Events(records)
    net = create("wide", n_out=len(ds.kinds) - 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for xb, yb in DataLoader(ds, batch_size=8, shuffle=True):
        loss = F.cross_entropy(net(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
"#;

/// The head is sized in the training script (`n_out=len(ds.kinds) - 1`) and reaches the layer
/// through a factory's `**kwargs`, a registry a decorator fills, and the subclass's
/// `super().__init__`; the labels are positions in the same sorted set of kinds.
#[test]
fn a_head_sized_through_a_registry_names_the_call_that_sized_it() {
    let files = [("models.py", REG_MODELS), ("data.py", REG_DATA), ("train.py", REG_TRAIN)];
    let got = tiered_suspects(&files, "ce_1d_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("train.py:11 strong"), "{got:?}");
    let fixed = REG_TRAIN.replace("len(ds.kinds) - 1", "len(ds.kinds)");
    let got = tiered_suspects(&[("models.py", REG_MODELS), ("data.py", REG_DATA), ("train.py", &fixed)], "ce_1d_over.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "the fixed head fits the labels: {got:?}");
}

const CMP_LAYERS: &str = r#"import torch
import torch.nn as nn


class FieldEmbeddings(nn.Module):
    def __init__(self, sizes, dim=8):
        super().__init__()
        self.tables = nn.ModuleList(nn.Embedding(n, dim) for n in sizes)
        self.proj = nn.Linear(dim * len(sizes), 1)

    def forward(self, codes):
        parts = [table(codes[:, k]) for k, table in enumerate(self.tables)]
        return self.proj(torch.cat(parts, dim=1)).squeeze(1)


class ClickModel(FieldEmbeddings):
    pass
"#;

const CMP_ENCODE: &str = r#"def fit_maps(columns):
    return [{v: i for i, v in enumerate(sorted(set(col)))} for col in columns]


def table_sizes(maps):
    return [max(m.values()) for m in maps]


def encode(rows, maps):
    return [[m[v] for v, m in zip(row, maps)] for row in rows]
"#;

const CMP_TRAIN: &str = r#"import torch
import torch.nn.functional as F

from encode import encode, fit_maps, table_sizes
from layers import ClickModel


def train(rows, clicks):
    columns = list(zip(*rows))
    maps = fit_maps(columns)
    model = ClickModel(table_sizes(maps))
    x = torch.tensor(encode(rows, maps))
    y = torch.tensor(clicks, dtype=torch.float32)
    opt = torch.optim.Adam(model.parameters())
    for start in range(0, len(x), 64):
        loss = F.binary_cross_entropy_with_logits(model(x[start:start + 64]), y[start:start + 64])
        opt.zero_grad()
        loss.backward()
        opt.step()
"#;

/// Each field's table is built in a generator over the sizes (`nn.Embedding(n, dim) for n in
/// sizes`) by a base class the model only inherits from; the sizes are the largest code of
/// each field instead of the count (count against max).
#[test]
fn a_table_sized_in_a_comprehension_of_an_inherited_constructor_names_the_size() {
    let files = [("layers.py", CMP_LAYERS), ("encode.py", CMP_ENCODE), ("train.py", CMP_TRAIN)];
    let got = tiered_suspects(&files, "embedding_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("encode.py:6 strong"), "{got:?}");
    let fixed = CMP_ENCODE.replace("max(m.values())", "len(m)");
    let got = tiered_suspects(&[("layers.py", CMP_LAYERS), ("encode.py", &fixed), ("train.py", CMP_TRAIN)], "embedding_over.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "the fixed tables fit the codes: {got:?}");
}

const LATE_LOSS: &str = r#"import torch
import torch.nn.functional as F

UNLABELED = -1


def smoothed_nll(logits, target, eps=0.1, skip=UNLABELED):
    logp = F.log_softmax(logits, dim=-1)
    picked = logp.gather(-1, target[:, None]).squeeze(-1)
    loss = -(1 - eps) * picked - eps * logp.mean(-1)
    keep = target != skip
    return loss[keep].mean()
"#;

const LATE_ROWS: &str = r#"import torch
from torch.utils.data import Dataset

UNLABELED = -1


class Reviews(Dataset):
    def __init__(self, texts, stars, names):
        self.x = torch.randn(len(texts), 32)
        self.y = [names.index(s) if s in names else UNLABELED for s in stars]

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]
"#;

const LATE_FIT: &str = r#"import torch
from torch import nn
from torch.utils.data import DataLoader

from losses import smoothed_nll
from rows import Reviews


def fit(texts, stars, names):
    data = DataLoader(Reviews(texts, stars, names), batch_size=16)
    head = nn.Linear(32, len(names))
    opt = torch.optim.AdamW(head.parameters())
    for x, y in data:
        loss = smoothed_nll(head(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
"#;

/// Unlabelled rows carry the marker -1 on purpose; the loss gathers at the targets and only
/// then masks the marker out: the gather is the line to fix. When the comparison after the op
/// is a metric (not against the marker), the marker's line stays first.
#[test]
fn a_mask_after_the_gather_names_the_gather() {
    let files = [("losses.py", LATE_LOSS), ("rows.py", LATE_ROWS), ("fit.py", LATE_FIT)];
    let got = tiered_suspects(&files, "gather_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("losses.py:9 strong"), "{got:?}");
    let metric = LATE_LOSS.replace(
        "keep = target != skip\n    return loss[keep].mean()",
        "hits = logits.argmax(-1) == target\n    return loss.mean() + 0 * hits.float().mean()",
    );
    assert_ne!(metric, LATE_LOSS);
    let got = tiered_suspects(&[("losses.py", &metric), ("rows.py", LATE_ROWS), ("fit.py", LATE_FIT)], "gather_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("rows.py:4 strong"), "{got:?}");
}

const FN_LOADERS: &str = r#"import torch
from torch.utils.data import Dataset


class Pairs(Dataset):
    def __init__(self, feats, targets):
        self.feats = feats
        self.targets = targets

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, i):
        return self.feats[i], self.targets[i]


def tabular(rows, labels):
    names = sorted(set(labels))
    targets = torch.tensor([names.index(l) + 1 for l in labels])
    return Pairs(torch.tensor(rows, dtype=torch.float32), targets), len(names)


BUILDERS = {"tabular": tabular}
"#;

const FN_TRAIN: &str = r#"import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from loaders import BUILDERS


def evaluate(model, loader):
    total = 0.0
    with torch.no_grad():
        for xb, yb in loader:
            total += F.cross_entropy(model(xb), yb).item()
    return {"val_loss": total / len(loader)}


def main(kind, rows, labels):
    ds, n_classes = BUILDERS[kind](rows, labels)
    model = nn.Linear(len(rows[0]), n_classes)
    history = []
    for epoch in range(3):
        history.append({"epoch": epoch, **evaluate(model, DataLoader(ds, batch_size=32))})
    return history
"#;

/// The only loss call is in a function whose one caller splats its result into a dict display
/// (`{"epoch": e, **evaluate(…)}`), and the dataset comes from a dict of builder functions
/// (`BUILDERS[kind](…)`): the targets are shifted by one in the builder.
#[test]
fn a_dataset_from_a_registry_of_functions_reaches_a_loss_called_in_a_dict_splat() {
    let got = tiered_suspects(&[("loaders.py", FN_LOADERS), ("train.py", FN_TRAIN)], "ce_1d_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("loaders.py:19 strong"), "{got:?}");
    let fixed = FN_LOADERS.replace("names.index(l) + 1", "names.index(l)");
    let got = tiered_suspects(&[("loaders.py", &fixed), ("train.py", FN_TRAIN)], "ce_1d_over.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "the fixed targets fit the head: {got:?}");
}

const TWO_FITS: &str = r#"import csv

import torch
import torch.nn as nn
import torch.nn.functional as F


class Kinds:
    def __init__(self):
        self.kinds = None
        self.lookup = {}

    def fit(self, values):
        self.kinds = sorted(set(values))
        self.lookup = {k: i for i, k in enumerate(self.kinds)}
        return self

    def transform(self, values):
        return torch.tensor([self.lookup[v] for v in values])


class Clock:
    def fit(self, values):
        self.start = min(values)
        return self


class Features:
    def __init__(self):
        self.kinds = Kinds()
        self.clock = Clock()

    def fit(self, rows):
        self.kinds.fit([r["kind"] for r in rows])
        self.clock.fit([int(r["ts"]) for r in rows])
        return self


def train(x):
    with open("events.csv") as f:
        rows = list(csv.DictReader(f))
    feats = Features().fit(rows)
    head = nn.Linear(8, 3)
    return F.cross_entropy(head(x), feats.kinds.transform([r["kind"] for r in rows]))
"#;

const TWO_FITS_DATA: &str = "kind,ts\na,1703000036\nb,1703000100\nc,1703000200\nd,1704043222\n";

#[test]
fn a_method_called_on_a_field_built_as_another_class_is_not_a_call_of_this_one() {
    // `self.clock.fit(…)` runs `Clock.fit`, not `Kinds.fit`: the timestamps it gets are not
    // the kinds the loss takes, and are not blamed
    let got = tiered_suspects(&[("feats.py", TWO_FITS), ("events.csv", TWO_FITS_DATA)], "ce_1d_over.async.log");
    assert!(!got.iter().any(|s| s.starts_with("feats.py:35")), "{got:?}");
    assert!(!got.is_empty(), "{got:?}");
}

const TT_CATALOG: &str = r#"import csv
import random

N_USERS = 300
SHELVES = 25
PER_SHELF = 20
N_ITEMS = SHELVES * PER_SHELF


def write_sessions(path, rows=2000, seed=3):
    rnd = random.Random(seed)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["user", "shelf", "slot"])
        for _ in range(rows):
            w.writerow([rnd.randrange(N_USERS), rnd.randrange(SHELVES), rnd.randrange(PER_SHELF)])


def read_sessions(path):
    users, items = [], []
    with open(path) as f:
        for r in csv.DictReader(f):
            users.append(int(r["user"]))
            items.append(int(r["shelf"]) * PER_SHELF + int(r["slot"]))
    return users, items
"#;

const TT_TOWERS: &str = r#"import torch
import torch.nn as nn


class TwoTower(nn.Module):
    def __init__(self, n_users, n_items, dim=32):
        super().__init__()
        self.tables = nn.ModuleDict({
            "user": nn.Embedding(n_users, dim),
            "item": nn.Embedding(n_items, dim),
        })

    def users(self, ids):
        return self.tables["user"](ids)

    def items(self, ids):
        return self.tables["item"](ids)


def neighbours(items, n_items, k=4):
    # items close in the catalogue make hard negatives
    return (items + n_items // 2).unsqueeze(1).repeat(1, k)
"#;

const TT_FIT: &str = r#"import torch
import torch.nn.functional as F

from catalog import N_ITEMS, N_USERS, read_sessions, write_sessions
from towers import TwoTower, neighbours


def step(model, opt, users, items):
    u = model.users(users)
    pos = model.items(items)
    neg = model.items(neighbours(items, N_ITEMS))
    scores = torch.cat([(u * pos).sum(-1, keepdim=True), (u.unsqueeze(1) * neg).sum(-1)], dim=1)
    loss = F.cross_entropy(scores, torch.zeros(len(users), dtype=torch.long))
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()


def main():
    write_sessions("sessions.csv")
    users, items = read_sessions("sessions.csv")
    users, items = torch.tensor(users), torch.tensor(items)
    model = TwoTower(N_USERS, N_ITEMS)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for start in range(0, len(users), 128):
        step(model, opt, users[start:start + 128], items[start:start + 128])


if __name__ == "__main__":
    main()
"#;

/// A real CPU run (PyPI's torch, `fixtures/cpu-pypi-torch/two_tower_neighbours.log`): the
/// lookup is an entry of a `ModuleDict` (`self.tables["item"](ids)`), called twice from the
/// same step, first with the items (which pass) and then with their neighbours, shifted by half
/// the catalogue without wrapping. The traceback names the second call, so the items' own lines
/// are cleared by the first; the half of the setting added is an offset, not the setting grown
/// on purpose, so the table's size is not the line to change.
#[test]
fn a_lookup_in_a_module_dict_called_twice_names_the_shift_only_the_failing_call_made() {
    let files = [("catalog.py", TT_CATALOG), ("towers.py", TT_TOWERS), ("fit.py", TT_FIT)];
    let (got, suspects) = common::cpu_run_suspects(&files, "two_tower_neighbours.log");
    assert_eq!(got.first().map(String::as_str), Some("towers.py:22"), "{got:?}");
    assert!(!got.iter().any(|s| s == "fit.py:24"), "the table takes the setting as it is, on purpose: {got:?}");
    // the bound is the product that sizes the table, not one of its factors
    assert!(got.iter().any(|s| s == "catalog.py:7") && !got.iter().any(|s| s == "catalog.py:5"), "{got:?}");
    let read = suspects.iter().find(|s| s["line"] == 24 && s["file"] == "catalog.py");
    let said = read.map(|s| s["message"].as_str().unwrap_or("").to_string()).unwrap_or_default();
    assert!(said.contains("first through the call at fit.py:10"), "the items passed the first call: {said}");
}

const NG_LISTENS: &str = r#"import csv
import random
from collections import OrderedDict

GENRE_CODES = [10, 11, 12, 20, 21, 30, 31, 32, 40]


def write_listens(path, n_users=40, per_user=30, seed=5):
    rnd = random.Random(seed)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["user", "ts", "track", "genre"])
        for u in range(n_users):
            for t in range(per_user):
                w.writerow([f"u{u}", t, f"t{rnd.randrange(500)}", rnd.choice(GENRE_CODES)])


def read_listens(path, tracks):
    by_user = OrderedDict()
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            history = by_user.setdefault(row["user"], [])
            history.append((int(row["ts"]), tracks.setdefault(row["track"], len(tracks)), int(row["genre"])))
    sessions = []
    for history in by_user.values():
        history.sort()
        sessions.append(([h[1] for h in history], [h[2] for h in history]))
    return sessions
"#;

const NG_MODEL: &str = r#"import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence


def collate(batch):
    tracks, genres = zip(*batch)
    tracks = pad_sequence([torch.tensor(t) for t in tracks], batch_first=True)
    genres = pad_sequence([torch.tensor(g) for g in genres], batch_first=True, padding_value=-100)
    return tracks, genres


class NextGenre(nn.Module):
    def __init__(self, n_tracks, n_genres, dim=32):
        super().__init__()
        self.emb = nn.Embedding(n_tracks, dim)
        self.rnn = nn.GRU(dim, dim, batch_first=True)
        self.head = nn.Linear(dim, n_genres)

    def forward(self, tracks):
        h, _ = self.rnn(self.emb(tracks))
        return self.head(h)
"#;

const NG_TRAIN: &str = r#"import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from listens import GENRE_CODES, read_listens, write_listens
from model import NextGenre, collate


def main():
    write_listens("listens.csv")
    tracks = {}
    sessions = read_listens("listens.csv", tracks)
    model = NextGenre(len(tracks), len(GENRE_CODES))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for x, y in DataLoader(sessions, batch_size=8, collate_fn=collate):
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
"#;

/// A real CPU run (`fixtures/cpu-pypi-torch/next_genre_codes.log`): each user's listens are
/// gathered through `by_user.setdefault(user, [])` into an `OrderedDict`, appended to through
/// the name the list is bound to, as tuples whose third position is the genre's raw code
/// (10..40) while the head has one row per genre. The batch is transposed with `zip(*batch)`:
/// the tracks' lines are no part of the genres' value.
#[test]
fn lists_filled_through_setdefault_and_a_transposed_batch_name_the_raw_code() {
    let files = [("listens.py", NG_LISTENS), ("model.py", NG_MODEL), ("train.py", NG_TRAIN)];
    let (got, _) = common::cpu_run_suspects(&files, "next_genre_codes.log");
    assert_eq!(got.first().map(String::as_str), Some("listens.py:23"), "{got:?}");
}

const SA_SETTINGS: &str = r#"N_STORES = 4
N_DEPTS = 6
HIDDEN = 16
EPOCHS = 2
"#;

const SA_RECORDS: &str = r#"import random
import re

import torch
from torch.utils.data import Dataset

CODE = re.compile(r"shop(\d+)-dept(\d+)")


def make_codes(n, seed=0):
    rnd = random.Random(seed)
    return [f"shop{rnd.randint(1, 4):02d}-dept{rnd.randint(1, 6):02d}" for _ in range(n)]


def parse(code):
    store, dept = (int(g) for g in CODE.match(code).groups())
    return {"store": store, "dept": dept}


class Sales(Dataset):
    def __init__(self, codes):
        self.rows = [parse(c) for c in codes]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        row = self.rows[i]
        dept = row["dept"] - 1
        store = row["store"]
        return torch.randn(8), dept, store
"#;

const SA_NET: &str = r#"import torch
import torch.nn as nn


class StoreAware(nn.Module):
    def __init__(self, n_stores, n_depts, hidden):
        super().__init__()
        self.store_vec = nn.Embedding(n_stores, 4)
        self.body = nn.Sequential(nn.Linear(12, hidden), nn.ReLU(), nn.Linear(hidden, n_depts))

    def forward(self, x, store):
        return self.body(torch.cat([x, self.store_vec(store)], dim=1))


def build(cfg):
    return StoreAware(cfg.N_STORES, cfg.N_DEPTS, cfg.HIDDEN)
"#;

const SA_FIT: &str = r#"import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

import settings
from net import build
from records import Sales, make_codes


def epoch(net, loader, opt):
    for x, dept, store in loader:
        scores = net(x, store)
        loss = F.cross_entropy(scores, dept)
        opt.zero_grad()
        loss.backward()
        opt.step()


def main():
    net = build(settings)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    loader = DataLoader(Sales(make_codes(256)), batch_size=32, shuffle=True)
    for _ in range(settings.EPOCHS):
        epoch(net, loader, opt)


if __name__ == "__main__":
    main()
"#;

/// A real CPU run (`fixtures/cpu-pypi-torch/store_ids_from_one.log`): store and department
/// numbers parsed from codes that count from 1; the department is shifted to 0-based a line
/// above the store, which is used as it is. The model is built from the settings module passed
/// as a value (`build(settings)`), and the module is called through a parameter the tracing
/// cannot type on its own: the traceback's frame names the call.
#[test]
fn a_field_used_as_it_is_beside_one_shifted_reaches_a_table_sized_in_a_settings_module() {
    let files = [("settings.py", SA_SETTINGS), ("records.py", SA_RECORDS), ("net.py", SA_NET), ("fit.py", SA_FIT)];
    let (got, _) = common::cpu_run_suspects(&files, "store_ids_from_one.log");
    assert_eq!(got.first().map(String::as_str), Some("records.py:30"), "{got:?}");
    assert!(got.iter().any(|s| s == "settings.py:1"), "the table's size is the settings module's: {got:?}");
}

const SF_SCHEMA: &str = r#"SLOTS = ["O", "city", "date", "airline", "seat"]
SLOT_INDEX = {name: i for i, name in enumerate(SLOTS)}
"#;

const SF_UTTERANCES: &str = r#"import random

from schema import SLOT_INDEX, SLOTS

WORDS = ["fly", "to", "paris", "on", "monday", "with", "delta", "window", "please", "book"]


def sample(n, seed=1):
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        k = rnd.randint(3, 9)
        words = [rnd.choice(WORDS) for _ in range(k)]
        tags = [rnd.choice(SLOTS) for _ in range(k)]
        out.append((words, tags))
    return out


def encode(pairs, vocab):
    rows = []
    for words, tags in pairs:
        ids = [vocab.setdefault(w, len(vocab)) for w in words]
        slots = [SLOT_INDEX[t] + 1 for t in tags]
        rows.append({"ids": ids, "slots": slots})
    return rows


def collate(rows):
    width = max(len(r["ids"]) for r in rows)
    batch = {
        "ids": torch_zeros(len(rows), width),
        "slots": torch_full(len(rows), width, -100),
    }
    for i, r in enumerate(rows):
        n = len(r["ids"])
        batch["ids"][i, :n] = tensor(r["ids"])
        batch["slots"][i, :n] = tensor(r["slots"])
    return batch


def torch_zeros(b, t):
    import torch
    return torch.zeros(b, t, dtype=torch.long)


def torch_full(b, t, v):
    import torch
    return torch.full((b, t), v, dtype=torch.long)


def tensor(xs):
    import torch
    return torch.tensor(xs, dtype=torch.long)
"#;

const SF_TAGGER: &str = r#"import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from schema import SLOTS
from utterances import collate, encode, sample


class Tagger(nn.Module):
    def __init__(self, n_words, n_slots):
        super().__init__()
        self.emb = nn.Embedding(n_words, 24)
        self.rnn = nn.LSTM(24, 24, batch_first=True)
        self.out = nn.Linear(24, n_slots)

    def forward(self, ids):
        h, _ = self.rnn(self.emb(ids))
        return self.out(h)


def main():
    vocab = {"<pad>": 0}
    rows = encode(sample(200), vocab)
    model = Tagger(len(vocab), len(SLOTS))
    opt = torch.optim.Adam(model.parameters())
    for batch in DataLoader(rows, batch_size=16, collate_fn=collate):
        logits = model(batch["ids"])
        loss = F.cross_entropy(logits.flatten(0, 1), batch["slots"].flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
"#;

/// A real CPU run (`fixtures/cpu-pypi-torch/slot_ids_from_one.log`): the collate function
/// builds a dict of buffers and fills each field in place (`batch["slots"][i, :n] = …`); the
/// slot ids were numbered from 1. The field the loss reads is traced through its own fill, not
/// the other field's.
#[test]
fn a_field_of_a_batch_filled_in_place_is_traced_through_its_own_fill() {
    let files = [("schema.py", SF_SCHEMA), ("utterances.py", SF_UTTERANCES), ("tagger.py", SF_TAGGER)];
    let (got, _) = common::cpu_run_suspects(&files, "slot_ids_from_one.log");
    assert_eq!(got.first().map(String::as_str), Some("utterances.py:23"), "{got:?}");
    assert!(!got.iter().any(|s| s == "utterances.py:22"), "the ids field is not the slots': {got:?}");
}

const BL_BLEND: &str = r#"import torch
import torch.nn as nn


class Blend(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.seen = nn.Linear(dim, 1)
        self.bought = nn.Linear(dim, 1)

    def forward(self, x):
        p_seen = torch.sigmoid(self.seen(x)).squeeze(1)
        p_bought = self.bought(x).squeeze(1)
        return p_seen * p_bought
"#;

const BL_RUN: &str = r#"import torch
import torch.nn.functional as F

from blend import Blend


def main():
    torch.manual_seed(0)
    model = Blend(6)
    x = torch.randn(64, 6)
    y = (torch.rand(64) > 0.7).float()
    for _ in range(3):
        loss = F.binary_cross_entropy(model(x), y)
        loss.backward()


if __name__ == "__main__":
    main()
"#;

/// A real CPU run (`fixtures/cpu-pypi-torch/blend_raw_factor.log`): a product of two heads' outputs
/// fed to BCE, the second never squashed. Both factors are the value: the raw one's line is named
/// beside the product's.
#[test]
fn both_factors_of_a_product_of_probabilities_are_traced() {
    let files = [("blend.py", BL_BLEND), ("run_blend.py", BL_RUN)];
    let (got, _) = common::cpu_run_suspects(&files, "blend_raw_factor.log");
    assert_eq!(got.first().map(String::as_str), Some("blend.py:14"), "{got:?}");
    assert!(got.iter().any(|s| s == "blend.py:13"), "the factor that gives raw scores: {got:?}");
}

/// A real asynchronous H200 log noticed the failed lookup on the line after the one that ran it
/// (`self.head(torch.cat([pooled, v], dim=1))` after `v = self.view_embed(view)`). The forward
/// was still called from where the frame above says (`model(clips, views)`, an instance the
/// tracing cannot type), so its parameter `view` is traced to the sample's unshifted camera id
/// (the project is the corpus's j22, by an independent author; fixtures/README.md).
#[test]
fn an_asynchronous_frame_still_names_the_call_its_function_came_from() {
    let dir = common::root().join("fixtures/h200-async/multiview");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cudasleuth"))
        .args(["explain", "crash.async.log", "--project", ".", "--format", "json"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let first = &v["suspects"][0];
    assert_eq!((first["file"].as_str(), first["line"].as_u64()), (Some("data.py"), Some(82)), "{}", v["suspects"]);
}

const KEYED_DATA: &str = r#"import torch
from torch.utils.data import Dataset

TAGS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG"]


class Sentences(Dataset):
    def __init__(self, pairs, vocab):
        self.items = []
        for words, labels in pairs:
            ids = [vocab.get(w, 1) for w in words]
            tags = [TAGS.index(t) + 1 for t in labels]
            self.items.append((ids, tags))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        ids, tags = self.items[i]
        return {"ids": torch.tensor(ids), "tags": torch.tensor(tags)}
"#;

const KEYED_TRAIN: &str = r#"import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from sentences import TAGS, Sentences


def pad_batch(samples):
    longest = max(len(s["ids"]) for s in samples)
    out = {k: torch.zeros(len(samples), longest, dtype=torch.long) for k in samples[0]}
    for i, s in enumerate(samples):
        n = len(s["ids"])
        for k in s:
            out[k][i, :n] = s[k]
    out["mask"] = out["ids"] != 0
    return out


def fit(pairs, vocab):
    emb = nn.Embedding(len(vocab) + 2, 32)
    head = nn.Linear(32, len(TAGS))
    opt = torch.optim.Adam(list(emb.parameters()) + list(head.parameters()))
    for batch in DataLoader(Sentences(pairs, vocab), batch_size=8, collate_fn=pad_batch):
        logits = head(emb(batch["ids"]))
        loss = F.cross_entropy(logits.reshape(-1, len(TAGS)), batch["tags"].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
"#;

/// A collate that pads the batch key by key into buffers made for each key of the first sample
/// (`for k in s: out[k][i, :n] = s[k]`), or builds it with a dict comprehension or a loop over
/// the keys: the tags' own field is followed back into the Dataset, to the 1-based tag ids, and
/// the buffer's shape (`len(samples)`) is no length the value holds.
#[test]
fn a_batch_built_key_by_key_keeps_each_field_apart() {
    let pad = "    longest = max(len(s[\"ids\"]) for s in samples)\n    out = {k: torch.zeros(len(samples), longest, dtype=torch.long) for k in samples[0]}\n    for i, s in enumerate(samples):\n        n = len(s[\"ids\"])\n        for k in s:\n            out[k][i, :n] = s[k]\n    out[\"mask\"] = out[\"ids\"] != 0\n    return out\n";
    assert!(KEYED_TRAIN.contains(pad));
    let comprehension = KEYED_TRAIN.replace(pad, "    return {k: torch.stack([s[k] for s in samples]) for k in samples[0]}\n");
    let loop_store = KEYED_TRAIN.replace(
        pad,
        "    out = {}\n    for k in samples[0].keys():\n        out[k] = torch.stack([s[k] for s in samples])\n    return out\n",
    );
    for train in [KEYED_TRAIN.to_string(), comprehension, loop_store] {
        let got = tiered_suspects(&[("sentences.py", KEYED_DATA), ("train.py", &train)], "ce_1d_over.async.log");
        assert_eq!(got.first().map(String::as_str), Some("sentences.py:12 strong"), "{got:?}\n{train}");
    }
    let fixed = KEYED_DATA.replace("TAGS.index(t) + 1", "TAGS.index(t)");
    let got = tiered_suspects(&[("sentences.py", &fixed), ("train.py", KEYED_TRAIN)], "ce_1d_over.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "the fixed ids fit the head: {got:?}");
}

const PADDED_WORDS: &str = r#"import torch
from torch.utils.data import Dataset


def build_vocab(sentences):
    words = sorted({w for s in sentences for w in s})
    return {w: i + 1 for i, w in enumerate(words)}


class Tagged(Dataset):
    def __init__(self, sentences, tags, vocab):
        self.ids = [torch.tensor([vocab[w] for w in s]) for s in sentences]
        self.tags = [torch.tensor(t) for t in tags]

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return {"ids": self.ids[i], "tags": self.tags[i]}
"#;

const PADDED_TRAIN: &str = r#"import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader

from words import Tagged, build_vocab


def pad_batch(samples):
    out = {}
    for k in ("ids",):
        out[k] = pad_sequence([s[k] for s in samples], batch_first=True, padding_value=0)
    for k in ("tags",):
        out[k] = pad_sequence([s[k] for s in samples], batch_first=True, padding_value=-100)
    return out


def fit(sentences, tags, n_tags):
    vocab = build_vocab(sentences)
    emb = nn.Embedding(len(vocab), 32)
    head = nn.Linear(32, n_tags)
    opt = torch.optim.Adam(list(emb.parameters()) + list(head.parameters()))
    for batch in DataLoader(Tagged(sentences, tags, vocab), batch_size=8, collate_fn=pad_batch):
        logits = head(emb(batch["ids"]))
        loss = F.cross_entropy(logits.reshape(-1, n_tags), batch["tags"].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
"#;

/// A collate that pads each field in a loop over the keys written out, the ids with 0 and the
/// tags with -100: the ids reaching the embedding hold no -100 (the tags' padding is not a
/// suspect), and the table sized to the vocabulary while the ids start at 1 is.
#[test]
fn keys_written_out_keep_each_fields_padding_apart() {
    let got = tiered_suspects(&[("words.py", PADDED_WORDS), ("train.py", PADDED_TRAIN)], "embedding_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("train.py:21 strong"), "{got:?}");
    assert!(!got.iter().any(|s| s.starts_with("train.py:15 ")), "the tags' padding does not reach the embedding: {got:?}");
}

const MARKED_SETTINGS: &str = "IGNORE = -100\nN_TYPES = 6\nN_LABELS = 4\n";

const MARKED_DATA: &str = r#"import torch
from torch.nn.utils.rnn import pad_sequence
from settings import IGNORE


def collate(rows):
    tokens = pad_sequence([r[0] for r in rows], batch_first=True, padding_value=0)
    types = pad_sequence([r[1] for r in rows], batch_first=True,
                         padding_value=IGNORE)
    labels = pad_sequence([r[2] for r in rows], batch_first=True, padding_value=IGNORE)
    return tokens, types, labels
"#;

const MARKED_TRAIN: &str = r#"import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from data import collate
from settings import IGNORE, N_LABELS, N_TYPES


class Tagger(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.words = nn.Embedding(vocab, 32)
        self.types = nn.Embedding(N_TYPES, 32)
        self.out = nn.Linear(32, N_LABELS)

    def forward(self, tokens, types):
        return self.out(self.words(tokens) + self.types(types))


def train(rows, vocab):
    model = Tagger(vocab)
    loss_fn = nn.CrossEntropyLoss(ignore_index=IGNORE)
    for tokens, types, labels in DataLoader(rows, batch_size=4, collate_fn=collate):
        logits = model(tokens, types)
        loss = loss_fn(logits.reshape(-1, N_LABELS), labels.reshape(-1))
        loss.backward()
"#;

/// A marker the project skips (the loss's `ignore_index=IGNORE`) padded into the entity types
/// as well as the labels: the constant is right for the labels, the types' padding argument is
/// the line to change. Where nothing skips the marker, the constant stays the line named.
#[test]
fn a_marker_the_project_skips_is_blamed_where_it_joins_another_value() {
    let files = [("settings.py", MARKED_SETTINGS), ("data.py", MARKED_DATA), ("train.py", MARKED_TRAIN)];
    let got = tiered_suspects(&files, "embedding_neg.async.log");
    assert_eq!(got.first().map(String::as_str), Some("data.py:9 strong"), "{got:?}");
    assert!(got.contains(&"settings.py:1 likely".to_string()), "the constant stays a suspect: {got:?}");
    let unskipped = MARKED_TRAIN.replace("nn.CrossEntropyLoss(ignore_index=IGNORE)", "nn.CrossEntropyLoss()");
    let got = tiered_suspects(&[files[0], files[1], ("train.py", &unskipped)], "embedding_neg.async.log");
    assert_eq!(got.first().map(String::as_str), Some("settings.py:1 strong"), "{got:?}");
}

const WEIGHTED_DATA: &str = r#"import numpy as np
import torch
from torch.utils.data import Dataset


def rank_weights(clicks_by_rank):
    top = clicks_by_rank[0]
    return top / clicks_by_rank


class Impressions(Dataset):
    def __init__(self, feats, ranks, clicks, clicks_by_rank):
        self.feats = torch.tensor(feats, dtype=torch.float32)
        self.weight = torch.tensor(rank_weights(clicks_by_rank)[ranks], dtype=torch.float32)
        self.clicks = torch.tensor(clicks, dtype=torch.float32)

    def __len__(self):
        return len(self.clicks)

    def __getitem__(self, i):
        return self.feats[i], self.weight[i], self.clicks[i]
"#;

const WEIGHTED_TRAIN: &str = r#"import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from data import Impressions


def fit(feats, ranks, clicks, clicks_by_rank):
    model = nn.Linear(8, 1)
    loss_fn = nn.BCELoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, w, y in DataLoader(Impressions(feats, ranks, clicks, clicks_by_rank), batch_size=16):
        p = torch.sigmoid(model(x)).squeeze(1) * w
        loss = loss_fn(p, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
"#;

/// Probabilities (a sigmoid written inline) times a weight a dataset made by a ratio in another
/// file: the product leaves [0, 1] only where the weight does, so the ratio's line is named, the
/// product beside it; the loss is not said to get raw scores (a sigmoid is on the way).
#[test]
fn a_factor_that_multiplies_probabilities_is_blamed_where_it_is_made() {
    let files = [("data.py", WEIGHTED_DATA), ("train.py", WEIGHTED_TRAIN)];
    let v = common::explain_project(&files, "bce_module_over1.async.log");
    let got: Vec<String> = v["suspects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("{}:{} {}", s["file"].as_str().unwrap(), s["line"], s["tier"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(got.first().map(String::as_str), Some("data.py:8 strong"), "{got:?}");
    assert!(got.contains(&"train.py:13 likely".to_string()), "the product stays a suspect: {got:?}");
    assert!(!v.to_string().contains("raw scores (no sigmoid"), "a sigmoid is on the way: {v}");
}

const SPANS: &str = r#"def find_answer(tokens, answer):
    for i in range(len(tokens) - len(answer) + 1):
        if tokens[i:i + len(answer)] == answer:
            return i
    return None


def make_examples(pairs, window):
    examples = []
    for tokens, answer in pairs:
        for lo in range(0, len(tokens), window):
            chunk = tokens[lo:lo + window]
            start = -1
            hit = find_answer(chunk, answer)
            if hit is not None:
                start = hit
            examples.append((chunk, start))
    return examples
"#;

const SPANS_TRAIN: &str = r#"import torch
import torch.nn as nn
import torch.nn.functional as F

from spans import make_examples


class Pointer(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.score = nn.Linear(dim, 1)

    def forward(self, ids):
        return self.score(self.emb(ids)).squeeze(-1)


def step(model, ids, start):
    logp = F.log_softmax(model(ids), dim=1)
    return -logp.gather(1, start.unsqueeze(1)).mean()


def train(pairs, vocab, window):
    model = Pointer(vocab, 16)
    for chunk, start in make_examples(pairs, window):
        ids = torch.tensor([chunk])
        loss = step(model, ids, torch.tensor([start]))
        loss.backward()
"#;

/// A window's answer position starts at the marker -1 and is set under an `if` only when the
/// answer is found: the marker reaches the gather along the positions (the pointer head is one
/// wide, squeezed away: no bound of 1).
#[test]
fn a_value_set_under_an_if_keeps_what_it_held_before() {
    let got = tiered_suspects(&[("spans.py", SPANS), ("train.py", SPANS_TRAIN)], "gather_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("spans.py:13 strong"), "{got:?}");
    assert!(!got.iter().any(|s| s.starts_with("train.py:12 ")), "a one-wide head is no bound: {got:?}");
}

/// The same window with the position set on both arms of an `if`/`else`: the `else` arm's safe
/// 0 is one alternative, not the last word; the `if` arm's `hit - 1` (-1 at a window's first
/// token) is the other, and the line to change (the safe arm at most a possible suspect).
#[test]
fn both_arms_of_an_if_else_reach_the_read() {
    let spans = SPANS.replace(
        "            start = -1\n            hit = find_answer(chunk, answer)\n            if hit is not None:\n                start = hit\n",
        "            hit = find_answer(chunk, answer)\n            if hit is not None:\n                start = hit - 1\n            else:\n                start = 0\n",
    );
    assert!(spans.contains("start = hit - 1\n            else:"));
    let got = tiered_suspects(&[("spans.py", &spans), ("train.py", SPANS_TRAIN)], "gather_over.async.log");
    assert_eq!(got.first().map(|s| s.split(' ').next().unwrap()), Some("spans.py:15"), "{got:?}");
    assert!(!got.iter().any(|s| s.starts_with("spans.py:17 ") && !s.ends_with(" possible")), "the safe arm: {got:?}");
}

const CHAINED: &str = r#"import torch
from torch.utils.data import Dataset


class Clicks(Dataset):
    def __init__(self, rows, item_index):
        self.items = [item_index[r["item"]] for r in rows]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return torch.tensor(self.items[i])


def index_items(rows):
    names = sorted({r["item"] for r in rows})
    return {n: k + 1 for k, n in enumerate(names)}
"#;

const CHAINED_TRAIN: &str = r#"import torch.nn as nn
from torch.utils.data import ConcatDataset, DataLoader

from sources import Clicks, index_items


def fit(web_rows, app_rows):
    item_index = index_items(web_rows + app_rows)
    data = ConcatDataset([Clicks(web_rows, item_index), Clicks(app_rows, item_index)])
    table = nn.Embedding(len(item_index), 8)
    for items in DataLoader(data, batch_size=32, shuffle=True):
        table(items).sum().backward()
"#;

/// Two sources chained with `ConcatDataset`: an item is an item of either, so the ids numbered
/// from 1 reach the table sized by their count.
#[test]
fn a_concatenated_dataset_gives_its_parts_items() {
    let got = tiered_suspects(&[("sources.py", CHAINED), ("train.py", CHAINED_TRAIN)], "embedding_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("train.py:10 strong"), "{got:?}");
    assert!(got.iter().any(|s| s.starts_with("sources.py:18 ")), "the map numbered from 1: {got:?}");
}

const MERGED_SETTINGS: &str = r#"import copy

import yaml


def merge(base, extra):
    out = copy.deepcopy(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def load(path, overrides):
    with open(path) as f:
        raw = yaml.safe_load(f)
    return merge(raw, overrides)
"#;

const MERGED_ENCODERS: &str = r#"class CodeEncoder:
    def __init__(self, field):
        self.field = field
        self.size = 0

    def fit(self, rows):
        self.size = len({r[self.field] for r in rows})
        return self

    def transform(self, rows):
        return [int(r[self.field]) for r in rows]
"#;

const MERGED_TRAIN: &str = r#"import sys

import torch
import torch.nn as nn

from encoders import CodeEncoder
from settings import load


class StoreModel(nn.Module):
    def __init__(self, model_cfg):
        super().__init__()
        self.stores = nn.Embedding(model_cfg["stores"]["count"], model_cfg["stores"]["dim"])
        self.out = nn.Linear(model_cfg["stores"]["dim"], 1)

    def forward(self, store):
        return self.out(self.stores(store)).squeeze(-1)


def main(rows):
    cfg = load(sys.argv[1], {"model": {"stores": {"dim": 8}}})
    enc = CodeEncoder("store_code").fit(rows)
    cfg["model"]["stores"]["count"] = enc.size
    model = StoreModel(cfg["model"])
    store = torch.tensor(enc.transform(rows))
    model(store).sum().backward()
"#;

/// A config merged by a recursive helper, a table sized from a key the training script stores
/// into it, and that key read off an encoder whose constructor holds a placeholder (`self.size =
/// 0`) until `fit` sets it: the bound is `fit`'s count, not a line of the merge (the recursion
/// is not entered again) nor the placeholder; and since `transform` hands the op the very values
/// `fit` counted, the count is the line to change (strong).
#[test]
fn a_bound_stored_into_a_merged_config_is_traced_to_the_count() {
    let files = [("settings.py", MERGED_SETTINGS), ("encoders.py", MERGED_ENCODERS), ("train.py", MERGED_TRAIN)];
    let got = tiered_suspects(&files, "embedding_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("encoders.py:7 strong"), "{got:?}");
    assert!(!got.iter().any(|s| s.starts_with("settings.py:") || s.starts_with("encoders.py:4 ")), "{got:?}");
    // the values mapped to positions (`self.index[r[…]]`, numbered 0..n-1) fit the count
    let mapped = MERGED_ENCODERS
        .replace(
            "        self.size = len({r[self.field] for r in rows})\n",
            "        self.index = {c: i for i, c in enumerate(sorted({r[self.field] for r in rows}))}\n        self.size = len(self.index)\n",
        )
        .replace("[int(r[self.field]) for r in rows]", "[self.index[r[self.field]] for r in rows]");
    assert!(mapped.contains("self.index[r[self.field]]") && mapped.contains("len(self.index)"));
    let got = tiered_suspects(&[files[0], ("encoders.py", &mapped), files[2]], "embedding_over.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "ids numbered by position fit the count: {got:?}");
}

const LAYERED_TRAIN: &str = r#"import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml


def read(path):
    with open(path) as f:
        return yaml.safe_load(f)


def main():
    cfg = read(sys.argv[1])
    head = nn.Linear(16, cfg["model"]["num_classes"])
    x = torch.randn(32, 16)
    y = torch.randint(0, 8, (32,))
    loss = F.cross_entropy(head(x), y)
    loss.backward()
"#;

/// Two configs hold the head size, the experiment's naming the base it extends (`defaults: -
/// base.yaml`): the run reads the experiment's value, which the labels pass; the base's value,
/// which they fit, is not the bound.
#[test]
fn a_config_that_extends_another_holds_the_value_read() {
    let base = "model:\n  num_classes: 10\ntrain:\n  lr: 0.01\n";
    let small = "defaults:\n  - base.yaml\n\nmodel:\n  num_classes: 4\n";
    let files = [("configs/base.yaml", base), ("configs/small.yaml", small), ("train.py", LAYERED_TRAIN)];
    let got = tiered_suspects(&files, "ce_1d_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("configs/small.yaml:5 strong"), "{got:?}");
    // the same with the base named inline, detectron2-style
    let inline = "_BASE_: \"base.yaml\"\nmodel:\n  num_classes: 4\n";
    let got = tiered_suspects(&[files[0], ("configs/small.yaml", inline), files[2]], "ce_1d_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("configs/small.yaml:3 strong"), "{got:?}");
}

const TABLE_LOSSES: &str = r#"import torch.nn as nn

CRITERIA = {
    "squared": nn.MSELoss,
    "absolute": nn.L1Loss,
    "binary": nn.BCELoss,
}


def make_criterion(kind):
    if kind not in CRITERIA:
        raise KeyError(kind)
    return CRITERIA[kind]()
"#;

const TABLE_MODEL: &str = r#"import torch
import torch.nn as nn


class Denoiser(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.down = nn.Linear(width, 8)
        self.up = nn.Linear(8, width)

    def forward(self, x):
        return self.up(torch.relu(self.down(x)))
"#;

const TABLE_TRAIN: &str = r#"import torch

from losses import make_criterion
from model import Denoiser


def epoch(net, batches, crit, opt):
    for xb in batches:
        out = net(xb)
        loss = crit(out, xb)
        opt.zero_grad()
        loss.backward()
        opt.step()


def main(settings, batches):
    net = Denoiser(settings["width"])
    crit = make_criterion(settings["loss"])
    opt = torch.optim.Adam(net.parameters())
    epoch(net, batches, crit, opt)
"#;

/// The loss is a class picked from a table of classes by a setting the code cannot read
/// (`CRITERIA[kind]()`) and handed to the training step as a parameter; of the table's classes
/// only `nn.BCELoss` can assert, and the model it is given returns raw scores: the table's
/// entry, on its own line, is where the loss is chosen.
#[test]
fn a_loss_picked_from_a_table_of_classes_names_the_entry_that_can_fail() {
    let files = [("losses.py", TABLE_LOSSES), ("model.py", TABLE_MODEL), ("train.py", TABLE_TRAIN)];
    let got = tiered_suspects(&files, "bce_module_over1.async.log");
    assert_eq!(got.first().map(String::as_str), Some("losses.py:6 strong"), "{got:?}");
    let fixed = TABLE_LOSSES.replace("nn.BCELoss", "nn.BCEWithLogitsLoss");
    let got = tiered_suspects(&[("losses.py", &fixed), ("model.py", TABLE_MODEL), ("train.py", TABLE_TRAIN)], "bce_module_over1.async.log");
    assert!(!got.iter().any(|s| s.starts_with("losses.py")), "no entry of the fixed table can assert: {got:?}");
}

const SMOOTH_DATA: &str = r#"import json

import torch
from torch.utils.data import DataLoader, Dataset


class Pairs(Dataset):
    def __init__(self, path, codes):
        with open(path) as f:
            rows = [json.loads(line) for line in f]
        self.items = [(torch.tensor(r["feats"]), codes[r["code"]]) for r in rows]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def read_codes(path):
    with open(path) as f:
        names = [line.strip() for line in f if line.strip()]
    return {name: k + 1 for k, name in enumerate(names)}


def loader(path, codes):
    return DataLoader(Pairs(path, codes), batch_size=8, shuffle=True)
"#;

const SMOOTH_TRAIN: &str = r#"import torch
import torch.nn as nn

from smooth_data import loader, read_codes


class SmoothedNLL(nn.Module):
    def __init__(self, n_classes, eps=0.1):
        super().__init__()
        self.n_classes = n_classes
        self.eps = eps

    def forward(self, logp, target):
        logp = logp.view(-1, self.n_classes)
        dist = torch.full_like(logp, self.eps / (self.n_classes - 1))
        dist.scatter_(1, target.view(-1, 1), 1.0 - self.eps)
        return -(dist * logp).sum(1).mean()


def main():
    codes = read_codes("codes.txt")
    head = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, len(codes)))
    crit = SmoothedNLL(len(codes))
    opt = torch.optim.Adam(head.parameters())
    for x, y in loader("train.jsonl", codes):
        loss = crit(torch.log_softmax(head(x), -1), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
"#;

/// A loss written by hand that scatters the targets into a tensor shaped like the scores
/// (`torch.full_like(logp, …)` with `logp` viewed as `(-1, n_classes)`): the bound is the
/// width the view names, and the codes numbered from 1 are found against it, strong.
#[test]
fn a_scatter_into_a_tensor_shaped_like_the_scores_is_bounded_by_its_width() {
    let files = [("smooth_data.py", SMOOTH_DATA), ("train.py", SMOOTH_TRAIN)];
    let got = tiered_suspects(&files, "scatter_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("smooth_data.py:23 strong"), "{got:?}");
    let zero = SMOOTH_DATA.replace("k + 1 for k", "k for k");
    let got = tiered_suspects(&[("smooth_data.py", &zero), ("train.py", SMOOTH_TRAIN)], "scatter_over.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "{got:?}");
}

const PARTIAL_BATCHES: &str = r#"from functools import partial

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader

SKIP = -100


def pad_batch(samples, word_pad, label_pad):
    words = pad_sequence([torch.tensor(w) for w, _ in samples], batch_first=True, padding_value=word_pad)
    labels = pad_sequence([torch.tensor(l) for _, l in samples], batch_first=True, padding_value=label_pad)
    return words, labels


def make_loader(samples, vocab):
    collate = partial(pad_batch, word_pad=SKIP, label_pad=SKIP)
    return DataLoader(samples, batch_size=4, collate_fn=collate)
"#;

const PARTIAL_TRAIN: &str = r#"import torch.nn as nn
import torch.nn.functional as F

from batches import make_loader


class Tagger(nn.Module):
    def __init__(self, n_words, n_labels):
        super().__init__()
        self.emb = nn.Embedding(n_words, 24)
        self.out = nn.Linear(24, n_labels)

    def forward(self, words):
        return self.out(self.emb(words))


def fit(samples, vocab, n_labels):
    model = Tagger(len(vocab), n_labels)
    for words, labels in make_loader(samples, vocab):
        scores = model(words)
        loss = F.cross_entropy(scores.flatten(0, 1), labels.flatten(), ignore_index=-100)
        loss.backward()
"#;

/// A collate function whose padding values `functools.partial` binds by keyword: the words
/// padded with the loss's skip marker reach the embedding, and the marker is found, strong (its
/// own line or the line that binds it); bound to 0, nothing is.
#[test]
fn keywords_bound_by_partial_reach_the_collate_function() {
    let got = tiered_suspects(&[("batches.py", PARTIAL_BATCHES), ("train.py", PARTIAL_TRAIN)], "embedding_neg.async.log");
    assert!(matches!(got.first().map(String::as_str), Some("batches.py:7 strong" | "batches.py:17 strong")), "{got:?}");
    let zero = PARTIAL_BATCHES.replace("word_pad=SKIP", "word_pad=0");
    let got = tiered_suspects(&[("batches.py", &zero), ("train.py", PARTIAL_TRAIN)], "embedding_neg.async.log");
    assert!(!got.iter().any(|s| s.starts_with("batches.py") && s.ends_with(" strong")), "{got:?}");
}

const ROUTER_MODEL: &str = r#"import numpy as np
import torch
import torch.nn as nn


class TicketRouter:
    """A scikit-learn style classifier over ticket embeddings."""

    def __init__(self, width=64, rounds=3, device="cpu"):
        self.width = width
        self.rounds = rounds
        self.device = device

    def _make_net(self):
        return nn.Sequential(
            nn.Linear(self.n_inputs_, self.width),
            nn.Tanh(),
            nn.Linear(self.width, len(self.classes_)),
        ).to(self.device)

    def _as_tensors(self, X, y=None):
        xt = torch.tensor(X, dtype=torch.float32, device=self.device)
        if y is None:
            return xt
        yt = torch.tensor(y, dtype=torch.long, device=self.device)
        return xt, yt

    def _epoch(self, xt, yt, loss_fn, opt):
        for start in range(0, len(xt), 32):
            out = self.net_(xt[start:start + 32])
            loss = loss_fn(out, yt[start:start + 32])
            opt.zero_grad()
            loss.backward()
            opt.step()

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.n_inputs_ = X.shape[1]
        self.net_ = self._make_net()
        opt = torch.optim.SGD(self.net_.parameters(), lr=0.05)
        loss_fn = nn.CrossEntropyLoss()
        xt, yt = self._as_tensors(X, y)
        for _ in range(self.rounds):
            self._epoch(xt, yt, loss_fn, opt)
        return self

    def predict(self, X):
        with torch.no_grad():
            scores = self.net_(self._as_tensors(X))
        return self.classes_[scores.argmax(1).cpu().numpy()]
"#;

const ROUTER_MAIN: &str = r#"import numpy as np

from router import TicketRouter

DESKS = ["billing", "refunds", "login", "shipping", "returns", "warranty", "api", "mobile",
         "desktop", "privacy", "abuse", "partners", "sales", "press", "legal", "other"]


def load(n=600, seed=0):
    rng = np.random.default_rng(seed)
    desk = [DESKS.index(name) for name in rng.choice(["login", "api", "legal", "other"], size=n)]
    X = rng.normal(size=(n, 24)).astype(np.float32)
    return X, np.array(desk)


def main():
    X, y = load()
    router = TicketRouter().fit(X, y)
    print(router.predict(X[:5]))


if __name__ == "__main__":
    main()
"#;

/// An estimator's `fit` sizes its head by the labels' distinct values (`np.unique(y)`), but
/// passes the labels on as the desk numbers they are (positions in a list of 16 desks, of which
/// four occur): the count is 4, the largest label 15. The labels reach the loss through a
/// helper whose other branch (`if y is None: return xt`, for `predict`) returns no tuple — a
/// branch the call `self._as_tensors(X, y)` cannot take — and the head through the estimator's
/// own factory method (`self.net_ = self._make_net()`).
#[test]
fn an_estimator_head_sized_by_distinct_labels_is_found_through_its_helper_methods() {
    let files = [("router.py", ROUTER_MODEL), ("main.py", ROUTER_MAIN)];
    let got = tiered_suspects(&files, "ce_1d_over.sync.log");
    assert_eq!(got.first().map(|s| s.split(' ').next().unwrap_or("")), Some("router.py:18"), "{got:?}");
}

const KITCHEN_SETTINGS: &str = r#"class Settings:
    N_TOOLS = 4
    N_STEPS = 6
    HIDDEN = 32
    LR = 0.01
"#;

const KITCHEN_DATA: &str = r#"import numpy as np

STEPS = ["fetch", "wash", "cut", "mix", "heat", "plate", "serve"]


def expert_episode(rng):
    phase, out = 0, []
    while phase < len(STEPS):
        out.append(phase)
        if rng.random() < 0.4:
            phase += 1
    return out


def main():
    rng = np.random.default_rng(0)
    step = np.concatenate([expert_episode(rng) for _ in range(40)])
    n = len(step)
    tool = (step * 3 + rng.integers(0, 2, size=n)) % 4
    x = (rng.normal(size=(n, 12)) + step[:, None] * 0.1).astype(np.float32)
    done = (rng.random(n) < 0.3).astype(np.float32)
    np.savez("kitchen.npz", x=x, tool=tool, step=step, done=done)


if __name__ == "__main__":
    main()
"#;

const KITCHEN_TRAIN: &str = r#"import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from settings import Settings


class StepPolicy(nn.Module):
    def __init__(self, n_in):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_in, Settings.HIDDEN), nn.ReLU())
        self.tool_head = nn.Linear(Settings.HIDDEN, Settings.N_TOOLS)
        self.step_head = nn.Linear(Settings.HIDDEN, Settings.N_STEPS)

    def forward(self, x, step):
        h = self.body(x)
        done_logit = self.step_head(h).gather(1, step.view(-1, 1)).squeeze(1)
        return self.tool_head(h), done_logit


def main():
    d = np.load("kitchen.npz")
    x = torch.from_numpy(d["x"])
    tool = torch.from_numpy(d["tool"])
    step = torch.from_numpy(d["step"])
    done = torch.from_numpy(d["done"])
    net = StepPolicy(x.shape[1])
    opt = torch.optim.Adam(net.parameters(), lr=Settings.LR)
    for i in range(0, len(x), 64):
        tool_logits, done_logit = net(x[i:i + 64], step[i:i + 64])
        loss = F.cross_entropy(tool_logits, tool[i:i + 64])
        loss = loss + F.binary_cross_entropy_with_logits(done_logit, done[i:i + 64])
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
"#;

/// The CPU's "index 6 is out of bounds for dimension 1 with size 6" fits a gather and a
/// cross-entropy alike; the traceback stops at the gather (`self.step_head(h).gather(1, …)`), so
/// the setting that sized the gathered head comes before the one that sized the other head,
/// which only the cross-entropy two lines further on reads (neither value's range is known: the
/// steps come out of a loop the tracing does not count).
#[test]
fn the_op_on_the_failing_line_outranks_an_op_of_another_kind_elsewhere() {
    let files = [("settings.py", KITCHEN_SETTINGS), ("make_data.py", KITCHEN_DATA), ("train.py", KITCHEN_TRAIN)];
    let (got, _) = common::cpu_run_suspects(&files, "kitchen_steps.log");
    assert_eq!(got.first().map(String::as_str), Some("settings.py:3"), "{got:?}");
}

const GAIT_SETTINGS: &str = r#"class Settings:
    SEED = 3
    OBS_DIM = 10
    N_MOVES = 6
    N_GAITS = 3
    HIDDEN = 64
    BATCH = 64
    STEPS = 30
"#;

const GAIT_DEMO: &str = r#"import numpy as np

GAITS = ("stand", "walk", "trot", "gallop")


def expert_episode(rng, length=80):
    obs = rng.normal(size=(length, 10)).astype(np.float32)
    speed = np.abs(obs[:, 0]) * 2.0
    gait = np.digitize(speed, [0.5, 1.5, 3.0])
    moves = rng.integers(0, 6, size=length)
    return {"obs": obs, "move": moves, "gait": gait, "stable": (speed < 2.0).astype(np.float32)}


def demonstrations(rng, n=20):
    eps = [expert_episode(rng) for _ in range(n)]
    return {k: np.concatenate([e[k] for e in eps]) for k in eps[0]}
"#;

const GAIT_POLICY: &str = r#"import torch.nn as nn

from settings import Settings


class GaitPolicy(nn.Module):
    def __init__(self, obs_dim, hidden=Settings.HIDDEN):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.move_head = nn.Linear(hidden, Settings.N_MOVES)
        self.stable_head = nn.Linear(hidden, Settings.N_GAITS)

    def forward(self, obs, gait):
        h = self.trunk(obs)
        move_logits = self.move_head(h)
        stable_logit = self.stable_head(h).gather(1, gait.view(-1, 1)).squeeze(1)
        return move_logits, stable_logit
"#;

const GAIT_TRAIN: &str = r#"import numpy as np
import torch
import torch.nn.functional as F

from demo import demonstrations
from policy import GaitPolicy
from settings import Settings


def losses(policy, batch):
    move_logits, stable_logit = policy(batch["obs"], batch["gait"])
    l_move = F.cross_entropy(move_logits.reshape(-1, Settings.N_MOVES), batch["move"].reshape(-1))
    l_stable = F.binary_cross_entropy_with_logits(stable_logit, batch["stable"])
    return l_move + l_stable


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    rng = np.random.default_rng(Settings.SEED)
    data = {k: torch.from_numpy(v).to(device) for k, v in demonstrations(rng).items()}
    data["move"] = data["move"].long()
    data["gait"] = data["gait"].long()
    policy = GaitPolicy(Settings.OBS_DIM).to(device)
    opt = torch.optim.Adam(policy.parameters(), lr=1e-3)
    n = len(data["obs"])
    for step in range(Settings.STEPS):
        idx = torch.randint(0, n, (Settings.BATCH,), device=device)
        batch = {k: v[idx] for k, v in data.items()}
        loss = losses(policy, batch)
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
"#;

/// A gather kernel failed (the gait head, sized by a setting one short, gathered by gait ids in
/// `forward`); the asynchronous traceback stops at the next line's `cross_entropy`, which cannot
/// launch a gather. That call's bound (`N_MOVES`) is not the suspect: the gathered head's is.
#[test]
fn a_call_that_cannot_launch_the_failed_kernel_does_not_claim_the_tracebacks_line() {
    let files = [("settings.py", GAIT_SETTINGS), ("demo.py", GAIT_DEMO), ("policy.py", GAIT_POLICY), ("train.py", GAIT_TRAIN)];
    let (got, _) = common::log_suspects(&files, &common::root().join("fixtures/h100-async/gait_gather.async.log"));
    assert_eq!(got.first().map(String::as_str), Some("settings.py:5"), "{got:?}");
}

const SLOT_ENCODER: &str = r#"import torch
import torch.nn as nn


class SlotEncoder(nn.Module):
    def __init__(self, n_tokens, n_slots, dim=8):
        super().__init__()
        self.tok = nn.Embedding(n_tokens, dim)
        self.slot = nn.Embedding(n_slots, dim)

    def forward(self, tokens, slots=None):
        if slots is None:
            slots = torch.zeros_like(tokens)
        return self.tok(tokens) + self.slot(slots)
"#;

const SLOT_RUN: &str = r#"import torch

from encoder import SlotEncoder

PAD = -1


def slot_ids(lengths, pad):
    longest = max(lengths)
    rows = []
    for n in lengths:
        rows.append(list(range(n)) + [pad] * (longest - n))
    return torch.tensor(rows)


lengths = [3, 5, 2]
tokens = torch.randint(0, 20, (3, 5))
enc = SlotEncoder(20, 5)
out = enc(tokens, slots=slot_ids(lengths, pad=PAD))
print(out.shape)
"#;

/// A parameter given a default only where it is None (`if slots is None: slots = …`) keeps what
/// its callers pass when they pass one: the padding marker the caller's rows hold reaches the
/// embedding (the default's zeros alone had been taken for the value). Real CPU log of this
/// program (PyPI torch).
#[test]
fn a_parameter_defaulted_where_it_is_none_keeps_what_the_caller_passes() {
    let files = [("encoder.py", SLOT_ENCODER), ("run.py", SLOT_RUN)];
    let (got, all) = common::cpu_run_suspects(&files, "slot_default_keeps_caller.log");
    assert_eq!(got.first().map(String::as_str), Some("run.py:5"), "{got:?}");
    assert_eq!(all[0]["tier"], "strong", "{all:?}");
}

const OUTFIT_NETS: &str = r#"import torch
import torch.nn as nn

BUILDERS = {}


def builder(name):
    def wrap(fn):
        BUILDERS[name] = fn
        return fn
    return wrap


class ColourTable(nn.Module):
    def __init__(self, n, dim):
        super().__init__()
        self.emb = nn.Embedding(n, dim)

    def forward(self, ids):
        return self.emb(ids)


class Outfit(nn.Module):
    def __init__(self, n_colours, n_kinds, dim=8):
        super().__init__()
        self.colours = ColourTable(n_colours, dim)
        self.kinds = nn.Embedding(n_kinds, dim)
        self.out = nn.Linear(2 * dim, 1)

    def forward(self, batch):
        h = torch.cat(
            [
                self.colours(batch["colour"]),
                self.kinds(batch["kind"]),
            ],
            dim=-1,
        )
        return self.out(h)


@builder("outfit")
def make_outfit(n_colours, n_kinds):
    return Outfit(n_colours, n_kinds)


def build(name, **kw):
    return BUILDERS[name](**kw)
"#;

const OUTFIT_FIT: &str = r#"import torch

from nets import build

COLOURS = ["red", "green", "blue"]


def encode(items):
    colour = [COLOURS.index(c) if c in COLOURS else -1 for c, _ in items]
    kind = [k for _, k in items]
    return {"colour": torch.tensor(colour), "kind": torch.tensor(kind)}


class Runner:
    def __init__(self, model):
        self.model = model

    def step(self, batch):
        return self.model(batch).sum()


items = [("red", 0), ("teal", 1), ("blue", 2)]
runner = Runner(build("outfit", n_colours=len(COLOURS), n_kinds=3))
print(runner.step(encode(items)))
"#;

/// A model built by a factory the project registers by name (`BUILDERS[name](**kw)`: no call
/// names its class) is called where the traceback says; its `forward` runs the failing module
/// inside a call written over several lines, which Python 3.11 and later name by the line of
/// the part that ran. Both frames are followed to the batch, and the marker `-1` the encoder
/// gives an unknown colour is the suspect. Real CPU log of this program (PyPI torch).
#[test]
fn a_frame_inside_a_call_written_over_several_lines_leads_to_the_caller() {
    let files = [("nets.py", OUTFIT_NETS), ("fit.py", OUTFIT_FIT)];
    let (got, all) = common::cpu_run_suspects(&files, "registry_multiline_frame.log");
    assert_eq!(got.first().map(String::as_str), Some("fit.py:9"), "{got:?}");
    assert!(all[0]["message"].as_str().unwrap().contains("-1"), "{all:?}");
}
