//! The value tracing through the shapes values take on their way: a length cut to the table's
//! size in one place and grown by special tokens in another, a rate computed by a schedule that
//! reaches a sampler, an array a class fills element by element and hands out as a tuple.

mod common;

use common::tiered_suspects;

const SUMMARIZER_TEXT: &str = r#"SPECIALS = {"[CLS]": 0, "[SEP]": 1, "[PAD]": 2}


class WordPiece:
    def __init__(self, words):
        self.table = dict(SPECIALS)
        for w in words:
            self.table.setdefault(w, len(self.table))

    def size(self):
        return len(self.table)

    def to_ids(self, words):
        return [self.table[w] for w in words]

    def frame(self, ids):
        return [SPECIALS["[CLS]"]] + ids + [SPECIALS["[SEP]"]]
"#;

const SUMMARIZER_DATA: &str = r#"import torch
from torch.utils.data import Dataset


class Articles(Dataset):
    def __init__(self, docs, tok, limit):
        self.tok = tok
        self.rows = []
        for doc in docs:
            words = doc.split()
            self.rows.append(words[:limit])

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        ids = self.tok.frame(self.tok.to_ids(self.rows[i]))
        return torch.tensor(ids)
"#;

const SUMMARIZER_MODEL: &str = r#"import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, vocab, limit, width=32):
        super().__init__()
        self.words = nn.Embedding(vocab, width)
        self.where = nn.Embedding(limit, width)

    def forward(self, ids):
        at = torch.arange(ids.shape[1], device=ids.device)
        return self.words(ids) + self.where(at)
"#;

const SUMMARIZER_MAIN: &str = r#"from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader

from data import Articles
from model import Encoder
from text import WordPiece

LIMIT = 64


def batches(ds):
    return DataLoader(ds, batch_size=8, collate_fn=lambda xs: pad_sequence(xs, batch_first=True, padding_value=2))


def main(docs):
    tok = WordPiece(w for d in docs for w in d.split())
    ds = Articles(docs, tok, LIMIT)
    enc = Encoder(tok.size(), LIMIT)
    for ids in batches(ds):
        enc(ids).sum().backward()


if __name__ == "__main__":
    main(["a b c d"] * 100)
"#;

/// The rows are cut to exactly the position table's size, and the tokenizer's framing adds two
/// more later, in another file: the cut is the line to change (a cut two shorter fits).
#[test]
fn a_cut_to_the_table_size_then_framed_by_special_tokens_names_the_cut() {
    let files = [("text.py", SUMMARIZER_TEXT), ("data.py", SUMMARIZER_DATA), ("model.py", SUMMARIZER_MODEL), ("main.py", SUMMARIZER_MAIN)];
    let got = tiered_suspects(&files, "embedding_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("data.py:11 strong"), "{got:?}");
    let fixed = SUMMARIZER_DATA.replace("words[:limit]", "words[: limit - 2]");
    let files = [("text.py", SUMMARIZER_TEXT), ("data.py", &fixed), ("model.py", SUMMARIZER_MODEL), ("main.py", SUMMARIZER_MAIN)];
    let got = tiered_suspects(&files, "embedding_over.async.log");
    assert!(!got.iter().any(|s| s.ends_with("strong")), "{got:?}");
}

const DROPOUT_SCHED: &str = r#"import torch
import torch.nn as nn


def keep_rate(epoch, first=0.9, per_epoch=0.25):
    return first - per_epoch * epoch


class StochasticDepth(nn.Module):
    def __init__(self, block):
        super().__init__()
        self.block = block
        self.keep = 1.0

    def forward(self, x):
        if not self.training:
            return x + self.block(x)
        gate = torch.bernoulli(torch.full((x.shape[0], 1), self.keep, device=x.device))
        return x + gate * self.block(x)


class Tower(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.skip = StochasticDepth(nn.Linear(width, width))
        self.out = nn.Linear(width, 1)

    def forward(self, x):
        return self.out(self.skip(x))


def fit(model, epochs, xs):
    for epoch in range(epochs):
        model.skip.keep = keep_rate(epoch)
        model(xs).sum().backward()


if __name__ == "__main__":
    fit(Tower(8), 6, torch.randn(4, 8))
"#;

/// A keep rate that a schedule drives below zero reaches `torch.bernoulli` through a field set
/// from outside the module: the schedule's arithmetic is the line.
#[test]
fn a_rate_from_a_schedule_reaching_bernoulli_names_the_schedule() {
    let got = tiered_suspects(&[("train.py", DROPOUT_SCHED)], "bernoulli_eps_schedule.async.log");
    assert_eq!(got.first().map(|s| s.split(' ').next().unwrap()), Some("train.py:6"), "{got:?}");
}

const MEMORY: &str = r#"import numpy as np
import torch


class Memory:
    def __init__(self, size):
        self.size = size
        self.state = np.zeros((size, 4), dtype=np.float32)
        self.move = np.zeros(size, dtype=np.int64)
        self.after = np.zeros(size, dtype=np.int64)
        self.end = np.zeros(size, dtype=np.float32)
        self.count = 0

    def put(self, state, move, after, end):
        k = self.count % self.size
        self.state[k] = state
        self.move[k], self.after[k], self.end[k] = move, after, end
        self.count += 1

    def sample(self, n):
        picks = np.random.randint(0, min(self.count, self.size), n)
        return tuple(torch.as_tensor(col[picks]) for col in (self.state, self.move, self.after, self.end))
"#;

const LEARNER: &str = r#"import torch
import torch.nn as nn

from memory import Memory

MOVES = 5


def update(net, memory):
    state, move, after, end = memory.sample(16)
    q = net(state)
    chosen = q.gather(1, move.unsqueeze(1))
    following = q.gather(1, after.unsqueeze(1)) * (1 - end.unsqueeze(1))
    (chosen - following).pow(2).mean().backward()


def play(net, memory, steps):
    for t in range(steps):
        move = t % MOVES
        over = t % 7 == 6
        after = (t + 1) % MOVES if not over else -1
        memory.put(torch.randn(4).numpy(), move, after, float(over))
    update(net, memory)


if __name__ == "__main__":
    play(nn.Linear(4, MOVES), Memory(100), 50)
"#;

/// A marker stored element by element into one of a class's arrays, handed out by a method
/// called `sample` as a tuple built by a generator: the marker's line, not the arrays beside it.
#[test]
fn a_marker_written_into_a_buffer_array_reaches_the_gather() {
    let got = tiered_suspects(&[("memory.py", MEMORY), ("learn.py", LEARNER)], "gather_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("learn.py:21 strong"), "{got:?}");
    let fixed = LEARNER.replace("if not over else -1", "if not over else 0");
    let got = tiered_suspects(&[("memory.py", MEMORY), ("learn.py", &fixed)], "gather_over.async.log");
    assert!(!got.iter().any(|s| s.starts_with("learn.py:21")), "{got:?}");
}

const TAGGER: &str = r#"import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence

NO_TAG = -1


def batchify(pairs):
    words = [torch.tensor(w) for w, _ in pairs]
    tags = [torch.tensor(t) for _, t in pairs]
    return pad_sequence(words, batch_first=True), pad_sequence(tags, batch_first=True, padding_value=NO_TAG)


class Tagger(nn.Module):
    def __init__(self, n_words, n_tags):
        super().__init__()
        self.emb = nn.Embedding(n_words, 16)
        self.out = nn.Linear(16, n_tags)

    def forward(self, w):
        return self.out(self.emb(w))


def step(model, pairs):
    w, t = batchify(pairs)
    scores = model(w)
    return F.cross_entropy(scores.view(-1, scores.size(-1)), t.view(-1))


if __name__ == "__main__":
    step(Tagger(10, 3), [([1, 2, 3], [0, 1, 2]), ([4], [1])])
"#;

/// Tags padded with a marker the loss does not skip (its default `ignore_index` is -100): the
/// marker's constant, then the padding that puts it in.
#[test]
fn a_padding_value_the_loss_does_not_ignore_names_the_padding() {
    let got = tiered_suspects(&[("tagger.py", TAGGER)], "ce_1d_neg.async.log");
    assert_eq!(got.get(..2), Some(&["tagger.py:6 strong".to_string(), "tagger.py:12 likely".to_string()][..]), "{got:?}");
    let fixed = TAGGER.replace("NO_TAG = -1", "NO_TAG = -100");
    let got = tiered_suspects(&[("tagger.py", &fixed)], "ce_1d_neg.async.log");
    assert!(!got.iter().any(|s| s.ends_with("strong")), "{got:?}");
}

const SHIFTED: &str = r#"import torch
import torch.nn.functional as F


def run(rows, n_classes):
    as_long = lambda xs: torch.as_tensor(xs, dtype=torch.long)
    labels = [r["grade"] for r in rows]
    target = as_long([g - 1 for g in labels])
    logits = torch.randn(len(rows), n_classes)
    return F.cross_entropy(logits, target)


if __name__ == "__main__":
    run([{"grade": 0}, {"grade": 3}], 3)
"#;

/// A tensor made by a lambda bound to a name: the lambda's body runs on the argument, so the
/// shift in the argument is the line.
#[test]
fn a_value_made_through_a_named_lambda_keeps_its_lines() {
    let got = tiered_suspects(&[("grades.py", SHIFTED)], "ce_1d_neg.async.log");
    assert_eq!(got.first().map(|s| s.split(' ').next().unwrap()), Some("grades.py:8"), "{got:?}");
}

const SMOOTHING: &str = r#"import torch
import torch.nn as nn
import torch.nn.functional as F


class Detector(nn.Module):
    def __init__(self, n_in, span=3):
        super().__init__()
        self.score = nn.Linear(n_in, 1)
        self.register_buffer("window", torch.ones(1, 1, span))
        self.span = span

    def forward(self, frames):
        p = torch.sigmoid(self.score(frames)).transpose(1, 2)
        return F.conv2d(p.unsqueeze(1), self.window.unsqueeze(0), padding=(0, self.span // 2)).squeeze(1).squeeze(1)


def train(frames, onsets):
    det = Detector(frames.shape[-1])
    loss = nn.BCELoss()(det(frames), onsets)
    loss.backward()


if __name__ == "__main__":
    train(torch.randn(2, 20, 8), torch.zeros(2, 20))
"#;

const SMOOTHING_KERNEL: &str = r#"import torch
import torch.nn.functional as F


def smooth(p, width):
    box = torch.ones(1, 1, width)
    return F.conv1d(p.unsqueeze(1), box, padding=width // 2).squeeze(1)


def loss(scores, y):
    return F.binary_cross_entropy(smooth(torch.sigmoid(scores), 5), y)


if __name__ == "__main__":
    loss(torch.randn(2, 20), torch.zeros(2, 20))
"#;

/// Probabilities convolved with a box kernel of ones reach a loss that wants [0, 1]: the
/// kernel's line (a normalized kernel, divided by its width, is fine).
#[test]
fn probabilities_smoothed_by_a_kernel_of_ones_name_the_kernel() {
    let got = tiered_suspects(&[("smooth.py", SMOOTHING_KERNEL)], "bce_module_over1.async.log");
    assert_eq!(got.first().map(String::as_str), Some("smooth.py:6 strong"), "{got:?}");
    let fixed = SMOOTHING_KERNEL.replace("torch.ones(1, 1, width)", "torch.ones(1, 1, width) / width");
    let got = tiered_suspects(&[("smooth.py", &fixed)], "bce_module_over1.async.log");
    assert!(!got.iter().any(|s| s.ends_with("strong")), "{got:?}");
    // convolved by a module with its kernel in a registered buffer, and the loss built and
    // called on one line
    let got = tiered_suspects(&[("detector.py", SMOOTHING)], "bce_module_over1.async.log");
    assert_eq!(got.first().map(String::as_str), Some("detector.py:10 strong"), "{got:?}");
}

const RECS_MODELS: &str = r#"import torch.nn as nn

ARCHS = {}


def arch(name):
    def put(cls):
        ARCHS[name] = cls
        return cls
    return put


@arch("dot")
class DotModel(nn.Module):
    def __init__(self, n_users, n_items, dim=16):
        super().__init__()
        self.users = nn.Embedding(n_users, dim)
        self.items = nn.Embedding(n_items, dim)

    def forward(self, u, i):
        return (self.users(u) * self.items(i)).sum(-1)
"#;

const RECS_TRAIN: &str = r#"import json
import sys

import torch

from models import ARCHS


def user_number(name):
    return int(name.split("_")[1])


def main(settings_path, events):
    with open(settings_path) as f:
        settings = json.load(f)
    names = sorted({e["user"] for e in events})
    settings["net"]["n_users"] = len(names)
    settings["net"]["n_items"] = 1 + max(e["item"] for e in events)
    net_cfg = dict(settings["net"])
    model = ARCHS[net_cfg.pop("kind")](**net_cfg)
    u = torch.tensor([user_number(e["user"]) for e in events])
    i = torch.tensor([e["item"] for e in events])
    model(u, i).sum().backward()


if __name__ == "__main__":
    main(sys.argv[1], json.load(open(sys.argv[2])))
"#;

/// A table sized by a count stored under a key of a settings dict loaded from a file, reached
/// by the model's class through a registry and `**cfg` (no call site names the parameter): the
/// stored count is the bound the ids parsed from names overrun.
#[test]
fn a_size_stored_under_a_settings_key_is_the_bound_of_a_registry_built_model() {
    let got = tiered_suspects(&[("models.py", RECS_MODELS), ("train.py", RECS_TRAIN)], "embedding_over.async.log");
    assert_eq!(got.first().map(|s| s.split(' ').next().unwrap()), Some("train.py:17"), "{got:?}");
}

const CAPTION_CFG: &str = r#"from dataclasses import dataclass


@dataclass
class Settings:
    max_tokens: int = 20
    width: int = 32
    vocab: int = 50
"#;

const CAPTION_DATA: &str = r#"import torch

BOS, EOS, PAD = 1, 2, 0


class Batcher:
    def __init__(self, settings):
        self.length = settings.max_tokens + 2

    def __call__(self, captions):
        out = torch.full((len(captions), self.length), PAD, dtype=torch.long)
        for row, ids in enumerate(captions):
            framed = [BOS] + ids + [EOS]
            out[row, : len(framed)] = torch.tensor(framed)
        return out
"#;

const CAPTION_MODEL: &str = r#"import torch
import torch.nn as nn


class Decoder(nn.Module):
    def __init__(self, vocab, max_tokens, width):
        super().__init__()
        self.tok = nn.Embedding(vocab, width)
        self.at = nn.Embedding(max_tokens, width)

    def forward(self, ids):
        steps = torch.arange(ids.size(1), device=ids.device)
        return self.tok(ids) + self.at(steps)
"#;

const CAPTION_TRAIN: &str = r#"from torch.utils.data import DataLoader

from config import Settings
from data import Batcher
from model import Decoder


def fit(captions):
    s = Settings()
    dec = Decoder(s.vocab, s.max_tokens, s.width)
    for ids in DataLoader(captions, batch_size=4, collate_fn=Batcher(s)):
        dec(ids[:, :-1]).sum().backward()


if __name__ == "__main__":
    fit([[5, 6, 7]] * 8)
"#;

/// The batches are padded, on purpose, to the setting plus the two framing tokens, and the
/// position table is built with the bare setting: the line that hands it over, not the setting
/// both read.
#[test]
fn a_table_sized_by_the_bare_setting_the_batches_add_to_is_the_line() {
    let files = [("config.py", CAPTION_CFG), ("data.py", CAPTION_DATA), ("model.py", CAPTION_MODEL), ("train.py", CAPTION_TRAIN)];
    let got = tiered_suspects(&files, "embedding_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("train.py:10 strong"), "{got:?}");
    assert!(!got.iter().any(|s| s.starts_with("config.py:6") && s.ends_with("strong")), "{got:?}");
}

const SEG_CONSTANTS: &str = r#"VOID = 255
CROP = 64
"#;

const SEG_AUGMENT: &str = r#"import numpy as np

from constants import VOID


class Chain:
    def __init__(self, *steps):
        self.steps = list(steps)

    def __call__(self, image, target):
        for step in self.steps:
            image, target = step(image, target)
        return image, target


class PadTo:
    def __init__(self, size, fill=VOID):
        self.size = size
        self.fill = fill

    def __call__(self, image, target):
        extra = max(self.size - target.shape[0], 0)
        image = np.pad(image, ((0, extra), (0, extra), (0, 0)))
        target = np.pad(target, ((0, extra), (0, extra)), constant_values=self.fill)
        return image, target


class Mirror:
    def __call__(self, image, target):
        return image[:, ::-1], target[:, ::-1]
"#;

const SEG_TRAIN: &str = r#"import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

from augment import Chain, Mirror, PadTo
from constants import CROP


class Tiles(Dataset):
    def __init__(self, images, targets, chain):
        self.images, self.targets, self.chain = images, targets, chain

    def __len__(self):
        return len(self.images)

    def __getitem__(self, k):
        image, target = self.chain(self.images[k], self.targets[k])
        return torch.from_numpy(image.copy()).permute(2, 0, 1).float(), torch.from_numpy(target.copy()).long()


def fit(images, targets, classes):
    data = DataLoader(Tiles(images, targets, Chain(PadTo(CROP), Mirror())), batch_size=4)
    net = nn.Conv2d(3, classes, 1)
    objective = nn.CrossEntropyLoss()
    for image, target in data:
        objective(net(image), target).backward()
"#;

/// A transform chain written as callable classes (`__call__`, a loop over the steps) pads the
/// masks with a void label; the loss is built without `ignore_index`: the loss's line is named.
#[test]
fn a_void_label_padded_in_by_a_callable_transform_names_the_loss_without_ignore_index() {
    let files = [("constants.py", SEG_CONSTANTS), ("augment.py", SEG_AUGMENT), ("train.py", SEG_TRAIN)];
    let got = tiered_suspects(&files, "nll_2d_seg255.async.log");
    assert_eq!(got.first().map(String::as_str), Some("train.py:25 strong"), "{got:?}");
    // the marker's own line is on the list too
    assert!(got.iter().any(|s| s.starts_with("augment.py:24 ")), "{got:?}");
    let fixed = SEG_TRAIN.replace("nn.CrossEntropyLoss()", "nn.CrossEntropyLoss(ignore_index=255)");
    let got =
        tiered_suspects(&[("constants.py", SEG_CONSTANTS), ("augment.py", SEG_AUGMENT), ("train.py", &fixed)], "nll_2d_seg255.async.log");
    assert!(!got.iter().any(|s| s.starts_with("train.py:25 ")), "{got:?}");
}

const GATHER_TAGGER: &str = r#"import torch
import torch.nn as nn
import torch.nn.functional as F

TAGS = ["O", "PER", "LOC", "ORG"]


class Tagger(nn.Module):
    def __init__(self, n_words, n_tags):
        super().__init__()
        self.emb = nn.Embedding(n_words, 16)
        self.out = nn.Linear(16, n_tags)

    def forward(self, words):
        return self.out(self.emb(words))


def tag_loss(scores, gold):
    logp = F.log_softmax(scores, dim=-1)
    return -logp.gather(-1, gold.unsqueeze(-1)).mean()


def run(sentences):
    tag_id = {t: i for i, t in enumerate(TAGS)}
    model = Tagger(1000, len(TAGS) - 1)
    for words, tags in sentences:
        gold = torch.tensor([tag_id[t] for t in tags])
        tag_loss(model(torch.tensor(words)), gold).backward()
"#;

/// A hand-written loss gathers the gold tags along the last dimension of the log-probabilities
/// of a model's scores: the head's width is the bound, and the head built one short is named.
#[test]
fn a_gather_along_the_scores_of_a_model_is_bounded_by_its_head() {
    let v = common::explain_project(&[("tagger.py", GATHER_TAGGER)], "gather_over.async.log");
    let suspects = v["suspects"].as_array().unwrap();
    let bound_lines: Vec<u64> =
        suspects.iter().flat_map(|s| s["bound_chain"].as_array().into_iter().flatten()).filter_map(|c| c["line"].as_u64()).collect();
    assert!(bound_lines.contains(&25), "the head `Tagger(1000, len(TAGS) - 1)` bounds the gather: {v}");
    assert_eq!(suspects.first().and_then(|s| s["line"].as_u64()), Some(25), "{v}");
}

const ONE_HOT: &str = r#"import torch

SIZES = ["S", "M", "L", "XL"]


def size_code(label):
    return SIZES.index(label) + 1


def smoothed(logits, codes, eps=0.1):
    target = torch.full_like(logits, eps / logits.size(1))
    target.scatter_(1, codes.view(-1, 1), 1 - eps)
    return -(target * logits.log_softmax(1)).sum(1).mean()


def step(net, x, labels):
    codes = torch.tensor([size_code(l) for l in labels])
    return smoothed(net(x), codes)
"#;

/// A target built with `scatter_` along the classes (label smoothing by hand): the failing
/// scatter is traced back to the codes' shift.
#[test]
fn a_scatter_into_the_classes_is_traced_to_the_labels() {
    let got = tiered_suspects(&[("sizes.py", ONE_HOT)], "scatter_over.async.log");
    assert_eq!(got.first().map(|s| s.split(' ').next().unwrap()), Some("sizes.py:7"), "{got:?}");
}

const LAYOUT: &str = r#"BOS, EOS = 0, 1
FIRST_CHORD = 2
N_CHORDS = 24
FIRST_DUR = FIRST_CHORD + N_CHORDS
N_DURS = 8
TOKENS = FIRST_DUR + N_DURS


def duration_token(beats):
    return FIRST_DUR + beats


def encode(song):
    out = [BOS]
    for chord, beats in song:
        out.append(FIRST_CHORD + chord)
        while beats > 0:
            b = min(beats, N_DURS)
            out.append(duration_token(b))
            beats -= b
    out.append(EOS)
    return out
"#;

const LAYOUT_TRAIN: &str = r#"import torch
import torch.nn as nn

import layout

songs = [[(3, 10), (5, 4)], [(7, 2)]]

corpus = []
for song in songs:
    corpus.extend(layout.encode(song))
corpus = torch.tensor(corpus)

table = nn.Embedding(layout.TOKENS, 32)
table(corpus[:64]).sum().backward()
"#;

/// Constants read through a project module (`layout.TOKENS`), a list filled by a top-level loop
/// (each top-level statement is traced on its own), and `min(beats, N_DURS)` bounded by its
/// constant: the 1-based duration offset is the line named, though its constants are several
/// hops away.
#[test]
fn constants_of_an_imported_module_and_a_stream_filled_at_top_level() {
    let got = tiered_suspects(&[("layout.py", LAYOUT), ("train.py", LAYOUT_TRAIN)], "embedding_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("layout.py:10 strong"), "{got:?}");
    let fixed = LAYOUT.replace("return FIRST_DUR + beats", "return FIRST_DUR + beats - 1");
    let got = tiered_suspects(&[("layout.py", &fixed), ("train.py", LAYOUT_TRAIN)], "embedding_over.async.log");
    assert!(!got.iter().any(|s| s.starts_with("layout.py:10 strong")), "the offset no longer proves a break: {got:?}");
}

const HPARAMS: &str = r#"from dataclasses import dataclass


@dataclass
class HParams:
    n_symbols: int = 0
    width: int = 64
"#;

const SYMBOLS_TRAIN: &str = r#"import torch
import torch.nn as nn

from hparams import HParams

hp = HParams()
symbols = sorted(set("the quick brown fox"))
hp.n_symbols = len(symbols) - 1


class Reader(nn.Module):
    def __init__(self, hp):
        super().__init__()
        self.table = nn.Embedding(hp.n_symbols, hp.width)

    def forward(self, ids):
        return self.table(ids)


ids = torch.tensor([symbols.index(c) for c in "the fox"])
Reader(hp)(ids).sum().backward()
"#;

/// A config object whose field no method sets (a dataclass default of 0) filled in from outside
/// (`hp.n_symbols = len(symbols) - 1`): the table is sized by the store, not by the default.
#[test]
fn a_config_field_filled_in_from_outside_is_the_bound() {
    let got = tiered_suspects(&[("hparams.py", HPARAMS), ("train.py", SYMBOLS_TRAIN)], "embedding_over.async.log");
    assert_eq!(got.first().map(|s| s.split(' ').next().unwrap()), Some("train.py:8"), "{got:?}");
    assert!(!got.iter().any(|s| s.starts_with("hparams.py:6 ")), "the default 0 is not what sized it: {got:?}");
}

const PHONES_TABLE: &str = r#"import json

SILENCE, START, STOP = 0, 1, 2


def load_lexicon(path):
    with open(path) as fh:
        entries = json.load(fh)
    phones = sorted({p for word in entries for p in entries[word]})
    table = {p: n + 3 for n, p in enumerate(phones)}
    return entries, table
"#;

const PHONES_CLIPS: &str = r#"import torch
from torch.utils.data import Dataset

from lexicon import START


class Utterances(Dataset):
    def __init__(self, entries, table, frames):
        self.items = [[table[p] for p in entries[w]] for w in entries]
        self.frames = frames

    def __len__(self):
        return len(self.items)

    def __getitem__(self, k):
        ids = torch.tensor(self.items[k])
        row = torch.zeros(self.frames, dtype=torch.long)
        row[0] = START
        row[1:1 + len(ids)] = ids
        return row
"#;

const PHONES_NET: &str = r#"import torch.nn as nn


def build(n_symbols, width=48):
    return nn.Sequential(nn.Embedding(n_symbols, width), nn.GRU(width, width, batch_first=True))
"#;

const PHONES_RUN: &str = r#"import sys

from torch.utils.data import DataLoader

from clips import Utterances
from lexicon import load_lexicon
from net import build


def run(path):
    entries, table = load_lexicon(path)
    net = build(len(table))
    for row in DataLoader(Utterances(entries, table, 40), batch_size=16):
        out, _ = net(row)
        out.mean().backward()


run(sys.argv[1])
"#;

/// A symbol table numbered from 3 keeps ids 0–2 for silence and the framing symbols on purpose;
/// the ids are written into a buffer of zeros by a slice store. The lookup table sized by the
/// table's count has no row for the last symbol: the size is the line to change, not the
/// numbering.
#[test]
fn a_symbol_table_numbered_past_its_reserved_ids_names_the_size_that_does_not_count_them() {
    let files = [("lexicon.py", PHONES_TABLE), ("clips.py", PHONES_CLIPS), ("net.py", PHONES_NET), ("run.py", PHONES_RUN)];
    let got = tiered_suspects(&files, "embedding_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("run.py:12 strong"), "{got:?}");
    assert!(got.iter().any(|s| s.starts_with("lexicon.py:10 ")), "the numbering is still in the list: {got:?}");
    let fixed = PHONES_RUN.replace("build(len(table))", "build(len(table) + 3)");
    let files = [("lexicon.py", PHONES_TABLE), ("clips.py", PHONES_CLIPS), ("net.py", PHONES_NET), ("run.py", &fixed)];
    let got = tiered_suspects(&files, "embedding_over.async.log");
    assert!(!got.iter().any(|s| s.ends_with("strong")), "{got:?}");
}

const GRADES_DATA: &str = r#"import csv

import torch
from torch.utils.data import Dataset

GRADES = ["A", "B", "C", "D", "F"]


class Essays(Dataset):
    def __init__(self, path):
        grade_id = {g: rank + 1 for rank, g in enumerate(GRADES)}
        with open(path) as fh:
            rows = list(csv.DictReader(fh))
        self.x = torch.randn(len(rows), 16)
        self.y = torch.tensor([grade_id[r["grade"]] for r in rows])

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]
"#;

const GRADES_TRAIN: &str = r#"import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from data import GRADES, Essays

head = nn.Linear(16, len(GRADES))
for x, y in DataLoader(Essays("essays.csv"), batch_size=32, shuffle=True):
    F.cross_entropy(head(x), y).backward()
"#;

/// A class map numbered from 1 reaching a loss over a head with one output per class: a class
/// head keeps no rows for anything else, so the numbering is the line (not the head).
#[test]
fn a_class_map_numbered_from_one_is_the_line_before_the_head() {
    let files = [("data.py", GRADES_DATA), ("train.py", GRADES_TRAIN)];
    let got = tiered_suspects(&files, "ce_1d_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("data.py:11 strong"), "{got:?}");
}

const SHOP_PREP: &str = r#"import csv


def read_rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def shoppers(orders_path, catalogue_path):
    catalogue = read_rows(catalogue_path)
    people = {}
    for row in read_rows(orders_path):
        if row["customer"] not in people:
            people[row["customer"]] = {"basket": [], "spend": 0.0}
        people[row["customer"]]["basket"].append(int(row["product_id"]))
        people[row["customer"]]["spend"] += float(row["price"])
    return people, len(catalogue)
"#;

const SHOP_DATA: &str = r#"import torch
from torch.utils.data import Dataset


class Baskets(Dataset):
    def __init__(self, people, length=12):
        self.rows = [p["basket"][:length] for p in people.values()]
        self.length = length

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        ids = torch.zeros(self.length, dtype=torch.long)
        ids[: len(self.rows[i])] = torch.tensor(self.rows[i])
        return ids
"#;

const SHOP_TRAIN: &str = r#"import torch.nn as nn
from torch.utils.data import DataLoader

from data import Baskets
from prep import shoppers


class BagOfProducts(nn.Module):
    def __init__(self, n_products, dim=32):
        super().__init__()
        self.table = nn.Embedding(n_products, dim)

    def forward(self, ids):
        return self.table(ids).mean(1)


people, n_products = shoppers("orders.csv", "catalogue.csv")
model = BagOfProducts(n_products)
for ids in DataLoader(Baskets(people), batch_size=64):
    model(ids).pow(2).mean().backward()
"#;

/// Product ids read as numbers from a file and appended into lists held inside a dict of
/// records (`people[c]["basket"].append(int(row["product_id"]))`), copied into a buffer of
/// zeros, reach a lookup table sized by the catalogue's row count: the line that takes the ids
/// as they are is named.
#[test]
fn ids_appended_into_records_of_a_dict_are_traced_to_the_line_that_reads_them() {
    let files = [("prep.py", SHOP_PREP), ("data.py", SHOP_DATA), ("train.py", SHOP_TRAIN)];
    let got = tiered_suspects(&files, "embedding_over.async.log");
    assert!(got.first().is_some_and(|s| s.starts_with("prep.py:15 ")), "{got:?}");
}

const TRIAGE: &str = r#"import torch
import torch.nn as nn
import torch.nn.functional as F

SETTINGS = {"levels": 4, "smoothing": 0.1, "width": 24}
LEVELS = ["green", "yellow", "orange", "red", "black"]


def smooth_targets(y, k, eps):
    hot = F.one_hot(y, k).float()
    return hot * (1 - eps) + eps / k


def step(head, x, y):
    t = smooth_targets(y, SETTINGS["levels"], SETTINGS["smoothing"])
    return -(t * F.log_softmax(head(x), -1)).sum(-1).mean()


def main(records):
    level_of = {name: i for i, name in enumerate(LEVELS)}
    y = torch.tensor([level_of[r["level"]] for r in records])
    x = torch.randn(len(records), SETTINGS["width"])
    head = nn.Linear(SETTINGS["width"], len(LEVELS))
    step(head, x, y).backward()
"#;

/// `F.one_hot(y, k)` is checked against the `k` it is given: a settings dict's class count
/// that is smaller than the label list is the bound named.
#[test]
fn one_hot_is_bounded_by_the_count_it_is_given() {
    let files = [("triage.py", TRIAGE)];
    let got = tiered_suspects(&files, "one_hot_over.async.log");
    assert!(got.first().is_some_and(|s| s.starts_with("triage.py:5 ")), "{got:?}");
}

const STAGES_PREP: &str = r#"import json
import os

import numpy as np

OUT = "artifacts"


def main():
    stages = np.loadtxt("stages.txt", dtype=np.int64)
    os.makedirs(OUT, exist_ok=True)
    np.save(os.path.join(OUT, "stages.npy"), stages)
    with open(os.path.join(OUT, "meta.json"), "w") as fh:
        json.dump({"n_stages": int(stages.max()), "rows": len(stages)}, fh)


if __name__ == "__main__":
    main()
"#;

const STAGES_FIT: &str = r#"import json
import os

import numpy as np
import torch
import torch.nn as nn

OUT = "artifacts"


def load():
    with open(os.path.join(OUT, "meta.json")) as fh:
        meta = json.load(fh)
    y = torch.from_numpy(np.load(os.path.join(OUT, "stages.npy")))
    return meta, y


def fit():
    meta, y = load()
    clf = nn.Linear(8, meta["n_stages"])
    x = torch.randn(len(y), 8)
    nn.CrossEntropyLoss()(clf(x), y).backward()


fit()
"#;

/// One script saves the labels and a size made from their largest value; another reads both
/// back from the files it names: the value is followed through the save and the load, and the
/// size taken as the largest id (not the largest + 1) is the line.
#[test]
fn a_size_saved_by_one_script_and_loaded_by_another_is_followed_through_the_file() {
    let files = [("prep.py", STAGES_PREP), ("fit.py", STAGES_FIT)];
    let v = common::explain_project(&files, "ce_1d_over.async.log");
    let first = &v["suspects"][0];
    assert_eq!(format!("{}:{}", first["file"].as_str().unwrap_or(""), first["line"]), "prep.py:14", "{}", v["suspects"]);
    let chain = first["chain"].to_string();
    // from the line that saved it to the line that read it back
    assert!(chain.contains(r#""file":"fit.py","line":13"#), "the chain goes through the file: {chain}");
}

const SESSIONS_IO: &str = r#"import json
from pathlib import Path

ROOT = Path(__file__).parent
RAW = ROOT / "raw"
WORK = ROOT / "work"


def write_json(payload, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        json.dump(payload, fh)


def read_json(path):
    with open(path) as fh:
        return json.load(fh)
"#;

const SESSIONS_PREP: &str = r#"import numpy as np

from io_utils import RAW, WORK, read_json, write_json

KINDS = ["walk", "run", "cycle"]
SPEEDS = ["slow", "fast"]


def label_of(kind, speed):
    return KINDS.index(kind) * len(KINDS) + SPEEDS.index(speed)


def main():
    rows = read_json(RAW / "sessions.json")
    parts = {"train": ([], []), "test": ([], [])}
    for i, row in enumerate(rows):
        part = "test" if i % 5 == 0 else "train"
        parts[part][0].append(row["features"])
        parts[part][1].append(label_of(row["kind"], row["speed"]))
    for part, (feats, labels) in parts.items():
        np.save(WORK / f"{part}_x.npy", np.array(feats, dtype=np.float32))
        np.save(WORK / f"{part}_y.npy", np.array(labels))
    write_json({"rows": len(rows), "n_classes": len({r["kind"] for r in rows})}, RAW / "meta.json")
    write_json({"n_classes": len(KINDS) * len(SPEEDS)}, WORK / "meta.json")


main()
"#;

const SESSIONS_FIT: &str = r#"import numpy as np
import torch
import torch.nn as nn

from io_utils import WORK, read_json


def main():
    meta = read_json(WORK / "meta.json")
    x = torch.from_numpy(np.load(WORK / "train_x.npy"))
    y = torch.from_numpy(np.load(WORK / "train_y.npy"))
    head = nn.Linear(x.shape[1], meta["n_classes"])
    nn.CrossEntropyLoss()(head(x), y).backward()


main()
"#;

/// A preparation script gathers labels into the second list of a tuple per split (`parts[part]
/// [1].append(…)`), saves them, and writes the class count through a helper of a shared module
/// (`write_json(payload, path)` around `json.dump`); the training script reads both back
/// through the helper's twin. The labels are followed through the tuple, the file and the
/// helper's write to the line that combines two codes with the wrong stride, and the count
/// through the helper's write of `meta.json` in the folder it is read from.
#[test]
fn values_saved_through_a_project_helper_and_gathered_in_a_tuple_are_followed() {
    let files = [("io_utils.py", SESSIONS_IO), ("prep.py", SESSIONS_PREP), ("fit.py", SESSIONS_FIT)];
    let v = common::explain_project(&files, "ce_1d_over.async.log");
    let first = &v["suspects"][0];
    assert_eq!(format!("{}:{}", first["file"].as_str().unwrap_or(""), first["line"]), "prep.py:10", "{}", v["suspects"]);
    let chain = first["chain"].to_string();
    assert!(chain.contains(r#""file":"prep.py","line":19"#), "through the tuple's list: {chain}");
    let bound = v["suspects"].to_string();
    assert!(bound.contains(r#""file":"prep.py","line":24"#), "the count through the helper's write: {bound}");
    assert!(!bound.contains(r#""file":"prep.py","line":23"#), "a write to another folder is another file: {bound}");
}

/// The same two scripts after a run: the metadata the first one wrote is on disk. The file is
/// what the earlier run left; the line that made the value it holds is still the one named, not
/// the key in the leftover file. A project that writes a copy of its own config under the same
/// name (a run directory's `train.json`) still reads the config file it names.
#[test]
fn a_file_the_project_writes_is_followed_to_its_writer_even_when_a_copy_is_on_disk() {
    let leftover = r#"{"n_stages": 4, "rows": 100}"#;
    let files = [("prep.py", STAGES_PREP), ("fit.py", STAGES_FIT), ("artifacts/meta.json", leftover)];
    let top = common::top_suspects(&files, "ce_1d_over.async.log");
    assert_eq!(top.first().map(String::as_str), Some("prep.py:14"), "{top:?}");
    assert!(!top.iter().any(|s| s.starts_with("artifacts/meta.json")), "{top:?}");

    let config = "{\n  \"lr\": 0.001,\n  \"n_classes\": 4\n}\n";
    let train = r#"import json
import os

import torch
import torch.nn as nn


def main():
    with open("configs/train.json") as fh:
        cfg = json.load(fh)
    run_dir = os.path.join("runs", "latest")
    os.makedirs(run_dir, exist_ok=True)
    with open(os.path.join(run_dir, "train.json"), "w") as fh:
        json.dump(cfg, fh)
    head = nn.Linear(8, cfg["n_classes"])
    y = torch.randint(0, 5, (16,))
    nn.CrossEntropyLoss()(head(torch.randn(16, 8)), y).backward()


main()
"#;
    let files = [("train.py", train), ("configs/train.json", config)];
    let top = common::top_suspects(&files, "ce_1d_over.async.log");
    assert!(top.iter().any(|s| s == "configs/train.json:3"), "the config key stays a suspect: {top:?}");
}

const SPECIES_TRAIN: &str = r#"import csv

import torch
import torch.nn as nn

N_SPECIES = 3


def load(path, species_map):
    with open(path) as fh:
        rows = list(csv.DictReader(fh))
    feats = torch.tensor([[float(r["w"]), float(r["h"])] for r in rows])
    labels = torch.tensor([species_map[r["species"]] for r in rows])
    return feats, labels


def main():
    with open("data/species.txt") as fh:
        names = [line.strip() for line in fh if line.strip()]
    species_map = {n: i for i, n in enumerate(names)}
    x, y = load("data/birds.csv", species_map)
    head = nn.Linear(2, N_SPECIES)
    nn.CrossEntropyLoss()(head(x), y).backward()


main()
"#;

/// A data column whose cells are only keys looked up in a map numbered from 0: with the data
/// on disk (a project after a run) the column is no origin (the lookup and the hand-set class
/// count are the suspects). And
/// ids read as they are from one to the count itself (`1..=5` with a count of 5): the reading,
/// not the count, is the line — the count counts them right.
#[test]
fn a_column_used_as_keys_is_no_origin_and_one_based_ids_blame_the_reading() {
    let csv = "w,h,species\n1.0,2.0,heron\n0.5,1.0,wren\n0.7,1.1,finch\n2.0,3.0,stork\n";
    let names = "heron\nwren\nfinch\nstork\n";
    let files = [("train.py", SPECIES_TRAIN), ("data/birds.csv", csv), ("data/species.txt", names)];
    let v = common::explain_project(&files, "ce_1d_over.async.log");
    let said: Vec<&str> = v["suspects"].as_array().unwrap().iter().filter_map(|s| s["message"].as_str()).collect();
    assert!(said.iter().any(|m| m.contains("the bound")), "{said:?}");
    assert!(!said.iter().any(|m| m.contains("reads column `species`")), "the keys' column is not an origin: {said:?}");
    // the names counted and numbered from the data itself: the count, not the names
    let counted = SPECIES_TRAIN.replace(
        "    with open(\"data/species.txt\") as fh:\n        names = [line.strip() for line in fh if line.strip()]\n",
        "    with open(\"data/birds.csv\") as fh:\n        names = sorted({r[\"species\"] for r in csv.DictReader(fh)})\n",
    );
    assert_ne!(counted, SPECIES_TRAIN);
    let files = [("train.py", counted.as_str()), ("data/birds.csv", csv)];
    let v = common::explain_project(&files, "ce_1d_over.async.log");
    let said: Vec<&str> = v["suspects"].as_array().unwrap().iter().filter_map(|s| s["message"].as_str()).collect();
    assert!(!said.iter().any(|m| m.contains("reads column `species`")), "names counted are not an origin: {said:?}");
    assert!(said.iter().any(|m| m.contains("the bound")), "{said:?}");

    let grades = r#"import csv

import torch
import torch.nn as nn
import yaml


def main():
    with open("config.yaml") as fh:
        cfg = yaml.safe_load(fh)
    with open("data/essays.csv") as fh:
        rows = list(csv.DictReader(fh))
    x = torch.tensor([[float(r["len"]), float(r["typos"])] for r in rows])
    y = torch.tensor([int(r["grade"]) for r in rows])
    head = nn.Linear(2, cfg["n_grades"])
    nn.CrossEntropyLoss()(head(x), y).backward()


main()
"#;
    let essays = "len,typos,grade\n100,2,1\n250,0,5\n180,1,3\n90,4,2\n300,0,4\n";
    let files = [("train.py", grades), ("config.yaml", "lr: 0.01\nn_grades: 5\n"), ("data/essays.csv", essays)];
    let top = common::top_suspects(&files, "ce_1d_over.async.log");
    assert_eq!(top.first().map(String::as_str), Some("train.py:14"), "{top:?}");
    // numbered from zero, the same count is the line to change
    let zero = essays.replace(",1\n", ",0\n");
    let files = [("train.py", grades), ("config.yaml", "lr: 0.01\nn_grades: 5\n"), ("data/essays.csv", zero.as_str())];
    let top = common::top_suspects(&files, "ce_1d_over.async.log");
    assert_eq!(top.first().map(String::as_str), Some("config.yaml:2"), "{top:?}");
}

const TAGGER_LOSS: &str = r#"import torch
import torch.nn.functional as F

SKIP = -100


def pad_tags(rows, width):
    return torch.tensor([r + [SKIP] * (width - len(r)) for r in rows])


def tag_loss(scores, tags, skip=SKIP):
    tags = tags.reshape(-1)
    scores = scores.reshape(tags.numel(), -1)
    real = tags != skip
    scores, tags = scores[real], tags[real]
    logp = F.log_softmax(scores, -1)
    return -logp.gather(1, tags.unsqueeze(1)).mean()


def step(model, x, rows):
    tags = pad_tags(rows, x.shape[1])
    tag_loss(model(x), tags).backward()
"#;

/// Padding written with a marker, then selected out by a mask of the same marker before the
/// gather (`real = tags != skip; tags[real]`): nothing to report, in lint or in explain.
#[test]
fn a_marker_selected_out_before_the_gather_is_not_reported() {
    let markers = |text: &str| {
        let files = [("tagger.py", text), ("train.py", "from tagger import step\n")];
        let v = common::explain_project(&files, "gather_over.async.log");
        // the line that sets the marker (`SKIP = -100`)
        v["suspects"].as_array().unwrap().iter().filter(|s| s["file"] == "tagger.py" && s["line"] == 4).count()
    };
    assert_eq!(markers(TAGGER_LOSS), 0);
    let unmasked = TAGGER_LOSS.replace("scores, tags = scores[real], tags[real]", "scores = scores[real]");
    assert!(markers(&unmasked) > 0, "without the mask the marker reaches the gather");
}

const EXPERTS: &str = r#"import torch
import torch.nn as nn


class Mixture(nn.Module):
    """Several experts each give a probability per tag; a gate weighs them."""

    def __init__(self, dim, tags, experts=4):
        super().__init__()
        self.heads = nn.ModuleList([nn.Linear(dim, tags) for _ in range(experts)])
        self.gate = nn.Linear(dim, experts)

    def forward(self, x):
        per_expert = torch.stack([h(x).sigmoid() for h in self.heads], dim=1)
        share = self.gate(x).softmax(GATE_DIM)
        mixed = torch.sum(share.unsqueeze(2) * per_expert, 1)
        return mixed
"#;

const EXPERTS_TRAIN: &str = r#"import torch
import torch.nn.functional as F

from experts import Mixture


def step(model, x, y):
    p = model(x)
    return F.binary_cross_entropy(p, y)


if __name__ == "__main__":
    m = Mixture(8, 5)
    step(m, torch.randn(16, 8), torch.randint(0, 2, (16, 5)).float()).backward()
"#;

/// A gate's softmax weighs experts' probabilities and the weighted sum runs over the experts'
/// dimension: a probability only when the softmax normalized over that same dimension. Over
/// the batch (dim 0) it did not, and the softmax is the line to change, not the sum; over the
/// experts (dim 1) the mixture is a probability and nothing is blamed for it.
#[test]
fn a_weighted_sum_over_another_dimension_than_the_softmax_names_the_softmax() {
    let wrong = EXPERTS.replace("GATE_DIM", "0");
    let got = tiered_suspects(&[("experts.py", &wrong), ("train.py", EXPERTS_TRAIN)], "bce_module_over1.async.log");
    assert_eq!(got.first().map(|s| s.split(' ').next().unwrap()), Some("experts.py:15"), "{got:?}");
    let right = EXPERTS.replace("GATE_DIM", "1");
    let got = tiered_suspects(&[("experts.py", &right), ("train.py", EXPERTS_TRAIN)], "bce_module_over1.async.log");
    assert!(!got.iter().any(|s| s.starts_with("experts.py:15") || s.starts_with("experts.py:16")), "{got:?}");
}

const PAIRS: &str = r#"import torch
import torch.nn as nn


class Matcher(nn.Module):
    def __init__(self, n_items, width=16):
        super().__init__()
        self.left = nn.Embedding(n_items, width)
        self.right = nn.Embedding(n_items, width)

    def forward(self, a, b):
        score = (self.left(a) * self.right(b)).sum(-1)
        return score


def match_probability(score):
    e = torch.exp(score)
    return e / (1 + e)
"#;

const PAIRS_TRAIN: &str = r#"import torch
import torch.nn as nn

from pairs import Matcher, match_probability

loss_fn = nn.BCELoss()


def fit(model, a, b, same):
    p = match_probability(model(a, b))
    return loss_fn(p, same)


if __name__ == "__main__":
    fit(Matcher(50), torch.randint(0, 50, (32,)), torch.randint(0, 50, (32,)), torch.ones(32)).backward()
"#;

/// Scores turned into probabilities by a formula the project wrote itself (a sigmoid by hand,
/// which overflows to nan for large scores): the formula is the line to change, ahead of the
/// loss that would take logits instead; the loss is still listed.
#[test]
fn a_hand_made_probability_formula_is_named_before_the_loss() {
    let got = tiered_suspects(&[("pairs.py", PAIRS), ("train.py", PAIRS_TRAIN)], "bce_module_over1.async.log");
    assert_eq!(got.first().map(|s| s.split(' ').next().unwrap()), Some("pairs.py:18"), "{got:?}");
    assert!(got.iter().any(|s| s.starts_with("train.py:6 ")), "{got:?}");
}

const LAST_STATE: &str = r#"import torch
import torch.nn as nn


class Reader(nn.Module):
    def __init__(self, vocab, hidden=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, hidden)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)

    def forward(self, batch):
        states, _ = self.rnn(self.emb(batch["tokens"]))
        valid = batch["valid"]
        ends = valid.sum(dim=1)OFFSET
        pick = ends[:, None, None].expand(-1, 1, states.size(2))
        return states.gather(1, pick).squeeze(1)


if __name__ == "__main__":
    tokens = torch.randint(1, 20, (4, 9))
    Reader(20)({"tokens": tokens, "valid": torch.ones(4, 9, dtype=torch.long)}).sum().backward()
"#;

/// The number of valid steps (a 0/1 tensor summed along the time dimension) taken as the
/// position of the last step: one past it for the longest row. The count's line is named; with
/// 1 taken off it is not.
#[test]
fn a_count_along_a_dimension_used_as_a_position_names_the_count() {
    let got = tiered_suspects(&[("reader.py", &LAST_STATE.replace("OFFSET", ""))], "gather_over.async.log");
    assert!(got.iter().take(2).any(|s| s.starts_with("reader.py:14 ") || s.starts_with("reader.py:15 ")), "{got:?}");
    let got = tiered_suspects(&[("reader.py", &LAST_STATE.replace("OFFSET", " - 1"))], "gather_over.async.log");
    assert!(!got.iter().any(|s| s.starts_with("reader.py:14 ") || s.starts_with("reader.py:15 ")), "{got:?}");
}

const MARKED_CONSTANTS: &str = r#"PAD_TAG = -1
TAGS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
"#;

const MARKED_LOSS: &str = r#"import torch
import torch.nn.functional as F

from constants import PAD_TAG, TAGS


def soft_f1(scores, tags):
    probs = scores.softmax(-1)
    keep = tags.ne(PAD_TAG).unsqueeze(-1)
    gold = F.one_hot(tags, len(TAGS)).float()
    tp = (probs * gold * keep).sum()
    return 1 - 2 * tp / ((probs + gold) * keep).sum()
"#;

/// The same loss with the marker filled before the op: what reaches the op holds no marker.
const MARKED_LOSS_FILLED: &str = r#"import torch
import torch.nn.functional as F

from constants import PAD_TAG, TAGS


def soft_f1(scores, tags):
    probs = scores.softmax(-1)
    keep = tags.ne(PAD_TAG).unsqueeze(-1)
    tags = tags.masked_fill(~keep.squeeze(-1), 0)
    gold = F.one_hot(tags, len(TAGS)).float()
    tp = (probs * gold * keep).sum()
    return 1 - 2 * tp / ((probs + gold) * keep).sum()
"#;

#[test]
fn a_marker_the_function_tests_for_then_hands_to_the_op_names_the_op() {
    let got = tiered_suspects(&[("constants.py", MARKED_CONSTANTS), ("loss.py", MARKED_LOSS)], "one_hot_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("loss.py:10 strong"), "{got:?}");
    let got = tiered_suspects(&[("constants.py", MARKED_CONSTANTS), ("loss.py", MARKED_LOSS_FILLED)], "one_hot_over.async.log");
    assert!(!got.iter().any(|s| s == "loss.py:11 strong"), "{got:?}");
    // a marker inside the table (row 0) is no suspect
    let zero = MARKED_CONSTANTS.replace("PAD_TAG = -1", "PAD_TAG = 0");
    let got = tiered_suspects(&[("constants.py", &zero), ("loss.py", MARKED_LOSS)], "one_hot_over.async.log");
    assert!(!got.iter().any(|s| s == "loss.py:10 strong"), "{got:?}");
}

const LAYERS_DATA: &str = r#"import numpy as np
import torch


class Layers(torch.utils.data.Dataset):
    def __init__(self, organs, lesions, lesion_class):
        self.organs = organs
        self.lesions = lesions
        self.lesion_class = lesion_class

    def __len__(self):
        return len(self.organs)

    def __getitem__(self, i):
        seg = self.organs[i] + self.lesions[i] * self.lesion_class
        seg = np.flip(seg, axis=1)
        return torch.from_numpy(np.ascontiguousarray(seg))
"#;

const LAYERS_TRAIN: &str = r#"import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from data import Layers


def fit(model, organs, lesions):
    loader = DataLoader(Layers(organs, lesions, 3), batch_size=4)
    for seg in loader:
        loss = F.cross_entropy(model(seg.float()), seg)
        loss.backward()
"#;

#[test]
fn numpy_and_torch_functions_that_keep_the_values_pass_them_on() {
    // `np.flip(x)` / `np.ascontiguousarray(x)` are the library's functions of `x`, not methods
    // of `np`: the slice goes on through them to the line that made the labels
    let got = tiered_suspects(&[("data.py", LAYERS_DATA), ("train.py", LAYERS_TRAIN)], "ce_1d_over.async.log");
    assert_eq!(got.first().map(|s| s.split(' ').next().unwrap()), Some("data.py:15"), "{got:?}");
}

const GRID_SETTINGS: &str = r#"ROWS = ["north", "middle", "south"]
COLS = ["west", "east"]
N_ROWS = len(ROWS)
N_COLS = len(COLS)
N_CELLS = N_ROWS * N_COLS
"#;

const GRID_FEATURES: &str = r#"import numpy as np

from settings import ROWS, COLS, N_ROWS


class Positions:
    def __init__(self):
        self.rows = {}
        self.cols = {}

    def fit(self):
        self.rows = {r: i for i, r in enumerate(ROWS)}
        self.cols = {c: i for i, c in enumerate(COLS)}
        return self

    def cells(self, records):
        row = np.array([self.rows[r["row"]] for r in records])
        col = np.array([self.cols[r["col"]] for r in records])
        return row * N_ROWS + col
"#;

const GRID_MODEL: &str = r#"import torch
import torch.nn as nn

from features import Positions
from settings import N_CELLS


class CellModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.Embedding(N_CELLS, 8)

    def forward(self, cells):
        return self.cell(cells).sum(-1)


def run(records):
    pos = Positions().fit()
    cells = torch.from_numpy(pos.cells(records))
    model = CellModel()
    return model(cells)
"#;

#[test]
fn arithmetic_on_the_cells_of_arrays_is_not_list_repetition() {
    // `row * N_ROWS + col` on numpy arrays: cells up to 2 * 3 + 1 = 7 for a table of 6 rows,
    // not a list repeated and extended
    let files = [("settings.py", GRID_SETTINGS), ("features.py", GRID_FEATURES), ("model.py", GRID_MODEL)];
    let got = tiered_suspects(&files, "embedding_over.async.log");
    assert_eq!(got.first().map(|s| s.split(' ').next().unwrap()), Some("features.py:19"), "{got:?}");
}

const POOLED_MODEL: &str = r#"import torch
import torch.nn as nn


def soft_max_pool(p, sharpness):
    return torch.logsumexp(sharpness * p.flatten(1), dim=1) / sharpness


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.frames = nn.Linear(40, 1)

    def forward(self, x):
        frame_p = torch.sigmoid(self.frames(x)).squeeze(-1)
        return soft_max_pool(frame_p, 5.0)
"#;

const POOLED_TRAIN: &str = r#"import torch
import torch.nn.functional as F

from model import Tagger


class ClipLoss:
    def __init__(self, weight):
        self.weight = weight

    def __call__(self, clip_p, clip_y):
        return self.weight * F.binary_cross_entropy(clip_p, clip_y)


def fit(batches):
    model = Tagger()
    loss_fn = ClipLoss(1.0)
    for x, y in batches:
        loss = loss_fn(model(x), y)
        loss.backward()
"#;

#[test]
fn a_loss_class_called_through_its_instance_reaches_a_pooling_that_leaves_zero_one() {
    // `loss_fn(model(x), y)` runs `ClipLoss.__call__`: its parameter comes from that call, and
    // the log of a sum of exponentials of probabilities is no probability
    let got = tiered_suspects(&[("model.py", POOLED_MODEL), ("train.py", POOLED_TRAIN)], "bce_module_over1.async.log");
    assert_eq!(got.first().map(String::as_str), Some("model.py:6 strong"), "{got:?}");
}

const WINDOW_DATA: &str = r#"import numpy as np

WINDOW = 12


def windows(readings):
    out = []
    for t in range(len(readings)):
        past = readings[max(0, t - WINDOW):t]
        out.append(past + [readings[t]])
    return out


def batches(ws, size):
    for i in range(0, len(ws), size):
        chunk = ws[i:i + size]
        width = max(len(w) for w in chunk)
        x = np.zeros((len(chunk), width), dtype=np.int64)
        for j, w in enumerate(chunk):
            x[j, : len(w)] = w
        yield x, width
"#;

const WINDOW_MODEL: &str = r#"import torch
import torch.nn as nn

from data import WINDOW, batches, windows


class Reader(nn.Module):
    def __init__(self):
        super().__init__()
        self.step = nn.Embedding(WINDOW, 16)

    def forward(self, x):
        at = torch.arange(x.size(1))
        return self.step(at).sum()


def train(readings):
    model = Reader()
    for x, width in batches(windows(readings), 32):
        model(torch.from_numpy(x)).backward()
"#;

#[test]
fn a_window_that_ends_at_the_current_step_and_a_generator_of_batches_are_followed() {
    // `readings[max(0, t - WINDOW):t]` holds at most WINDOW readings, and one more is appended;
    // `for x, width in batches(…)` binds one yielded tuple, not the cells of one
    let got = tiered_suspects(&[("data.py", WINDOW_DATA), ("model.py", WINDOW_MODEL)], "embedding_over.async.log");
    let top: Vec<&str> = got.iter().take(2).map(|s| s.split(' ').next().unwrap()).collect();
    assert!(top.contains(&"data.py:10") || top.contains(&"model.py:10"), "{got:?}");
    assert!(got.first().is_some_and(|s| s.ends_with("strong")), "{got:?}");
}

const SIGHTING_DATA: &str = r#"import csv

import torch


def read_sightings(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    species = torch.tensor([int(r["species_id"]) for r in rows])
    n_species = len(set(r["species_id"] for r in rows))
    return species, n_species
"#;

const SIGHTING_TRAIN: &str = r#"import torch
import torch.nn as nn

from data import read_sightings


def main():
    species, n_species = read_sightings("sightings.csv")
    table = nn.Embedding(n_species, 4)
    return table(species).mean()
"#;

#[test]
fn ids_taken_as_they_are_beside_a_count_of_the_same_column_name_the_count() {
    // the ids of one column go to the op untouched; the table is sized by how many distinct ids
    // the same column holds: the count is the line to change
    let got = tiered_suspects(&[("data.py", SIGHTING_DATA), ("train.py", SIGHTING_TRAIN)], "embedding_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("data.py:10 likely"), "{got:?}");
}

const TAGGED_IMAGES: &str = r#"from collections import defaultdict

import torch


def rows_of(path):
    with open(path) as f:
        return [line.rstrip("\n").split(",") for line in f]


def load(root):
    species = {int(img): int(sp) - 1 for img, sp in rows_of(root + "/species.csv")}
    tags = defaultdict(list)
    for img, tag in rows_of(root + "/tags.csv"):
        tags[int(img)].append(int(tag))
    return [(species[i], tags[i]) for i in sorted(species)]


def multi_hot(items, n_tags):
    out = torch.zeros(len(items), n_tags)
    for k, (_, ts) in enumerate(items):
        out[k].scatter_(0, torch.tensor(ts), 1.0)
    return out


def main(root):
    return multi_hot(load(root), 12)
"#;

#[test]
fn an_id_used_as_read_beside_ids_the_same_function_shifts_from_one_is_named() {
    // species ids lose 1 (the files number from 1); tag ids, read the same way into a
    // defaultdict of lists, are used as they are
    let got = tiered_suspects(&[("tags.py", TAGGED_IMAGES)], "scatter_over.async.log");
    assert_eq!(got.first().map(|s| s.split(' ').next().unwrap()), Some("tags.py:15"), "{got:?}");
}

const CODE_TABLE: &str = r#"import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def read_table(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    table = np.zeros(32, dtype=np.int64)
    for r in rows:
        table[int(r["code"])] = int(r["cls"])
    n_cls = len({r["cls"] for r in rows})
    return table, n_cls


def step(x, raw):
    table, n_cls = read_table("codes.csv")
    head = nn.Linear(8, n_cls)
    return F.cross_entropy(head(x), torch.from_numpy(table[raw]))
"#;

const CODE_TABLE_DATA: &str = "code,cls\n3,1\n7,2\n9,3\n12,4\n";

#[test]
fn a_table_filled_entry_by_entry_from_a_column_beside_a_count_of_that_column_names_the_count() {
    // the table's zeros and the column's classes 1..=4 both reach the loss; the head counts
    // the column's 4 distinct classes
    let got = tiered_suspects(&[("codes.py", CODE_TABLE), ("codes.csv", CODE_TABLE_DATA)], "ce_1d_over.async.log");
    assert_eq!(got.first().map(|s| s.split(' ').next().unwrap()), Some("codes.py:15"), "{got:?}");
}

const CLIPS_TAGS: &str = r#"N_EVENTS = 5
FIT = dict(n=12, fill=-1)
"#;

const CLIPS_DATA: &str = r#"import numpy as np
import torch
from torch.utils.data import Dataset

from tags import FIT


def fit(seq, n, fill):
    seq = list(seq)[:n]
    return seq + [fill] * (n - len(seq))


class Clips(Dataset):
    def __init__(self, clips):
        self.items = []
        for feats, onsets, events in clips:
            self.items.append((fit(onsets, **FIT), fit(events, **FIT), np.asarray(feats, dtype=np.float32)))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        onsets, events, feats = self.items[i]
        return torch.from_numpy(feats), torch.tensor(onsets), torch.tensor(events, dtype=torch.long)
"#;

const CLIPS_NET: &str = r#"import torch
import torch.nn as nn

from tags import N_EVENTS


class Tagger(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.events = nn.Embedding(N_EVENTS, width)
        self.proj = nn.Linear(width, 1)

    def forward(self, feats, events):
        heard = (events >= 0).float()
        return self.proj(self.events(events)).squeeze(-1) * heard
"#;

const CLIPS_TRAIN: &str = r#"import random

import torch
from torch.utils.data import DataLoader

from audio_data import Clips
from net import Tagger


def clips(n):
    out = []
    for _ in range(n):
        k = random.randint(3, 12)
        out.append(([0.0] * 8, list(range(k)), [random.randrange(5) for _ in range(k)]))
    return out


def main():
    loader = DataLoader(Clips(clips(64)), batch_size=8, shuffle=True)
    model = Tagger().cuda()
    for feats, onsets, events in loader:
        model(feats.cuda(), events.cuda()).sum().backward()


main()
"#;

/// The fill value of a padding helper comes from keyword settings built with `dict(...)` and
/// splatted into each call (`fit(events, **FIT)`): the record's field is followed to the number
/// written in it, whichever call or trial evaluated the settings first.
#[test]
fn a_fill_value_splatted_from_keyword_settings_names_the_settings_line() {
    let files = [("tags.py", CLIPS_TAGS), ("audio_data.py", CLIPS_DATA), ("net.py", CLIPS_NET), ("train.py", CLIPS_TRAIN)];
    let got = tiered_suspects(&files, "embedding_neg.async.log");
    assert_eq!(got.first().map(String::as_str), Some("tags.py:2 strong"), "{got:?}");
    // a fill the table holds: no strong suspect
    let fixed = CLIPS_TAGS.replace("fill=-1", "fill=0");
    let files = [("tags.py", fixed.as_str()), ("audio_data.py", CLIPS_DATA), ("net.py", CLIPS_NET), ("train.py", CLIPS_TRAIN)];
    let got = tiered_suspects(&files, "embedding_neg.async.log");
    assert!(!got.iter().any(|s| s.ends_with("strong")), "{got:?}");
}

const TRACKS_GENRES: &str = r#"import json
from itertools import accumulate


class GenreTree:
    def __init__(self, tree):
        self.genres = sorted(tree)
        self.subs = [sorted(tree[g]) for g in self.genres]
        counts = [len(s) for s in self.subs]
        self.first = list(accumulate(counts))
        self.n_genres = len(self.genres)
        self.n_subs = sum(counts)

    def flat(self, g, s):
        return self.first[g] + s


def load_tree(path):
    with open(path) as f:
        return GenreTree(json.load(f))
"#;

const TRACKS_PREP: &str = r#"import json
import random

from genres import load_tree


def prepare(root):
    tree = load_tree(root + "/tree.json")
    for split, n in (("train", 200), ("valid", 50)):
        rows = {"g": [], "s": []}
        for _ in range(n):
            g = random.randrange(tree.n_genres)
            s = random.randrange(len(tree.subs[g]))
            rows["g"].append(g)
            rows["s"].append(tree.flat(g, s))
        with open(root + "/%s_tracks.json" % split, "w") as f:
            json.dump(rows, f)


if __name__ == "__main__":
    prepare("data")
"#;

const TRACKS_FIT: &str = r#"import json

import torch
import torch.nn as nn
import torch.nn.functional as F

from genres import load_tree


class TwoLevel(nn.Module):
    def __init__(self, n_genres, n_subs, width=32):
        super().__init__()
        self.body = nn.Linear(16, width)
        self.genre = nn.Linear(width, n_genres)
        self.sub = nn.Linear(width, n_subs)

    def forward(self, x):
        h = torch.relu(self.body(x))
        return self.genre(h), self.sub(h)


def tracks(path):
    with open(path) as f:
        rows = json.load(f)
    return torch.tensor(rows["g"]), torch.tensor(rows["s"])


def main():
    tree = load_tree("data/tree.json")
    net = TwoLevel(tree.n_genres, tree.n_subs)
    g, s = tracks("data/train_tracks.json")
    x = torch.randn(len(g), 16)
    genre_scores, sub_scores = net(x)
    loss = F.cross_entropy(sub_scores, s) + 0.1 * genre_scores.pow(2).mean()
    loss.backward()


main()
"#;

/// Flat sub-genre ids made from running sums (`itertools.accumulate`, the end of each block, not
/// its start), written by a preparation script to a file named per split (`"%s_tracks.json" %
/// split`) and read back through a helper given the path; the loss is on the second output of a
/// two-headed model. The running sums are the line; the bound is the second head's width.
#[test]
fn running_sums_written_per_split_and_read_back_reach_the_second_head() {
    let files = [("genres.py", TRACKS_GENRES), ("prep.py", TRACKS_PREP), ("fit.py", TRACKS_FIT)];
    let v = common::explain_project(&files, "ce_1d_over.async.log");
    let top = &v["suspects"][0];
    assert_eq!((top["file"].as_str(), top["line"].as_u64()), (Some("genres.py"), Some(10)), "{v}");
    let chain: Vec<String> =
        top["chain"].as_array().unwrap().iter().map(|c| format!("{}:{}", c["file"].as_str().unwrap(), c["line"])).collect();
    assert!(chain.contains(&"prep.py:17".to_string()), "the writer is on the chain: {chain:?}");
    let bound: Vec<String> =
        top["bound_chain"].as_array().unwrap().iter().map(|c| format!("{}:{}", c["file"].as_str().unwrap(), c["line"])).collect();
    assert!(bound.contains(&"fit.py:15".to_string()), "the second head is the bound: {bound:?}");
}

const CRITIC: &str = r#"import torch
import torch.nn as nn
import torch.nn.functional as F


class Critic(nn.Module):
    def __init__(self, n_in):
        super().__init__()
        self.body = nn.Linear(n_in, 1)

    def forward(self, x):
        return torch.sigmoid(self.body(x)).squeeze(-1)


def from_first_player(p, to_move):
    return torch.where(to_move == 1, p, -p)


def train(x, to_move, outcome):
    critic = Critic(x.shape[1])
    loss = F.binary_cross_entropy(from_first_player(critic(x), to_move), outcome)
    loss.backward()
"#;

/// A win probability turned to the other player's view by a sign flip (meant for a value in
/// [-1, 1]): negated probabilities lie in [-1, 0], the flip's line is the one to change; `1 - p`
/// is the other player's probability and no suspect.
#[test]
fn negated_probabilities_name_the_negation() {
    let got = tiered_suspects(&[("critic.py", CRITIC)], "bce_module_over1.async.log");
    assert_eq!(got.first().map(String::as_str), Some("critic.py:16 strong"), "{got:?}");
    let fixed = CRITIC.replace("p, -p)", "p, 1 - p)");
    let got = tiered_suspects(&[("critic.py", &fixed)], "bce_module_over1.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "{got:?}");
}

const RATES: &str = r#"import numpy as np


def monthly_rates(events, months):
    hits = np.zeros(12)
    totals = np.zeros(12)
    np.add.at(hits, months, (events > 0).astype(float))
    np.add.at(totals, months, events)
    seen = np.maximum(np.bincount(months, minlength=12), 1)
    freq = hits / seen
    mean = totals / seen
    return mean, freq
"#;

const BLENDED: &str = r#"import torch
import torch.nn as nn

from rates import monthly_rates


class Blend(nn.Module):
    def __init__(self, n_in, w=0.25):
        super().__init__()
        self.lin = nn.Linear(n_in, 1)
        self.w = w

    def forward(self, x, base):
        p = torch.sigmoid(self.lin(x)).squeeze(-1)
        return (1 - self.w) * p + self.w * base


def fit(x, events, months, y):
    freq, mean = monthly_rates(events, months)
    base = torch.tensor(freq[months], dtype=torch.float32)
    model = Blend(x.shape[1])
    loss = nn.BCELoss()(model(x, base), y)
    loss.backward()
"#;

/// A blend of the model's probability with a prior, weights `1 - w` and `w`: a probability
/// where both parts are, so the prior is followed (the blend a lesser suspect). The prior comes
/// from a tuple unpacked in the wrong order (`freq, mean = …` of a function returning `mean,
/// freq`): the unpacking line. Unpacked in the right order, the line is no suspect.
#[test]
fn a_blend_follows_its_parts_and_a_crossed_unpacking_names_the_unpacking() {
    let files = [("rates.py", RATES), ("train.py", BLENDED)];
    let got = tiered_suspects(&files, "bce_module_over1.async.log");
    assert_eq!(got.first().map(|s| s.split(' ').next().unwrap()), Some("train.py:19"), "{got:?}");
    assert!(!got.iter().any(|s| s.starts_with("train.py:15 ") && s.ends_with(" strong")), "the blend is a lesser suspect: {got:?}");
    let fixed = BLENDED.replace("freq, mean = monthly_rates", "mean, freq = monthly_rates");
    let v = common::explain_project(&[files[0], ("train.py", &fixed)], "bce_module_over1.async.log");
    let said = v["suspects"].as_array().unwrap().iter().any(|s| s["message"].as_str().unwrap_or("").contains("unpacks"));
    assert!(!said, "{v}");
}

const SURVEY_SETTINGS: &str = "classes: 4\nno_label: 255\n";

const SURVEY_DATA: &str = r#"import numpy as np
import yaml


def load_settings(path="settings.yaml"):
    with open(path) as f:
        return yaml.safe_load(f)


def make_masks(n, size, settings):
    rng = np.random.default_rng(0)
    y = rng.integers(0, settings["classes"], (n, size, size))
    y[:, :2, :] = settings["no_label"]
    return y


def class_weights(y, classes, unlabeled):
    kept = y[y != unlabeled]
    return np.bincount(kept, minlength=classes) / kept.size
"#;

const SURVEY_TRAIN: &str = r#"import torch
import torch.nn as nn

from data import class_weights, load_settings, make_masks


def main():
    s = load_settings()
    unlabeled = s["no_label"]
    y = make_masks(8, 16, s)
    w = class_weights(y, s["classes"], unlabeled)
    net = nn.Conv2d(3, s["classes"], 1)
    criterion = nn.CrossEntropyLoss(weight=torch.tensor(w, dtype=torch.float32))
    x = torch.randn(8, 3, 16, 16)
    loss = criterion(net(x), torch.from_numpy(y).long())
    loss.backward()
"#;

/// Masks with an unlabelled marker written on purpose (a setting, 255) that the project skips
/// where it counts classes (`y != unlabeled`, the setting under another name): the loss built
/// without `ignore_index` is the line to change, not the line writing the marker. Where
/// nothing skips the marker, the loss is not named.
#[test]
fn a_marker_the_data_holds_on_purpose_names_the_loss_that_does_not_skip_it() {
    let files = [("settings.yaml", SURVEY_SETTINGS), ("data.py", SURVEY_DATA), ("train.py", SURVEY_TRAIN)];
    let got = tiered_suspects(&files, "nll_2d_seg255.async.log");
    assert_eq!(got.first().map(String::as_str), Some("train.py:13 strong"), "{got:?}");
    let unskipped = SURVEY_DATA.replace("kept = y[y != unlabeled]", "kept = y.ravel()");
    let got = tiered_suspects(&[files[0], ("data.py", &unskipped), files[2]], "nll_2d_seg255.async.log");
    assert!(!got.iter().any(|s| s.starts_with("train.py:13 ")), "{got:?}");
}

const ZONES: &str = r#"import json

import numpy as np


def load_sites(path):
    with open(path) as f:
        sites = json.load(f)
    zone = np.array([s["zone"] for s in sites], dtype=np.int64)
    n_zone = len(np.unique(zone))
    return sites, zone, n_zone
"#;

const ZONES_TRAIN: &str = r#"import torch
import torch.nn as nn

from sites import load_sites


def main():
    sites, zone, n_zone = load_sites("sites.json")
    table = nn.Embedding(n_zone, 8)
    out = table(torch.from_numpy(zone))
    out.sum().backward()
"#;

/// A table sized by the number of distinct ids in an array (`len(np.unique(zone))`) while the
/// op gets the array itself: the count is the line (ids need not run 0..n-1). Remapped to
/// positions first, the count fits and is no strong suspect.
#[test]
fn a_table_sized_by_the_distinct_ids_of_the_array_the_op_gets_names_the_count() {
    let got = tiered_suspects(&[("sites.py", ZONES), ("train.py", ZONES_TRAIN)], "embedding_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("sites.py:10 strong"), "{got:?}");
    let remapped = ZONES.replace(
        "    n_zone = len(np.unique(zone))\n",
        "    n_zone = len(np.unique(zone))\n    zone = np.searchsorted(np.unique(zone), zone)\n",
    );
    let got = tiered_suspects(&[("sites.py", &remapped), ("train.py", ZONES_TRAIN)], "embedding_over.async.log");
    assert!(!got.iter().any(|s| s.starts_with("sites.py:10 ") && s.ends_with(" strong")), "{got:?}");
}

const IMPULSE: &str = r#"import torch
import torch.nn as nn


class ClickModel(nn.Module):
    def __init__(self, n_items, n_in):
        super().__init__()
        self.interest = nn.Linear(n_in, 1)
        self.skip = nn.Embedding(n_items, 1)
        self.impulse = nn.Embedding(n_items, 1)

    def forward(self, x, item):
        seen = torch.sigmoid(self.interest(x)).squeeze(-1)
        skip = torch.sigmoid(self.skip(item).squeeze(-1))
        impulse = self.impulse(item).squeeze(-1)
        return seen * (1 - skip) + (1 - seen) * impulse


def train(x, item, clicked):
    model = ClickModel(50, x.shape[1])
    loss = nn.BCELoss()(model(x, item), clicked)
    loss.backward()
"#;

/// A blend weighted by a probability and its complement, one part a one-wide table's raw
/// number per item (no sigmoid): the blend leaves [0, 1], its line says so (strong). With the
/// sigmoid, both parts are probabilities and nothing is strong.
#[test]
fn a_blend_with_a_raw_number_per_id_names_the_blend() {
    let got = tiered_suspects(&[("clicks.py", IMPULSE)], "bce_module_over1.async.log");
    assert_eq!(got.first().map(String::as_str), Some("clicks.py:16 strong"), "{got:?}");
    let fixed = IMPULSE.replace("impulse = self.impulse(item).squeeze(-1)", "impulse = torch.sigmoid(self.impulse(item).squeeze(-1))");
    let got = tiered_suspects(&[("clicks.py", &fixed)], "bce_module_over1.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "{got:?}");
}

const SPLAT_FEATURES: &str = r#"import zlib

import numpy as np

KINDS = ["benign", "scan", "flood"]


def bucket(host, n_buckets):
    return 1 + zlib.crc32(host.encode()) % n_buckets


def build(sessions, n_buckets, width):
    ev = np.zeros((len(sessions), width), dtype=np.int64)
    hb = np.zeros((len(sessions), width), dtype=np.int64)
    y = np.zeros(len(sessions), dtype=np.int64)
    for i, s in enumerate(sessions):
        events = s["events"][-width:]
        ev[i, :len(events)] = [e for e, _ in events]
        hb[i, :len(events)] = [bucket(h, n_buckets) for _, h in events]
        y[i] = KINDS.index(s["kind"])
    return ev, hb, y
"#;

const SPLAT_TRAIN: &str = r#"import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from features import KINDS, build


def loader(arrays, idx, shuffle):
    ds = TensorDataset(*[torch.from_numpy(a[idx]) for a in arrays])
    return DataLoader(ds, batch_size=32, shuffle=shuffle)


class Net(nn.Module):
    def __init__(self, n_events, n_buckets, n_out):
        super().__init__()
        self.ev = nn.Embedding(n_events, 8)
        self.hb = nn.Embedding(n_buckets + 1, 8)
        self.out = nn.Linear(16, n_out)

    def forward(self, ev, hb):
        return self.out(torch.cat([self.ev(ev), self.hb(hb)], -1).mean(1))


def main(sessions, n_events):
    ev, hb, y = build(sessions, 8, 20)
    order = np.random.permutation(len(y))
    arrays = (ev, hb, y)
    train = loader(arrays, order[10:], True)
    val = loader(arrays, order[:10], False)
    net = Net(n_events, 8, len(KINDS))
    opt = torch.optim.Adam(net.parameters())
    for evb, hbb, yb in train:
        loss = F.cross_entropy(net(evb, hbb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return val
"#;

/// Three arrays filled row by row in a loop (`hb[i, :n] = [bucket(h) …]`, `y[i] = …` at the
/// loop's counter), handed to `TensorDataset` through a comprehension over a tuple splatted
/// into it (`TensorDataset(*[torch.from_numpy(a[idx]) for a in arrays])`): each tensor keeps
/// its position, so the labels' lines are the labels' (a shift by one, strong) and the host
/// buckets, which reach a table of their own, never reach the loss.
#[test]
fn arrays_splatted_into_a_tensor_dataset_keep_their_positions() {
    let shifted = SPLAT_FEATURES.replace("KINDS.index(s[\"kind\"])", "KINDS.index(s[\"kind\"]) + 1");
    let got = tiered_suspects(&[("features.py", &shifted), ("train.py", SPLAT_TRAIN)], "ce_1d_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("features.py:20 strong"), "{got:?}");
    let got = tiered_suspects(&[("features.py", SPLAT_FEATURES), ("train.py", SPLAT_TRAIN)], "ce_1d_over.async.log");
    assert!(!got.iter().any(|s| s.starts_with("features.py")), "the buckets do not reach the loss: {got:?}");
}

const CORRUPT_TRIPLES: &str = r#"import numpy as np
import torch


def load_triples(path):
    raw = np.loadtxt(path, dtype=np.int64, delimiter="\t")
    heads, rels, tails = raw[:, 0], raw[:, 1], raw[:, 2]
    ents = np.unique(np.concatenate([heads, tails]))
    remap = {e: i for i, e in enumerate(ents)}
    h = torch.tensor([remap[e] for e in heads])
    t = torch.tensor([remap[e] for e in tails])
    return h, torch.tensor(rels), t, len(ents)


def corrupt(t, n_ent):
    offset = torch.randint(1, n_ent, t.shape)
    return t + offset
"#;

const CORRUPT_TRAIN: &str = r#"import torch
import torch.nn as nn

from triples import corrupt, load_triples


class DistMult(nn.Module):
    def __init__(self, n_ent, n_rel, dim=32):
        super().__init__()
        self.ent = nn.Embedding(n_ent, dim)
        self.rel = nn.Embedding(n_rel, dim)

    def score(self, h, r, t):
        return (self.ent(h) * self.rel(r) * self.ent(t)).sum(-1)


def fit(path, n_rel=8, steps=50):
    h, r, t, n_ent = load_triples(path)
    model = DistMult(n_ent, n_rel)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    for _ in range(steps):
        neg = corrupt(t, n_ent)
        loss = torch.relu(1.0 - model.score(h, r, t) + model.score(h, r, neg)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
"#;

/// Corrupted tails drawn as the true tail plus an offset of at least 1 (`t + randint(1, n)`,
/// both below the number of entities) and never wrapped: the sum reaches the number of
/// entities, the line that adds them is found, strong; wrapped (`% n_ent`), nothing is proven.
#[test]
fn an_offset_of_at_least_one_added_to_ids_reaches_past_the_table() {
    let got = tiered_suspects(&[("triples.py", CORRUPT_TRIPLES), ("train.py", CORRUPT_TRAIN)], "embedding_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("triples.py:17 strong"), "{got:?}");
    let wrapped = CORRUPT_TRIPLES.replace("return t + offset", "return (t + offset) % n_ent");
    assert_ne!(wrapped, CORRUPT_TRIPLES);
    let got = tiered_suspects(&[("triples.py", &wrapped), ("train.py", CORRUPT_TRAIN)], "embedding_over.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "{got:?}");
}

const AUTO_IDS: &str = r#"from collections import defaultdict

import torch
import torch.nn as nn

word_ids = defaultdict(lambda: len(word_ids))
PAD = word_ids["<pad>"]


def read(path):
    with open(path) as f:
        for line in f:
            tag, text = line.rstrip("\n").split("\t")
            yield [word_ids[w] for w in text.split()], int(tag)


def main(train_path, dev_path):
    train = list(read(train_path))
    model = nn.Sequential(nn.EmbeddingBag(len(word_ids), 32), nn.Linear(32, 2))
    emb = nn.Embedding(len(word_ids), 32)
    dev = list(read(dev_path))
    for words, tag in train + dev:
        vec = emb(torch.tensor(words)).mean(0)
        print(vec.shape, tag)
"#;

/// A map that numbers each word it has not seen with its own length (`defaultdict(lambda:
/// len(word_ids))`), sized into a table and then used on more text: a new word gets an id past
/// the table; the map's line is found, strong. Frozen with a default of its padding id, the
/// ids are its own and nothing is proven.
#[test]
fn a_map_that_numbers_new_keys_with_its_length_gives_ids_past_a_table_sized_before() {
    let got = tiered_suspects(&[("bow.py", AUTO_IDS)], "embedding_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("bow.py:6 strong"), "{got:?}");
    let frozen = AUTO_IDS.replace("    dev = list(read(dev_path))\n", "    word_ids.default_factory = None\n    dev = []\n");
    let frozen = frozen.replace("defaultdict(lambda: len(word_ids))", "defaultdict(lambda: 0)");
    let got = tiered_suspects(&[("bow.py", &frozen)], "embedding_over.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "{got:?}");
}

const CATALOG_YAML: &str = "data:\n  catalog: data/genres.json\n  tracks: data/tracks.csv\n";

const CATALOG_JSON: &str = r#"{
  "exported": "2025-01-01",
  "genres": [
    {"genre_id": 1, "title": "ambient"},
    {"genre_id": 2, "title": "jazz"},
    {"genre_id": 3, "title": "techno"}
  ]
}
"#;

const CATALOG_TRACKS: &str = "tempo,genre\n120,jazz\n128,techno\n70,ambient\n";

const CATALOG_TRAIN: &str = r#"import csv
import json

import torch
import torch.nn as nn
import yaml


def load(cfg):
    with open(cfg["data"]["catalog"]) as f:
        genres = json.load(f)["genres"]
    ids = {g["title"]: g["genre_id"] for g in genres}
    with open(cfg["data"]["tracks"]) as f:
        rows = list(csv.DictReader(f))
    x = torch.tensor([[float(r["tempo"])] for r in rows])
    y = torch.tensor([ids[r["genre"]] for r in rows])
    return x, y, len(ids)


def main():
    with open("config.yaml") as f:
        cfg = yaml.safe_load(f)
    x, y, n = load(cfg)
    model = nn.Linear(1, n)
    loss = nn.CrossEntropyLoss()(model(x), y)
    loss.backward()
"#;

/// A catalog of classes kept as a JSON list of objects whose file a config names (`catalog:
/// data/genres.json`): its ids, 1 to 3, are a column of the catalog, read as the ids the loss
/// gets, and the line that maps through them is first; numbered from 0 in the file, nothing is
/// proven.
#[test]
fn ids_listed_in_a_json_catalog_a_config_names_are_read_as_a_column() {
    let files = [
        ("config.yaml", CATALOG_YAML),
        ("data/genres.json", CATALOG_JSON),
        ("data/tracks.csv", CATALOG_TRACKS),
        ("train.py", CATALOG_TRAIN),
    ];
    let got = tiered_suspects(&files, "ce_1d_over.async.log");
    assert!(got.first().is_some_and(|s| s.starts_with("train.py:12 ")), "{got:?}");
    let zero = CATALOG_JSON.replace("\"genre_id\": 1", "\"genre_id\": 0").replace("\"genre_id\": 3", "\"genre_id\": 1");
    let files =
        [("config.yaml", CATALOG_YAML), ("data/genres.json", &zero), ("data/tracks.csv", CATALOG_TRACKS), ("train.py", CATALOG_TRAIN)];
    let got = tiered_suspects(&files, "ce_1d_over.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "{got:?}");
}

const WEIGHTED_BCE: &str = r#"import torch
import torch.nn.functional as F


def weighted_bce(p, target, pos_weight=3.0):
    w = 1.0 + (pos_weight - 1.0) * target
    return (w * F.binary_cross_entropy(p, target, reduction="none")).mean()
"#;

const WEIGHTED_BCE_LOGITS: &str = r#"import torch
import torch.nn.functional as F


def weighted_bce_from_logits(logits, target, pos_weight=3.0):
    w = 1.0 + (pos_weight - 1.0) * target
    return (w * F.binary_cross_entropy(logits, target, reduction="none")).mean()
"#;

const DEFECT_TRAIN: &str = r#"import torch
from torch import nn

from losses import weighted_bce


class Inspector(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.score = nn.Linear(8, 1)

    def forward(self, img):
        return self.score(self.features(img)).squeeze(1)


def epoch(net, batches, opt):
    for img, flawed in batches:
        scores = net(img)
        loss = weighted_bce(scores, flawed.float())
        opt.zero_grad()
        loss.backward()
        opt.step()


def main(batches, rounds=5):
    net = Inspector()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    for _ in range(rounds):
        epoch(net, batches, opt)
"#;

/// Raw scores handed to a function of the project's own that takes probabilities and feeds them
/// to a BCE: the call that hands them over is where they cross (the loss inside comes after).
/// A function that says it takes logits means to get raw scores: then the loss inside it is.
#[test]
fn raw_scores_handed_to_a_helper_that_takes_probabilities_are_found_at_the_call() {
    let got = tiered_suspects(&[("losses.py", WEIGHTED_BCE), ("train.py", DEFECT_TRAIN)], "bce_logits_as_probs.async.log");
    assert_eq!(got.first().map(String::as_str), Some("train.py:20 strong"), "{got:?}");
    assert!(got.iter().any(|s| s == "losses.py:7 likely"), "the loss stays in view: {got:?}");
    let train = DEFECT_TRAIN.replace("weighted_bce", "weighted_bce_from_logits");
    let got = tiered_suspects(&[("losses.py", WEIGHTED_BCE_LOGITS), ("train.py", &train)], "bce_logits_as_probs.async.log");
    assert!(got.first().is_some_and(|s| s.starts_with("losses.py:7 ")), "{got:?}");
    assert!(!got.iter().any(|s| s.starts_with("train.py:20 ")), "{got:?}");
}

const TRIPLETS: &str = r#"import torch
import torch.nn.functional as F


def contrast(emb, k=8, margin=0.2):
    n = len(emb)
    idx = torch.arange(n)
    hop = torch.randint(1, n, (n, k))
    others = idx.unsqueeze(1) + hop
    neg = emb.index_select(0, others.flatten()).view(n, k, -1)
    pos = torch.roll(emb, 1, 0)
    d_pos = (emb - pos).pow(2).sum(-1, keepdim=True)
    d_neg = (emb.unsqueeze(1) - neg).pow(2).sum(-1)
    return F.relu(d_pos - d_neg + margin).mean()
"#;

/// A draw from 1 up added to another index (a negative that is never the anchor itself): the
/// draw is an offset, not an id numbered from 1, so the sum that is never wrapped back (`% n`)
/// is the line, ahead of the draw.
#[test]
fn an_offset_drawn_from_one_up_is_blamed_at_the_sum() {
    let got = tiered_suspects(&[("loss.py", TRIPLETS)], "index_select_over.async.log");
    assert!(got.first().is_some_and(|s| s.starts_with("loss.py:9 ")), "{got:?}");
    assert!(!got.iter().take_while(|s| !s.starts_with("loss.py:9 ")).any(|s| s.starts_with("loss.py:8 ")), "{got:?}");
}

const PACKED_SPANS: &str = r#"import torch


def pool_spans(tokens, sizes, span_seq, span_start):
    # tokens: the sequences of a batch packed end to end; sizes: each one's length
    ends = torch.cumsum(sizes, dim=0)
    first = span_start + ends[span_seq]
    return tokens.index_select(0, first)
"#;

/// A running count used as the offsets of packed sequences (each sequence shifted by where the
/// ones before it end): the inclusive sum is one sequence too far, so the count is the line,
/// not where the offset is used.
#[test]
fn an_inclusive_running_count_used_as_offsets_is_the_line() {
    let got = tiered_suspects(&[("spans.py", PACKED_SPANS)], "index_select_over.async.log");
    assert!(got.first().is_some_and(|s| s.starts_with("spans.py:6 ")), "{got:?}");
}

const PLAYS_CSV: &str = "listener,track,plays\n1,10,3\n2,11,1\n3,10,7\n4,12,2\n5,13,9\n2,13,4\n5,10,1\n";

const PLAYS_TRAIN: &str = r#"import pandas as pd
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Plays(Dataset):
    def __init__(self, frame):
        self.who = torch.tensor(frame["listener"].values)
        self.count = torch.tensor(frame["plays"].values, dtype=torch.float32)

    def __len__(self):
        return len(self.who)

    def __getitem__(self, i):
        return self.who[i], self.count[i]


frame = pd.read_csv("data/plays.csv")
taste = nn.Embedding(frame["listener"].nunique(), 8)
rate = nn.Linear(8, 1)
for who, count in DataLoader(Plays(frame), batch_size=4, shuffle=True):
    pred = rate(taste(who)).squeeze(1)
    nn.functional.mse_loss(pred, count).backward()
"#;

/// Ids a data file numbers 1..n with no gaps, taken as they are to a table sized by a count the
/// scan cannot read (a file the project does not hold): the line that reads them is ahead of
/// the count; a table sized by the largest id + 1 (a column read by attribute, `frame.listener`)
/// holds them, and nothing is proven on the reading.
#[test]
fn ids_a_file_numbers_from_one_read_as_they_are_are_the_line() {
    let unread = PLAYS_TRAIN.replace("frame[\"listener\"].nunique()", "len(pd.read_csv(\"data/listeners.csv\"))");
    let got = tiered_suspects(&[("data/plays.csv", PLAYS_CSV), ("fit.py", &unread)], "embedding_over.async.log");
    assert!(got.first().is_some_and(|s| s.starts_with("fit.py:9 likely")), "{got:?}");
    let sized = PLAYS_TRAIN.replace("frame[\"listener\"].nunique()", "frame.listener.max() + 1");
    let got = tiered_suspects(&[("data/plays.csv", PLAYS_CSV), ("fit.py", &sized)], "embedding_over.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "{got:?}");
}

const STATIONS_PREP: &str = r#"import os

import numpy as np

STATIONS = 12
HOURS = 48


def station_day(gen, day):
    # one row per station and hour: the station's number as the network lists it
    station, hour = np.meshgrid(np.arange(STATIONS), np.arange(HOURS), indexing="ij")
    station, hour = station.ravel(), hour.ravel()
    temp = gen.normal(12.0, 4.0, station.size)
    wind = gen.uniform(0.0, 20.0, station.size)
    number = station + 1
    return np.stack([temp, wind, number, hour], axis=1)


def write_days(out_dir, days):
    gen = np.random.default_rng(3)
    os.makedirs(out_dir, exist_ok=True)
    for day in range(days):
        np.save(os.path.join(out_dir, "day_%03d.npy" % day), station_day(gen, day))
    with open(os.path.join(out_dir, "README.txt"), "w") as fh:
        fh.write("hourly readings\n")


if __name__ == "__main__":
    write_days("cache/days", 20)
"#;

const STATIONS_DATA: &str = r#"import os

import numpy as np
import torch
from torch.utils.data import Dataset


class Readings(Dataset):
    def __init__(self, folder, window=24):
        names = [n for n in os.listdir(folder) if n.endswith(".npy")]
        self.paths = sorted(os.path.join(folder, n) for n in names)
        self.window = window

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        day = np.load(self.paths[i])
        rows = np.random.choice(len(day), self.window, replace=False)
        day = day[rows]
        weather = torch.tensor(day[:, :2], dtype=torch.float32)
        station = torch.tensor(day[:, 2]).long()
        return weather, station
"#;

const STATIONS_TRAIN: &str = r#"import torch
from torch import nn
from torch.utils.data import DataLoader

from prep import STATIONS
from readings import Readings


class StationBias(nn.Module):
    def __init__(self, n_stations):
        super().__init__()
        self.bias = nn.Embedding(n_stations, 2)
        self.mix = nn.Linear(2, 2)

    def forward(self, weather, station):
        return self.mix(weather) + self.bias(station)


model = StationBias(STATIONS)
opt = torch.optim.Adam(model.parameters())
for weather, station in DataLoader(Readings("cache/days"), batch_size=4):
    loss = (model(weather, station) - weather).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"#;

/// Per-day files a script writes under a numbered name, listed back by the Dataset
/// (`os.listdir` kept to `.npy`), a column of rows stacked side by side read by position
/// (`day[:, 2]`) after rows drawn at random: the station numbers the script makes up from 1
/// (`station + 1`, as the network lists them) are traced across three files and a file on
/// disk. The script draws its data and reads none: its numbering is the data, and the line that
/// takes the column as it is comes first, naming the script's line; with the numbers from 0 the
/// column fits the table and no line is proven.
#[test]
fn ids_written_to_listed_files_are_traced_to_the_writer() {
    let files = [("prep.py", STATIONS_PREP), ("readings.py", STATIONS_DATA), ("train.py", STATIONS_TRAIN)];
    let got = tiered_suspects(&files, "embedding_over.async.log");
    assert!(got.first().is_some_and(|s| s.starts_with("readings.py:22 strong")), "{got:?}");
    let v = common::explain_project(&files, "embedding_over.async.log");
    let why = v["suspects"][0]["message"].as_str().unwrap_or_default();
    assert!(why.contains("prep.py:15") && why.contains("from 1"), "{why}");
    let fixed = STATIONS_PREP.replace("number = station + 1", "number = station");
    let got =
        tiered_suspects(&[("prep.py", &fixed), ("readings.py", STATIONS_DATA), ("train.py", STATIONS_TRAIN)], "embedding_over.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "{got:?}");
    // the column read is the stations' own: the wind beside it (drawn up to 20) is not the value
    let wind = STATIONS_DATA.replace("day[:, 2]", "day[:, 1]");
    let got =
        tiered_suspects(&[("prep.py", STATIONS_PREP), ("readings.py", &wind), ("train.py", STATIONS_TRAIN)], "embedding_over.async.log");
    assert!(!got.iter().any(|s| s.starts_with("prep.py:15")), "{got:?}");
}

const GARMENT_TRAIN: &str = r#"import yaml
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

with open("garments.yaml") as fh:
    CFG = yaml.safe_load(fh)

MATERIAL_ID = {m: i for i, m in enumerate(CFG["materials"])}


def joint_label(material, finish):
    return finish * CFG["num_finishes"] + MATERIAL_ID[material]


def make_rows(n):
    g = torch.Generator().manual_seed(0)
    feats = torch.randn(n, 8, generator=g)
    labels = []
    for k in range(n):
        material = CFG["materials"][k % len(CFG["materials"])]
        labels.append(joint_label(material, k % CFG["num_finishes"]))
    return feats, torch.tensor(labels)


head = nn.Linear(8, len(CFG["materials"]) * CFG["num_finishes"])
feats, labels = make_rows(64)
for x, y in DataLoader(TensorDataset(feats, labels), batch_size=16):
    nn.functional.cross_entropy(head(x), y).backward()
"#;

/// A joint (finish, material) label laid out in blocks of the finishes' count where the part
/// added holds the materials (a YAML list of three): the blocks are four wide and the last
/// finishes index past the twelve classes. The layout line is the culprit, strong; with the
/// materials' count as the stride nothing is proven.
#[test]
fn a_joint_label_with_a_stride_wider_than_its_part_is_the_line() {
    let yaml = "materials: [cotton, wool, linen]\nnum_finishes: 4\n";
    let got = tiered_suspects(&[("garments.yaml", yaml), ("train.py", GARMENT_TRAIN)], "ce_1d_over.async.log");
    assert!(got.first().is_some_and(|s| s.starts_with("train.py:13 strong")), "{got:?}");
    let fixed = GARMENT_TRAIN.replace("finish * CFG[\"num_finishes\"]", "finish * len(CFG[\"materials\"])");
    let got = tiered_suspects(&[("garments.yaml", yaml), ("train.py", &fixed)], "ce_1d_over.async.log");
    assert!(!got.iter().any(|s| s.starts_with("train.py:13 strong")), "{got:?}");
}

const TRIAGE_PREP: &str = r#"import numpy as np

LEVELS = ["minor", "moderate", "serious", "critical"]


def encode(reports):
    feats = np.stack([r["vitals"] for r in reports]).astype(np.float32)
    grades = np.array([LEVELS.index(r["level"]) + 1 for r in reports], dtype=np.int64)
    return feats, grades


def build_cache(reports, out="cache/triage.npz"):
    feats, grades = encode(reports)
    np.savez_compressed(out, feats, grades)
"#;

const TRIAGE_TRAIN: &str = r#"import numpy as np
import torch
from torch import nn

from prep import LEVELS

arc = np.load("cache/triage.npz")
x = torch.from_numpy(arc["arr_0"])
y = torch.from_numpy(arc["arr_1"])
head = nn.Linear(x.shape[1], len(LEVELS))
for i in range(0, len(y), 32):
    loss = nn.functional.cross_entropy(head(x[i : i + 32]), y[i : i + 32])
    loss.backward()
"#;

/// Grades numbered from 1 (`LEVELS.index(…) + 1`) saved into an npz archive as its second
/// positional array and read back by numpy's name for it (`arc["arr_1"]`): the line that adds
/// the 1 is the culprit, strong. Without the 1 nothing is proven; an archive of another name is
/// not the one read, so nothing links the reader to that writer.
#[test]
fn arrays_saved_into_an_npz_archive_are_traced_to_the_saving_line() {
    let got = tiered_suspects(&[("prep.py", TRIAGE_PREP), ("train.py", TRIAGE_TRAIN)], "ce_1d_over.async.log");
    assert!(got.first().is_some_and(|s| s.starts_with("prep.py:8 strong")), "{got:?}");
    let fixed = TRIAGE_PREP.replace("+ 1 for r", "for r");
    let got = tiered_suspects(&[("prep.py", &fixed), ("train.py", TRIAGE_TRAIN)], "ce_1d_over.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "{got:?}");
    let other = TRIAGE_PREP.replace("triage.npz", "triage_v0.npz");
    let got = tiered_suspects(&[("prep.py", &other), ("train.py", TRIAGE_TRAIN)], "ce_1d_over.async.log");
    assert!(!got.iter().any(|s| s.starts_with("prep.py:8")), "{got:?}");
}

const SLOTS_PICK: &str = r#"import json

import numpy as np

with open("settings.json") as fh:
    S = json.load(fh)


def empty_floor():
    return np.zeros((S["aisles"], S["bays"]), dtype=np.int64)


def free_slot(floor, rng):
    free = np.flatnonzero(floor.ravel() == 0)
    return int(rng.choice(free))


def mirrored(slot):
    aisle, bay = divmod(slot, S["bays"])
    return bay * S["bays"] + aisle
"#;

const SLOTS_TRAIN: &str = r#"import numpy as np
import torch
from torch import nn

from pick import S, empty_floor, free_slot, mirrored

rng = np.random.default_rng(3)
floor = empty_floor()
slots = []
for step in range(200):
    s = free_slot(floor, rng)
    slots.append(mirrored(s))
    floor.flat[s] = 1
    if floor.all():
        floor[:] = 0
x = torch.randn(len(slots), 12)
y = torch.tensor(slots)
head = nn.Linear(12, S["n_slots"])
nn.functional.cross_entropy(head(x), y).backward()
"#;

/// Slots drawn from the free cells of a floor (`rng.choice(np.flatnonzero(floor.ravel() == 0))`)
/// of six aisles by six bays take 0..35, mirrored by putting a divmod's parts together the
/// other way round (still 0..35); the head has the settings' 30 classes: the setting is the
/// line, strong, and the mirroring line is not a suspect. With 36 classes nothing is proven.
#[test]
fn cells_drawn_from_a_grid_take_its_size_and_a_divmod_put_together_keeps_them() {
    let settings = "{\n  \"aisles\": 6,\n  \"bays\": 6,\n  \"n_slots\": 30\n}\n";
    let files = [("settings.json", settings), ("pick.py", SLOTS_PICK), ("train.py", SLOTS_TRAIN)];
    let got = tiered_suspects(&files, "ce_1d_over.async.log");
    assert!(got.first().is_some_and(|s| s.starts_with("settings.json:4 strong")), "{got:?}");
    assert!(!got.iter().any(|s| s.starts_with("pick.py:20")), "{got:?}");
    let fixed = settings.replace("30", "36");
    let got = tiered_suspects(&[("settings.json", &fixed), ("pick.py", SLOTS_PICK), ("train.py", SLOTS_TRAIN)], "ce_1d_over.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "{got:?}");
}

const FRAMES_PREP: &str = r#"import os

import numpy as np

SILENCE = -1


def render(n_clips, frames, rng):
    feats = rng.normal(size=(n_clips, frames, 8)).astype(np.float32)
    tags = np.zeros((n_clips, frames), dtype=np.int64)
    for k in range(n_clips):
        tags[k][: frames // 2] = rng.integers(0, 3)
        tags[k][frames - 4 :] = SILENCE
    return feats, tags


def write(root, n_clips=16, frames=20):
    rng = np.random.default_rng(0)
    feats, tags = render(n_clips, frames, rng)
    for k in range(n_clips):
        np.save(os.path.join(root, "feats", f"clip{k:03d}.npy"), feats[k])
        np.save(os.path.join(root, "tags", f"clip{k:03d}.npy"), tags[k])
"#;

const FRAMES_TRAIN: &str = r#"import os

import numpy as np
import torch
from torch import nn


class Fitter:
    def __init__(self, net, loss_fn, opt):
        self.net = net
        self.loss_fn = loss_fn.cuda()
        self.opt = opt

    def step(self, x, y):
        out = self.net(x).transpose(1, 2)
        loss = self.loss_fn(out, y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


xs, ys = [], []
for k in range(16):
    name = f"clip{k:03d}.npy"
    xs.append(np.load(os.path.join("cache", "feats", name)))
    ys.append(np.load(os.path.join("cache", "tags", name)))
x = torch.from_numpy(np.stack(xs))
y = torch.from_numpy(np.stack(ys))
net = nn.Linear(8, 3)
fit = Fitter(net, nn.CrossEntropyLoss(), torch.optim.SGD(net.parameters(), lr=0.1))
fit.step(x, y)
"#;

/// Frame tags whose last frames are set to a marker through a part of the array
/// (`tags[k][frames - 4 :] = SILENCE`), saved one file per clip into a `tags` folder beside a
/// `feats` folder of the same file names, read back from `tags` and handed to a loss that a
/// `Fitter` keeps (`self.loss_fn = loss_fn.cuda()`, built by its caller without
/// `ignore_index`): the marker is the answer, strong. Tags written into another folder are not
/// the file read; without the marker, or with `ignore_index=-1`, nothing is proven.
#[test]
fn a_marker_written_through_a_part_of_an_array_reaches_a_loss_kept_by_a_trainer() {
    let answer =
        |got: &[String]| got.first().is_some_and(|s| ["prep.py:5 strong", "prep.py:13 strong", "train.py:30 strong"].contains(&s.as_str()));
    let got = tiered_suspects(&[("prep.py", FRAMES_PREP), ("train.py", FRAMES_TRAIN)], "ce_seq_3d.async.log");
    assert!(answer(&got), "{got:?}");
    let elsewhere = FRAMES_PREP.replace("\"tags\", f\"clip", "\"labels\", f\"clip");
    let got = tiered_suspects(&[("prep.py", &elsewhere), ("train.py", FRAMES_TRAIN)], "ce_seq_3d.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "{got:?}");
    let unmarked = FRAMES_PREP.replace("        tags[k][frames - 4 :] = SILENCE\n", "");
    let got = tiered_suspects(&[("prep.py", &unmarked), ("train.py", FRAMES_TRAIN)], "ce_seq_3d.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "{got:?}");
    let ignored = FRAMES_TRAIN.replace("nn.CrossEntropyLoss()", "nn.CrossEntropyLoss(ignore_index=-1)");
    let got = tiered_suspects(&[("prep.py", FRAMES_PREP), ("train.py", &ignored)], "ce_seq_3d.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "{got:?}");
}

const RATINGS_PREP: &str = r#"import json

STARS = ["one", "two", "three", "four", "five"]


def export(reviews, path):
    stars = [STARS.index(r["stars"]) + 1 for r in reviews]
    with open(path, "w") as f:
        json.dump(stars, f)
"#;

const RATINGS_TRAIN: &str = r#"import json
import os

import torch
import yaml
from torch import nn

from prep import STARS

with open("run.yaml") as f:
    cfg = yaml.safe_load(f)

with open(os.path.join(cfg["data"]["root"], cfg["data"]["targets"])) as f:
    stars = torch.tensor(json.load(f))
feats = torch.randn(len(stars), 16)
head = nn.Linear(16, len(STARS))
nn.functional.cross_entropy(head(feats), stars).backward()
"#;

/// Star ratings numbered from 1 dumped to JSON by a helper that takes its path as a parameter,
/// read back from the file a YAML config names (`cfg["data"]["targets"]`): the line that adds
/// the 1 is the culprit, strong, once the config's string links the read to the dump. A config
/// naming another file links nothing.
#[test]
fn a_file_named_in_a_config_is_linked_to_the_dump_that_writes_it() {
    let yaml = "data:\n  root: cache\n  targets: stars.json\n";
    let prep_call = format!("{RATINGS_PREP}\nexport([], \"cache/stars.json\")\n");
    let got = tiered_suspects(&[("run.yaml", yaml), ("prep.py", &prep_call), ("train.py", RATINGS_TRAIN)], "ce_1d_over.async.log");
    assert!(got.first().is_some_and(|s| s.starts_with("prep.py:7 strong")), "{got:?}");
    let other = yaml.replace("stars.json", "stars_v2.json");
    let got = tiered_suspects(&[("run.yaml", &other), ("prep.py", &prep_call), ("train.py", RATINGS_TRAIN)], "ce_1d_over.async.log");
    assert!(!got.iter().any(|s| s.starts_with("prep.py:7")), "{got:?}");
}

const KEYWORDS_LOOP: &str = r#"import json

import torch
from torch import nn

KEYWORDS = ["yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go", "zero", "one"]

with open("words.json") as fh:
    CFG = json.load(fh)


class SmoothedNLL(nn.Module):
    def __init__(self, eps=0.1):
        super().__init__()
        self.eps = eps

    def forward(self, scores, target):
        logp = scores.log_softmax(-1)
        picked = logp.gather(1, target[:, None]).squeeze(1)
        return -((1 - self.eps) * picked + self.eps * logp.mean(-1)).mean()


class Loop:
    def __init__(self, net, objective):
        self.net = net
        self.objective = objective

    def run(self, x, y):
        return self.objective(self.net(x), y)


spoken = [KEYWORDS[k % len(KEYWORDS)] for k in range(48)]
y = torch.tensor([KEYWORDS.index(w) for w in spoken])
x = torch.randn(len(y), CFG["hidden"])
loop = Loop(nn.Linear(CFG["hidden"], CFG["n_keywords"]), SmoothedNLL())
loop.run(x, y).backward()
"#;

/// A hand-written loss module (`SmoothedNLL.forward` gathers along the scores' classes) called
/// through a loop object that keeps it and a library layer it was handed
/// (`self.objective(self.net(x), y)`): the bound is the layer's width, from the config (ten
/// keywords where the labels index twelve), strong; with twelve nothing is proven.
#[test]
fn a_gather_in_a_loss_module_is_bounded_by_the_layer_its_caller_hands_it() {
    let cfg = "{\n  \"n_keywords\": 10,\n  \"hidden\": 32\n}\n";
    let got = tiered_suspects(&[("words.json", cfg), ("kws.py", KEYWORDS_LOOP)], "gather_over.async.log");
    assert!(got.first().is_some_and(|s| s.starts_with("words.json:2 strong")), "{got:?}");
    let fixed = cfg.replace("10", "12");
    let got = tiered_suspects(&[("words.json", &fixed), ("kws.py", KEYWORDS_LOOP)], "gather_over.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "{got:?}");
}

const REGIONS_FIT: &str = r#"import tomllib
from dataclasses import dataclass

import torch
from torch import nn

REGIONS = ["north", "south", "east", "west", "coast", "alps"]


@dataclass
class Shape:
    n_regions: int = 6
    width: int = 8


def read_shape(path):
    with open(path, "rb") as fh:
        raw = tomllib.load(fh)
    return Shape(**raw["model"])


shape = read_shape("params.toml")
table = nn.Embedding(shape.n_regions, shape.width)
seen = ["alps", "north", "coast"] * 16
ids = torch.tensor([REGIONS.index(r) for r in seen])
table(ids).sum().backward()
"#;

const REGIONS_FIT_INI: &str = r#"import configparser

import torch
from torch import nn

REGIONS = ["north", "south", "east", "west", "coast", "alps"]

cp = configparser.ConfigParser()
cp.read("params.ini")
table = nn.Embedding(cp.getint("model", "n_regions"), 8)
seen = ["alps", "north", "coast"] * 16
ids = torch.tensor([REGIONS.index(r) for r in seen])
table(ids).sum().backward()
"#;

/// A table sized by a settings file the program reads (TOML through `tomllib` into a dataclass
/// spread from a section, INI through `configparser`'s getter): five regions where the ids index
/// six. The file's line is the bound, strong; with six nothing is proven. The dataclass's own
/// default (six) is not what the run reads, nor another section's option of the same name.
#[test]
fn a_table_sized_by_a_toml_or_ini_setting_names_the_setting() {
    let toml = "[model]\nn_regions = 5  # one per sales region\nwidth = 8\n";
    let got = tiered_suspects(&[("params.toml", toml), ("fit.py", REGIONS_FIT)], "embedding_over.async.log");
    assert!(got.first().is_some_and(|s| s.starts_with("params.toml:2 strong")), "{got:?}");
    let fixed = toml.replace("= 5", "= 6");
    let got = tiered_suspects(&[("params.toml", &fixed), ("fit.py", REGIONS_FIT)], "embedding_over.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "{got:?}");
    // the getter's section picks the line (the data section's option of the same name is not it)
    let ini = "[data]\nroot = data\nn_regions = 9\n\n[model]\nn_regions = 5\n";
    let got = tiered_suspects(&[("params.ini", ini), ("fit.py", REGIONS_FIT_INI)], "embedding_over.async.log");
    assert!(got.first().is_some_and(|s| s.starts_with("params.ini:6 strong")), "{got:?}");
}

const SHELF_MAIN: &str = r#"import torch
from parts import Shelf

table = torch.nn.Embedding(4, 8)
shelf = Shelf(10)
stores = torch.tensor([0, 1, 2, 3] * 8)
items = torch.tensor([3, 9, 12] * 8)
out = torch.cat([table(stores), shelf(items)], -1)
"#;

const SHELF_PARTS: &str = r#"import torch
from torch import nn


class Shelf(nn.Module):
    def __init__(self, n_items):
        super().__init__()
        self.items = nn.Embedding(n_items, 8)

    def forward(self, ids):
        return self.items(ids)
"#;

/// An asynchronous traceback stops at a line that makes two lookups: one written there
/// (`table(stores)`) and one in the `forward` of a module called there (`shelf(items)`). The
/// module's lookup is on that line as much as the other: its table of ten rows against ids up
/// to 12 is found, strong; with thirteen rows nothing is proven.
#[test]
fn a_lookup_inside_a_module_called_on_the_frame_line_is_a_candidate() {
    let got = tiered_suspects(&[("embedding_over.py", SHELF_MAIN), ("parts.py", SHELF_PARTS)], "embedding_over.async.log");
    assert!(got.iter().take(2).any(|s| s.starts_with("embedding_over.py:") && s.ends_with(" strong")), "{got:?}");
    let fixed = SHELF_MAIN.replace("Shelf(10)", "Shelf(13)");
    let got = tiered_suspects(&[("embedding_over.py", &fixed), ("parts.py", SHELF_PARTS)], "embedding_over.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "{got:?}");
}

// Six small programs run on the CPU under PyPI's torch (their logs in fixtures/cpu-pypi-torch):
// shapes of code where the value's maker sits one step away from what the tracing read before.

const DEPOTS: &str = r#"import torch


class DepotTable:
    def __init__(self, names):
        self.names = list(names)
        self.capacity = torch.rand(len(self.names))

    def capacity_of(self, idx):
        return self.capacity[idx]
"#;

const ROUTE: &str = r#"import torch

from depots import DepotTable


def next_stop(stops):
    return stops + 1


def run():
    table = DepotTable([f"d{i}" for i in range(12)])
    stops = torch.arange(12)
    following = next_stop(stops)
    load = table.capacity_of(following)
    print(float(load.sum()))


run()
"#;

const GRADE_SETTINGS: &str = r#"import json
from dataclasses import dataclass


@dataclass
class Settings:
    width: int = 16
    n_codes: int = 0
    steps: int = 3


def read_settings(path, **extra):
    with open(path) as fh:
        raw = json.load(fh)
    raw.update(extra)
    return Settings(**raw)
"#;

const GRADES: &str = r#"import json

import torch
import torch.nn as nn

from settings import read_settings

CODES = ["A1", "A2", "B1", "B2", "C1", "C2", "D"]


def main():
    with open("settings.json", "w") as fh:
        json.dump({"width": 8, "steps": 2}, fh)
    ids = [CODES.index(c) for c in CODES]
    cfg = read_settings("settings.json", n_codes=max(ids))
    table = nn.Embedding(cfg.n_codes, cfg.width)
    for _ in range(cfg.steps):
        out = table(torch.tensor(ids))
        print(out.shape)


main()
"#;

const POOLING: &str = r#"import torch


def group_total(values, groups, n_groups):
    out = values.new_zeros(n_groups)
    return out.index_add_(0, groups, values)


def group_mean(values, groups, n_groups):
    total = group_total(values, groups, n_groups)
    count = group_total(torch.ones_like(values), groups, n_groups).clamp(min=1)
    return total / count
"#;

const BASKET: &str = r#"import torch
import torch.nn as nn

from pooling import group_total


class BasketScorer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.item = nn.Linear(dim, 1)

    def forward(self, feats, basket, n_baskets):
        p_item = torch.sigmoid(self.item(feats)).squeeze(-1)
        return group_total(p_item, basket, n_baskets)


def train():
    torch.manual_seed(0)
    feats = torch.randn(40, 6)
    basket = torch.arange(40) // 5
    bought = (torch.rand(8) > 0.5).float()
    model = BasketScorer(6)
    loss_fn = nn.BCELoss()
    p = model(feats, basket, 8)
    loss = loss_fn(p, bought)
    loss.backward()


train()
"#;

const KERNELS: &str = r#"import numpy as np
import torch


def triangle(width):
    w = np.bartlett(width + 2)[1:-1]
    return torch.tensor(w / w.max(), dtype=torch.float32).view(1, 1, -1)
"#;

const DETECT: &str = r#"import torch
import torch.nn as nn
import torch.nn.functional as F

from kernels import triangle


class OnsetDetector(nn.Module):
    def __init__(self, n_in, width=9):
        super().__init__()
        self.frame = nn.Conv1d(n_in, 1, 3, padding=1)
        self.register_buffer("kernel", triangle(width))

    def forward(self, x):
        p = torch.sigmoid(self.frame(x))
        p = F.conv1d(p, self.kernel, padding=self.kernel.shape[-1] // 2)
        return p.squeeze(1).mean(1)


def fit():
    torch.manual_seed(1)
    x = torch.randn(4, 5, 50)
    y = torch.tensor([1.0, 0.0, 1.0, 0.0])
    det = OnsetDetector(5)
    loss = F.binary_cross_entropy(det(x), y)
    loss.backward()


fit()
"#;

const PANEL: &str = r#"import numpy as np


def station_codes(readings):
    names = sorted({r["station"] for r in readings})
    return {n: k for k, n in enumerate(names)}


class Panel:
    def __init__(self, readings, keep_every=4):
        self.code = station_codes(readings)
        rows, owners = [], []
        for r in readings:
            c = self.code[r["station"]]
            if c % keep_every == 0:
                continue
            rows.append(r["value"])
            owners.append(c)
        self.x = np.array(rows, dtype=np.float32)[:, None]
        self.owner = np.array(owners, dtype=np.int64)

    def n_stations(self):
        return len(set(self.owner.tolist()))
"#;

const FIT_PANEL: &str = r#"import random

import torch
import torch.nn as nn
import torch.nn.functional as F

from panel import Panel


def readings(n=300):
    rnd = random.Random(4)
    return [{"station": "st%02d" % rnd.randrange(20), "value": rnd.random()} for _ in range(n)]


def main():
    panel = Panel(readings())
    head = nn.Linear(1, panel.n_stations())
    x = torch.from_numpy(panel.x)
    y = torch.from_numpy(panel.owner)
    loss = F.cross_entropy(head(x), y)
    loss.backward()


main()
"#;

const SHELVES: &str = r#"class Shelving:
    def __init__(self, paths):
        pairs = [p.split("/") for p in paths]
        self.aisle = {a: i for i, a in enumerate(sorted({a for a, _ in pairs}))}
        self.slot = {}
        for a in self.aisle:
            names = sorted({s for b, s in pairs if b == a})
            self.slot[a] = {s: j for j, s in enumerate(names)}
        self.width = max(len(v) for v in self.slot.values())

    def label(self, path):
        a, s = path.split("/")
        return self.aisle[a] * self.width + self.slot[a][s]

    def n_labels(self):
        return sum(len(v) for v in self.slot.values())
"#;

const PLACE: &str = r#"import torch
import torch.nn as nn
import torch.nn.functional as F

from shelves import Shelving

PATHS = ["dairy/milk", "dairy/cheese", "dairy/butter", "dairy/yogurt", "bakery/bread", "bakery/rolls", "produce/apples"]


def main():
    shelves = Shelving(PATHS)
    y = torch.tensor([shelves.label(p) for p in PATHS])
    head = nn.Linear(4, shelves.n_labels())
    logits = head(torch.randn(len(PATHS), 4))
    F.cross_entropy(logits, y).backward()


main()
"#;

/// `(file:line tier, message)` of a CPU run's suspects.
fn cpu_suspects(files: &[(&str, &str)], log: &str) -> Vec<(String, String)> {
    let (_, all) = common::cpu_run_suspects(files, log);
    all.iter()
        .map(|s| {
            (
                format!("{}:{} {}", s["file"].as_str().unwrap_or(""), s["line"], s["tier"].as_str().unwrap_or("")),
                format!("{} {} {}", s["message"].as_str().unwrap_or(""), s["chain"], s["bound_chain"]),
            )
        })
        .collect()
}

#[test]
fn a_plain_tensor_indexed_on_the_tracebacks_last_line_is_the_op() {
    // no call on the failing line names a checked op: `self.capacity[idx]` is the op, and the
    // value is followed back to the function that made the index
    let got = cpu_suspects(&[("depots.py", DEPOTS), ("route.py", ROUTE)], "depot_next_stop.log");
    assert_eq!(got.first().map(|g| g.0.as_str()), Some("route.py:7 likely"), "{got:?}");
    // the index's own line is no bound where the length was not traced further
    assert!(!got.iter().any(|g| g.0.starts_with("depots.py:10")), "{got:?}");
}

#[test]
fn a_dataclass_built_from_a_mapping_updated_with_keyword_overrides_takes_the_override() {
    let files = [("settings.py", GRADE_SETTINGS), ("grades.py", GRADES)];
    let got = cpu_suspects(&files, "grade_codes_spread.log");
    // `n_codes=max(ids)` at the call, through `raw.update(extra)` and `Settings(**raw)`, not the
    // field's default of 0
    assert_eq!(got.first().map(|g| g.0.as_str()), Some("grades.py:15 strong"), "{got:?}");
    assert!(got[0].1.contains("settings.py"), "the chain goes through the settings: {got:?}");
    assert!(!got.iter().any(|g| g.1.contains("defaults to 0")), "{got:?}");
}

#[test]
fn probabilities_summed_by_a_helper_are_blamed_where_they_are_handed_over() {
    let files = [("pooling.py", POOLING), ("basket.py", BASKET)];
    let got = cpu_suspects(&files, "basket_group_total.log");
    assert_eq!(got.first().map(|g| g.0.as_str()), Some("basket.py:14 strong"), "{got:?}");
    assert!(got[0].1.contains("group_total"), "{got:?}");
    // the same model pooling with the helper's mean: no sum is left to blame
    let mean = BASKET.replace("group_total", "group_mean");
    let got = cpu_suspects(&[("pooling.py", POOLING), ("basket.py", &mean)], "basket_group_total.log");
    assert!(!got.iter().any(|g| g.0.starts_with("basket.py:14") || g.0.starts_with("pooling.py")), "{got:?}");
}

#[test]
fn a_smoothing_kernel_scaled_by_its_peak_is_named_where_it_is_divided() {
    let files = [("kernels.py", KERNELS), ("detect.py", DETECT)];
    let got = cpu_suspects(&files, "onset_triangle_kernel.log");
    assert_eq!(got.first().map(|g| g.0.as_str()), Some("kernels.py:7 likely"), "{got:?}");
    // divided by its sum it is a weighted mean: nothing there to blame
    let by_sum = KERNELS.replace("w.max()", "w.sum()");
    let got = cpu_suspects(&[("kernels.py", &by_sum), ("detect.py", DETECT)], "onset_triangle_kernel.log");
    assert!(!got.iter().any(|g| g.0.starts_with("kernels.py:7") && !g.0.ends_with("possible")), "{got:?}");
}

#[test]
fn a_head_sized_by_the_distinct_ids_a_filter_kept_is_the_bound_to_change() {
    let files = [("panel.py", PANEL), ("fit_panel.py", FIT_PANEL)];
    let got = cpu_suspects(&files, "station_panel_subset.log");
    assert_eq!(got.first().map(|g| g.0.as_str()), Some("panel.py:23 likely"), "{got:?}");
    // counting the codes the table numbers is the fix: then nothing is more than possible
    let fixed = PANEL.replace("len(set(self.owner.tolist()))", "len(self.code)");
    let got = cpu_suspects(&[("panel.py", &fixed), ("fit_panel.py", FIT_PANEL)], "station_panel_subset.log");
    assert!(got.iter().all(|g| g.0.ends_with("possible")), "{got:?}");
}

#[test]
fn labels_joined_from_lookups_by_arithmetic_name_the_arithmetic() {
    let files = [("shelves.py", SHELVES), ("place.py", PLACE)];
    let got = cpu_suspects(&files, "aisle_slot_labels.log");
    assert_eq!(got.first().map(|g| g.0.as_str()), Some("shelves.py:13 likely"), "{got:?}");
}

// Four more small programs run on the CPU under PyPI's torch (logs in fixtures/cpu-pypi-torch):
// records built by position and written with `asdict`, a replay memory sampled with
// `random.sample`, a kernel made in a helper, positions in a string written out.

const UNITS: &str = r#"import json
from dataclasses import asdict, dataclass


@dataclass
class Unit:
    code: int
    name: str
    factor: float


UNITS = [
    Unit(0, "gram", 1.0),
    Unit(1, "kilogram", 1000.0),
    Unit(3, "ounce", 28.35),
]


def export(path):
    with open(path, "w") as fh:
        json.dump([asdict(u) for u in UNITS], fh)


def load(path):
    with open(path) as fh:
        return [Unit(d["code"], d["name"], d["factor"]) for d in json.load(fh)]
"#;

const EMBED_UNITS: &str = r#"import torch
import torch.nn as nn

from units import export, load


def main():
    export("units.json")
    units = load("units.json")
    table = nn.Embedding(len(units), 8)
    codes = torch.tensor([u.code for u in units])
    print(table(codes).shape)


main()
"#;

const POLICY: &str = r#"import random


def pick(legal):
    if not legal:
        return -1
    return random.choice(legal)
"#;

const LEARN: &str = r#"import random

import torch
import torch.nn as nn

from policy import pick

N_MOVES = 5
net = nn.Linear(3, N_MOVES)
memory = []
for step in range(40):
    legal = [] if step % 7 == 6 else list(range(N_MOVES))
    memory.append((torch.randn(3), pick(legal), 0.0))


def update():
    batch = random.sample(memory, 16)
    states = torch.stack([b[0] for b in batch])
    moves = torch.tensor([b[1] for b in batch])
    q = net(states).gather(1, moves.unsqueeze(1))
    return q.mean()


random.seed(0)
for _ in range(20):
    update().backward()
"#;

const FILTERS: &str = r#"import torch


def flat_kernel(width):
    return torch.ones(1, 1, width)
"#;

const FLARE: &str = r#"import torch
import torch.nn as nn
import torch.nn.functional as F

from filters import flat_kernel


class FlareDetector(nn.Module):
    def __init__(self, width=5):
        super().__init__()
        self.score = nn.Conv1d(1, 1, 3, padding=1)
        self.register_buffer("smooth", flat_kernel(width))
        self.pad = width // 2

    def forward(self, x):
        p = torch.sigmoid(self.score(x))
        return F.conv1d(p, self.smooth, padding=self.pad)


model = FlareDetector()
x = torch.randn(4, 1, 64) + 3.0
y = (torch.rand(4, 1, 64) > 0.5).float()
loss = nn.BCELoss()(model(x), y)
loss.backward()
"#;

const LETTERS: &str = r#"ALPHABET = "abcdefghijklmnopqrstuvwxyz"


def codes(word):
    return [ALPHABET.index(ch) for ch in word]
"#;

const ROTATE: &str = r#"import torch
import torch.nn as nn

from letters import ALPHABET, codes

SIZE = len(ALPHABET)
table = nn.Embedding(SIZE, 16)


def decoys(ids, k):
    step = torch.randint(1, SIZE, (ids.shape[0], k))
    return ids.unsqueeze(1) + step


words = ["lantern", "quiver", "zephyr", "yonder"]
ids = torch.tensor([c for w in words for c in codes(w)])
torch.manual_seed(1)
print(table(decoys(ids, 6)).sum())
"#;

#[test]
fn records_built_by_position_and_written_with_asdict_keep_their_ids() {
    // `Unit(3, "ounce", 28.35)` in a list of three, written with `asdict`, read back with
    // `Unit(d["code"], …)`: the ids reach 3 against a table of `len(units)` rows
    let files = [("units.py", UNITS), ("embed_units.py", EMBED_UNITS)];
    let got = cpu_suspects(&files, "unit_codes_written_out.log");
    assert_eq!(got.first().map(|g| g.0.as_str()), Some("units.py:15 strong"), "{got:?}");
    assert!(got[0].1.contains("gives 3"), "{got:?}");
    // numbered 0, 1, 2 the codes fit: nothing is proven
    let fixed = UNITS.replace("Unit(3,", "Unit(2,");
    let got = cpu_suspects(&[("units.py", &fixed), ("embed_units.py", EMBED_UNITS)], "unit_codes_written_out.log");
    assert!(!got.iter().any(|g| g.0.ends_with("strong")), "{got:?}");
}

#[test]
fn a_marker_kept_in_a_replay_memory_is_followed_through_random_sample() {
    let files = [("policy.py", POLICY), ("learn.py", LEARN)];
    let got = cpu_suspects(&files, "replay_no_move.log");
    assert_eq!(got.first().map(|g| g.0.as_str()), Some("policy.py:6 strong"), "{got:?}");
    assert!(got[0].1.contains("learn.py"), "the chain goes through the memory: {got:?}");
}

#[test]
fn a_kernel_that_sums_is_named_where_a_helper_makes_it() {
    let files = [("filters.py", FILTERS), ("flare.py", FLARE)];
    let got = cpu_suspects(&files, "flare_flat_kernel.log");
    assert_eq!(got.first().map(|g| g.0.as_str()), Some("filters.py:5 strong"), "{got:?}");
    // a sigmoid is on the way: the loss is not said to get raw scores
    assert!(!got.iter().any(|g| g.1.contains("no sigmoid or softmax on the way")), "{got:?}");
    // the kernel divided by its width is a mean: nothing left to blame there
    let mean = FILTERS.replace("torch.ones(1, 1, width)", "torch.ones(1, 1, width) / width");
    let got = cpu_suspects(&[("filters.py", &mean), ("flare.py", FLARE)], "flare_flat_kernel.log");
    assert!(!got.iter().any(|g| g.0.starts_with("filters.py") && !g.0.ends_with("possible")), "{got:?}");
}

#[test]
fn positions_in_a_string_written_out_are_below_its_length() {
    // `ALPHABET.index(ch)` takes 0..25 and the table has `len(ALPHABET)` rows: the decoys drawn
    // from 1 up and added reach 50, proven at the sum (not at the setting the draw is bounded by)
    let files = [("letters.py", LETTERS), ("rotate.py", ROTATE)];
    let got = cpu_suspects(&files, "letter_decoys.log");
    assert_eq!(got.first().map(|g| g.0.as_str()), Some("rotate.py:12 strong"), "{got:?}");
    assert!(got[0].1.contains("the bound is 26"), "{got:?}");
}

const GAUGES_IO: &str = r#"import csv

import numpy as np


class Readings:
    def __init__(self, station, level, hour):
        self.station = np.asarray(station, dtype=np.int64)
        self.level = np.asarray(level, dtype=np.float32)
        self.hour = np.asarray(hour, dtype=np.int64)

    @classmethod
    def load(cls, path):
        columns = {"station": [], "level": [], "hour": []}
        with open(path, newline="") as fh:
            for rec in csv.DictReader(fh):
                columns["station"].append(int(rec["station_no"]))
                columns["level"].append(float(rec["level_m"]))
                columns["hour"].append(int(rec["hour"]))
        return cls(**columns)
"#;

const GAUGES_TRAIN: &str = r#"import torch
import torch.nn as nn

from stations_io import Readings

N_STATIONS = 40


class LevelNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.station = nn.Embedding(N_STATIONS, 8)
        self.out = nn.Linear(9, 1)

    def forward(self, station, level):
        return self.out(torch.cat([self.station(station), level[:, None]], dim=1))


def main():
    data = Readings.load("gauges.csv")
    net = LevelNet()
    st = torch.from_numpy(data.station)
    lv = torch.from_numpy(data.level)
    print(net(st, lv).mean())


main()
"#;

/// The station numbers are read from a CSV into lists kept in a dict (`columns["station"]
/// .append(int(rec["station_no"]))`) and handed to the constructor with `**columns`: the line
/// that reads them as they are is the origin of the ids that reach the table (the file is not in
/// the project, so how they are numbered is not known), not the empty list the dict starts with.
#[test]
fn ids_appended_to_a_list_kept_in_a_dict_are_traced_to_the_line_that_reads_them() {
    let got = tiered_suspects(&[("stations_io.py", GAUGES_IO), ("train.py", GAUGES_TRAIN)], "embedding_over.sync.log");
    assert_eq!(got.first().map(|s| s.split(' ').next().unwrap_or("")), Some("stations_io.py:17"), "{got:?}");
}

const SKY_PREP: &str = r#"import numpy as np

NO_MAJORITY = -1


def majority(votes, share=0.6):
    frac = votes / votes.sum(axis=1, keepdims=True)
    cls = np.argmax(frac, axis=1)
    cls[frac.max(axis=1) < share] = NO_MAJORITY
    return cls


def main():
    rng = np.random.default_rng(3)
    votes = rng.integers(0, 20, size=(500, 3))
    feats = rng.normal(size=(500, 6)).astype(np.float32)
    np.save("feats.npy", feats)
    np.save("cls.npy", majority(votes).astype("uint8"))


if __name__ == "__main__":
    main()
"#;

const SKY_TRAIN: &str = r#"import numpy as np
import torch
import torch.nn as nn

from prep import NO_MAJORITY


def main():
    x = torch.from_numpy(np.load("feats.npy"))
    y = torch.from_numpy(np.load("cls.npy")).long()
    net = nn.Linear(6, 3)
    loss_fn = nn.CrossEntropyLoss(ignore_index=NO_MAJORITY)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for i in range(0, len(x), 50):
        loss = loss_fn(net(x[i:i + 50]), y[i:i + 50])
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
"#;

/// Objects without a majority get the marker -1, which the loss ignores (`ignore_index=
/// NO_MAJORITY`); but the classes are saved as unsigned bytes, and -1 comes back as 255, which
/// the loss does not ignore. The cast is the line that made the value that fails.
#[test]
fn a_marker_cast_to_unsigned_bytes_is_found_at_the_cast() {
    let got = tiered_suspects(&[("prep.py", SKY_PREP), ("train.py", SKY_TRAIN)], "ce_1d_over.sync.log");
    assert_eq!(got.first().map(String::as_str), Some("prep.py:18 strong"), "{got:?}");
    let fixed = SKY_PREP.replace(".astype(\"uint8\")", ".astype(\"int8\")");
    let got = tiered_suspects(&[("prep.py", &fixed), ("train.py", SKY_TRAIN)], "ce_1d_over.sync.log");
    assert!(!got.iter().any(|s| s.starts_with("prep.py:18")), "{got:?}");
}

const BINS_DATA: &str = r#"import numpy as np
import torch

PAD_BIN = -100
EDGES = np.array([4.0, 8.0, 12.0, 16.0])
N_BINS = len(EDGES) + 1


def distance_bins(xyz):
    d = np.linalg.norm(xyz[:, None, :] - xyz[None, :, :], axis=-1)
    bins = np.digitize(np.nan_to_num(d), EDGES)
    bins[np.isnan(d)] = -1
    return bins.astype(np.int64)


def make_chains(rng, n=16):
    chains = []
    for _ in range(n):
        length = int(rng.integers(8, 14))
        xyz = rng.normal(scale=6.0, size=(length, 3))
        xyz[rng.integers(0, length)] = np.nan
        chains.append(xyz)
    return chains


def pad_batch(chains):
    width = max(len(c) for c in chains)
    out = np.full((len(chains), width, width), PAD_BIN, dtype=np.int64)
    for i, c in enumerate(chains):
        out[i, :len(c), :len(c)] = distance_bins(c)
    return torch.from_numpy(out)
"#;

const BINS_TRAIN: &str = r#"import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from data import N_BINS, PAD_BIN, make_chains, pad_batch


class PairHead(nn.Module):
    def __init__(self, n_bins):
        super().__init__()
        self.proj = nn.Conv2d(1, n_bins, 1)

    def forward(self, x):
        return self.proj(x)


def main():
    rng = np.random.default_rng(0)
    chains = make_chains(rng)
    model = PairHead(N_BINS)
    opt = torch.optim.Adam(model.parameters(), 1e-3)
    for s in range(0, len(chains), 4):
        target = pad_batch(chains[s:s + 4])
        x = torch.randn(target.shape[0], 1, target.shape[1], target.shape[2])
        loss = F.cross_entropy(model(x), target, ignore_index=PAD_BIN)
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
"#;

/// Pairs with a missing coordinate get the marker -1; the padding a batch adds is -100, which the
/// loss ignores (`ignore_index=PAD_BIN`). The -1 is not ignored: the line that writes it is the
/// one to change, not the loss (whose ignored marker is the padding's, named so).
#[test]
fn a_marker_beside_the_padding_the_loss_ignores_is_found_where_it_is_written() {
    let (got, _) = common::cpu_run_suspects(&[("data.py", BINS_DATA), ("train.py", BINS_TRAIN)], "distance_bins_marker.log");
    assert_eq!(got.first().map(String::as_str), Some("data.py:12"), "{got:?}");
}

const CONTACT_MODEL: &str = r#"import torch
import torch.nn as nn


class ContactNet(nn.Module):
    def __init__(self, n_tokens=21, dim=16):
        super().__init__()
        self.emb = nn.Embedding(n_tokens, dim)
        self.pair = nn.Linear(2 * dim, 1)

    @staticmethod
    def near_diagonal(length):
        i = torch.arange(length)
        return ((i[None, :] - i[:, None]).abs() <= 1).float()

    def forward(self, tokens):
        h = self.emb(tokens)
        length = tokens.shape[1]
        left = h[:, :, None, :].expand(-1, -1, length, -1)
        right = h[:, None, :, :].expand(-1, length, -1, -1)
        p = torch.sigmoid(self.pair(torch.cat([left, right], dim=-1)).squeeze(-1))
        p = 0.5 * (p + p.transpose(1, 2))
        return p + self.near_diagonal(length)
"#;

const CONTACT_TRAIN: &str = r#"import torch
import torch.nn as nn

from model import ContactNet


def contact_map(length, rng):
    m = (torch.rand(length, length, generator=rng) < 0.1).float()
    return torch.maximum(m, m.t())


def main():
    rng = torch.Generator().manual_seed(0)
    net = ContactNet()
    bce = nn.BCELoss()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    for step in range(20):
        tokens = torch.randint(0, 21, (4, 12), generator=rng)
        target = torch.stack([contact_map(12, rng) for _ in range(4)])
        loss = bce(net(tokens), target)
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
"#;

/// A sigmoid's probabilities averaged with their transpose (`0.5 * (p + p.transpose(1, 2))`) are
/// still probabilities; the band added to them after (`p + near_diagonal`) is what leaves [0, 1].
#[test]
fn a_mean_of_probabilities_stays_in_range_and_the_sum_after_it_does_not() {
    let files = [("model.py", CONTACT_MODEL), ("train.py", CONTACT_TRAIN)];
    let (got, _) = common::cpu_run_suspects(&files, "contact_mean_band.log");
    assert_eq!(got.first().map(String::as_str), Some("model.py:23"), "{got:?}");
    assert!(!got.iter().any(|s| s == "model.py:22"), "{got:?}");
}

const CROP_DATA: &str = r#"import csv
import random

CROP_CODES = [111, 112, 121, 131, 141, 152, 163, 171, 185]


def main():
    rnd = random.Random(4)
    with open("fields.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["field", "crop_code", "ndvi", "rain"])
        for i in range(300):
            w.writerow([i, rnd.choice(CROP_CODES), round(rnd.random(), 3), round(rnd.uniform(0, 90), 1)])


if __name__ == "__main__":
    main()
"#;

const CROP_CONFIG: &str = r#"data:
  path: fields.csv
model:
  hidden: 32
  n_classes: 7
train:
  lr: 0.01
  batch_size: 32
"#;

const CROP_FIELDS: &str = r#"import csv

import numpy as np


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def crop_index(rows):
    codes = sorted({int(r["crop_code"]) for r in rows})
    return {code: i for i, code in enumerate(codes)}


def arrays(rows, index):
    x = np.array([[float(r["ndvi"]), float(r["rain"]) / 90.0] for r in rows], dtype=np.float32)
    y = np.array([index[int(r["crop_code"])] for r in rows], dtype=np.int64)
    return x, y
"#;

const CROP_TRAIN: &str = r#"import torch
import torch.nn as nn
import yaml

from fields import arrays, crop_index, read_rows


def build(cfg):
    return nn.Sequential(nn.Linear(2, cfg["model"]["hidden"]), nn.ReLU(), nn.Linear(cfg["model"]["hidden"], cfg["model"]["n_classes"]))


def main():
    with open("config.yaml") as f:
        cfg = yaml.safe_load(f)
    rows = read_rows(cfg["data"]["path"])
    x, y = arrays(rows, crop_index(rows))
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    net = build(cfg)
    opt = torch.optim.SGD(net.parameters(), lr=cfg["train"]["lr"])
    bs = cfg["train"]["batch_size"]
    for s in range(0, len(x), bs):
        loss = nn.functional.cross_entropy(net(x[s:s + bs]), y[s:s + bs])
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
"#;

/// The crop ids number the distinct codes the CSV holds (`enumerate(sorted({…}))`), right by
/// construction; the head's size is a number written in the config: that number is the line to
/// change, not the column the codes are read from.
#[test]
fn a_head_sized_by_hand_against_ids_numbering_the_data_is_the_bound_to_change() {
    let files = [("make_data.py", CROP_DATA), ("config.yaml", CROP_CONFIG), ("fields.py", CROP_FIELDS), ("train.py", CROP_TRAIN)];
    let (got, all) = common::cpu_run_suspects(&files, "crop_codes_fixed_head.log");
    assert_eq!(got.first().map(String::as_str), Some("config.yaml:5"), "{got:?}");
    assert_eq!(all[0]["tier"], "likely", "{all:?}");
}

const TALLY_TAXA: &str = r#"import csv
from collections import Counter

import numpy as np


def read_checklist(path):
    with open(path, newline="") as fh:
        return [row["code"] for row in csv.DictReader(fh)]


def encode(codes, checklist):
    index = {code: i for i, code in enumerate(checklist)}
    return np.array([index[c] for c in codes], dtype=np.int64)


def tally(y):
    counts = Counter(y.tolist())
    for k in sorted(counts):
        print(k, counts[k])
    return counts
"#;

const TALLY_TRAIN: &str = r#"import csv

import numpy as np
import torch
import torch.nn as nn

from taxa import encode, read_checklist, tally


def write_data():
    codes = ["BUB", "TAU", "GRE", "RAN", "HYL", "PEL", "LIT", "ALY", "XEN", "OLD1"]
    with open("checklist.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["code"])
        for c in codes:
            w.writerow([c])
    rng = np.random.default_rng(1)
    return list(rng.choice(codes[2:], size=200))


def main():
    calls = write_data()
    checklist = read_checklist("checklist.csv")
    y = torch.from_numpy(encode(calls, checklist))
    n_species = len(tally(y))
    x = torch.randn(len(y), 12)
    net = nn.Linear(12, n_species)
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    for s in range(0, len(y), 25):
        loss = nn.functional.cross_entropy(net(x[s:s + 25]), y[s:s + 25])
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
"#;

/// Species ids number every code of a checklist; the head is sized by the number of species the
/// samples hold (`len(Counter(y))`): species no sample has still hold ids, so the largest id is
/// past the count. The count is the line to change.
#[test]
fn a_head_sized_by_the_ids_seen_against_ids_of_a_whole_list_is_the_bound_to_change() {
    let (got, all) = common::cpu_run_suspects(&[("taxa.py", TALLY_TAXA), ("train.py", TALLY_TRAIN)], "checklist_tally_head.log");
    assert_eq!(got.first().map(String::as_str), Some("train.py:25"), "{got:?}");
    assert_eq!(all[0]["tier"], "likely", "{all:?}");
}

const HR_ZONES: &str = r#"import numpy as np

N_ZONES = 8


def zone_edges(hr):
    return np.quantile(hr, np.linspace(0.0, 1.0, N_ZONES + 1)[1:-1])


def label_space():
    n_classes = 2 * N_ZONES - 1
    shift = N_ZONES // 2
    return n_classes, shift


def windows(hr, edges, width=12):
    zone = np.digitize(hr, edges)
    n_classes, shift = label_space()
    xs, ys = [], []
    for t in range(width, len(hr) - 1):
        change = int(zone[t + 1]) - int(zone[t])
        xs.append(hr[t - width:t])
        ys.append(change + shift)
    return np.array(xs, dtype=np.float32), np.array(ys, dtype=np.int64), n_classes
"#;

const HR_TRAIN: &str = r#"import numpy as np
import torch
import torch.nn as nn

from zones import windows, zone_edges


def heart_rate(rng, n=2000):
    base = 70 + 25 * np.sin(np.linspace(0, 30, n))
    jumps = rng.choice([0.0, 40.0, -40.0], size=n, p=[0.9, 0.05, 0.05])
    return base + np.cumsum(rng.normal(0, 1, n)) * 0.1 + jumps


def main():
    rng = np.random.default_rng(2)
    hr = heart_rate(rng)
    x, y, n_classes = windows(hr, zone_edges(hr))
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    net = nn.Sequential(nn.Linear(x.shape[1], 32), nn.ReLU(), nn.Linear(32, n_classes))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    for s in range(0, len(y), 64):
        loss = nn.functional.cross_entropy(net(x[s:s + 64]), y[s:s + 64])
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
"#;

/// A change of heart-rate zone (`zone[t + 1] - zone[t]`, signed on purpose) is made a class by
/// adding a shift (`change + shift`); the shift is half what it must be, and a drop of several
/// zones gives a negative class. The addition, where the difference is meant to come back into
/// range, comes before the subtraction.
#[test]
fn an_offset_added_to_a_difference_outranks_the_difference() {
    let (got, _) = common::cpu_run_suspects(&[("zones.py", HR_ZONES), ("train.py", HR_TRAIN)], "zone_change_shift.log");
    let at = |p: &str| got.iter().position(|s| s == p);
    assert_eq!(got.first().map(String::as_str), Some("zones.py:23"), "{got:?}");
    assert!(at("zones.py:21").is_some_and(|i| i > 0), "{got:?}");
}

const PRESENCE_HEADS: &str = r#"import torch
import torch.nn as nn
import torch.nn.functional as F


def occupied(logp, per_cell):
    free = 1.0 - logp[..., 0]
    return free.reshape(logp.shape[0], -1, per_cell).max(dim=-1).values


class Tagger(nn.Module):
    def __init__(self, n_in, n_tags):
        super().__init__()
        self.proj = nn.Linear(n_in, n_tags)

    def forward(self, x):
        logp = F.log_softmax(self.proj(x), dim=-1)
        return {"logp": logp, "occupied": occupied(logp, 4)}
"#;

const PRESENCE_LOOP: &str = r#"import torch
import torch.nn.functional as F

from heads import Tagger


def main():
    net = Tagger(12, 5)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for step in range(3):
        x = torch.randn(8, 16, 12)
        tags = torch.randint(0, 5, (8, 16))
        out = net(x)
        loss = F.nll_loss(out["logp"].reshape(-1, 5), tags.reshape(-1))
        busy = (tags > 0).float().reshape(8, -1, 4).amax(dim=-1)
        loss = loss + F.binary_cross_entropy(out["occupied"], busy)
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
"#;

/// Log-probabilities (`log_softmax`) turned into a presence score by hand (`1.0 - logp[..., 0]`,
/// a log-probability taken for a probability): the traced line of arithmetic comes before the
/// pattern at the loss that says the project never normalizes its scores (it does; the value
/// went through a `log_softmax`). Real CPU log of this program (PyPI torch).
#[test]
fn arithmetic_traced_after_a_normalization_comes_before_the_raw_scores_pattern_at_the_loss() {
    let files = [("heads.py", PRESENCE_HEADS), ("loop.py", PRESENCE_LOOP)];
    let (got, _) = common::cpu_run_suspects(&files, "log_probs_presence.log");
    assert_eq!(got.first().map(String::as_str), Some("heads.py:7"), "{got:?}");
}

const SEEN_GRADES_JSON: &str = r#"{"grades": ["A", "B", "C", "D", "E", "F", "G"]}
"#;

const SEEN_GRADES_TRAIN: &str = r#"import json
import random

import numpy as np
import torch
import torch.nn as nn


def read_grades(path):
    with open(path) as fh:
        return json.load(fh)["grades"]


def sample_marks(n, seed=1):
    rng = random.Random(seed)
    return [rng.choice(["A", "B", "C", "F", "G"]) for _ in range(n)]


def main():
    grades = read_grades("grades.json")
    code = {g: i for i, g in enumerate(grades)}
    marks = sample_marks(128)
    y = np.array([code[m] for m in marks])
    n_out = len(np.unique(y))
    clf = nn.Linear(4, n_out)
    x = torch.randn(len(y), 4)
    loss = nn.functional.cross_entropy(clf(x), torch.from_numpy(y))
    loss.backward()
    print(loss.item())


if __name__ == "__main__":
    main()
"#;

/// Ids that number every entry of a list written in a file (seven grades, so the ids run 0..6)
/// against a head sized by the distinct ids seen (`len(np.unique(y))`, five in the sample): the
/// count is the likely line. Real CPU log of this program (PyPI torch).
#[test]
fn a_count_of_the_ids_seen_against_ids_over_a_list_of_known_length_is_the_likely_bound() {
    let files = [("grades.json", SEEN_GRADES_JSON), ("train.py", SEEN_GRADES_TRAIN)];
    let (got, all) = common::cpu_run_suspects(&files, "grades_seen_count.log");
    assert_eq!(got.first().map(String::as_str), Some("train.py:24"), "{got:?}");
    assert_eq!(all[0]["tier"], "likely", "{all:?}");
}

const CODE_STATIONS: &str = r#"import csv

import torch
from torch.utils.data import Dataset


def station_number(code):
    return int(code[1:])


def read_stations(path):
    with open(path, newline="") as fh:
        return [{"code": r["station"], "elev": float(r["elev"])} for r in csv.DictReader(fh)]


class Readings(Dataset):
    def __init__(self, stations, path):
        self.stations = stations
        with open(path, newline="") as fh:
            self.rows = list(csv.DictReader(fh))

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        r = self.rows[i]
        return torch.tensor(station_number(r["station"])), torch.tensor([float(r["temp"])])
"#;

const CODE_TRAIN: &str = r#"import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from stations import Readings, read_stations


class Net(nn.Module):
    def __init__(self, n_stations):
        super().__init__()
        self.site = nn.Embedding(n_stations, 3)
        self.out = nn.Linear(4, 1)

    def forward(self, station, temp):
        return self.out(torch.cat([self.site(station), temp], 1))


def main():
    stations = read_stations("stations.csv")
    net = Net(len(stations))
    for station, temp in DataLoader(Readings(stations, "readings.csv"), batch_size=4):
        net(station, temp).sum().backward()


if __name__ == "__main__":
    main()
"#;

/// Station ids parsed out of their codes (`int(code[1:])` of "S1".."S3": `int` of a slice is a
/// number read out of text) index an embedding sized by the count of stations: the parsing line
/// is a suspect, beside the count (which of the two is wrong the code does not say). Real CPU
/// log of this program (PyPI torch).
#[test]
fn a_number_parsed_out_of_a_code_is_an_origin() {
    let files = [("stations.py", CODE_STATIONS), ("train.py", CODE_TRAIN)];
    let (got, all) = common::cpu_run_suspects(&files, "station_number_from_code.log");
    assert!(got.iter().take(2).any(|g| g == "stations.py:8"), "{got:?}");
    let parsed = all.iter().find(|s| s["line"] == 8).unwrap();
    assert!(parsed["message"].as_str().unwrap().contains("parses a number out of `code[1:]`"), "{parsed}");
}

const GAP_VISITS: &str = r#"import numpy as np
import torch

MAX_GAP = 30


def gap_buckets(days):
    # days since the previous visit, long gaps sharing the last bucket
    return np.clip(np.diff(days, prepend=days[0]), 0, MAX_GAP)


def batch(rows):
    gaps = [gap_buckets(np.array(r, dtype=np.int64)) for r in rows]
    return torch.from_numpy(np.concatenate(gaps))
"#;

const GAP_TRAIN: &str = r#"import torch
import torch.nn as nn

from visits import MAX_GAP, batch

gap_emb = nn.Embedding(MAX_GAP, 4)
head = nn.Linear(4, 1)
rows = [[0, 3, 10, 55], [0, 1, 2, 9, 80]]
out = head(gap_emb(batch(rows)))
out.sum().backward()
"#;

/// `np.clip(x, 0, MAX_GAP)` (numpy's function: the value is its first argument) gives
/// 0..MAX_GAP, one more bucket than `nn.Embedding(MAX_GAP, …)` holds: the table that takes the
/// setting as it is comes first, and the clip's range is read from its bounds (it had been read
/// as a method of `np`, the value taken for a bound). Real CPU log of this program (PyPI torch).
#[test]
fn numpys_clip_takes_the_value_first_and_its_inclusive_bound_passes_the_table() {
    let files = [("visits.py", GAP_VISITS), ("train.py", GAP_TRAIN)];
    let (got, all) = common::cpu_run_suspects(&files, "gap_clip_inclusive.log");
    assert_eq!(got.first().map(String::as_str), Some("train.py:6"), "{got:?}");
    assert_eq!(all[0]["tier"], "strong", "{all:?}");
    assert!(
        all[0]["chain"].to_string().contains("[0, 30]") || all.iter().any(|s| s["message"].as_str().unwrap_or("").contains("[0, 30]")),
        "{all:?}"
    );
}

const VISITS_SIMULATE: &str = r#"import json
import random

SHOPS = 12


def visit(i):
    # a visitor who left before choosing has no shop
    shop = -1 if random.random() < 0.2 else random.randrange(SHOPS)
    return {"visitor": i, "shop": shop, "minutes": round(random.uniform(1, 30), 1)}


def main(path="visits.json", n=200):
    random.seed(3)
    with open(path, "w") as out:
        json.dump([visit(i) for i in range(n)], out)


if __name__ == "__main__":
    main()
"#;

const VISITS_LEARN: &str = r#"import json

import torch
import torch.nn as nn


def load(path):
    with open(path) as f:
        return json.load(f)


class Visits(torch.utils.data.Dataset):
    def __init__(self, rows):
        self.shop = [r["shop"] for r in rows]
        self.minutes = [r["minutes"] for r in rows]

    def __len__(self):
        return len(self.shop)

    def __getitem__(self, i):
        return torch.tensor(self.shop[i]), torch.tensor(self.minutes[i])


shops = nn.Embedding(12, 4)
head = nn.Linear(4, 1)
loader = torch.utils.data.DataLoader(Visits(load("visits.json")), batch_size=16)
for shop, minutes in loader:
    loss = ((head(shops(shop)).squeeze(-1) - minutes) ** 2).mean()
    loss.backward()
"#;

/// A script of the project makes the data up (random draws, no file read) and saves it
/// (`json.dump`); the program loads it back. The marker the script draws for a visitor with no
/// shop is the data: the line that takes the field as it is into the ids is the suspect, with
/// the script's line named, not the script's draw. Real CPU log of this program (PyPI torch).
#[test]
fn data_a_script_makes_up_is_blamed_where_the_program_takes_it_as_it_is() {
    let files = [("simulate.py", VISITS_SIMULATE), ("learn.py", VISITS_LEARN)];
    let (got, all) = common::cpu_run_suspects(&files, "generated_data_marker.log");
    assert_eq!(got.first().map(String::as_str), Some("learn.py:14"), "{got:?}");
    let why = all[0]["message"].as_str().unwrap();
    assert!(why.contains("simulate.py:9") && why.contains("-1"), "{why}");
    assert!(!got.iter().any(|g| g.starts_with("simulate.py")), "{got:?}");
}

const TSV_SIMULATE: &str = r##"import random

N_USERS = 40
N_ITEMS = 25


def main():
    rng = random.Random(7)
    with open("ratings.tsv", "w") as out:
        out.write("# user\titem\tstars\n")
        for u in range(N_USERS):
            for _ in range(rng.randint(3, 8)):
                item = rng.randrange(N_ITEMS)
                out.write("%d\t%d\t%.1f\n" % (u + 1, item, rng.uniform(1, 5)))


if __name__ == "__main__":
    main()
"##;

const TSV_TRAIN: &str = r##"import torch
import torch.nn as nn

from simulate import N_ITEMS, N_USERS


def load(path):
    users, items, stars = [], [], []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            u, i, s = line.rstrip("\n").split("\t")
            users.append(int(u))
            items.append(int(i))
            stars.append(float(s))
    return torch.tensor(users), torch.tensor(items), torch.tensor(stars)


class Factorizer(nn.Module):
    def __init__(self, n_users, n_items, dim=8):
        super().__init__()
        self.user = nn.Embedding(n_users, dim)
        self.item = nn.Embedding(n_items, dim)

    def forward(self, u, i):
        return (self.user(u) * self.item(i)).sum(-1)


def main():
    users, items, stars = load("ratings.tsv")
    model = Factorizer(N_USERS, N_ITEMS)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(3):
        pred = model(users, items)
        loss = ((pred - stars) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"epoch {epoch}: mse {loss.item():.3f}")


if __name__ == "__main__":
    main()
"##;

/// A script of the project writes text lines of fields (`"%d\t%d\t%.1f\n" % (u + 1, …)`), the
/// program reads them back line by line, splits them and parses the fields: the user ids the
/// script writes one above their positions reach the embedding as they are. The line that parses
/// them is the suspect (the script's `+ 1` named), not the items' line beside it, whose ids the
/// script writes as positions. Real CPU log of this program (PyPI torch).
#[test]
fn fields_of_text_a_script_writes_are_the_values_it_wrote() {
    let files = [("simulate.py", TSV_SIMULATE), ("train.py", TSV_TRAIN)];
    let (got, all) = common::cpu_run_suspects(&files, "written_text_shifted_ids.log");
    assert_eq!(got.first().map(String::as_str), Some("train.py:14"), "{got:?}");
    let why = all[0]["message"].as_str().unwrap();
    assert!(why.contains("simulate.py:14"), "{why}");
    assert!(!got.iter().any(|g| g == "train.py:15"), "{got:?}");
}

const EDGES_WRITE: &str = r#"import numpy as np

N_NODES = 30


def write_edges(path, n_nodes, n_edges, seed=0):
    rng = np.random.default_rng(seed)
    with open(path, "w") as fh:
        print(n_nodes, n_edges, file=fh)
        for _ in range(n_edges):
            a, b = rng.choice(n_nodes, size=2, replace=False)
            print(a + 1, b + 1, file=fh)


if __name__ == "__main__":
    write_edges("graph.edges", N_NODES, 90)
"#;

const EDGES_READ: &str = r#"import torch
import torch.nn as nn


def read_graph(path):
    with open(path) as fh:
        rows = fh.read().splitlines()
    n_nodes = int(rows[0].split()[0])
    src, dst = [], []
    for row in rows[1:]:
        a, b = map(int, row.split())
        src.append(a)
        dst.append(b)
    return n_nodes, torch.tensor([src, dst])


class MeanConv(nn.Module):
    def __init__(self, n_nodes, dim):
        super().__init__()
        self.feat = nn.Parameter(torch.randn(n_nodes, dim))
        self.lin = nn.Linear(dim, dim)

    def forward(self, edges):
        msgs = self.feat.index_select(0, edges[0])
        out = torch.zeros_like(self.feat).index_add_(0, edges[1], msgs)
        return self.lin(out)


n, edges = read_graph("graph.edges")
conv = MeanConv(n, 16)
print(conv(edges).shape)
"#;

/// Pairs written with `print(a + 1, b + 1, file=fh)` after a first line that counts them, read
/// back with `map(int, row.split())`: the node ids are numbered from 1 where the reading takes
/// them; the count line written once before the loop is not a row. Real CPU log of this program
/// (PyPI torch).
#[test]
fn pairs_printed_into_a_file_are_read_back_in_their_places() {
    let files = [("make_graph.py", EDGES_WRITE), ("gcn.py", EDGES_READ)];
    let (got, all) = common::cpu_run_suspects(&files, "written_text_printed_pairs.log");
    assert_eq!(got.first().map(String::as_str), Some("gcn.py:11"), "{got:?}");
    let why = all[0]["message"].as_str().unwrap();
    assert!(why.contains("make_graph.py:12"), "{why}");
}
