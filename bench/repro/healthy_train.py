"""A healthy training run for measuring repro's overhead: a small CNN classifier and a
token-embedding model, fed by DataLoaders, cross-entropy losses, no bad labels."""
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

STEPS = int(os.environ.get("STEPS", "300"))
dev = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)


class Images(Dataset):
    def __init__(self, n=4096, classes=10):
        self.x = torch.randn(n, 3, 32, 32)
        self.y = torch.randint(0, classes, (n,))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


class Tokens(Dataset):
    def __init__(self, n=4096, vocab=5000, length=64):
        self.ids = torch.randint(0, vocab, (n, length))
        self.labels = torch.randint(0, 4, (n,))

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return self.ids[i], self.labels[i]


class Net(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.c1 = nn.Conv2d(3, 32, 3, padding=1)
        self.c2 = nn.Conv2d(32, 64, 3, padding=1)
        self.c3 = nn.Conv2d(64, 128, 3, padding=1)
        self.fc = nn.Linear(128, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        x = F.relu(self.c3(x)).mean((2, 3))
        return self.fc(x)


class TextNet(nn.Module):
    def __init__(self, vocab=5000, dim=128, classes=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(64, dim)
        self.mix = nn.TransformerEncoderLayer(dim, 4, 256, batch_first=True)
        self.head = nn.Linear(dim, classes)

    def forward(self, ids):
        pos = torch.arange(ids.size(1), device=ids.device)
        h = self.mix(self.emb(ids) + self.pos(pos))
        return self.head(h.mean(1))


def main():
    img = DataLoader(Images(), batch_size=64, shuffle=True)
    txt = DataLoader(Tokens(), batch_size=64, shuffle=True)
    net, tnet = Net().to(dev), TextNet().to(dev)
    opt = torch.optim.Adam(list(net.parameters()) + list(tnet.parameters()), 1e-3)
    crit = nn.CrossEntropyLoss()
    step = 0
    t0 = time.perf_counter()
    while step < STEPS:
        for (x, y), (ids, lab) in zip(img, txt):
            x, y, ids, lab = x.to(dev), y.to(dev), ids.to(dev), lab.to(dev)
            loss = crit(net(x), y) + F.cross_entropy(tnet(ids), lab)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step >= STEPS:
                break
    if dev == "cuda":
        torch.cuda.synchronize()
    print(f"steps={STEPS} seconds={time.perf_counter() - t0:.3f} loss={loss.item():.4f}", file=sys.stderr)


if __name__ == "__main__":
    main()
