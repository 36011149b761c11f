import torch.nn as nn

model = nn.Linear(10, 3)
criterion = nn.CrossEntropyLoss()
