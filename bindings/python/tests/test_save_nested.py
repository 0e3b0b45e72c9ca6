"""tessera.save / tessera.load of torch.save-like objects: nested state
dicts, lists, tuples and plain values come back with the same nesting; the
file is a plain safetensors file with dotted keys; crafted structures and
torch's pickle files are refused without unpickling anything."""
import json
import os
import struct
import tempfile
import unittest

import torch as real_torch

import tessera
from tessera import nn


def rewrite_metadata(path, out, structure):
    """A copy of the safetensors file at path with its "structure"
    metadata replaced (the header re-encoded, data unchanged)."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    header["__metadata__"]["structure"] = structure
    header.get("__metadata__", {}).pop("tessera.checksum", None)
    text = json.dumps(header).encode()
    with open(out, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + raw[8 + n:])


class Nesting(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "ck.safetensors")

    def tearDown(self):
        self.dir.cleanup()

    def test_model_and_optimizer_state_round_trip(self):
        model = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm2d(2))
        opt = tessera.optim.AdamW(model.parameters(), lr=0.1)
        model[0](tessera.ones(4, 3)).sum().backward()
        opt.step()
        sched = tessera.optim.lr_scheduler.StepLR(opt, step_size=1)
        obj = {"model": model.state_dict(), "optimizer": opt.state_dict(),
               "scheduler": sched.state_dict(), "epoch": 3, "best": float("inf"), "tag": "run1",
               "history": [0.5, 0.25], "pair": (1, None)}
        tessera.save(obj, self.path, compression="zstd")
        back = tessera.load(self.path)
        self.assertEqual(list(back), list(obj))
        self.assertEqual(list(back["model"]), list(obj["model"]))
        for k, v in obj["model"].items():
            self.assertEqual(back["model"][k].tolist(), v.tolist())
        self.assertEqual(back["optimizer"]["param_groups"], obj["optimizer"]["param_groups"])
        self.assertEqual(list(back["optimizer"]["state"]), [0, 1])  # int keys stay ints
        self.assertEqual(back["optimizer"]["state"][0]["exp_avg"].tolist(),
                         obj["optimizer"]["state"][0]["exp_avg"].tolist())
        self.assertEqual((back["epoch"], back["best"], back["tag"], back["history"], back["pair"]),
                         (3, float("inf"), "run1", [0.5, 0.25], (1, None)))
        fresh = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm2d(2))
        fresh.load_state_dict(back["model"])
        tessera.optim.AdamW(fresh.parameters(), lr=0.1).load_state_dict(back["optimizer"])
        # a plain safetensors file underneath: dotted keys
        with open(self.path, "rb") as f:
            (n,) = struct.unpack("<Q", f.read(8))
            names = set(json.loads(f.read(n))) - {"__metadata__"}
        self.assertIn("model.0.weight", names)
        self.assertIn("optimizer.state.0.exp_avg", names)

    def test_single_tensor_list_and_flat_dict(self):
        tessera.save(tessera.arange(3.), self.path)
        self.assertEqual(tessera.load(self.path).tolist(), [0.0, 1.0, 2.0])
        tessera.save([tessera.ones(1), {"a": tessera.zeros(2)}], self.path)
        back = tessera.load(self.path)
        self.assertEqual((back[0].tolist(), back[1]["a"].tolist()), ([1.0], [0.0, 0.0]))
        tessera.save({"w": tessera.ones(2)}, self.path, metadata={"k": "v"})  # flat: as before
        back = tessera.load(self.path)
        self.assertEqual((list(back), back.metadata), (["w"], {"k": "v"}))

    def test_unsavable_objects_refused_and_no_file_written(self):
        for obj, error in (({"a": object()}, TypeError), ({1.5: tessera.ones(1)}, TypeError),
                           ({"a": {"b": tessera.ones(1)}, "a.b": tessera.ones(1)}, ValueError)):
            with self.assertRaises(error):
                tessera.save(obj, self.path)
            self.assertFalse(os.path.exists(self.path))

    def test_crafted_structures_refused(self):
        tessera.save({"a": {"b": tessera.ones(2)}, "n": 1}, self.path, skip_checksums=True)
        bad = os.path.join(self.dir.name, "bad.safetensors")
        deep = {"value": 1}
        for _ in range(200):
            deep = {"list": [deep]}
        for structure, message in (
                ("{not json", "not valid JSON"),
                (json.dumps({"tensor": "missing"}), "does not have"),
                (json.dumps({"dict": [["a", {"tensor": "a.b"}], ["c", {"tensor": "a.b"}]]}), "twice"),
                (json.dumps({"dict": [["n", {"value": 1}]]}), "does not place"),
                (json.dumps({"weird": 1}), "unknown structure node"),
                (json.dumps({"dict": [[3.5, {"value": 1}]]}), "key"),
                (json.dumps({"value": {"x": 1}}), "not a number"),
                (json.dumps(deep), "deeper"),
                (json.dumps([1, 2]), "one-entry object")):
            rewrite_metadata(self.path, bad, structure)
            with self.assertRaisesRegex(tessera.CorruptFileError, message):
                tessera.load(bad)

    def test_torch_pickle_never_unpickled(self):
        marker = os.path.join(self.dir.name, "pwned")

        class Payload:
            def __reduce__(self):
                return (open, (marker, "w"))
        pt = os.path.join(self.dir.name, "model.pt")
        real_torch.save({"w": real_torch.ones(2), "evil": Payload()}, pt)
        with self.assertRaises(tessera.Error):
            tessera.load(pt)
        self.assertFalse(os.path.exists(marker))


if __name__ == "__main__":
    unittest.main()
