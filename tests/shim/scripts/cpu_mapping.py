import copy
import io
import os

import torch
import torch.distributed as dist
import torch.nn as nn

assert not torch.cuda.is_available()
assert torch.cuda.device_count() == 1
torch.cuda.set_device(0)
torch.cuda.manual_seed_all(0)
torch.cuda.manual_seed(0)
dev = torch.device('cuda:0')
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)).cuda()
model = model.to(dev)
model2 = copy.deepcopy(model).to('cuda')
x = torch.randn(5, 4, device=dev)
y = torch.randint(0, 3, (5,), device='cuda')
z = torch.zeros(2, device=0).to(device=dev, dtype=torch.float64)
w = torch.tensor([1, 2], device='cuda:0').cuda(0)
e = torch.empty(3).to(dev, non_blocking=True).pin_memory()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.cuda.amp.GradScaler()
with torch.cuda.amp.autocast():
    out = model(x)
with torch.autocast('cuda', dtype=torch.float16):
    out = model(x)
with torch.autocast(device_type='cuda'):
    out = model(x)
loss = nn.functional.cross_entropy(out, y)
scaler.scale(loss).backward()
scaler.step(opt)
scaler.update()
torch.cuda.synchronize()
buf = io.BytesIO()
torch.save(model.state_dict(), buf)
buf.seek(0)
sd = torch.load(buf, map_location='cuda:0')
model.load_state_dict(sd)
os.environ.setdefault('MASTER_ADDR', '127.0.0.1')
os.environ.setdefault('MASTER_PORT', str(29500 + os.getpid() % 1000))
dist.init_process_group('nccl', rank=0, world_size=1)
ddp = nn.parallel.DistributedDataParallel(model, device_ids=[0])
ddp(x).sum().backward()
dist.destroy_process_group()
assert all(p.device.type == 'cpu' for p in model.parameters())
assert x.device.type == 'cpu' and y.device.type == 'cpu' and z.dtype == torch.float64
print('trained')
