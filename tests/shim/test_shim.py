"""Tests for the shim (the package python/cudasleuth_shim) and its loader (src/repro/sitecustomize.py).

Run from the repository root:

    /usr/bin/python3 -m unittest discover -s tests/shim -v

Each test runs a small script from tests/shim/scripts in a subprocess with the
environment that ``cudasleuth repro`` sets, mapped to the CPU
(CUDASLEUTH_CPU=1), and checks the JSON the shim writes.  Every JSON file a
run leaves in its output directory is validated against the matching ``$defs``
entry of python/cudasleuth_shim/output.schema.json (with the ``jsonschema``
package; without it the validation is skipped, with a note).
"""

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# the directory repro puts first on PYTHONPATH: the shim package and the sitecustomize that loads it
SHIMDIR = tempfile.mkdtemp(prefix="cudasleuth-shim-test-")
shutil.copytree(os.path.join(ROOT, "python", "cudasleuth_shim"), os.path.join(SHIMDIR, "cudasleuth_shim"),
                ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
shutil.copy(os.path.join(ROOT, "src", "repro", "sitecustomize.py"), os.path.join(SHIMDIR, "sitecustomize.py"))
SCRIPTS = os.path.join(HERE, "scripts")
PYTHON = sys.executable or "/usr/bin/python3"

try:
    import numpy
except ImportError:  # pragma: no cover
    numpy = None

SCHEMA_PATH = os.path.join(ROOT, "python", "cudasleuth_shim", "output.schema.json")
with open(SCHEMA_PATH) as _f:
    SCHEMA = json.load(_f)
# which $defs entry describes a file the shim writes, by the file name's prefix
SCHEMA_DEFS = {"witness-": "witness", "sweep-": "sweep", "loaded-": "loaded", "unmapped-": "unmapped", "born-": "born"}

try:
    import jsonschema
except ImportError:  # pragma: no cover
    jsonschema = None
    sys.stderr.write("note: the jsonschema package is missing (apt-get install python3-jsonschema): the shim's "
                     "JSON files are not validated against %s\n" % SCHEMA_PATH)


def schema_validator(kind):
    """A validator for one $defs entry of the shim's output schema."""
    sub = {"$schema": SCHEMA["$schema"], "$defs": SCHEMA["$defs"], "$ref": "#/$defs/%s" % kind}
    return jsonschema.Draft202012Validator(sub)


def check_schema(doc, kind, what):
    """Fail unless `doc` follows $defs/`kind` of output.schema.json (skipped without jsonschema)."""
    if jsonschema is None:
        return
    errors = sorted(schema_validator(kind).iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        raise AssertionError("%s does not follow output.schema.json $defs/%s:\n%s" % (what, kind, "\n".join(
            "  at /%s: %s" % ("/".join(str(p) for p in e.absolute_path), e.message) for e in errors[:10])))


def check_outputs(d):
    """Validate every JSON file the shim wrote into the directory `d`."""
    for path in sorted(glob.glob(os.path.join(d, "*.json"))):
        name = os.path.basename(path)
        kinds = [k for prefix, k in SCHEMA_DEFS.items() if name.startswith(prefix)]
        if not kinds:
            raise AssertionError("the shim wrote %s, a JSON file output.schema.json does not describe" % path)
        with open(path) as f:
            check_schema(json.load(f), kinds[0], path)


def line_of(script, text):
    with open(os.path.join(SCRIPTS, script)) as f:
        for i, line in enumerate(f, 1):
            if line.strip() == text:
                return i
    raise AssertionError("%r not in %s" % (text, script))


class Run(object):
    def __init__(self, proc, out):
        self.rc = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.out = out

    def files(self, pattern):
        return sorted(glob.glob(os.path.join(self.out, pattern)))

    def one(self, pattern):
        found = self.files(pattern)
        if len(found) != 1:
            raise AssertionError("expected one %s in %s, found %s\nstderr:\n%s" % (
                pattern, self.out, found, self.stderr))
        with open(found[0]) as f:
            return json.load(f)

    @property
    def witness(self):
        return self.one("witness-*.json")


class ShimTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="cudasleuth-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_script(self, script, *args, env=None, pythonpath=None, cwd=None, use_out=True, project=True,
                   code=None):
        out = os.path.join(self.tmp, "out")
        os.makedirs(out, exist_ok=True)
        e = {k: v for k, v in os.environ.items() if not k.startswith("CUDASLEUTH_")}
        e.update({
            "PYTHONPATH": pythonpath if pythonpath is not None else SHIMDIR,
            "CUDASLEUTH_CPU": "1",
            "CUDA_VISIBLE_DEVICES": "",
            "CUDA_LAUNCH_BLOCKING": "1",
            "TORCHDYNAMO_DISABLE": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
        })
        if use_out:
            e["CUDASLEUTH_OUT"] = out
        if project:
            e["CUDASLEUTH_PROJECT"] = SCRIPTS
        if env:
            e.update(env)
        e = {k: v for k, v in e.items() if v is not None}
        if code is not None:
            cmd = [PYTHON, "-c", code]
        else:
            cmd = [PYTHON, os.path.join(SCRIPTS, script)] + list(args)
        proc = subprocess.run(cmd, env=e, cwd=cwd or self.tmp, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
        # every file the run wrote, in the out directory or the default one (./cudasleuth-out)
        check_outputs(out)
        check_outputs(os.path.join(cwd or self.tmp, "cudasleuth-out"))
        return Run(proc, out)

    def assertViolation(self, r):
        self.assertEqual(r.rc, 86, r.stderr)
        self.assertNotIn("trained", r.stdout)
        self.assertTrue(r.files("loaded-*.json"))

    # ------------------------------------------------------------------ born-at pass

    def born(self, script, *args):
        """The guarded run, then the born-at pass armed with what it caught (and the first run's
        output directory, as `cudasleuth repro` gives it); the born-*.json."""
        first = self.run_script(script, *args, env={"CUDASLEUTH_SEED": "5"})
        self.assertViolation(first)
        w = first.witness
        kept = os.path.join(self.tmp, "first")
        shutil.move(first.out, kept)
        spec = {"op": w["op"], "value": w["bad"][0]["value"], "sample": w["bad"][0]["sample"],
                "bound": w["bound"], "watch": [[os.path.join(SCRIPTS, script), line_of(script, 'print("trained")')]],
                "first_run": kept}
        if (w["bound"] or {}).get("name") == "range":
            # a probability: followed by its range, as `cudasleuth repro` asks
            spec["range"] = w["bound"]["value"]
        path = os.path.join(self.tmp, "spec.json")
        with open(path, "w") as f:
            json.dump(spec, f)
        again = self.run_script(script, *args, env={"CUDASLEUTH_SEED": "5", "CUDASLEUTH_BORN": path})
        self.assertViolation(again)
        b = again.one("born-*.json")
        self.assertTrue(b["same_witness"], b)
        self.born_stdout = again.stdout
        shutil.rmtree(again.out)
        shutil.rmtree(kept)
        return b

    def origin(self, chain):
        self.assertIsNotNone(chain["born"], chain)
        return os.path.basename(chain["born"]["file"]), chain["born"]["line"], chain["born"]["kind"]

    def test_born_read_in_a_loader_function(self):
        b = self.born("born_loader.py")
        self.assertEqual(self.origin(b["value_chain"]), ("born_loader.py", line_of("born_loader.py", "label = int(cls)"), "read"))
        lines = [s["line"] for s in b["value_chain"]["chain"]]
        # the loss call, the loader loop, __getitem__'s return, __init__, the loader's list
        for text in ("loss = torch.nn.functional.cross_entropy(head(x), y)", "return torch.tensor([self.x[i]]), torch.tensor(self.y[i])",
                     "self.y = [r[1] for r in rows]", "out.append((float(feat), label))"):
            self.assertIn(line_of("born_loader.py", text), lines, text)
        self.assertEqual(self.origin(b["bound_chain"]), ("born_loader.py", line_of("born_loader.py", "N_CLASSES = 4"), "made"))
        self.assertEqual(b["watch"][0]["ran"], 0, "the last line never runs: the violation stops the script")

    def test_born_made_in_init_and_in_the_step(self):
        b = self.born("born_made.py", "init")
        self.assertEqual(self.origin(b["value_chain"]),
                         ("born_made.py", line_of("born_made.py", "self.labels = [class_to_idx[c] + shift for c in NAMES]"), "made"))
        self.assertEqual(self.origin(b["bound_chain"])[:2],
                         ("born_made.py", line_of("born_made.py", "return torch.nn.Linear(3, len(class_to_idx))")))
        b = self.born("born_made.py", "step")
        self.assertEqual(self.origin(b["value_chain"]), ("born_made.py", line_of("born_made.py", "return batch_y + k"), "made"))

    def test_born_behind_a_cache_the_first_run_wrote(self):
        # the first run saved the preprocessing; the pass does not see that file, so the line
        # that computed the label runs again and is found (not the pickle.load that read it)
        b = self.born("born_cached.py")
        self.assertEqual(self.origin(b["value_chain"]),
                         ("born_cached.py", line_of("born_cached.py", 'label = KINDS.index(rec["kind"]) * 2 + i % 2'), "made"))
        # a record's size held the same number first: the entry the value was read under leads
        lines = [s["line"] for s in b["value_chain"]["chain"]]
        self.assertNotIn(line_of("born_cached.py", "return {\"kind\": KINDS[i % 3], \"size\": 3 + i % 5}"), lines)
        # what the user's program wrote is still there, as it wrote it
        self.assertTrue(os.path.exists(os.path.join(self.tmp, "records.pkl")))

    def test_files_a_run_creates_are_noted(self):
        r = self.run_script("born_cached.py", env={"CUDASLEUTH_SEED": "5"})
        self.assertViolation(r)
        noted = set()
        for path in r.files("created-*.txt"):
            with open(path) as f:
                noted.update(line.strip() for line in f)
        self.assertIn(os.path.realpath(os.path.join(self.tmp, "records.pkl")), noted)
        self.assertFalse(any(p.startswith(os.path.realpath(r.out)) for p in noted), noted)

    def test_born_in_a_loop_over_a_long_table(self):
        # the table is named on every line of the loop; scanning it again at each one made the
        # pass quadratic (6,000 records: minutes; a GPU run of a real project timed out)
        b = self.born("born_long.py")
        self.assertEqual(self.origin(b["value_chain"])[:2],
                         ("born_long.py", line_of("born_long.py", 'self.y.append(rec["kind"] + (1 if i == 4324 else 0))')))

    def test_born_sentinel_and_count(self):
        b = self.born("born_bound.py", "mask")
        self.assertEqual(self.origin(b["value_chain"])[:2], ("born_bound.py", line_of("born_bound.py", "m[m == 2] = VOID")))
        # the module's constant the line wrote in, among the numbers its inputs held
        self.assertEqual(b["value_chain"]["born"]["before"].get("VOID"), 9)
        b = self.born("born_bound.py", "count")
        # the count's own line inside the dict literal, found by the key it was read under
        self.assertEqual(self.origin(b["bound_chain"]),
                         ("born_bound.py", line_of("born_bound.py", '"num_items": int(ids.max()),'), "count"))

    def test_born_sentinel_read_from_a_file(self):
        # masks a data script saved with 255 for "no label": the line that loads them took the
        # value as it came (`split + "_mask.npy"` joins a path; `np` is a module, not a number)
        import numpy as np
        np.save(os.path.join(self.tmp, "train_mask.npy"), np.array([[0, 1, 2, 255]] * 4, dtype=np.int64))
        b = self.born("born_bound.py", "file")
        self.assertEqual(self.origin(b["value_chain"]),
                         ("born_bound.py", line_of("born_bound.py", 'return np.load(os.path.join(root, split + "_mask.npy"))'), "read"))
        # the codes 0..2 fill the loss's three classes; 255 stands apart from them
        self.assertEqual(b["value_chain"]["born"]["population"], {"min": 0, "max": 255, "distinct": 4, "inside": 3})

    def test_born_positions_counted_up_to_a_length(self):
        # `arange(T)` with T = 10 gave the position 8 for a table of 8: positions fit the text by
        # construction (a size, not a value made wrong there); the table's size is a number
        # written on its line
        b = self.born("born_positions.py")
        self.assertEqual(self.origin(b["value_chain"]),
                         ("born_positions.py", line_of("born_positions.py", "return self.tok(x) + self.pos(torch.arange(T))"), "size"))
        self.assertEqual(self.origin(b["bound_chain"]), ("born_positions.py", line_of("born_positions.py", "MAX_LEN = 8"), "made"))

    def test_born_traces_from_the_import_of_torch(self):
        # a process traces nothing before torch starts importing (a data script run before the
        # training never reaches the op); the module importing it is traced from its next line
        b = self.born("born_late_torch.py")
        self.assertIn("armed False True", self.born_stdout)
        self.assertEqual(self.origin(b["value_chain"]),
                         ("born_late_torch.py", line_of("born_late_torch.py", "return [y + 1 for y in ys]"), "made"))

    def test_born_in_a_record_written_over_several_lines(self):
        # the statement spans five lines; the origin is the one that writes the -1 itself
        b = self.born("born_record.py")
        self.assertEqual(self.origin(b["value_chain"])[:2], ("born_record.py", line_of("born_record.py", 'slot.get(ev["to"], -1),')))

    def test_born_follows_the_operand_that_tripped(self):
        # the token ids hold 16 too; the position table tripped, on positions counted from the
        # batch's width
        b = self.born("born_operand.py")
        self.assertEqual(self.origin(b["value_chain"]),
                         ("born_operand.py", line_of("born_operand.py", "pos = torch.arange(ids.size(1)).unsqueeze(0)"), "size"))

    def test_born_of_a_probability_out_of_range(self):
        # followed by its range: where values inside [0, 1] made one outside it (made, confirmable);
        # where a logit met a probability or went straight in (mixed, layer: never inside); where
        # weights that do not sum to one were summed (weighted: the weights or the sum)
        want = {
            "sum": ("p = p_a + p_b", "made"),
            "flip": ("p = torch.where(side > 0, p_a, -p_a)", "made"),
            "logit": ("p = p_a + self.wide(x).squeeze(-1)", "mixed"),
            "head": ("p = self.wide(x).squeeze(-1) * 4", "layer"),
            "prior": ("return adj + adj.t()", "made"),
            "pool": ("p = (w * probs).sum(dim=1)", "weighted"),
            "cosine": ("p = F.cosine_similarity(self.proj(x), -x, dim=-1)", "made"),
        }
        for how, (code, kind) in want.items():
            b = self.born("born_range.py", how)
            self.assertEqual(self.origin(b["value_chain"]), ("born_range.py", line_of("born_range.py", code), kind), how)

    def test_born_follows_a_sample_field_through_a_collate_function(self):
        # the tokens hold the label's number too: the field the collate took is followed
        for how in ("zip", "comprehension"):
            b = self.born("born_collate.py", how)
            self.assertEqual(self.origin(b["value_chain"]),
                             ("born_collate.py", line_of("born_collate.py", "self.labels = [KINDS.index(KINDS[i % 5]) + 1 for i in range(n)]"), "made"), how)

    def test_born_follows_a_bound_passed_by_keyword_through_multi_line_calls(self):
        b = self.born("born_keywords.py")
        bound = b["bound_chain"]
        self.assertEqual(self.origin(bound)[:2], ("born_keywords.py", line_of("born_keywords.py", '"num_intents": 4,')))
        lines = [s["line"] for s in bound["chain"]]
        for text in ("nn.Linear(hidden * 2, num_classes),", "num_classes=cfg.num_intents,", "num_intents=raw[\"num_intents\"],"):
            self.assertIn(line_of("born_keywords.py", text), lines, text)
        # the labels are a complete code from 0: five intents, one more than the head's four
        origin = b["value_chain"]["born"]
        self.assertEqual(origin.get("population"), {"min": 0, "max": 4, "distinct": 5, "inside": 4}, origin)

    def test_born_bound_counted_from_a_table_that_holds_the_number(self):
        b = self.born("born_table.py")
        self.assertEqual(self.origin(b["bound_chain"]), ("born_table.py", line_of("born_table.py", "n_species = len(table)"), "count"))

    def test_born_bound_counted_from_ids_past_their_number(self):
        b = self.born("born_counted.py")
        self.assertEqual(self.origin(b["bound_chain"]), ("born_counted.py", line_of("born_counted.py", "n_bins = len(freq)"), "count"))
        counted = b["bound_chain"]["born"]["counted"]
        # the bins that occur (a gap between the two modes): fewer than the largest bin + 1
        self.assertEqual(counted["min"], 0)
        self.assertGreater(counted["max"] + 1, counted["distinct"])

    # ------------------------------------------------------------------ guard

    def test_classic_label_bug(self):
        r = self.run_script("classic.py")
        self.assertViolation(r)
        w = r.witness
        self.assertEqual(w["version"], 1)
        self.assertEqual(w["kind"], "witness")
        self.assertEqual(w["op"], "nll_loss")
        self.assertEqual(w["aten"], "aten::nll_loss_forward")
        self.assertEqual(w["category"], "label_out_of_range")
        self.assertEqual(w["tensor"], "target")
        self.assertEqual(w["bound"], {"name": "n_classes", "value": 3})
        self.assertEqual(w["ignore_index"], -100)
        self.assertEqual(w["shape"], [32])
        self.assertEqual(w["dtype"], "int64")
        self.assertEqual(w["device"], "cpu")
        self.assertTrue(w["cpu_mapped"])
        self.assertTrue(w["cuda_launch_blocking"])
        self.assertTrue(w["compile_disabled"])
        self.assertGreaterEqual(w["bad_count"], 1)
        self.assertEqual(len(w["bad"]), w["bad_count"])
        first = w["bad"][0]
        self.assertEqual(first["value"], 3)
        self.assertIsInstance(first["sample"], int)
        self.assertEqual(w["batch"]["loader"], "CustomDataset")
        self.assertEqual(w["batch"]["batch_number"], 1)
        self.assertEqual(w["batch"]["indices"][first["position"][0]], first["sample"])
        top = w["stack"][-1]
        user = [f for f in w["stack"] if f["user_code"]]
        self.assertEqual(user[-1]["code"], "loss = criterion(outputs, y)")
        self.assertEqual(user[-1]["file"], os.path.join(SCRIPTS, "classic.py"))
        self.assertIn("line", top)
        p = w["provenance"]
        self.assertEqual(p["kind"], "code_line", p)
        self.assertEqual(p["line"], line_of("classic.py", "y = y + 1"))
        self.assertEqual(p["code"], "y = y + 1")
        self.assertEqual(p["variable"], "y")
        self.assertEqual(p["before"], 2)
        self.assertEqual(p["after"], 3)
        self.assertEqual(p["sample"], first["sample"])
        self.assertTrue(p["rng_restored"])
        self.assertEqual(p["replays"], 1)
        self.assertEqual(w["tensors"], {"target": "target.npy", "input": "input.npy"})
        if numpy is not None:
            t = numpy.load(os.path.join(r.out, "target.npy"))
            self.assertEqual(t.shape, (32,))
            self.assertEqual(int(t[first["position"][0]]), 3)
        line = line_of("classic.py", "loss = criterion(outputs, y)")
        self.assertIn("cudasleuth: caught nll_loss target 3 out of [0, 3) at classic.py:%d (sample %d)"
                      % (line, first["sample"]), r.stderr)
        loaded = r.one("loaded-*.json")
        self.assertEqual(loaded["mode"], "guard")
        self.assertTrue(loaded["cpu"])
        self.assertIsNone(loaded["rank"])
        self.assertEqual(loaded["pid"], w["pid"])
        for key in ("argv", "python", "torch", "cuda_available"):
            self.assertIn(key, loaded)

    def test_classic_without_project_root(self):
        r = self.run_script("classic.py", project=False, env={"RANK": "0"})
        self.assertViolation(r)
        w = r.witness
        self.assertEqual(w["rank"], 0)
        self.assertEqual(w["provenance"]["kind"], "code_line")
        self.assertEqual(w["provenance"]["code"], "y = y + 1")

    def test_no_values(self):
        r = self.run_script("classic.py", env={"CUDASLEUTH_NO_VALUES": "1"})
        self.assertViolation(r)
        w = r.witness
        self.assertEqual(w["tensors"], {})
        self.assertEqual(r.files("*.npy"), [])
        self.assertTrue(all(b["value"] is None for b in w["bad"]))
        self.assertTrue(all(isinstance(b["sample"], int) for b in w["bad"]))
        p = w["provenance"]
        self.assertEqual(p["kind"], "code_line")
        self.assertIsNone(p["before"])
        self.assertIsNone(p["after"])
        self.assertIn("cudasleuth: caught nll_loss target out of [0, 3)", r.stderr)

    def test_embedding_out_of_range(self):
        r = self.run_script("embedding.py")
        self.assertViolation(r)
        w = r.witness
        self.assertEqual(w["op"], "embedding")
        self.assertEqual(w["category"], "embedding_index_out_of_range")
        self.assertEqual(w["bound"], {"name": "num_embeddings", "value": 10})
        self.assertEqual(w["bad"], [{"position": [1, 1], "value": 10, "sample": None}])
        self.assertIsNone(w["batch"])
        self.assertEqual(w["provenance"]["kind"], "not_replayable")

    def test_gather_out_of_range(self):
        r = self.run_script("gather.py")
        self.assertViolation(r)
        w = r.witness
        self.assertEqual(w["op"], "gather")
        self.assertEqual(w["category"], "index_out_of_range")
        self.assertEqual(w["bound"], {"name": "dim_size", "value": 5})
        self.assertEqual(w["bad"][0]["position"], [2, 0])
        self.assertEqual(w["bad"][0]["value"], 5)

    def test_healthy_script(self):
        r = self.run_script("healthy.py")
        self.assertEqual(r.rc, 0, r.stderr)
        self.assertIn("trained", r.stdout)
        self.assertEqual(r.files("witness-*.json"), [])
        self.assertTrue(r.files("loaded-*.json"))

    def test_ignore_index_labels(self):
        r = self.run_script("ignore_index.py")
        self.assertEqual(r.rc, 0, r.stderr)
        self.assertIn("trained", r.stdout)
        self.assertEqual(r.files("witness-*.json"), [])

    def test_raw_data(self):
        r = self.run_script("raw_data.py")
        self.assertViolation(r)
        w = r.witness
        self.assertEqual(w["bad"][0]["sample"], 2)
        p = w["provenance"]
        self.assertEqual(p["kind"], "raw_data", p)
        self.assertEqual(p["sample"], 2)
        self.assertEqual(p["line"], line_of("raw_data.py", "y = self.labels[idx]"))
        self.assertEqual(p["variable"], "y")
        self.assertEqual(p["value"], 3)

    def test_outside_getitem(self):
        r = self.run_script("outside_getitem.py")
        self.assertViolation(r)
        p = r.witness["provenance"]
        self.assertEqual(p["kind"], "outside_getitem", p)
        self.assertEqual(p["sample"], 2)
        self.assertEqual(p["collate_fn"]["name"], "shift_collate")
        self.assertEqual(p["collate_fn"]["line"], line_of("outside_getitem.py", "def shift_collate(batch):"))

    def test_workers(self):
        r = self.run_script("workers.py")
        self.assertViolation(r)
        w = r.witness
        self.assertEqual(w["bad"][0]["value"], 3)
        self.assertIsInstance(w["bad"][0]["sample"], int)
        p = w["provenance"]
        self.assertEqual(p["kind"], "code_line", p)
        self.assertEqual(p["line"], line_of("workers.py", "y = y + 1"))
        self.assertFalse(p["rng_restored"])
        self.assertGreaterEqual(p["replays"], 1)
        self.assertLessEqual(p["replays"], 64)

    def test_other_ops(self):
        cases = {
            "one_hot": ("one_hot", "index_out_of_range", "input", 4),
            "multinomial": ("multinomial", "invalid_distribution", "input", 0.0),
            "bce": ("binary_cross_entropy", "probability_out_of_range", "input", 1.5),
            "bce_target": ("binary_cross_entropy", "probability_out_of_range", "target", 2.0),
            # torch.distributions.Bernoulli.sample and dropout-style masks reach it
            "bernoulli": ("bernoulli", "probability_out_of_range", "p", 1.25),
            "bernoulli_": ("bernoulli", "probability_out_of_range", "p", -0.5),
            "poisson": ("poisson", "invalid_distribution", "input", -2.0),
            "take": ("take", "index_out_of_range", "index", 6),
            "put": ("take", "index_out_of_range", "index", -5),
            "index": ("index", "index_out_of_range", "index", -5),
            "scatter": ("scatter", "index_out_of_range", "index", 3),
            # `t[idx] = scalar` reaches aten::index_put_ up to torch 2.x and index_fill_ in
            # later releases (the op the dispatcher ran is the one reported)
            "index_put": (("index_put", "index_fill"), "index_out_of_range", "index", 3),
            "embedding_bag": ("embedding_bag", "embedding_index_out_of_range", "indices", 7),
            "thread": ("index_select", "index_out_of_range", "index", 5),
            "nll2d": ("nll_loss2d", "label_out_of_range", "target", 5),
        }
        for arg, (op, cat, tensor, value) in cases.items():
            with self.subTest(arg):
                shutil.rmtree(os.path.join(self.tmp, "out"), ignore_errors=True)
                r = self.run_script("ops.py", arg)
                self.assertViolation(r)
                w = r.witness
                self.assertIn(w["op"], op if isinstance(op, tuple) else (op,))
                self.assertEqual(w["category"], cat)
                self.assertEqual(w["tensor"], tensor)
                self.assertEqual(w["bad"][0]["value"], value)
        # a NaN probability fails the kernel's `0 <= x <= 1` check too; the report of it must not
        # die formatting the value (`int(nan)`)
        shutil.rmtree(os.path.join(self.tmp, "out"), ignore_errors=True)
        r = self.run_script("ops.py", "bce_nan")
        self.assertViolation(r)
        self.assertNotIn("ValueError", r.stderr)
        self.assertEqual(r.witness["bad"][0]["value"], "nan")
        shutil.rmtree(os.path.join(self.tmp, "out"), ignore_errors=True)
        w = self.run_script("ops.py", "mask").witness
        self.assertEqual(w["op"], "index")
        self.assertEqual(w["bound"], {"name": "mask_shape", "value": [4]})
        predicates = set()
        for arg in ("bce", "bce_target"):
            shutil.rmtree(os.path.join(self.tmp, "out"), ignore_errors=True)
            predicates.add(self.run_script("ops.py", arg).witness["predicate"])
        self.assertEqual(len(predicates), 2)

    def test_install_from_script_default_out(self):
        cwd = os.path.join(self.tmp, "work")
        os.makedirs(cwd)
        r = self.run_script("install_in_script.py", use_out=False, pythonpath=SHIMDIR, cwd=cwd,
                            env={"CUDASLEUTH_CPU": None})
        self.assertEqual(r.rc, 86, r.stderr)
        found = glob.glob(os.path.join(cwd, "cudasleuth-out", "witness-*.json"))
        self.assertEqual(len(found), 1, r.stderr)
        with open(found[0]) as f:
            w = json.load(f)
        self.assertEqual(w["op"], "index_select")
        self.assertFalse(w["cpu_mapped"])

    def test_npy_without_numpy(self):
        code = ("import sys; sys.modules['numpy'] = None\n"
                "import torch, cudasleuth_shim as s\n"
                "s._write_npy(sys.argv[1] if len(sys.argv) > 1 else 'a.npy', torch.tensor([[1, -2, 3]]))\n"
                "s._write_npy('b.npy', torch.tensor([0.5, 2.0]))\n")
        r = self.run_script(None, code=code)
        self.assertEqual(r.rc, 0, r.stderr)
        if numpy is not None:
            a = numpy.load(os.path.join(self.tmp, "a.npy"))
            self.assertEqual(a.tolist(), [[1, -2, 3]])
            self.assertEqual(a.dtype, numpy.int64)
            b = numpy.load(os.path.join(self.tmp, "b.npy"))
            self.assertEqual(b.tolist(), [0.5, 2.0])

    # ------------------------------------------------------------------ sweep

    def test_sweep(self):
        r = self.run_script("sweep.py", env={"CUDASLEUTH_MODE": "sweep"})
        self.assertEqual(r.rc, 0, r.stderr)
        self.assertNotIn("trained", r.stdout)
        self.assertEqual(r.files("witness-*.json"), [])
        s = r.one("sweep-*.json")
        self.assertEqual(s["version"], 1)
        self.assertEqual(s["kind"], "sweep")
        b = s["bounds"]
        self.assertEqual(b["n_classes"], 3)
        self.assertEqual(b["num_embeddings"], 50)
        self.assertEqual(b["ignore_index"], -100)
        self.assertEqual(b["from"], "sweep.py:%d" % line_of("sweep.py", "self.head = nn.Linear(4, 3)"))
        by_class = {d["class"]: d for d in s["datasets"]}
        labels = by_class["Labels"]
        self.assertEqual(labels["created"], {"file": os.path.join(SCRIPTS, "sweep.py"),
                                             "line": line_of("sweep.py", "train = DataLoader(Labels(), batch_size=8, shuffle=True)")})
        self.assertEqual(labels["length"], 100)
        self.assertEqual(labels["checked"], 100)
        self.assertEqual([x["index"] for x in labels["bad"]], [5, 17, 42, 99])
        self.assertTrue(all(x["value"] == 3 and x["bound"] == 3 and x["name"] == "n_classes"
                            and x["field"] == "1" for x in labels["bad"]))
        self.assertEqual(labels["errors"], [{"index": 63, "error": "KeyError: 'x'"}])
        tokens = by_class["Tokens"]
        self.assertEqual([x["index"] for x in tokens["bad"]], [5, 6, 7, 8, 9])
        self.assertTrue(all(x["name"] == "num_embeddings" for x in tokens["bad"]))
        self.assertIn("cudasleuth: sweep checked 110 samples", r.stderr)
        # how far the sweep got, for cudasleuth's progress line: the last dataset, all checked
        with open(os.path.join(self.tmp, "out", ".progress")) as f:
            self.assertEqual(f.read(), "10 10 Tokens\n")

    # ------------------------------------------------------------------ loading

    def test_user_sitecustomize_still_runs(self):
        user = os.path.join(self.tmp, "usersite")
        os.makedirs(user)
        marker = os.path.join(self.tmp, "marker")
        with open(os.path.join(user, "sitecustomize.py"), "w") as f:
            f.write("import os\nopen(os.environ['MARKER'], 'w').write('ran')\n")
        r = self.run_script(None, code="import torch; import sys; print('ok', 'cudasleuth_shim' in sys.modules)",
                            pythonpath=SHIMDIR + os.pathsep + user, env={"MARKER": marker})
        self.assertEqual(r.rc, 0, r.stderr)
        self.assertIn("ok True", r.stdout)
        self.assertTrue(os.path.exists(marker), r.stderr)
        self.assertTrue(r.files("loaded-*.json"))

    def test_process_without_torch_untouched(self):
        r = self.run_script(None, code="import sys; print('torch' in sys.modules)")
        self.assertEqual(r.rc, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "False")
        # nothing armed, nothing reported: only the record repro uses to stop the processes of
        # the command that left its group (proc-<pid>: pid, process group, start time)
        names = [os.path.basename(f) for f in r.files("*")]
        self.assertEqual([n for n in names if not n.startswith("proc-")], [])
        self.assertEqual(len(names), 1, names)

    def test_broken_shim_does_not_break_python(self):
        fake = os.path.join(self.tmp, "fake")
        os.makedirs(fake)
        shutil.copy(os.path.join(SHIMDIR, "sitecustomize.py"), fake)
        with open(os.path.join(fake, "cudasleuth_shim.py"), "w") as f:
            f.write("raise ValueError('boom')\n")
        r = self.run_script(None, code="print('alive')", pythonpath=fake)
        self.assertEqual(r.rc, 0, r.stderr)
        self.assertIn("alive", r.stdout)
        self.assertIn("cudasleuth: shim not installed:", r.stderr)

    # ------------------------------------------------------------------ CPU mapping

    def test_cpu_mapping(self):
        r = self.run_script("cpu_mapping.py")
        self.assertEqual(r.rc, 0, r.stderr)
        self.assertIn("trained", r.stdout)
        self.assertEqual(r.files("unmapped-*.json"), [])
        loaded = r.one("loaded-*.json")
        self.assertFalse(loaded["cuda_available"])

    def test_cpu_mapping_keeps_dynamo_importable(self):
        # dynamo keys its trace rules by function object: one do-nothing function under several
        # torch.cuda names stopped `import torch._dynamo` (PyPI torch 2.15)
        r = self.run_script("dynamo_cpu.py", env={"TORCHDYNAMO_DISABLE": None})
        self.assertEqual(r.rc, 0, r.stderr)
        self.assertIn("ok dynamo=", r.stdout)
        if not r.stdout.strip().endswith("torch=1"):  # torch 1.x has no torch._dynamo
            self.assertIn("ok dynamo=True", r.stdout)
        self.assertEqual(r.files("unmapped-*.json"), [])
        self.assertTrue(r.one("loaded-*.json")["cpu"])

    def test_unmapped_cuda_call(self):
        r = self.run_script("unmapped.py")
        self.assertEqual(r.rc, 3, r.stderr)
        self.assertNotIn("trained", r.stdout)
        line = line_of("unmapped.py", "s = torch.cuda.Stream()")
        self.assertIn("cudasleuth: cannot map to CPU: torch.cuda.Stream at unmapped.py:%d" % line, r.stderr)
        u = r.one("unmapped-*.json")
        self.assertEqual(u["call"], "torch.cuda.Stream")
        self.assertEqual(u["file"], os.path.join(SCRIPTS, "unmapped.py"))
        self.assertEqual(u["line"], line)


class SchemaTest(unittest.TestCase):
    """output.schema.json itself, and that the validation the tests run can fail."""

    WITNESS = {
        "version": 1, "kind": "witness", "op": "nll_loss", "aten": "aten::nll_loss_forward",
        "category": "label_out_of_range", "predicate": "target == ignore_index or 0 <= target < n_classes",
        "tensor": "target", "bound": {"name": "n_classes", "value": 3}, "ignore_index": -100,
        "shape": [32], "dtype": "int64", "device": "cpu",
        "bad": [{"position": [7], "value": 3, "sample": 41}], "bad_count": 1,
        "stack": [{"file": "/p/train.py", "line": 30, "function": "<module>",
                   "code": "loss = criterion(outputs, y)", "user_code": True}],
        "batch": {"indices": [41, 2], "loader": "CustomDataset", "batch_number": 1},
        "tensors": {"target": "target.npy", "input": "input.npy"}, "rank": None, "pid": 1234,
        "torch": "1.13.0", "cuda_launch_blocking": True, "compile_disabled": True, "cpu_mapped": True,
        "provenance": {"kind": "code_line", "file": "/p/train.py", "line": 12, "function": "__getitem__",
                       "code": "y = y + 1", "variable": "y", "before": 2, "after": 3, "sample": 41,
                       "replays": 1, "rng_restored": True},
    }

    def setUp(self):
        if jsonschema is None:
            self.skipTest("the jsonschema package is missing")

    def assertInvalid(self, doc, kind="witness"):
        with self.assertRaises(AssertionError):
            check_schema(doc, kind, "a wrong %s" % kind)

    def test_schema_is_valid(self):
        jsonschema.Draft202012Validator.check_schema(SCHEMA)
        self.assertEqual(set(SCHEMA_DEFS.values()) - set(SCHEMA["$defs"]), set())

    def test_wrong_witness_fails_validation(self):
        import copy
        check_schema(self.WITNESS, "witness", "the sample witness")
        w = copy.deepcopy(self.WITNESS)
        del w["bad"]
        self.assertInvalid(w)
        w = copy.deepcopy(self.WITNESS)
        w["bad"][0]["position"] = "7"
        self.assertInvalid(w)
        w = copy.deepcopy(self.WITNESS)
        w["unknown_key"] = 1
        self.assertInvalid(w)
        w = copy.deepcopy(self.WITNESS)
        del w["provenance"]["line"]
        self.assertInvalid(w)
        w = copy.deepcopy(self.WITNESS)
        w["category"] = "index_out_of_range"  # not nll_loss's
        self.assertInvalid(w)
        self.assertInvalid({"version": 1, "kind": "sweep", "bounds": None, "datasets": []}, "sweep")  # no note


if __name__ == "__main__":
    unittest.main()
