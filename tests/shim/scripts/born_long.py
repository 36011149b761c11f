"""A long table of records read one by one in __init__'s loop: the list is named on every line
of the loop, and a label is shifted out of range while it is copied."""
import torch
from torch.utils.data import DataLoader, Dataset

RECORDS = [{"kind": i % 5, "size": float(i % 3)} for i in range(6000)]
N_KINDS = 5


class Table(Dataset):
    def __init__(self, records):
        self.x, self.y = [], []
        for i in range(len(records)):
            rec = records[i]
            self.x.append(rec["size"])
            self.y.append(rec["kind"] + (1 if i == 4324 else 0))

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return torch.tensor([self.x[i]]), torch.tensor(self.y[i])


head = torch.nn.Linear(1, N_KINDS)
for x, y in DataLoader(Table(RECORDS), batch_size=500):
    loss = torch.nn.functional.cross_entropy(head(x), y)
print("trained")
