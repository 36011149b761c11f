"""Probabilities that leave [0, 1] before binary_cross_entropy, made five ways (argv[1]):
  sum    two sigmoid heads added (images in [0, 1] go into the model: its input, not a term)
  flip   a probability negated for one side (`torch.where(side > 0, p, -p)`)
  logit  a sigmoid probability plus a linear layer's logit
  head   a linear layer's logits straight into the loss
  prior  a 0/1 adjacency made symmetric by a sum (2 where both ways), blended with a sigmoid
  pool   probabilities weighted by sigmoid weights that do not sum to one, summed
  cosine a cosine similarity (in [-1, 1]) taken for a match probability"""
import sys

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)
HOW = sys.argv[1]
N, D = 32, 6


def neighbours(n):
    adj = (torch.rand(n, n) < 0.3).float()
    return adj + adj.t()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(D, 1)
        self.b = nn.Linear(D, 1)
        self.wide = nn.Linear(D, 1)
        self.proj = nn.Linear(D, D)
        self.bias = nn.Parameter(torch.full((1,), 3.0))

    def heads(self, x):
        return torch.sigmoid(self.a(x)).squeeze(-1), torch.sigmoid(self.b(x) + self.bias).squeeze(-1)

    def forward(self, x, side=None, prior=None):
        p_a, p_b = self.heads(x)
        if HOW == "sum":
            p = p_a + p_b
        elif HOW == "flip":
            p = torch.where(side > 0, p_a, -p_a)
        elif HOW == "logit":
            p = p_a + self.wide(x).squeeze(-1)
        elif HOW == "head":
            p = self.wide(x).squeeze(-1) * 4
        elif HOW == "cosine":
            p = F.cosine_similarity(self.proj(x), -x, dim=-1)
        elif HOW == "pool":
            w = torch.sigmoid(torch.stack([self.b(x), self.b(x)], dim=1) + self.bias).squeeze(-1)
            probs = torch.stack([p_a, p_b], dim=1)
            p = (w * probs).sum(dim=1)
        else:
            p = 0.5 * p_a + 0.5 * prior[:, 0]
        return p


images = torch.rand(N, D)
sides = torch.randint(0, 2, (N,)) * 2 - 1
target = torch.randint(0, 2, (N,)).float()
prior = neighbours(N)
net = Net()
for step in range(3):
    out = net(images, side=sides, prior=prior)
    loss = F.binary_cross_entropy(out, target)
    loss.backward()
print("trained")
