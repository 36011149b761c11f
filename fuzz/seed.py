#!/usr/bin/env python3
"""Lays the seed corpora (fuzz/corpus is gitignored) from the fixture logs.

corpus/explain: every fixtures/**/*.log, plus three gzipped and three UTF-16LE (with BOM)
copies of small ones so that the decoders are in the seed set.
corpus/assert_line: up to 3000 slices (1, 3 or 8 lines, at most 4 KB) starting at lines that
hold an assert, traceback, rank-prefix, ANSI or rich-box token.
Run from anywhere: python3 fuzz/seed.py
"""
import glob, gzip, hashlib, os, random

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FIX = os.path.join(ROOT, 'fixtures')
OUT1 = os.path.join(HERE, 'corpus', 'explain')
OUT2 = os.path.join(HERE, 'corpus', 'assert_line')
os.makedirs(OUT1, exist_ok=True)
os.makedirs(OUT2, exist_ok=True)

logs = sorted(glob.glob(os.path.join(FIX, '**', '*.log'), recursive=True))
for p in logs:
    name = os.path.relpath(p, FIX).replace(os.sep, '__')
    with open(p, 'rb') as f, open(os.path.join(OUT1, name), 'wb') as g:
        g.write(f.read())
small = [p for p in logs if 500 < os.path.getsize(p) < 4000][:6]
for p in small[:3]:
    with open(p, 'rb') as f, open(os.path.join(OUT1, os.path.basename(p) + '.gz'), 'wb') as g:
        g.write(gzip.compress(f.read()))
for p in small[3:6]:
    with open(p, 'rb') as f, open(os.path.join(OUT1, os.path.basename(p) + '.utf16le'), 'wb') as g:
        g.write(b'\xff\xfe' + f.read().decode('utf-8', 'replace').encode('utf-16-le'))

keys = [b'Assertion', b'Traceback', b'File "', b'Cell In[', b'block: [', b'[rank', b'\x1b[',
        b'\xe2\x94\x82', b'global id', b'assertion failure', b'Error']
slices = {}
for p in logs:
    with open(p, 'rb') as f:
        lines = f.read().split(b'\n')
    for i, line in enumerate(lines):
        if any(k in line for k in keys):
            for w in (1, 3, 8):
                s = b'\n'.join(lines[i:i + w])[:4096]
                slices.setdefault(hashlib.sha1(s).hexdigest()[:16], s)
names = sorted(slices)
random.Random(1).shuffle(names)
for h in names[:3000]:
    with open(os.path.join(OUT2, h), 'wb') as g:
        g.write(slices[h])
print(f'{len(logs) + len(small)} explain seeds, {min(3000, len(names))} assert_line seeds')

# corpus/scan: the fixture projects' Python files, one per seed, and each project's files
# joined at NUL bytes (the target reads up to three files so split)
OUT3 = os.path.join(HERE, 'corpus', 'scan')
os.makedirs(OUT3, exist_ok=True)
n = 0
for proj in sorted(glob.glob(os.path.join(FIX, 'projects', '*'))):
    pys = sorted(glob.glob(os.path.join(proj, '**', '*.py'), recursive=True))
    texts = [open(p, 'rb').read() for p in pys]
    for t in texts + [b'\0'.join(texts[:3])]:
        if len(t) <= 64 << 10:
            with open(os.path.join(OUT3, hashlib.sha1(t).hexdigest()[:16]), 'wb') as g:
                g.write(t)
            n += 1
print(f'{n} scan seeds')
