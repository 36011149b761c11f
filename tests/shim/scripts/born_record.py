"""Records appended as one tuple written over several lines; one field takes a sentinel -1
for a missing recipient, and the loss treats it as a class."""
import math

import torch

PLAYERS = ["p%d" % i for i in range(11)]
EVENTS = [{"from": PLAYERS[i % 11], "to": PLAYERS[(i * 3) % 11] if i % 4 else None,
           "x": float(i % 7), "y": float(i % 5)} for i in range(64)]


def records(events):
    slot = {p: k for k, p in enumerate(PLAYERS)}
    rows = []
    for ev in events:
        rows.append((
            slot[ev["from"]],
            math.hypot(ev["x"], ev["y"]) / 10.0,
            slot.get(ev["to"], -1),
        ))
    return rows


rows = records(EVENTS)
passer = torch.tensor([r[0] for r in rows])
dist = torch.tensor([[r[1]] for r in rows])
receiver = torch.tensor([r[2] for r in rows])
head = torch.nn.Linear(1, len(PLAYERS))
for start in range(0, len(rows), 16):
    loss = torch.nn.functional.cross_entropy(head(dist[start:start + 16]), receiver[start:start + 16])
print("trained")
