"""A tiny GPT (decoder-only transformer) over UTF-8 bytes: small enough for 2 CPU processes, real enough
that checkpoints hold embeddings, attention, MLP, layer norms, dropout RNG and Adam states."""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

from labs.core.config import ModelConfig


@dataclass
class GPTConfig:
    vocab_size: int = 256
    """Byte-level vocabulary: any UTF-8 text (Chinese included) without a tokenizer."""
    block_size: int = 64
    """Context length in bytes."""
    n_layer: int = 2
    n_head: int = 2
    n_embd: int = 64
    dropout: float = 0.1
    """Dropout makes the torch RNG part of the training state: resume must restore it."""


class Block(nn.Module):
    def __init__(self, cfg: GPTConfig) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(cfg.n_embd)
        self.attn = nn.MultiheadAttention(cfg.n_embd, cfg.n_head, dropout=cfg.dropout, batch_first=True)
        self.ln2 = nn.LayerNorm(cfg.n_embd)
        self.mlp = nn.Sequential(nn.Linear(cfg.n_embd, 4 * cfg.n_embd), nn.GELU(),
                                 nn.Linear(4 * cfg.n_embd, cfg.n_embd), nn.Dropout(cfg.dropout))

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, cfg: GPTConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.tok = nn.Embedding(cfg.vocab_size, cfg.n_embd)
        self.pos = nn.Embedding(cfg.block_size, cfg.n_embd)
        self.drop = nn.Dropout(cfg.dropout)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layer))
        self.ln_f = nn.LayerNorm(cfg.n_embd)
        self.head = nn.Linear(cfg.n_embd, cfg.vocab_size, bias=False)

    def forward(self, idx: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Mean next-byte cross-entropy of `targets` given `idx` (both batch x time)."""
        t = idx.shape[1]
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool, device=idx.device), diagonal=1)
        x = self.drop(self.tok(idx) + self.pos(torch.arange(t, device=idx.device)))
        for block in self.blocks:
            x = block(x, mask)
        logits = self.head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.reshape(-1))


def build_gpt(cfg: ModelConfig, device: torch.device, dropout: float | None = None) -> GPT:
    """The lab's model from its options, seeded first: the same initial weights on every rank, in every mode
    and every job of a lab (what makes runs comparable bit for bit). `dropout` None keeps the model default."""
    torch.manual_seed(cfg.seed)
    extra = {} if dropout is None else {"dropout": dropout}
    return GPT(GPTConfig(block_size=cfg.block, n_embd=cfg.width, n_layer=cfg.layers, **extra)).to(device)
