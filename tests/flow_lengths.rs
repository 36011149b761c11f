//! The value tracing on lengths and on library loops, as a user meets them: a project of a few
//! files and a real H200 log of the same kernel assert (its traceback names none of the
//! project's files, as an asynchronous log's often does). Each case has the culprit on a line
//! the tracing can only reach across files and classes; the top suspect must be that line.

mod common;

use common::{tiered_suspects, top_suspects, REVIEWS_DATA as DATA, REVIEWS_TOK as TOK, REVIEWS_TRAIN as TRAIN};

const MODEL: &str = r#"import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, vocab, max_len, n_classes):
        super().__init__()
        self.tok = nn.Embedding(vocab, 32)
        self.pos = nn.Embedding(max_len, 32)
        self.head = nn.Linear(32, n_classes)

    def forward(self, ids):
        positions = torch.arange(ids.size(1), device=ids.device).unsqueeze(0)
        x = self.tok(ids) + self.pos(positions)
        return self.head(x.mean(1))
"#;

/// A sequence cut to the position table's size and then framed with [CLS]/[SEP]: the cut is the
/// line to change (three files between it and the lookup: tokenizer, dataset and collate, model).
#[test]
fn position_overflow_names_the_cut() {
    let got = top_suspects(&[("tok.py", TOK), ("data.py", DATA), ("model.py", MODEL), ("train.py", TRAIN)], "embedding_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("tok.py:8"), "{got:?}");
    assert!(got.iter().take(3).any(|s| s == "tok.py:9"), "the framing line is the transform: {got:?}");
}

/// The same project with the cut leaving room for the two markers: nothing on the cut.
#[test]
fn position_cut_with_room_is_not_blamed() {
    let tok = TOK.replace("ids = ids[:max_len]", "ids = ids[: max_len - 2]");
    let got = top_suspects(&[("tok.py", &tok), ("data.py", DATA), ("model.py", MODEL), ("train.py", TRAIN)], "embedding_over.async.log");
    assert!(!got.iter().take(1).any(|s| s == "tok.py:8" || s == "tok.py:9"), "{got:?}");
}

const GATHER: &str = r#"import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader


def pad_batch(batch):
    seqs = [torch.tensor(s) for s, _ in batch]
    lengths = torch.tensor([len(s) for s in seqs])
    labels = torch.tensor([y for _, y in batch])
    return pad_sequence(seqs, batch_first=True), lengths, labels


def last_state(out, lengths):
    idx = lengths.view(-1, 1, 1).expand(-1, 1, out.size(-1))
    return out.gather(1, idx).squeeze(1)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 16)
        self.rnn = nn.GRU(16, 16, batch_first=True)
        self.fc = nn.Linear(16, 3)

    def forward(self, x, lengths):
        out, _ = self.rnn(self.emb(x))
        return self.fc(last_state(out, lengths))


data = [([1, 2, 3], 0), ([4, 5], 1)]
net = Net()
for x, lengths, y in DataLoader(data, batch_size=2, collate_fn=pad_batch):
    net(x, lengths).sum().backward()
"#;

/// A length used as the gather index (one past the last step): the line that makes the index.
#[test]
fn gather_at_lengths_names_the_index_line() {
    let got = top_suspects(&[("rnn.py", GATHER)], "gather_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("rnn.py:15"), "{got:?}");
}

const HF: &str = r#"import json

import torch
from torch.utils.data import Dataset
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments


class Tickets(Dataset):
    def __init__(self, rows, intents):
        self.rows = [(r["ids"], intents[r["intent"]]) for r in rows]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        ids, label = self.rows[i]
        return {"input_ids": torch.tensor(ids), "labels": torch.tensor(label)}


intents = {name: i + 1 for i, name in enumerate(["billing", "login", "refund"])}
rows = [{"ids": [1, 2, 3], "intent": "refund"}]
config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, num_labels=len(intents))
model = BertForSequenceClassification(config)
trainer = Trainer(model=model, args=TrainingArguments(output_dir="out", report_to="none"), train_dataset=Tickets(rows, intents))
trainer.train()
"#;

/// Labels that reach a Hugging Face model only inside `Trainer`'s own loop.
#[test]
fn trainer_labels_are_traced_into_the_model() {
    let got = top_suspects(&[("hf.py", HF)], "ce_1d_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("hf.py:20"), "{got:?}");
}

const TAB: &str = r#"import torch
from torch import nn


class TabNet(nn.Module):
    def __init__(self, cards, dim=8):
        super().__init__()
        self.embs = nn.ModuleList([nn.Embedding(n, dim) for n in cards])
        self.out = nn.Linear(dim * len(cards), 1)

    def forward(self, x):
        parts = [emb(x[:, j]) for j, emb in enumerate(self.embs)]
        return self.out(torch.cat(parts, 1))
"#;

const PREP: &str = r#"def codes(rows, levels):
    return [[lv.index(v) + 1 for v, lv in zip(row, levels)] for row in rows]
"#;

const TAB_TRAIN: &str = r#"import torch
from torch.utils.data import DataLoader, TensorDataset

import prep as P
from tab import TabNet

LEVELS = [["a", "b", "c"], ["x", "y"]]


def main(rows, ys):
    x = torch.tensor(P.codes(rows, LEVELS))
    ds = TensorDataset(x, torch.tensor(ys, dtype=torch.float32))
    model = TabNet([len(lv) for lv in LEVELS])
    for xb, yb in DataLoader(ds, batch_size=4):
        loss = torch.nn.functional.binary_cross_entropy_with_logits(model(xb).squeeze(1), yb)
        loss.backward()
"#;

/// A tabular model looks each column up in its own table (`nn.ModuleList` of embeddings, called
/// in a comprehension over `enumerate`); the codes are made 1-based in a module without torch,
/// called through its import alias (`P.codes`, a name that is also a pandas attribute), and
/// reach the model through a `TensorDataset`.
#[test]
fn codes_from_one_reach_a_module_list_of_embeddings() {
    let got = top_suspects(&[("tab.py", TAB), ("prep.py", PREP), ("train.py", TAB_TRAIN)], "embedding_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("prep.py:2"), "{got:?}");
    let fixed = PREP.replace("lv.index(v) + 1", "lv.index(v)");
    let got = top_suspects(&[("tab.py", TAB), ("prep.py", &fixed), ("train.py", TAB_TRAIN)], "embedding_over.async.log");
    assert_ne!(got.first().map(String::as_str), Some("prep.py:2"), "{got:?}");
}

const PANDAS_PREP: &str = r#"import pandas as pd


def encode(df, cols):
    codes = {}
    for c in cols:
        codes[c] = df[c].astype("category").cat.codes.to_numpy()
    return pd.DataFrame(codes)
"#;

const PANDAS_TRAIN: &str = r#"import pandas as pd
import torch
from torch.utils.data import DataLoader, TensorDataset

import prep as P
from tab import TabNet

COLS = ["plan", "region"]


def main():
    df = pd.read_csv("customers.csv")
    x = torch.tensor(P.encode(df, COLS).to_numpy())
    y = torch.tensor(df["churned"].to_numpy(), dtype=torch.float32)
    model = TabNet([df[c].nunique() for c in COLS])
    for xb, yb in DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True):
        loss = torch.nn.functional.binary_cross_entropy_with_logits(model(xb).squeeze(1), yb)
        loss.backward()
"#;

/// pandas' categorical codes are -1 for a missing value: stored in a dict of columns in a loop,
/// made a frame, then a tensor, then a `TensorDataset`, looked up column by column.
#[test]
fn categorical_codes_are_a_source_of_minus_one() {
    let got = top_suspects(&[("tab.py", TAB), ("prep.py", PANDAS_PREP), ("train.py", PANDAS_TRAIN)], "embedding_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("prep.py:7"), "{got:?}");
}

const PENGUINS_DATA: &str = r#"import torch
from torch.utils.data import Dataset

SPECIES = ["adelie", "chinstrap", "gentoo"]


class Penguins(Dataset):
    def __init__(self, rows):
        self.x = torch.tensor([r[:4] for r in rows], dtype=torch.float32)
        self.y = torch.tensor([[SPECIES.index(r[4]) + 1] for r in rows])

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]
"#;

const PENGUINS_TRAIN: &str = r#"import torch
from torch import nn
from torch.utils.data import DataLoader

from data import SPECIES, Penguins


def fit(rows):
    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, len(SPECIES)))
    loss_fn = nn.CrossEntropyLoss()
    for x, y in DataLoader(Penguins(rows), batch_size=16, shuffle=True):
        target = y.squeeze(-1)
        loss = loss_fn(model(x), target)
        loss.backward()
"#;

/// Labels made 1-based inside one-element rows, squeezed on the way to the loss: the shift is
/// the culprit, and `y.squeeze(-1)` passes its receiver on (it is no marker -1).
#[test]
fn a_shift_inside_rows_is_found_and_a_squeeze_is_no_marker() {
    let got = top_suspects(&[("data.py", PENGUINS_DATA), ("train.py", PENGUINS_TRAIN)], "ce_1d_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("data.py:10"), "{got:?}");
    assert!(!got.iter().any(|s| s == "train.py:12"), "{got:?}");
}

const CHORDS_DATA: &str = r#"import torch
from torch.utils.data import Dataset

SPECIAL = ["<pad>", "<bos>", "<mask>"]


def chord_ids(progressions, table):
    return [[table[c] for c in prog] for prog in progressions]


def chop(seqs, span, hop):
    pieces = []
    for s in seqs:
        for at in range(0, max(1, len(s) - span + 1), hop):
            pieces.append(s[at:at + span])
    return torch.tensor([p for p in pieces if len(p) == span])


class MaskedChords(Dataset):
    def __init__(self, pieces, bos, mask_id, p=0.15):
        self.pieces, self.bos, self.mask_id, self.p = pieces, bos, mask_id, p

    def __len__(self):
        return self.pieces.shape[0]

    def __getitem__(self, k):
        piece = self.pieces[k]
        hide = torch.rand(piece.shape) < self.p
        target = torch.where(hide, piece, torch.full_like(piece, -100))
        shown = piece.masked_fill(hide, self.mask_id)
        head = torch.tensor([self.bos])
        return torch.cat((head, shown)), torch.cat((torch.tensor([-100]), target))
"#;

const CHORDS_MODEL: &str = r#"import torch
from torch import nn


class ChordBert(nn.Module):
    def __init__(self, n_tokens, span, width=48):
        super().__init__()
        self.tokens = nn.Embedding(n_tokens, width)
        self.place = nn.Embedding(span, width)
        block = nn.TransformerEncoderLayer(width, 4, 2 * width, batch_first=True)
        self.body = nn.TransformerEncoder(block, 2)
        self.out = nn.Linear(width, n_tokens)

    def forward(self, ids):
        at = torch.arange(ids.size(1), device=ids.device).expand_as(ids)
        return self.out(self.body(self.tokens(ids) + self.place(at)))
"#;

const CHORDS_TRAIN: &str = r#"import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from chords import SPECIAL, MaskedChords, chop, chord_ids
from net import ChordBert

SETTINGS = {"span": 24, "hop": 8, "batch": 32}


def run(progressions, vocabulary):
    table = {c: i for i, c in enumerate(list(vocabulary) + SPECIAL)}
    pieces = chop(chord_ids(progressions, table), SETTINGS["span"], SETTINGS["hop"])
    order = torch.randperm(pieces.shape[0])
    cut = pieces.shape[0] // 10
    train = MaskedChords(pieces[order[cut:]], table["<bos>"], table["<mask>"])
    model = ChordBert(len(table), SETTINGS["span"])
    for ids, target in DataLoader(train, batch_size=SETTINGS["batch"], shuffle=True):
        logits = model(ids)
        F.cross_entropy(logits.reshape(-1, logits.size(-1)), target.reshape(-1)).backward()
"#;

/// Windows of the data exactly as long as the position table, a `<bos>` put before each with
/// `torch.cat`, the dataset's rows picked with a permutation, positions broadcast with
/// `expand_as`: the line that adds the token is where the length stops fitting (the window is a
/// design of the data, the alternative).
#[test]
fn a_token_put_before_a_window_with_cat_is_the_line_that_overflows() {
    let files = [("chords.py", CHORDS_DATA), ("net.py", CHORDS_MODEL), ("train.py", CHORDS_TRAIN)];
    let got = tiered_suspects(&files, "embedding_over.async.log");
    assert_eq!(got.first().map(String::as_str), Some("chords.py:32 strong"), "{got:?}");
    assert!(got.iter().take(3).any(|s| s.starts_with("chords.py:15 ")), "the window is the alternative: {got:?}");
    // one position to spare: nothing proven on either line
    let roomy = CHORDS_MODEL.replace("nn.Embedding(span, width)", "nn.Embedding(span + 1, width)");
    let got = tiered_suspects(&[("chords.py", CHORDS_DATA), ("net.py", &roomy), ("train.py", CHORDS_TRAIN)], "embedding_over.async.log");
    assert!(!got.iter().any(|s| s.ends_with(" strong")), "{got:?}");
}
