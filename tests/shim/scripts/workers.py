import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
dev = 'cuda'


class CustomDataset(Dataset):
    def __init__(self, n=200):
        g = torch.Generator().manual_seed(1)
        self.x = torch.randn(n, 4, generator=g)
        self.labels = [i % 3 for i in range(n)]

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        x = self.x[idx]
        y = self.labels[idx]
        if torch.rand(1) < 0.1:
            y = y + 1
        return x, torch.tensor(y)


if __name__ == '__main__':
    model = nn.Linear(4, 3).to(dev)
    criterion = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(CustomDataset(), batch_size=32, shuffle=True, num_workers=2)
    for epoch in range(3):
        for x, y in loader:
            x, y = x.to(dev), y.to(dev)
            outputs = model(x)
            loss = criterion(outputs, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    print('trained')
