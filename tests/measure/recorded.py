"""Training steps of known modules recorded on the CPU with torch.profiler (record_shapes=True), and
FlopCounterMode's count of the same step: the external reference for the trace's FLOP."""
from __future__ import annotations

from pathlib import Path


def record_step(torch, model, x, y, optimizer, path: Path, loss_fn=None) -> int:
    """One training step profiled into ``path`` (ProfilerStep#1), then the same step under FlopCounterMode;
    returns FlopCounterMode's total FLOP."""
    from torch.profiler import ProfilerActivity, profile, schedule
    from torch.utils.flop_counter import FlopCounterMode

    loss_fn = loss_fn or torch.nn.functional.cross_entropy

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()

    step()  # the optimizer's state exists before the profiled step, as in any step after the first
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True,
                 schedule=schedule(wait=0, warmup=1, active=1),
                 on_trace_ready=lambda p: p.export_chrome_trace(str(path))) as prof:
        for _ in range(2):
            step()
            prof.step()
    with FlopCounterMode(display=False) as counter:
        step()
    return counter.get_total_flops()


def mlp(torch):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64), torch.nn.GELU(),
                                torch.nn.Linear(64, 10))
    return model, torch.randn(8, 32), torch.randint(0, 10, (8,)), torch.optim.SGD(model.parameters(), lr=0.01)


def cnn(torch):
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(8, 16, 3, stride=2, padding=1, bias=False), torch.nn.ReLU(),
        torch.nn.Conv2d(16, 16, 3, padding=1, groups=4), torch.nn.ReLU(),
        torch.nn.Flatten(), torch.nn.Linear(16 * 4 * 4, 10))
    return model, torch.randn(4, 3, 16, 16), torch.randint(0, 10, (4,)), torch.optim.Adam(model.parameters())


def transformer_block(torch):
    """A pre-norm block whose attention is written as products (q @ kᵀ, softmax, @ v), and a head."""
    torch.manual_seed(0)
    nn = torch.nn

    class Block(nn.Module):
        def __init__(self, d=32, heads=4, vocab=50):
            super().__init__()
            self.embed = nn.Embedding(vocab, d)
            self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
            self.head = nn.Linear(d, vocab, bias=False)
            self.heads = heads

        def forward(self, ids):
            x = self.embed(ids)
            b, t, d = x.shape
            q, k, v = self.qkv(self.norm1(x)).split(d, dim=-1)
            q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
            att = torch.softmax(q @ k.transpose(-2, -1) / (d // self.heads) ** 0.5, dim=-1)
            x = x + self.proj((att @ v).transpose(1, 2).reshape(b, t, d))
            x = x + self.mlp(self.norm2(x))
            return self.head(x).flatten(0, 1)

    model = Block()
    ids = torch.randint(0, 50, (2, 12))
    return model, ids, torch.randint(0, 50, (24,)), torch.optim.AdamW(model.parameters())


def frozen_finetune(torch):
    """A CNN fine-tuned with its first two layers frozen (no weight gradient, no input gradient for the first)."""
    model, x, y, _ = cnn(torch)
    for layer in list(model)[:2]:
        for p in layer.parameters():
            p.requires_grad_(False)
    return model, x, y, torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.01)


MODELS = {"mlp": mlp, "cnn": cnn, "transformer_block": transformer_block, "frozen_finetune": frozen_finetune}
