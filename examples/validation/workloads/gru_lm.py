"""A recurrent language model with tied embeddings, as a workload function: gru_lm:build(batch)."""
# FUNCTION(batch) returns (model, inputs, targets, loss_fn). Inputs are integer token ids; the
# output layer reuses the embedding's weight, so one parameter tensor gets gradients from both
# ends of the model (DDP and the profiler count it once).
import torch
import torch.nn as nn

VOCAB, D_MODEL, LAYERS, SEQ = 2000, 128, 2, 32


class GruLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D_MODEL)
        self.rnn = nn.GRU(D_MODEL, D_MODEL, num_layers=LAYERS, batch_first=True)
        self.norm = nn.LayerNorm(D_MODEL)
        self.head = nn.Linear(D_MODEL, VOCAB)
        self.head.weight = self.embed.weight

    def forward(self, tokens):
        h, _ = self.rnn(self.embed(tokens))
        return self.head(self.norm(h)).reshape(-1, VOCAB)


def build(batch):
    torch.manual_seed(0)
    tokens = torch.randint(0, VOCAB, (batch, SEQ))
    targets = torch.randint(0, VOCAB, (batch * SEQ,))
    return GruLM(), tokens, targets, nn.CrossEntropyLoss()
