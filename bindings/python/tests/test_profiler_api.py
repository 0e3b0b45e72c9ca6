"""tessera.profiler with torch.profiler's API: activities, record_function,
schedule with on_trace_ready, key_averages().table() with torch's columns
and sort keys (compared with torch 1.13's own table header), the chrome
trace."""
import json
import os
import tempfile
import unittest

import torch as real_torch
import torch.profiler

import tessera
from tessera.profiler import ProfilerAction, ProfilerActivity, profile, record_function, schedule


def work(torch):
    x = torch.ones(8, 8, requires_grad=True)
    (x * 2).sum().backward()


def header(table):
    """The column names of a table (its second line), spaces squeezed."""
    return " ".join(table.splitlines()[1].split())


class Profiler(unittest.TestCase):
    def test_table_columns_match_torch(self):
        for kwargs in ({}, {"record_shapes": True}, {"profile_memory": True}):
            with profile(activities=[ProfilerActivity.CPU], **kwargs) as ours:
                work(tessera)
            with real_torch.profiler.profile(activities=[real_torch.profiler.ProfilerActivity.CPU],
                                             **kwargs) as theirs:
                work(real_torch)
            for sort_by in ("self_cpu_time_total", "cpu_time_total", "count"):
                table = ours.key_averages().table(sort_by=sort_by, row_limit=5)
                self.assertEqual(header(table),
                                 header(theirs.key_averages().table(sort_by=sort_by, row_limit=5)),
                                 kwargs)
                self.assertIn("aten::mul", table)
        with self.assertRaises(tessera.Error):
            ours.key_averages().table(sort_by="flops")
        grouped = ours.key_averages(group_by_input_shape=True).table(row_limit=3)
        self.assertNotIn("Input Shapes", grouped)  # the last session recorded no shapes
        with profile(record_shapes=True) as shaped:
            work(tessera)
        self.assertIn("Input Shapes", shaped.key_averages(group_by_input_shape=True).table())
        self.assertNotIn("Input Shapes", shaped.key_averages().table())

    def test_record_function_rows_and_trace(self):
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            with record_function("my_block"):
                work(tessera)

        @record_function("decorated")
        def step():
            work(tessera)
        with profile() as prof2:
            step()
        self.assertIn("my_block", prof.key_averages().table(row_limit=-1))
        self.assertIn("decorated", prof2.table(row_limit=-1))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "trace.json")
            prof.export_chrome_trace(path)
            with open(path) as f:
                events = json.load(f)["traceEvents"]
        block = [e for e in events if e["name"] == "my_block"]
        self.assertEqual(len(block), 1)
        self.assertEqual(block[0]["cat"], "user_annotation")
        inside = [e for e in events if e["name"] == "aten::mul"]
        self.assertTrue(block[0]["ts"] <= inside[0]["ts"] <= block[0]["ts"] + block[0]["dur"])
        with self.assertRaises(tessera.Error):  # an end without a begin
            tessera._core.record_function_end()
        with self.assertRaises(TypeError):
            record_function(3)

    def test_schedule_actions_as_torch(self):
        for kwargs in ({"wait": 1, "warmup": 1, "active": 2}, {"wait": 0, "warmup": 2, "active": 1, "repeat": 2},
                       {"wait": 2, "warmup": 1, "active": 3, "repeat": 1, "skip_first": 2}):
            ours = schedule(**kwargs)
            theirs = real_torch.profiler.schedule(**kwargs)
            self.assertEqual([ours(i).name for i in range(16)], [theirs(i).name for i in range(16)], kwargs)
        with self.assertRaises(ValueError):
            schedule(wait=0, warmup=0, active=0)

    def test_schedule_drives_sessions_and_on_trace_ready(self):
        ready = []
        with profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=2),
                     on_trace_ready=lambda p: ready.append(p.table(sort_by="count", row_limit=-1))) as prof:
            for _ in range(10):
                work(tessera)
                prof.step()
        self.assertEqual(len(ready), 2)
        for table in ready:  # two recorded steps each, two aten::mul a step (forward, MulBackward0)
            row = next(line for line in table.splitlines() if line.strip().startswith("aten::mul "))
            self.assertEqual(int(row.split()[-1]), 4)
        self.assertEqual(prof.step_num, 10)
        self.assertIs(ProfilerAction.RECORD_AND_SAVE, schedule(wait=0, warmup=0, active=1)(0))

    def test_activities_and_errors(self):
        self.assertIn(ProfilerActivity.CPU, tessera.profiler.supported_activities())
        with self.assertRaises(TypeError):
            profile(activities=["CPU"])
        with self.assertRaisesRegex(RuntimeError, "not recorded"):
            profile().table()


if __name__ == "__main__":
    unittest.main()
