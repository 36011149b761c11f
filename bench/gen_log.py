#!/usr/bin/env python3
"""Generate a large, deterministic, realistic training log with device-side assert reports
planted in it, for benchmarking `cudasleuth explain` against ripgrep.

The noise is made of real lines taken from the repository's fixtures (tqdm bars with `\\r`,
logging lines, training prints, warnings, NCCL INFO lines, torchrun lines) with their numbers
varied, plus a few synthetic lines in the same shapes. The assert reports are real report
shapes from the fixtures (CUDA, Windows, THC `__PRETTY_FUNCTION__`, Inductor/Triton), with
varying block/thread numbers, some behind `[rank3]:` / `[default1]:` prefixes, GitHub Actions
timestamps or ANSI colours, a few glued to the end of a `\\r` progress bar. A few tracebacks
with the CUDA error text are copied in too.

Everything is driven by one seeded PRNG: the same arguments (and the same fixtures) give the
same bytes. A sidecar `<out>.meta.json` records what was planted (the number of assert
reports, per site), which `run.sh` checks the JSON report against.

    python3 bench/gen_log.py                       # bench/data/log-1G.log, 1,000,000 asserts
    python3 bench/gen_log.py --size 256M --asserts 250000
    python3 bench/gen_log.py --size 4G --out - | cudasleuth explain --format json -
    python3 bench/gen_log.py --size 1G --asserts 0                 # noise only
    python3 bench/gen_log.py --size 0 --asserts 1000000 --out x.log  # assert bursts only
"""

import argparse
import glob
import hashlib
import json
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
FIXTURE_GLOBS = [
    "fixtures/torch-2.11-h200/*.log",
    "fixtures/torch-2.11-h200-more/*.log",
    "fixtures/public-logs/*.log",
]

# Substrings the prefilter in src/log/scan.rs looks for, for statistics only (the meta file
# reports how many noise lines reach the slow path). Read from scan.rs when it is there; this
# copy (of an early version) is the fallback.
FALLBACK_NEEDLES = [
    "ssert", "rror", "block: [", "global id: [", "File ", "Cell In[", "ipython-input", "---->",
    "│", "╭", "raceback", "xception", "NCCL", "atchdog", "CUBLAS_", "CUDNN_",
    "terminate called", "out of bounds", "out of range", "out of memory",
    "CUDA_LAUNCH_BLOCKING", "AMD_SERIALIZE", "rocdevice", "HSA_STATUS", "fault",
    "Token indices", "Some weights of", "pecial tokens", "vocabulary", "Label class",
    "num_classes", " = ", "ChildFailed", "exitcode", "[CUDA_KERNEL_ASSERT]",
]



def scan_needles():
    try:
        src = open(os.path.join(REPO, "src", "log", "scan.rs"), encoding="utf-8").read()
        body = re.search(r"pub const NEEDLES: &\[&str\] = &\[(.*?)\n\];", src, re.S).group(1)
        body = re.sub(r"//[^\n]*", "", body)
        found = [json.loads('"' + m + '"') for m in re.findall(r'"((?:[^"\\]|\\.)*)"', body)]
        return found or FALLBACK_NEEDLES
    except Exception:
        return FALLBACK_NEEDLES


# Noise lines harvested from fixtures must never be (part of) an assert report, a traceback,
# or an error: the planted counts must be the only reports in the file.
DANGEROUS = re.compile(
    r"ssert|rror|xception|raceback|File \"|block: \[|global id|local id|CUDA|cuda[A-Z]|"
    r"failed|frame #|\^\^\^|~~~|SIG[A-Z]|exitcode|Root Cause|killed|abort|terminate|fault|"
    r"\(most recent|Device-side|out of (bounds|range|memory)|```",
    re.IGNORECASE,
)

# --- assert sites ---------------------------------------------------------------------------
# (report text before "block:", assertion text, thread geometry, weight). All copied from
# fixture lines (the comment names one fixture showing it). `{b}`/`{t}` become the block and
# thread triples.
SITES = [
    # torch-2.11-h200/ce_1d_over.async.log
    ("/pytorch/aten/src/ATen/native/cuda/Loss.cu:245: nll_loss_forward_reduce_cuda_kernel_2d: ",
     "t >= 0 && t < n_classes", "1d", 30),
    # torch-2.11-h200/gather_over.async.log (IndexKernelUtils.cu:16)
    ("/pytorch/aten/src/ATen/native/cuda/IndexKernelUtils.cu:16: vectorized_gather_kernel: ",
     'ind >=0 && ind < ind_dim_size && "vectorized gather kernel index out of bounds"', "1d", 16),
    # torch-2.11-h200/embedding_bag_over.async.log
    ("/pytorch/aten/src/ATen/native/cuda/EmbeddingBag.cu:149: EmbeddingBag_updateOutputKernel_sum_mean: ",
     '!has_invalid_index && "Invalid input index in EmbeddingBag: index out of range [0, numRows)"', "1d", 10),
    # torch-2.11-h200/index_select_over.async.log
    ("/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1515: indexSelectSmallIndex: ",
     "srcIndex < srcSelectDimSize", "1d", 8),
    # torch-2.11-h200/scatter_*.async.log
    ("/pytorch/aten/src/ATen/native/cuda/ScatterGatherKernel.cu:163: operator(): ",
     'idx_dim >= 0 && idx_dim < index_size && "scatter gather kernel index out of bounds"', "1d", 6),
    # torch-2.11-h200/advanced_index_over.async.log
    ("/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:111: operator(): ",
     '-sizes[i] <= index && index < sizes[i] && "index out of bounds"', "1d", 6),
    # torch-2.11-h200/bce_*.async.log
    ("/pytorch/aten/src/ATen/native/cuda/Loss.cu:90: operator(): ",
     "input_val >= zero && input_val <= one", "1d", 5),
    # torch-2.11-h200/nll_loss2d*.async.log (2-D grids)
    ("/pytorch/aten/src/ATen/native/cuda/NLLLoss2d.cu:106: nll_loss2d_forward_kernel: ",
     "t >= 0 && t < n_classes", "2d", 4),
    # torch-2.11-h200/inductor_*.async.log
    ("/tmp/torchinductor_root/cp/ccph6rkg6gsf3u7aqlxwds7thvjyjqssta4khzlepul35dent2m5.py:41: unknown: ",
     "index out of bounds: 0 <= tmp4 < 1000", "1d", 4),
    # public-logs (Windows builds print no function name)
    ("C:\\w\\b\\windows\\pytorch\\aten\\src\\ATen\\native\\cuda\\Loss.cu:247: ",
     "t >= 0 && t < n_classes", "1d", 4),
    # public-logs (older source builds)
    ("../aten/src/ATen/native/cuda/Indexing.cu:1292: indexSelectLargeIndex: ",
     "srcIndex < srcSelectDimSize", "1d", 4),
    # public-logs (conda builds, THCUNN __PRETTY_FUNCTION__)
    ("/opt/conda/conda-bld/pytorch_1573049310284/work/aten/src/THCUNN/SpatialClassNLLCriterion.cu:104: "
     "void cunn_SpatialClassNLLCriterion_updateOutput_kernel(T *, T *, T *, long *, T *, int, int, int, int, int, long) "
     "[with T = float, AccumT = float]: ",
     "t >= 0 && t < n_classes", "1d", 3),
]

# How a burst of reports is printed: (name, weight).
ASSERT_STYLES = [
    ("plain", 55), ("rank", 15), ("default", 5), ("default_rank", 3),
    ("gha", 12), ("ansi", 6), ("gha_ansi", 4),
]

TQDM_FRACS = " ▏▎▍▌▋▊▉█"


def parse_size(s):
    s = s.strip().upper()
    mult = 1
    for suf, m in (("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30), ("T", 1 << 40)):
        if s.endswith(suf + "IB"):
            s, mult = s[:-3], m
            break
        if s.endswith(suf + "B") or s.endswith(suf):
            s, mult = s.rstrip("B")[:-1], m
            break
    return int(float(s) * mult)


def size_label(n):
    for suf, m in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= m and n % m == 0:
            return f"{n // m}{suf}"
    return str(n)


# --- noise ----------------------------------------------------------------------------------

def read_fixture_lines():
    """Every line of every fixture log, split at `\\r` too, in a fixed order."""
    paths = []
    for g in FIXTURE_GLOBS:
        paths.extend(sorted(glob.glob(os.path.join(REPO, g))))
    lines = []
    for p in paths:
        with open(p, "rb") as f:
            data = f.read().decode("utf-8", "replace")
        for phys in data.split("\n"):
            for seg in phys.split("\r"):
                seg = seg.rstrip()
                if seg:
                    lines.append(seg)
    return paths, lines


CATEGORIES = {
    "tqdm": re.compile(r"\d+%\|.*\|.*(it/s|s/it|\?it/s)"),
    "logging": re.compile(r"^\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d[^\]]*\]?.*\b(INFO|WARNING|DEBUG)\b"),
    "train": re.compile(r"(?i)\b(epoch|step|loss|lr)\b.*\d"),
    "warning": re.compile(r"(UserWarning|FutureWarning|DeprecationWarning|Warning:)"),
    "nccl": re.compile(r"NCCL INFO"),
    "torchrun": re.compile(r"^(\[default\d\]:)?[WI]\d{4} \d\d:\d\d:\d\d\.\d+ "),
    "banner": re.compile(r"^(\*{20,}|Setting OMP_NUM_THREADS)"),
}


def harvest(lines):
    """Real noise lines from the fixtures, by category, with dangerous ones left out."""
    seen = set()
    out = {k: [] for k in CATEGORIES}
    for ln in lines:
        if len(ln) > 400 or ln in seen:
            continue
        for cat, rx in CATEGORIES.items():
            if not rx.search(ln):
                continue
            # NCCL INFO lines are kept even though "NCCL" is a prefilter needle: real logs
            # have them. Everything else must be free of error/assert vocabulary.
            if cat == "train" and (ln[:1].isspace() or "(" in ln or ln.startswith("[rank")):
                break  # source code quoted by a traceback, not a training print
            if DANGEROUS.search(ln) and not (cat == "nccl" and "NCCL INFO" in ln and not re.search(r"ssert|rror", ln)):
                break
            seen.add(ln)
            out[cat].append(ln)
            break
    return out


NUM = re.compile(r"\d+")


def vary_numbers(rng, line):
    """Replace each run of digits with a random one of the same width (years stay plausible)."""
    def rep(m):
        s = m.group(0)
        if len(s) == 4 and s.startswith("20"):
            return "20" + str(rng.randrange(18, 27))
        if len(s) == 1:
            return str(rng.randrange(10))
        return str(rng.randrange(10 ** (len(s) - 1), 10 ** len(s)))
    return NUM.sub(rep, line)


def tqdm_bar(rng, desc, n, total, width=10):
    frac = n / total
    full = int(frac * width)
    rem = int((frac * width - full) * 8)
    bar = "█" * full + (TQDM_FRACS[rem] if full < width and rem else "")
    bar = bar.ljust(width)
    el = n // 3
    left = (total - n) // 3
    return (f"{desc}: {int(frac * 100):3d}%|{bar}| {n}/{total} "
            f"[{el // 60:02d}:{el % 60:02d}<{left // 60:02d}:{left % 60:02d}, "
            f"{rng.uniform(1, 99):5.2f}it/s, loss={rng.uniform(0.05, 4):.4f}]")


def synth_line(rng, cat):
    """Synthetic lines in the shapes the fixtures show (more variety than the few real ones)."""
    r = rng.random
    if cat == "tqdm":
        total = rng.choice([50, 100, 313, 500, 1000, 1398, 5000])
        desc = rng.choice(["train", "eval", "Epoch 3", "Training", "validation"])
        if r() < 0.6:
            # one physical line with many `\r` updates, as tqdm writes to a file
            n0 = rng.randrange(total)
            k = rng.randrange(2, 40)
            return "".join("\r" + tqdm_bar(rng, desc, min(total, n0 + i), total) for i in range(k))
        n = rng.randrange(total)
        return f"{int(100 * n / total):3d}%|{'█' * (10 * n // total):<10}| {n}/{total} [{n // 60}:{n % 60:02d}:{rng.randrange(60):02d}<{rng.randrange(30)}:{rng.randrange(60):02d}:{rng.randrange(60):02d}, {rng.uniform(1, 99):.2f}s/it]"
    if cat == "logging":
        ts = f"2026-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d} {rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d},{rng.randrange(1000):03d}"
        msg = rng.choice([
            f"step {rng.randrange(200000)} loss {rng.uniform(0.01, 5):.4f}",
            f"saved checkpoint to /ckpt/run{rng.randrange(100)}/step_{rng.randrange(200000)}.pt",
            f"eval accuracy {rng.random():.4f} f1 {rng.random():.4f}",
            f"throughput {rng.uniform(100, 9000):.1f} samples/s, {rng.uniform(10, 90):.1f} TFLOPs",
            f"grad_norm {rng.uniform(0, 20):.3f} scale {2 ** rng.randrange(8, 17)}",
        ])
        if r() < 0.5:
            return f"{ts} INFO [trainer] {msg}"
        return f"[{ts}][genhpf.train][INFO] - {msg}"
    if cat == "train":
        e, s = rng.randrange(100), rng.randrange(100000)
        return rng.choice([
            f"epoch {e} step {s} loss {rng.uniform(0.01, 5):.4f} lr {rng.choice(['1e-4', '3e-4', '5e-5', '2e-5'])}",
            f"rank {rng.randrange(8)} step {s} loss {rng.uniform(0.01, 5):.4f}",
            f"{{| Epoch: {e}/100 ({s % 500}/500) | Loss: {rng.uniform(0.01, 5):.4f} | {rng.uniform(1, 9):.1f} steps/s | Step: {s // 1000}k | }}",
            f"      {e}/100      {rng.uniform(1, 79):.3g}G      {rng.uniform(0, 3):.4g}      {rng.uniform(0, 3):.4g}      {rng.uniform(0, 3):.4g}        {rng.randrange(1000)}        640",
            f"good batch loss {rng.uniform(0.01, 5):.4f}",
        ])
    if cat == "nccl":
        host = f"{rng.getrandbits(48):012x}"
        pre = f"{host}:{rng.randrange(1000, 99999)}:{rng.randrange(1000, 99999)} [{rng.randrange(8)}] NCCL INFO "
        return pre + rng.choice([
            f"Channel {rng.randrange(32):02d}/32 :    0   1   2   3   4   5   6   7",
            "Using network IB",
            f"comm 0x{rng.getrandbits(40):x} rank {rng.randrange(8)} nranks 8 cudaDev {rng.randrange(8)} busId {rng.randrange(16, 255):x}000 - Init COMPLETE",
            f"Connected all rings",
            f"include/alloc.h:{rng.randrange(100, 300)} -> 1",
        ])
    if cat == "warning":
        return rng.choice([
            f"/opt/torch/.venv/lib/python3.12/site-packages/torch/_inductor/compile_fx.py:{rng.randrange(100, 400)}: UserWarning: TensorFloat32 tensor cores for float32 matrix multiplication available but not enabled. Consider setting `torch.set_float32_matmul_precision('high')` for better performance.",
            "  warnings.warn(",
            f"/usr/lib/python3/dist-packages/transformers/trainer.py:{rng.randrange(100, 4000)}: FutureWarning: `tokenizer` is deprecated and will be removed in version 5.0.0.",
        ])
    if cat == "torchrun":
        head = (f"{rng.choice('WI')}{rng.randrange(1, 13):02d}{rng.randrange(1, 29):02d} {rng.randrange(24):02d}:"
                f"{rng.randrange(60):02d}:{rng.randrange(60):02d}.{rng.randrange(10**6):06d} {rng.randrange(10**6)} ")
        return head + rng.choice([
            "torch/distributed/run.py:792] ",
            "torch/distributed/run.py:792] *****************************************",
            "torch/distributed/run.py:792] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
            f"torch/_dynamo/convert_frame.py:{rng.randrange(800, 999)}] torch._dynamo hit config.recompile_limit (8)",
            f"torch/_inductor/utils.py:{rng.randrange(1000, 1300)}] [0/0] Not enough SMs to use max_autotune_gemm mode",
        ])
    if cat == "config":
        k = rng.choice(["batch_size", "lr", "warmup_steps", "max_seq_len", "grad_accum", "weight_decay"])
        return f"  {k} = {rng.choice([32, 0.0001, 4000, 2048, 8, 0.01])}"
    if cat == "blank":
        return ""
    if cat == "banner":
        return "*****************************************"
    if cat == "slowpath":
        # harmless lines real training logs repeat that do contain prefilter needles
        return rng.choice([
            "wandb: Network error (ReadTimeout), entering retry loop.",
            f"Token indices sequence length is longer than the specified maximum sequence length for this model ({rng.randrange(513, 4000)} > 512). Running this sequence through the model will result in indexing errors",
            "Some weights of BertForSequenceClassification were not initialized from the model checkpoint at bert-base-uncased and are newly initialized: ['classifier.bias', 'classifier.weight']",
            "Special tokens have been added in the vocabulary, make sure the associated word embeddings are fine-tuned or trained.",
        ])
    raise ValueError(cat)


# (category, weight, share of lines taken from the harvested fixture lines when there are any)
NOISE_MIX = [
    ("tqdm", 18, 0.3),
    ("logging", 25, 0.3),
    ("train", 30, 0.3),
    ("warning", 3, 0.7),
    ("nccl", 1.5, 0.3),
    ("torchrun", 1, 0.5),
    ("banner", 0.5, 1.0),
    ("config", 0.5, 0.0),
    ("slowpath", 0.3, 0.0),
    ("blank", 3, 0.0),
]

NOISE_PREFIXES = [("plain", 88), ("default", 5), ("gha", 5), ("ansi", 2)]


def gha_ts(rng):
    return (f"2024-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}T{rng.randrange(24):02d}:"
            f"{rng.randrange(60):02d}:{rng.randrange(60):02d}.{rng.randrange(10**7):07d}Z ")


def build_noise_pool(rng, harvested, pool_size):
    """Pre-varied noise lines (bytes, each ending in `\\n`) and their categories."""
    cats = [c for c, _, _ in NOISE_MIX]
    weights = [w for _, w, _ in NOISE_MIX]
    share = {c: s for c, _, s in NOISE_MIX}
    prefixes = [p for p, _ in NOISE_PREFIXES]
    pweights = [w for _, w in NOISE_PREFIXES]
    pool, pool_cat = [], []
    for cat in rng.choices(cats, weights, k=pool_size):
        real = harvested.get(cat) or []
        if real and rng.random() < share[cat]:
            line = vary_numbers(rng, rng.choice(real))
            if cat == "tqdm" and rng.random() < 0.7:
                # tqdm writing to a file: the updates of one bar share a physical line
                line = "".join("\r" + vary_numbers(rng, line) for _ in range(rng.randrange(2, 30)))
        else:
            line = synth_line(rng, cat)
        style = rng.choices(prefixes, pweights)[0]
        if style == "default" and line:
            line = f"[default{rng.randrange(8)}]:" + line
        elif style == "gha":
            line = gha_ts(rng) + line
        elif style == "ansi" and cat == "logging":
            line = line.replace("INFO", "\x1b[32mINFO\x1b[0m", 1)
        pool.append((line + "\n").encode("utf-8"))
        pool_cat.append(cat)
    return pool, pool_cat


# --- tracebacks ---------------------------------------------------------------------------

REPORT_LINE = re.compile(r"Assertion `|\] Assertion |Assertion failed: `|Device-side assertion `|\[CUDA_KERNEL_ASSERT\]|block: \[|global id: \[")


def fixture_tracebacks():
    """The host side of a few real crashes: everything but the device report lines."""
    out = []
    for name in ["torch-2.11-h200/ce_1d_over.async.log",
                 "torch-2.11-h200-more/logging_train.async.log",
                 "torch-2.11-h200-more/ddp_nccl_2gpu.async.log"]:
        with open(os.path.join(REPO, "fixtures", name), "rb") as f:
            text = f.read().decode("utf-8", "replace")
        keep = []
        for ln in text.split("\n"):
            if REPORT_LINE.search(ln):
                continue
            if re.match(r"^(rank \d step|\d{4}-\d\d-\d\d .* INFO)", ln):
                continue  # training prints before the crash; we have plenty of those
            keep.append(ln)
        out.append(("\n".join(keep).strip("\n") + "\n").encode("utf-8"))
    return out


# --- asserts --------------------------------------------------------------------------------

def plan_bursts(rng, n_asserts):
    """Burst sizes summing to n_asserts: real crashes print one report per failing thread,
    tens to thousands at a time."""
    sizes = []
    left = n_asserts
    while left > 0:
        b = rng.choice([1, 1, 2, 4, 8, 32, 32, 64, 128, 128, 256, 512, 1024, 2048])
        b = min(b, left)
        sizes.append(b)
        left -= b
    return sizes


def emit_burst(rng, size, site_idx, style, lead):
    """Returns (bytes, reports). `lead` is a `\\r` progress bar the first report is glued to."""
    head, expr, geo, _ = SITES[site_idx]
    tail = f" Assertion `{expr}` failed."
    bx = rng.randrange(4096)
    by = rng.randrange(64) if geo == "2d" else 0
    tpb = rng.choice([128, 256, 512, 1024])
    t = rng.randrange(tpb)
    rank = rng.randrange(8)
    ts = gha_ts(rng)[:-9]  # "2024-05-01T12:34:56." ; the 7 fraction digits tick per line
    frac = rng.randrange(10**7)
    out = []
    for i in range(size):
        if style.startswith("gha"):
            frac = (frac + rng.randrange(1, 400)) % 10**7
            stamp = f"{ts}{frac:07d}Z"
        body = f"{head}block: [{bx},{by},0], thread: [{t},0,0]{tail}"
        if style == "plain":
            line = body
        elif style == "rank":
            line = f"[rank{rank}]:{body}"
        elif style == "default":
            line = f"[default{rank}]:{body}"
        elif style == "default_rank":
            line = f"[default{rank}]:[rank{rank}]:{body}"
        elif style == "gha":
            line = f"{stamp} {body}"
        elif style == "ansi":
            line = f"\x1b[31m{body}\x1b[0m"
        elif style == "gha_ansi":
            line = f"{stamp} \x1b[1;31m{body}\x1b[0m"
        else:
            raise ValueError(style)
        if i == 0 and lead is not None:
            line = lead + line
        out.append(line)
        t += 1
        if t >= tpb:
            t = 0
            bx += 1
    return ("\n".join(out) + "\n").encode("utf-8"), size


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="1G", help="target size (bytes, or K/M/G suffix); 0: asserts only. Default 1G")
    ap.add_argument("--asserts", type=int, default=1_000_000, help="assert reports to plant (default 1,000,000)")
    ap.add_argument("--sites", type=int, default=len(SITES), help=f"distinct assert sites to use (1..{len(SITES)})")
    ap.add_argument("--tracebacks", type=int, default=3, help="host-side crash blocks (traceback + CUDA error) to plant")
    ap.add_argument("--seed", type=int, default=20260417)
    ap.add_argument("--pool", type=int, default=1 << 16, help="distinct pre-varied noise lines (default 65536)")
    ap.add_argument("--out", default=None, help="output path, or - for stdout (default bench/data/log-SIZE.log)")
    ap.add_argument("--meta", default=None, help="where to write the meta JSON (default OUT.meta.json; with --out -, none unless given)")
    args = ap.parse_args()

    size = parse_size(args.size)
    n_sites = max(1, min(args.sites, len(SITES)))
    if args.out is None:
        os.makedirs(os.path.join(HERE, "data"), exist_ok=True)
        args.out = os.path.join(HERE, "data", f"log-{size_label(size)}.log")
    meta_path = args.meta or (None if args.out == "-" else args.out + ".meta.json")

    rng = random.Random(args.seed)
    paths, fixture_lines = read_fixture_lines()
    harvested = harvest(fixture_lines)
    pool, pool_cat = build_noise_pool(rng, harvested, args.pool)
    tracebacks = fixture_tracebacks()

    bursts = plan_bursts(rng, args.asserts)
    site_w = [SITES[i][3] for i in range(n_sites)]
    burst_sites = rng.choices(range(n_sites), site_w, k=len(bursts))
    styles = [s for s, _ in ASSERT_STYLES]
    burst_styles = rng.choices(styles, [w for _, w in ASSERT_STYLES], k=len(bursts))
    # The size asked for includes the reports: estimate their bytes with a separate PRNG (the
    # main sequence must not depend on it) and give the noise the rest.
    est_rng = random.Random(args.seed + 1)
    sample = min(args.asserts, 4096)
    est = 0
    for _ in range(sample):
        site = est_rng.choices(range(n_sites), site_w)[0]
        style = est_rng.choices(styles, [w for _, w in ASSERT_STYLES])[0]
        est += len(emit_burst(est_rng, 1, site, style, None)[0])
    assert_bytes = est * args.asserts // max(sample, 1)
    noise_size = max(0, size - assert_bytes)
    # where each burst goes: sorted uniform offsets over the noise (in noise bytes written)
    span = max(noise_size, 1)
    burst_at = sorted(rng.randrange(span) for _ in bursts)
    tb_at = sorted(rng.randrange(span // 4, span) for _ in range(max(0, args.tracebacks - 1)))

    out = sys.stdout.buffer if args.out == "-" else open(args.out, "wb")
    written = 0
    noise_written = 0
    lines = 0
    planted = 0
    per_site = [0] * n_sites
    per_style = {s: 0 for s in styles}
    noise_cat_lines = {c: 0 for c, _, _ in NOISE_MIX}
    noise_needle_lines = 0
    glued = 0
    buf = []
    buf_bytes = 0
    hasher = hashlib.sha256()
    needles = scan_needles()
    needle_rx = re.compile(b"|".join(re.escape(n.encode()) for n in needles))
    needle_hit = [needle_rx.search(ln) is not None for ln in pool]
    tb_i = 0

    def flush():
        nonlocal buf, buf_bytes
        data = b"".join(buf)
        hasher.update(data)
        out.write(data)
        buf = []
        buf_bytes = 0

    bi = 0
    pool_n = len(pool)
    rand = rng.random
    while True:
        next_burst = burst_at[bi] if bi < len(bursts) else None
        next_tb = tb_at[tb_i] if tb_i < len(tb_at) else None
        target = min(x for x in (next_burst, next_tb, noise_size) if x is not None)
        # noise up to the next event, in batches
        while noise_written < target:
            for k in rng.choices(range(pool_n), k=256):
                ln = pool[k]
                buf.append(ln)
                buf_bytes += len(ln)
                noise_written += len(ln)
                noise_cat_lines[pool_cat[k]] += 1
                noise_needle_lines += needle_hit[k]
                lines += ln.count(b"\n")
                if noise_written >= target:
                    break
            if buf_bytes >= 1 << 22:
                written += buf_bytes
                flush()
        if next_tb is not None and next_tb <= noise_written and (next_burst is None or next_tb <= next_burst):
            tb = tracebacks[tb_i % len(tracebacks)]
            buf.append(tb)
            buf_bytes += len(tb)
            lines += tb.count(b"\n")
            tb_i += 1
            continue
        if next_burst is not None and next_burst <= noise_written:
            lead = None
            if rand() < 0.02 and harvested["tqdm"]:
                # the report lands at the end of an unterminated `\r` progress bar
                lead = "".join("\r" + synth_line(rng, "tqdm").lstrip("\r") for _ in range(3))
                glued += 1
            data, n = emit_burst(rng, bursts[bi], burst_sites[bi], burst_styles[bi], lead)
            buf.append(data)
            buf_bytes += len(data)
            lines += data.count(b"\n")
            planted += n
            per_site[burst_sites[bi]] += n
            per_style[burst_styles[bi]] += n
            bi += 1
            if buf_bytes >= 1 << 22:
                written += buf_bytes
                flush()
            continue
        break
    # the crash at the end: a traceback with the CUDA error text
    if args.tracebacks > 0:
        tb = tracebacks[tb_i % len(tracebacks)]
        buf.append(tb)
        buf_bytes += len(tb)
        lines += tb.count(b"\n")
        tb_i += 1
    written += buf_bytes
    flush()
    if out is not sys.stdout.buffer:
        out.close()
    else:
        out.flush()

    meta = {
        "generator": "bench/gen_log.py",
        "args": {"size": size, "asserts": args.asserts, "sites": n_sites, "tracebacks": args.tracebacks,
                 "seed": args.seed, "pool": args.pool},
        "path": args.out,
        "bytes": written,
        "lines": lines,
        "sha256": hasher.hexdigest(),
        "planted_asserts": planted,
        "planted_per_site": {SITES[i][0].split(": ")[0]: per_site[i] for i in range(n_sites)},
        "planted_per_style": per_style,
        "asserts_glued_to_progress_bars": glued,
        "bursts": len(bursts),
        "tracebacks": tb_i,
        "noise_lines_by_category": noise_cat_lines,
        "noise_lines_hitting_prefilter": noise_needle_lines,
        "prefilter_needles": len(needles),
        "harvested_real_lines": {k: len(v) for k, v in harvested.items()},
        "fixture_files": len(paths),
    }
    if meta_path:
        with open(meta_path, "w") as f:
            json.dump(meta, f, indent=1)
            f.write("\n")
    print(json.dumps({k: meta[k] for k in ("path", "bytes", "lines", "planted_asserts", "tracebacks", "sha256")}),
          file=sys.stderr)


if __name__ == "__main__":
    main()
