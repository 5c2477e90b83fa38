"""Greedy generation with a small, randomly initialised GPT-2 (Hugging Face
transformers; nothing is downloaded) under the PyTorch profiler: a real Kineto
trace of LLM inference (a prefill, then one decode step per new token) for
our own fixtures (tests/fixtures/h200/README.md).

  python3 hf_tiny_generate.py OUT.json.gz [--layers 2] [--d-model 256] [--prompt 32] [--new-tokens 8]

One generate() runs first, unprofiled (warm-up); the profiled one is a single
ProfilerStep#0 holding a record_function range "generate". Needs a GPU.
"""
import argparse
import gzip
import os
import shutil

import torch
from transformers import GPT2Config, GPT2LMHeadModel

parser = argparse.ArgumentParser()
parser.add_argument("out")
parser.add_argument("--layers", type=int, default=2)
parser.add_argument("--d-model", type=int, default=256)
parser.add_argument("--heads", type=int, default=4)
parser.add_argument("--vocab", type=int, default=2048)
parser.add_argument("--prompt", type=int, default=32)
parser.add_argument("--new-tokens", type=int, default=8)
args = parser.parse_args()

torch.manual_seed(0)
config = GPT2Config(n_layer=args.layers, n_embd=args.d_model, n_head=args.heads, vocab_size=args.vocab,
                    n_positions=args.prompt + args.new_tokens + 8)
model = GPT2LMHeadModel(config).to("cuda").eval()
ids = torch.randint(0, args.vocab, (1, args.prompt), device="cuda")
mask = torch.ones_like(ids)


def generate():
    with torch.no_grad():
        return model.generate(ids, attention_mask=mask, max_new_tokens=args.new_tokens,
                              min_new_tokens=args.new_tokens, do_sample=False, pad_token_id=0)


generate()
torch.cuda.synchronize()
raw = args.out[:-3] if args.out.endswith(".gz") else args.out
acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
one_step = torch.profiler.schedule(wait=0, warmup=0, active=1, repeat=1)
with torch.profiler.profile(activities=acts, schedule=one_step, record_shapes=True,
                            on_trace_ready=lambda p: p.export_chrome_trace(raw)) as prof:
    with torch.profiler.record_function("generate"):
        out = generate()
        torch.cuda.synchronize()
    prof.step()
assert out.shape[1] == args.prompt + args.new_tokens, out.shape
if raw != args.out:
    with open(raw, "rb") as src, gzip.open(args.out, "wb") as dst:
        shutil.copyfileobj(src, dst)
    os.remove(raw)
print(f"wrote {args.out}: prompt {args.prompt} tokens, {args.new_tokens} generated, {args.layers} layers")
