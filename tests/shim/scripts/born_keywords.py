"""A head sized from a config value passed by keyword through multi-line calls (the config
holds the same number under another key); the labels are a complete 0-based code of the data's
intents, one more than the config allows."""
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

INTENTS = ["greet", "bye", "order", "refund", "track"]


class Config(object):
    def __init__(self, hidden, layers, num_intents):
        self.hidden = hidden
        self.layers = layers
        self.num_intents = num_intents


def load_config():
    raw = {
        "hidden": 8,
        "layers": 4,
        "num_intents": 4,
    }
    return Config(
        hidden=raw["hidden"],
        layers=raw["layers"],
        num_intents=raw["num_intents"],
    )


class Net(nn.Module):
    def __init__(self, width, hidden, num_classes):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(width, hidden * 2),
            nn.ReLU(),
            nn.Linear(hidden * 2, num_classes),
        )

    def forward(self, x):
        return self.body(x)


class Rows(Dataset):
    def __init__(self, labels):
        self.labels = labels

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return torch.randn(3), self.labels[i]


cfg = load_config()
label_of = {name: i for i, name in enumerate(INTENTS)}
labels = [label_of[INTENTS[i % 5]] for i in range(40)]
model = Net(
    width=3,
    hidden=cfg.hidden,
    num_classes=cfg.num_intents,
)
for x, y in DataLoader(Rows(labels), batch_size=8):
    nn.functional.cross_entropy(model(x), y).backward()
print("trained")
