"""A label map shifted by one in the Dataset's __init__ (a comprehension), the head sized from
the same map in a helper; and a batch helper that adds to the labels in the training step."""
import sys

import torch
from torch.utils.data import DataLoader, Dataset

NAMES = ["cat", "dog", "bird", "fish"] * 6


class Pets(Dataset):
    def __init__(self, class_to_idx, shift):
        self.labels = [class_to_idx[c] + shift for c in NAMES]

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        y = self.labels[i]
        return torch.randn(3), y


def build_head(class_to_idx):
    return torch.nn.Linear(3, len(class_to_idx))


def to_targets(batch_y, k):
    return batch_y + k


mode = sys.argv[1]
class_to_idx = {c: i for i, c in enumerate(sorted(set(NAMES)))}
ds = Pets(class_to_idx, 1 if mode == "init" else 0)
head = build_head(class_to_idx)
for x, y in DataLoader(ds, batch_size=4):
    t = to_targets(y, 1 if mode == "step" else 0)
    loss = torch.nn.functional.cross_entropy(head(x), t)
print("trained")
