"""BERT pre-training steps as isobench benchmarks (docs/model-workloads.md).

One launch is one training step -- forward, backward and the AdamW update -- of BERT-large
(or a tiny configuration for checks) with random weights and synthetic token batches made from
the instance's seed: nothing is downloaded. bf16 mixed precision (torch.autocast; weights, grads
and optimizer state in fp32), in one of three modes, the implementations people compare:

    eager    the step as PyTorch runs it, one kernel launch at a time from Python;
    graph    the whole step captured once into a CUDA graph (torch.cuda.graph), replayed per launch;
    compile  the forward and loss through torch.compile (inductor), backward and optimizer eager.

Set-up builds the model, the batch and the optimizer, runs three warm-up steps (which compile, or
capture, and create AdamW's state) and synchronises: all untimed. A launch enqueues one step on
torch's current stream, the worker's, and never synchronises, so the worker's CUDA events time
the step and CUPTI's record pass sees one step per launch.

The model is written here with torch.nn rather than taken from transformers: a capturable step
must not synchronise, and transformers' attention-mask handling may (it checks the mask on the
host); and the benchmark must not change when a transformers release does. It follows BERT's
architecture (post-LayerNorm encoder, GELU, tied MLM decoder, NSP head, dropout 0.1). The MLM
loss is taken over every position, unmasked ones with label -100: gathering the masked
positions would make shapes data-dependent, which neither capture nor compile keeps static.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn

CONFIGS = {
    # Devlin et al. 2019: 24 layers, hidden 1024, 16 heads, 335M parameters.
    "bert-large": dict(vocab=30522, hidden=1024, layers=24, heads=16, intermediate=4096, max_positions=512),
    # For checks on small shapes (models/test_bert_training.py).
    "bert-tiny": dict(vocab=1024, hidden=128, layers=2, heads=2, intermediate=512, max_positions=512),
}
MODES = ("eager", "graph", "compile")
ADAMW = ("fused", "foreach")
WARMUP_STEPS = 3
MLM_SHARE = 0.15  # BERT's share of positions the MLM loss is taken on


class EncoderLayer(nn.Module):
    def __init__(self, hidden, heads, intermediate, dropout):
        super().__init__()
        self.heads = heads
        self.dropout = dropout
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.attention_out = nn.Linear(hidden, hidden)
        self.attention_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.up = nn.Linear(hidden, intermediate)
        self.down = nn.Linear(intermediate, hidden)
        self.output_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, h // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
        a = F.scaled_dot_product_attention(q, k, v, dropout_p=self.dropout if self.training else 0.0)
        a = a.transpose(1, 2).reshape(b, s, h)
        x = self.attention_norm(x + self.drop(self.attention_out(a)))
        return self.output_norm(x + self.drop(self.down(F.gelu(self.up(x)))))


class BertForPreTraining(nn.Module):
    def __init__(self, vocab, hidden, layers, heads, intermediate, max_positions, dropout):
        super().__init__()
        self.word = nn.Embedding(vocab, hidden)
        self.position = nn.Embedding(max_positions, hidden)
        self.token_type = nn.Embedding(2, hidden)
        self.embedding_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.drop = nn.Dropout(dropout)
        self.layers = nn.ModuleList(EncoderLayer(hidden, heads, intermediate, dropout) for _ in range(layers))
        self.pooler = nn.Linear(hidden, hidden)
        self.nsp = nn.Linear(hidden, 2)
        self.mlm_dense = nn.Linear(hidden, hidden)
        self.mlm_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.mlm_bias = nn.Parameter(torch.zeros(vocab))  # the decoder's weight is the word embedding's
        self.register_buffer("positions", torch.arange(max_positions), persistent=False)
        for m in self.modules():  # BERT's initialisation
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, std=0.02)
            if isinstance(m, nn.Linear):
                nn.init.zeros_(m.bias)

    def forward(self, tokens, token_types):
        x = self.word(tokens) + self.position(self.positions[: tokens.shape[1]]) + self.token_type(token_types)
        x = self.drop(self.embedding_norm(x))
        for layer in self.layers:
            x = layer(x)
        nsp = self.nsp(torch.tanh(self.pooler(x[:, 0])))
        mlm = F.linear(self.mlm_norm(F.gelu(self.mlm_dense(x))), self.word.weight, self.mlm_bias)
        return mlm, nsp


def synthetic_batch(vocab, batch, seq, seed, device):
    """Tokens, token types (two segments), MLM labels (15% of positions, -100 elsewhere) and NSP
    labels, from `seed` on the CPU (the same batch on every device and side), moved to `device`."""
    g = torch.Generator().manual_seed(seed)
    tokens = torch.randint(0, vocab, (batch, seq), generator=g)
    token_types = (torch.arange(seq) >= seq // 2).long().expand(batch, seq).contiguous()
    masked = torch.rand((batch, seq), generator=g) < MLM_SHARE
    mlm_labels = torch.where(masked, tokens, torch.full_like(tokens, -100))
    nsp_labels = torch.randint(0, 2, (batch,), generator=g)
    return [t.to(device) for t in (tokens, token_types, mlm_labels, nsp_labels)]


class TrainingStep:
    def __init__(self, model, batch, seq, mode, adamw, dropout, seed, device):
        if model not in CONFIGS:
            raise ValueError("model %r is not one of %s" % (model, ", ".join(CONFIGS)))
        if mode not in MODES:
            raise ValueError("mode %r is not one of %s" % (mode, ", ".join(MODES)))
        if adamw not in ADAMW:
            raise ValueError("adamw %r is not one of %s" % (adamw, ", ".join(ADAMW)))
        config = CONFIGS[model]
        if not 1 <= seq <= config["max_positions"]:
            raise ValueError("seq %d is outside 1..%d" % (seq, config["max_positions"]))
        torch.manual_seed(seed)  # the random weights, and dropout's masks, from the seed
        with torch.device(device):
            self.model = BertForPreTraining(dropout=dropout, **config)
        self.model.train()
        self.tokens, self.token_types, self.mlm_labels, self.nsp_labels = synthetic_batch(
            config["vocab"], batch, seq, seed, device)
        # A graph replays the optimizer's update too: its step count must live on the device.
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-4, weight_decay=0.01,
                                           fused=adamw == "fused", foreach=adamw == "foreach" or None,
                                           capturable=mode == "graph")
        self.mode = mode
        self.graph = None
        self.last_loss = None
        self.loss_fn = torch.compile(self.loss) if mode == "compile" else self.loss
        if mode == "graph":
            self.capture()
        else:
            for _ in range(WARMUP_STEPS):
                self.eager_step()
        torch.cuda.synchronize(device)

    def loss(self):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            mlm, nsp = self.model(self.tokens, self.token_types)
        return (F.cross_entropy(mlm.float().view(-1, mlm.shape[-1]), self.mlm_labels.view(-1), ignore_index=-100)
                + F.cross_entropy(nsp.float(), self.nsp_labels))

    def eager_step(self):
        self.optimizer.zero_grad(set_to_none=True)
        loss = self.loss_fn()
        loss.backward()
        self.optimizer.step()
        self.last_loss = loss.detach()

    def capture(self):
        # PyTorch's whole-network capture: warm up on a side stream (autograd, cuBLAS workspaces
        # and AdamW's state come into being outside the capture), then capture one step whose
        # backward allocates the grads from the graph's pool; each replay recomputes them in place.
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(WARMUP_STEPS):
                self.eager_step()
        torch.cuda.current_stream().wait_stream(side)
        self.graph = torch.cuda.CUDAGraph()
        self.optimizer.zero_grad(set_to_none=True)
        with torch.cuda.graph(self.graph):
            loss = self.loss()
            loss.backward()
            self.optimizer.step()
        self.last_loss = loss.detach()

    def launch(self):
        if self.graph is not None:
            self.graph.replay()
        else:
            self.eager_step()

    def check(self):
        loss = self.last_loss.item()
        return None if math.isfinite(loss) else "the loss of the last step is %r" % loss

    def teardown(self):
        self.graph = self.optimizer = self.model = self.loss_fn = None
        torch.cuda.empty_cache()


def bert_training_step(model, batch, seq, mode, adamw, seed, device, stream, dropout=0.1):
    """One BERT pre-training step (forward, backward, AdamW) per launch: model bert-large or
    bert-tiny, batch x seq tokens, mode eager | graph | compile, adamw fused | foreach."""
    if not device.startswith("cuda"):
        raise ValueError("the BERT training step runs on CUDA, not on %s" % device)
    return TrainingStep(model, batch, seq, mode, adamw, dropout, seed, device)
