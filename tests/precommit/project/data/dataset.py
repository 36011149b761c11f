import torch
from torch.utils.data import Dataset


class Pairs(Dataset):
    def __init__(self, xs, ys):
        self.xs, self.ys = xs, ys

    def __len__(self):
        return len(self.xs)

    def __getitem__(self, i):
        x, y = self.xs[i], self.ys[i]
        if torch.rand(1) < 0.1:
            y = y + 1
        return x, y
