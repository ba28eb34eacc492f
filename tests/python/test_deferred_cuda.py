"""isobench.deferred_cuda with the stand-in torch (fake_torch/): the device facts come from a fresh
interpreter; with them installed, a module that asks about the device imports without initialising
CUDA, one that needs a context is stopped at torch.cuda._lazy_init with its file:line named, and
restore() gives the real functions back (a stand-in kept by reference then passes through).

Through orchestrate, where ISOBENCH_ORCHESTRATE names it (ctest does): a do_bench file whose import
asks about the device is imported once per zygote and by no worker; one whose import needs a context
falls back to an import per worker, named in the warnings, workers.log, log.txt and python.json."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE_TORCH = os.path.join(HERE, "fake_torch")
sys.path.insert(0, FAKE_TORCH)

import torch  # noqa: E402 - the stand-in, from the path above

from isobench import deferred_cuda  # noqa: E402

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(deferred_cuda.__file__)))


def environment(**extra):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([PACKAGE, FAKE_TORCH]))
    env.update(extra)
    return env


def recorded_facts(**extra):
    out = subprocess.run([sys.executable, "-m", "isobench.deferred_cuda"], env=environment(**extra),
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


class Deferred(unittest.TestCase):
    def setUp(self):
        torch.cuda._initialized = False
        for name in ("cuda_on_import", "cuda_props_on_import"):
            sys.modules.pop(name, None)

    def tearDown(self):
        deferred_cuda.restore()
        deferred_cuda.clear_callers()

    def test_the_facts_come_from_a_fresh_interpreter(self):
        with tempfile.TemporaryDirectory() as scratch:
            inits = os.path.join(scratch, "inits")
            facts = recorded_facts(FAKE_TORCH_DEVICES="2", FAKE_TORCH_INITS=inits)
            with open(inits) as f:
                initialised_by = f.read().split()
        self.assertEqual(len(initialised_by), 1)
        self.assertNotEqual(initialised_by[0], str(os.getpid()))
        self.assertFalse(torch.cuda.is_initialized())
        self.assertEqual((facts["is_available"], facts["device_count"], facts["current_device"]), (True, 2, 0))
        self.assertEqual([d["name"] for d in facts["devices"]], ["Fake GPU 0", "Fake GPU 1"])
        self.assertEqual(facts["devices"][1]["multi_processor_count"], 131)
        self.assertEqual(facts["devices"][0]["uuid"], "fa7d25ec-0000-0000-0000-000000000000")

    def test_facts_that_cannot_be_recorded_are_one_line_naming_why(self):
        saved = dict(os.environ)
        os.environ.update(environment(FAKE_TORCH_DEVICES="two"))  # the stand-in's device_count() fails
        try:
            recorder = deferred_cuda.Recorder()
        finally:
            os.environ.clear()
            os.environ.update(saved)
        with self.assertRaises(deferred_cuda.FactsError) as raised:
            recorder.wait()
        self.assertRegex(str(raised.exception), r"^python -m isobench.deferred_cuda ended with exit code 1: "
                                                r"ValueError: invalid literal for int\(\) with base 10: 'two'$")

    def test_a_module_that_asks_about_the_device_imports_without_a_context(self):
        facts = recorded_facts(FAKE_TORCH_DEVICES="2")
        real = torch.cuda.get_device_properties
        deferred_cuda.install(facts)
        self.assertEqual(os.environ.get("PYTORCH_NVML_BASED_CUDA_CHECK"), "1")
        import cuda_props_on_import
        self.assertFalse(torch.cuda.is_initialized())
        self.assertEqual(deferred_cuda.callers(), [])
        self.assertEqual((cuda_props_on_import.SMS, cuda_props_on_import.CAPABILITY), (132, (9, 0)))
        self.assertEqual((cuda_props_on_import.NAME, cuda_props_on_import.DEVICES), ("Fake GPU 0", 2))
        self.assertEqual(torch.cuda.get_device_name("cuda:1"), "Fake GPU 1")
        with self.assertRaises(AssertionError):
            torch.cuda.get_device_properties(2)
        kept = torch.cuda.get_device_properties  # as an importer that bound it would hold it
        deferred_cuda.restore()
        self.assertIs(torch.cuda.get_device_properties, real)
        self.assertNotIn("PYTORCH_NVML_BASED_CUDA_CHECK", os.environ)
        self.assertFalse(torch.cuda.is_initialized())
        kept(0)  # now torch's own, which makes the context
        self.assertTrue(torch.cuda.is_initialized())

    def test_deferred_from_torchs_import_on_the_facts_come_at_the_first_question(self):
        # What a zygote started before its plan does (install_when_imported): nothing until torch
        # is imported, the stand-ins from then on, the fresh interpreter only at the first question.
        program = ("import sys; from isobench import deferred_cuda as d; d.install_when_imported(); "
                   "assert 'torch' not in sys.modules; import torch; assert d.active(); "
                   "assert d.started_recorder() is None; import cuda_props_on_import as m; "
                   "print(m.SMS, torch.cuda.is_initialized(), d.started_recorder() is not None, d.asked()[0])")
        out = subprocess.run([sys.executable, "-c", program], env=environment(FAKE_TORCH_DEVICES="2"),
                             capture_output=True, text=True, check=True).stdout
        self.assertEqual(out.split(), ["132", "False", "True", "is_available"])

    def test_a_file_that_asks_nothing_stands_as_a_plain_import_left_it(self):
        # No fresh interpreter, torch not imported for a file that does not, and where the file
        # imports torch and binds a function by name, the real one back after withdraw().
        program = ("import sys, types; from isobench import deferred_cuda as d; d.install_when_imported(); "
                   "import json; d.withdraw(); assert 'torch' not in sys.modules, 'torch imported'; "
                   "d.install_when_imported(); import torch; from torch.cuda import get_device_properties as kept; "
                   "m = types.ModuleType('binds'); m.kept = kept; sys.modules['binds'] = m; "
                   "assert hasattr(kept, '__wrapped__'), 'bound the stand-in'; "
                   # Triton's driver object, made during the import, binds torch.cuda.current_device
                   "made = types.SimpleNamespace(get_current_device=torch.cuda.current_device); "
                   "t = types.ModuleType('triton.runtime.driver'); t.driver = types.SimpleNamespace(_active=made); "
                   "sys.modules['triton.runtime.driver'] = t; "
                   "d.withdraw(); real = torch.cuda.get_device_properties; "
                   "print(m.kept is real, made.get_current_device is torch.cuda.current_device, d.active(), "
                   "d.started_recorder() is None, d.asked())")
        out = subprocess.run([sys.executable, "-c", program], env=environment(),
                             capture_output=True, text=True, check=True).stdout
        self.assertEqual(out.split(), ["True", "True", "False", "True", "[]"])

    def test_a_module_that_needs_a_context_is_stopped_at_lazy_init_with_its_line(self):
        deferred_cuda.install(recorded_facts())
        with self.assertRaises(deferred_cuda.CudaTouched):
            import cuda_on_import  # noqa: F401
        self.assertFalse(torch.cuda.is_initialized())
        self.assertNotIn("cuda_on_import", sys.modules)
        with open(os.path.join(FAKE_TORCH, "cuda_on_import.py")) as f:
            line = next(n for n, text in enumerate(f, 1) if "torch.cuda._lazy_init()" in text)
        self.assertEqual(deferred_cuda.callers(), ["%s:%d" % (os.path.join(FAKE_TORCH, "cuda_on_import.py"), line)])
        deferred_cuda.restore()
        import cuda_on_import  # noqa: F401,F811 - a worker's import: CUDA for real
        self.assertTrue(torch.cuda.is_initialized())

    def test_torch_modules_that_bound_lazy_init_by_name_are_trapped_too(self):
        import types
        bound = types.ModuleType("torch.cuda.bound_here")
        bound._lazy_init = torch.cuda._lazy_init
        sys.modules[bound.__name__] = bound
        try:
            deferred_cuda.install(recorded_facts())
            with self.assertRaises(deferred_cuda.CudaTouched):
                bound._lazy_init()
            deferred_cuda.restore()
            self.assertIs(bound._lazy_init, torch.cuda._lazy_init)
        finally:
            del sys.modules[bound.__name__]
        self.assertFalse(torch.cuda.is_initialized())

    def test_tritons_own_device_query_answers_from_the_facts_too(self):
        import types

        def query(device):  # as Triton's: the CUDA driver, which needs torch's context here
            torch.cuda._lazy_init()
            return {"multiprocessor_count": 132 - device, "max_shared_mem": 232448}

        utils = types.SimpleNamespace(get_device_properties=query)
        runtime = types.ModuleType("triton.runtime")
        runtime.driver = types.SimpleNamespace(active=types.SimpleNamespace(utils=utils))
        triton = types.ModuleType("triton")
        triton.runtime = runtime
        saved = {name: sys.modules.get(name) for name in ("triton", "triton.runtime")}
        sys.modules.update({"triton": triton, "triton.runtime": runtime})
        try:
            facts = recorded_facts(FAKE_TORCH_DEVICES="2")
            facts["triton_devices"] = deferred_cuda._triton_devices(2)  # the recorder's step, here
            self.assertEqual([d["multiprocessor_count"] for d in facts["triton_devices"]], [132, 131])
            torch.cuda._initialized = False
            deferred_cuda.install(facts)
            self.assertEqual(utils.get_device_properties(1)["multiprocessor_count"], 131)
            self.assertFalse(torch.cuda.is_initialized())
            deferred_cuda.restore()
            self.assertIs(utils.get_device_properties, query)
        finally:
            for name, module in saved.items():
                if module is None:
                    sys.modules.pop(name, None)
                else:
                    sys.modules[name] = module


def read_lines(path):
    with open(path) as f:
        return f.read().splitlines()


@unittest.skipUnless(os.environ.get("ISOBENCH_ORCHESTRATE"), "ISOBENCH_ORCHESTRATE names no orchestrate (ctest does)")
class ThroughOrchestrate(unittest.TestCase):
    def ab(self, scratch, data_file, expect=0, route="--pytest", select="", **variables):
        imports = os.path.join(scratch, "imports.txt")
        run = os.path.join(scratch, "run")
        env = dict(os.environ, DO_BENCH_IMPORTS=imports, **variables)
        env.pop("PYTHONPATH", None)
        done = subprocess.run([os.environ["ISOBENCH_ORCHESTRATE"], "ab", "--format", "none", "--device", "cpu",
                               route, os.path.join(HERE, "data", data_file),
                               "--python-path", os.path.join(HERE, "fake_triton"), "--python-path", FAKE_TORCH,
                               "--python-path", os.path.join(HERE, "fake_flaggems"),
                               "--candidate-env", "X=1", "--samples", "8", "--inner", "5", "--out", run]
                              + (["-k", select] if select else []),
                              env=env, capture_output=True, text=True, timeout=600)
        self.assertEqual(done.returncode, expect, done.stderr)
        if expect != 0:
            return done, None, None, None, None
        with open(os.path.join(run, "python.json")) as f:
            python = json.load(f)
        importers = set(read_lines(imports)) if os.path.exists(imports) else set()  # a file that says nothing
        return done, importers, python, read_lines(os.path.join(run, "workers.log")), \
            read_lines(os.path.join(run, "log.txt"))

    def test_a_file_that_asks_about_the_device_is_imported_once_per_zygote(self):
        with tempfile.TemporaryDirectory() as scratch:
            done, importers, python, workers, log = self.ab(scratch, "do_bench_cuda_props.py")
        zygotes = {str(side["zygote"]["pid"]) for side in python["sides"]}
        self.assertEqual(len(zygotes), 2)
        self.assertLessEqual(zygotes, importers)
        # besides: the collector, and the zygotes started while it collected (not used: log.txt)
        early = {line.split(": pid ")[1].split()[0] for line in log if "[zygote-early]" in line and ": pid " in line}
        self.assertEqual(len(importers - zygotes - early), 1, (importers, zygotes, early))
        self.assertEqual([line for line in workers if " imported in worker " in line], [])
        for side in python["sides"]:
            record = side["zygote"]["deferred_cuda"]
            self.assertEqual(len(record["files"]), 1)
            self.assertTrue(record["files"][0]["imported"], record)
            self.assertEqual(record["files"][0]["lazy_init"], [])
            self.assertEqual(record["files"][0]["devices"], ["Fake GPU 0"])
        said = [line for line in workers if "with CUDA deferred in" in line]
        self.assertEqual(len(said), 2, workers)
        self.assertEqual(len([line for line in log if "zygote-deferred-cuda" in line]), 2, log)
        self.assertNotIn("imported in each worker", done.stderr)

    def test_the_zygotes_that_import_it_while_it_is_collected_are_the_runs(self):
        # Started while the file is collected, they import it with CUDA deferred from torch's
        # import on, and the plan takes them: the file is imported by them and the collector, three
        # processes, not five (two more zygotes after the collection).
        with tempfile.TemporaryDirectory() as scratch:
            done, importers, python, workers, log = self.ab(scratch, "do_bench_cuda_props.py")
        zygotes = {str(side["zygote"]["pid"]) for side in python["sides"]}
        early = {line.split(": pid ")[1].split(",")[0] for line in log
                 if "[zygote-early]" in line and "with CUDA deferred while it is collected" in line}
        self.assertEqual(early, zygotes, log)
        self.assertEqual(len(importers), 3, importers)
        self.assertLessEqual(zygotes, importers)
        self.assertEqual([line for line in log if "did not take it" in line], [])
        for side in python["sides"]:
            (record,) = side["zygote"]["deferred_cuda"]["files"]
            self.assertTrue(record["imported"] and record["early"], record)
            self.assertEqual(record["devices"], ["Fake GPU 0"])
            self.assertTrue(side["zygote"]["imports"][0]["early"], side["zygote"]["imports"])
        self.assertEqual(len([line for line in log if "zygote-deferred-cuda" in line]), 2, log)
        self.assertNotIn("imported in each worker", done.stderr)

    def test_a_fixture_plan_takes_them_without_the_do_bench_variables_unless_flag_gems_read_them(self):
        # Started with FLAGGEMS_CACHE_DIR and ISOBENCH_TUNER_REPLAY in case the file times through
        # do_bench: a plan of fixture tests takes them, the variables gone before any worker (the
        # test fails where a worker sees them); where the import read FLAGGEMS_CACHE_DIR
        # (flag_gems imported), each side is started anew. Asking torch.cuda.is_available(), which
        # initialises no CUDA, is no reason to refuse the file (nor to start a side anew).
        with tempfile.TemporaryDirectory() as scratch:
            log = self.ab(scratch, "fixture_environment.py", FIXTURE_ASKS_AVAILABLE="1")[4]
        self.assertEqual([line for line in log if "did not take it" in line], [])
        self.assertEqual(len([line for line in log if "[zygote-early]" in line]), 2, log)
        with tempfile.TemporaryDirectory() as scratch:
            done, _, python, _, log = self.ab(scratch, "fixture_environment.py", FIXTURE_IMPORTS_FLAGGEMS="1")
        self.assertEqual(len([line for line in log if "stopped: the plan did not take it" in line]), 2, log)
        for side in python["sides"]:
            self.assertFalse([v for v in side["variables"] if v.startswith("FLAGGEMS_CACHE_DIR=")], side)
        # Refused once collected (no test left by -k): FlagGems' folder, made in the run directory
        # while the early zygotes imported, goes with it, and so does the directory.
        with tempfile.TemporaryDirectory() as scratch:
            done = self.ab(scratch, "fixture_environment.py", 2, select="no_such_test", FIXTURE_IMPORTS_FLAGGEMS="1")[0]
            self.assertIn("no collected test", done.stderr)
            self.assertFalse(os.path.exists(os.path.join(scratch, "run")), os.listdir(scratch))

    def test_a_crash_in_the_collection_is_refused_with_the_collectors_exit_code_and_last_line(self):
        # The early zygotes crash on the import too; the collection's refusal is what is said.
        with tempfile.TemporaryDirectory() as scratch:
            done = self.ab(scratch, "collect_crash.py", 2)[0]
            self.assertFalse(os.path.exists(os.path.join(scratch, "run")), os.listdir(scratch))
        self.assertIn("collect_crash.py: the pytest collector (python3) ended with exit code 3: collect_crash: the "
                      "import ends the interpreter here", done.stderr)

    def test_a_scripts_imports_that_ask_about_the_device_are_done_once_per_zygote(self):
        with tempfile.TemporaryDirectory() as scratch:
            done, importers, python, workers, log = self.ab(scratch, "script_cuda_props.py", route="--script")
        zygotes = {str(side["zygote"]["pid"]) for side in python["sides"]}
        self.assertEqual(len(zygotes), 2)
        self.assertEqual(len(importers - zygotes), 1, (importers, zygotes))  # and the collector, no worker
        for side in python["sides"]:
            (record,) = side["zygote"]["deferred_cuda"]["files"]
            self.assertTrue(record["imported"], record)
            self.assertEqual(record["devices"], ["Fake GPU 0"])
        self.assertEqual(len([line for line in workers if "with CUDA deferred in" in line]), 2, workers)
        self.assertNotIn("imported in each worker", done.stderr)

    def test_a_file_that_needs_a_context_falls_back_to_each_worker_naming_the_line(self):
        with tempfile.TemporaryDirectory() as scratch:
            done, importers, python, workers, log = self.ab(scratch, "do_bench_cuda_import.py")
        where = os.path.join(FAKE_TORCH, "cuda_on_import.py") + ":"
        zygotes = {str(side["zygote"]["pid"]) for side in python["sides"]}
        self.assertEqual(zygotes & importers, set())
        per_worker = [line for line in workers if " imported in worker " in line]
        self.assertGreaterEqual(len(per_worker), 2)
        for line in per_worker:
            pid = line.split(" imported in worker ")[1].split()[0]
            self.assertIn(pid, importers, line)
        for side in python["sides"]:
            record = side["zygote"]["deferred_cuda"]["files"][0]
            self.assertFalse(record["imported"])
            self.assertEqual(len(record["lazy_init"]), 1)
            self.assertTrue(record["lazy_init"][0].startswith(where), record)
        warned = [line for line in done.stderr.splitlines()
                  if "imported in each worker, not in the zygote: its import reached torch.cuda._lazy_init at " + where
                  in line]
        self.assertEqual(len(warned), 2, done.stderr)
        self.assertEqual(len([line for line in workers if "torch.cuda._lazy_init at " + where in line]), 2, workers)
        self.assertEqual(len([line for line in log if "zygote-note" in line and where in line]), 2, log)

    def test_a_file_whose_import_initialises_cuda_past_the_trap_is_refused(self):
        with tempfile.TemporaryDirectory() as scratch:
            done = self.ab(scratch, "do_bench_cuda_bypass.py", expect=2)[0]
        self.assertIn("importing it with CUDA deferred initialised CUDA all the same (torch.cuda.is_initialized())",
                      done.stderr)


if __name__ == "__main__":
    unittest.main()
