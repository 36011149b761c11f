"""Under the CPU mapping: `import torch._dynamo` works (dynamo keys its trace rules by function
object, so each patched torch.cuda name needs a function of its own), autocast works as a context
manager and as a decorator, a GradScaler can be made and used, and the torch.cuda calls a training
script makes are accepted."""
import torch
import torch.nn as nn

try:
    import torch._dynamo  # noqa: F401
    dynamo = True
except ModuleNotFoundError as e:  # torch 1.13 has no torch._dynamo
    if e.name != "torch._dynamo":
        raise
    dynamo = False

torch.cuda.synchronize()
torch.cuda.manual_seed(0)
model = nn.Linear(4, 3).cuda()
x = torch.randn(5, 4).cuda()
y = torch.randint(0, 3, (5,)).to("cuda")
opt = torch.optim.SGD(model.parameters(), lr=0.1)

with torch.autocast("cuda"):
    out = model(x)


@torch.autocast("cuda")
def forward(inp):
    return model(inp)


out = forward(x)
if hasattr(torch.amp, "GradScaler"):
    scaler = torch.amp.GradScaler("cuda")
else:  # torch before 2.3
    scaler = torch.cuda.amp.GradScaler()
loss = nn.functional.cross_entropy(out.float(), y)
scaler.scale(loss).backward()
scaler.step(opt)
scaler.update()
torch.cuda.synchronize()
assert x.device.type == "cpu" and y.device.type == "cpu" and out.device.type == "cpu"
assert all(p.device.type == "cpu" for p in model.parameters())
print("ok dynamo=%s torch=%s" % (dynamo, torch.__version__.split(".")[0]))
