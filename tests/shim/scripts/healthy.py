import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
dev = 'cuda' if torch.cuda.is_available() else 'cpu'
ds = TensorDataset(torch.randn(64, 4), torch.randint(0, 3, (64,)))
model = nn.Linear(4, 3).to(dev)
emb = nn.Embedding(5, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in DataLoader(ds, batch_size=16, shuffle=True):
    loss = F.cross_entropy(model(x.to(dev)), y.to(dev))
    opt.zero_grad()
    loss.backward()
    opt.step()
    emb(torch.tensor([0, 4]))
    x.gather(1, torch.tensor([[0]] * x.size(0)))
    F.one_hot(y, 3)
    torch.multinomial(torch.tensor([[0.2, 0.8]]), 1)
    F.binary_cross_entropy(torch.sigmoid(model(x)[:, 0]), torch.ones(x.size(0)))
    x[torch.tensor([-1, 0])]
print('trained')
