import sys
import torch
import torch.nn.functional as F

op = sys.argv[1]
if op == 'one_hot':
    F.one_hot(torch.tensor([0, 1, 4]), num_classes=3)
elif op == 'bernoulli':
    torch.bernoulli(torch.tensor([0.2, 1.25]))
elif op == 'bernoulli_':
    torch.zeros(3).bernoulli_(torch.tensor([0.5, -0.5, 0.1]))
elif op == 'poisson':
    torch.poisson(torch.tensor([1.0, -2.0]))
elif op == 'take':
    torch.take(torch.arange(6).reshape(2, 3), torch.tensor([0, 6]))
elif op == 'put':
    torch.zeros(4).put_(torch.tensor([-5]), torch.tensor([1.0]))
elif op == 'multinomial':
    torch.multinomial(torch.tensor([[0.5, 0.5], [0.0, 0.0]]), 1)
elif op == 'bce':
    F.binary_cross_entropy(torch.tensor([0.2, 1.5]), torch.tensor([0.0, 1.0]))
elif op == 'bce_nan':
    F.binary_cross_entropy(torch.tensor([float('nan'), 0.5]), torch.tensor([0.0, 1.0]))
elif op == 'bce_target':
    F.binary_cross_entropy(torch.tensor([0.2, 0.5]), torch.tensor([0.0, 2.0]))
elif op == 'index':
    torch.zeros(4, 2)[torch.tensor([1, -5])]
elif op == 'scatter':
    torch.zeros(2, 3).scatter_(1, torch.tensor([[0], [3]]), 1.0)
elif op == 'index_put':
    t = torch.zeros(3)
    t[torch.tensor([0, 3])] = 1.0
elif op == 'embedding_bag':
    F.embedding_bag(torch.tensor([1, 7]), torch.randn(5, 2), torch.tensor([0]))
elif op == 'nll2d':
    target = torch.zeros(2, 4, 4, dtype=torch.long)
    target[1, 2, 3] = 5
    F.cross_entropy(torch.randn(2, 3, 4, 4), target)
elif op == 'mask':
    torch.zeros(4, 2)[torch.tensor([True, False, True])]
elif op == 'thread':
    import threading
    def work():
        torch.zeros(3).index_select(0, torch.tensor([5]))
    th = threading.Thread(target=work)
    th.start()
    th.join()
print('trained')
