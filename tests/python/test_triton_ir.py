"""isobench.triton_ir with a stand-in Triton (tests/python/fake_triton): the kernels one launch
of an instance runs are found by their handles and their IR stages written, in launch order,
under paths that do not carry the compiler's hash; the launch hook a user installed is still
called and put back; a kernel that cannot be found is named; a later worker leaves the folder as
the first one wrote it. The orchestrator's side (archive, compare, ir-diff) is
tests/orchestrator/test_ir_diff.cpp."""

import ctypes
import json
import os
import stat
import sys
import tempfile
import types
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_triton"))

import triton  # noqa: E402 - the stand-in, from the path above

from isobench import triton_ir  # noqa: E402


def make_module(fp_fusion=True):
    """A benchmark module with two @triton.jit kernels among its globals; launch() runs an
    instance's work: softmax, then norm twice with two block sizes."""
    module = types.ModuleType("triton_ir_test_kernels")
    module.softmax = triton.jit(lambda BLOCK: None)
    module.softmax.fn.__name__ = "softmax_kernel"
    module.norm = triton.jit(lambda BLOCK: None)
    module.norm.fn.__name__ = "norm_kernel"

    def launch():
        module.softmax.launch(BLOCK=1024, fp_fusion=fp_fusion)
        module.norm.launch(BLOCK=256, num_warps=8, fp_fusion=fp_fusion)
        module.norm.launch(BLOCK=512, fp_fusion=fp_fusion)

    module.launch = launch
    sys.modules[module.__name__] = module
    return module


def read(folder, path):
    with open(os.path.join(folder, triton_ir.FOLDER, path)) as f:
        return f.read()


class TritonIr(unittest.TestCase):
    def setUp(self):
        self.addCleanup(sys.modules.pop, "triton_ir_test_kernels", None)
        self.folder = tempfile.mkdtemp()
        self.addCleanup(lambda: __import__("shutil").rmtree(self.folder, ignore_errors=True))

    def test_each_launch_in_order_with_its_stages_and_options(self):
        module = make_module()
        index = triton_ir.record(module.launch, self.folder, lambda: None)
        names = [(e["order"], e["name"]) for e in index["launches"]]
        self.assertEqual(names, [(0, "softmax_kernel"), (1, "norm_kernel"), (2, "norm_kernel")])
        second = index["launches"][1]
        self.assertEqual(second["num_warps"], 8)
        self.assertEqual(second["constants"], {"BLOCK": 256})  # named from arg_names, not Triton's (0,)
        self.assertIn("1-norm_kernel-w8-s3-BLOCK256/norm_kernel.ttgir", second["files"])
        self.assertEqual(read(self.folder, "1-norm_kernel-w8-s3-BLOCK256/norm_kernel.ttgir"), "// ttgir norm_kernel BLOCK=256 contract\n")
        self.assertEqual(read(self.folder, "2-norm_kernel-w4-s3-BLOCK512/norm_kernel.ttir"), "// ttir norm_kernel BLOCK=512\n")
        on_disk = json.loads(read(self.folder, triton_ir.INDEX))
        self.assertEqual(on_disk, json.loads(json.dumps(index)))
        self.assertEqual(module.softmax.launched, 1)  # one launch, not one per stage or lookup

    def test_two_compilers_meet_under_the_same_paths(self):
        a, b = tempfile.mkdtemp(dir=self.folder), tempfile.mkdtemp(dir=self.folder)
        ia = triton_ir.record(make_module(fp_fusion=True).launch, a, lambda: None)
        ib = triton_ir.record(make_module(fp_fusion=False).launch, b, lambda: None)
        self.assertEqual([e["files"] for e in ia["launches"]], [e["files"] for e in ib["launches"]])
        self.assertNotEqual(ia["launches"][0]["hash"], ib["launches"][0]["hash"])
        self.assertNotEqual(read(a, "0-softmax_kernel-w4-s3-BLOCK1024/softmax_kernel.ttgir"), read(b, "0-softmax_kernel-w4-s3-BLOCK1024/softmax_kernel.ttgir"))
        self.assertEqual(read(a, "0-softmax_kernel-w4-s3-BLOCK1024/softmax_kernel.ptx"), read(b, "0-softmax_kernel-w4-s3-BLOCK1024/softmax_kernel.ptx"))

    def test_a_users_hook_is_called_and_put_back(self):
        seen = []
        triton.knobs.runtime.launch_enter_hook = lambda md: seen.append(md.data["name"])
        self.addCleanup(setattr, triton.knobs.runtime, "launch_enter_hook", None)
        mine = triton.knobs.runtime.launch_enter_hook
        triton_ir.record(make_module().launch, self.folder, lambda: None)
        self.assertEqual(seen, ["softmax_kernel", "norm_kernel", "norm_kernel"])
        self.assertIs(triton.knobs.runtime.launch_enter_hook, mine)

    def test_the_hook_is_removed_when_the_launch_fails(self):
        def broken():
            make_module().softmax.launch(BLOCK=64)
            raise ValueError("shape mismatch")
        with self.assertRaises(ValueError):
            triton_ir.record(broken, self.folder, lambda: None)
        self.assertIsNone(triton.knobs.runtime.launch_enter_hook)
        self.assertFalse(os.path.exists(os.path.join(self.folder, triton_ir.FOLDER, triton_ir.INDEX)))

    def test_a_kernel_outside_the_modules_is_named_not_guessed(self):
        stray = triton.jit(lambda BLOCK: None)  # in no module's globals
        module = make_module()

        def launch():
            stray.launch(BLOCK=32)
            module.softmax.launch(BLOCK=1024)
        index = triton_ir.record(launch, self.folder, lambda: None)
        self.assertIn("not among the JIT functions", index["launches"][0]["missing"])
        self.assertNotIn("files", index["launches"][0])
        self.assertEqual(index["launches"][1]["files"][0], "1-softmax_kernel-w4-s3-BLOCK1024/softmax_kernel.ttir")

    def test_sass_by_cuobjdump_or_the_reason_why_not(self):
        module = make_module()
        module.launch()
        launches = [("softmax_kernel", module.softmax.device_caches[0][0][((("BLOCK", 1024),), 4, True)].function)]
        index = triton_ir.write(launches, self.folder, tool=None, find_tool=False)
        self.assertEqual(index["launches"][0]["sass"], "no cuobjdump on PATH or under CUDA_HOME")
        tool = os.path.join(self.folder, "cuobjdump")
        with open(tool, "w") as f:
            f.write("#!/bin/sh\necho \"Fatbin elf code: $2\"\necho \"        /*0000*/  MOV R1, c[0x0][0x28] ;\"\n")
        os.chmod(tool, os.stat(tool).st_mode | stat.S_IEXEC)
        index = triton_ir.write(launches, self.folder, tool=tool)
        self.assertNotIn("sass", index["launches"][0])
        self.assertEqual(read(self.folder, "0-softmax_kernel-w4-s3-BLOCK1024/softmax_kernel.sass"), "        /*0000*/  MOV R1, c[0x0][0x28] ;\n")
        failing = os.path.join(self.folder, "false-cuobjdump")
        with open(failing, "w") as f:
            f.write("#!/bin/sh\necho 'not a cubin' >&2\nexit 1\n")
        os.chmod(failing, os.stat(failing).st_mode | stat.S_IEXEC)
        index = triton_ir.write(launches, self.folder, tool=failing)
        self.assertEqual(index["launches"][0]["sass"], "cuobjdump exited 1: not a cubin")

    def test_an_instances_kernels_are_disassembled_side_by_side(self):
        # Each stand-in cuobjdump waits until all three of the instance's have started: run one
        # after another, the first would give up waiting and fail.
        marks = tempfile.mkdtemp(dir=self.folder)
        tool = os.path.join(self.folder, "cuobjdump-together")
        with open(tool, "w") as f:
            f.write("#!/bin/sh\ntouch %s/started.$$\nfor i in $(seq 100); do\n"
                    "  [ $(ls %s | wc -l) -ge 3 ] && { echo '  MOV R1 ;'; exit 0; }\n  sleep 0.05\ndone\n"
                    "echo 'ran alone' >&2\nexit 1\n" % (marks, marks))
        os.chmod(tool, os.stat(tool).st_mode | stat.S_IEXEC)
        module = make_module()
        with triton_ir.LaunchCapture() as capture:
            module.launch()
        index = triton_ir.write(capture.launches, self.folder, tool=tool)
        self.assertEqual([e.get("sass") for e in index["launches"]], [None, None, None])
        self.assertEqual([e["files"][-1] for e in index["launches"]],
                         ["0-softmax_kernel-w4-s3-BLOCK1024/softmax_kernel.sass",
                          "1-norm_kernel-w8-s3-BLOCK256/norm_kernel.sass",
                          "2-norm_kernel-w4-s3-BLOCK512/norm_kernel.sass"])

    def _tool(self, name, script):
        tool = os.path.join(self.folder, name)
        with open(tool, "w") as f:
            f.write("#!/bin/sh\n" + script)
        os.chmod(tool, os.stat(tool).st_mode | stat.S_IEXEC)
        return tool

    def test_a_worker_leaves_the_sass_to_the_orchestrator(self):
        index = triton_ir.record(make_module().launch, self.folder, lambda: None, defer_sass=True)
        first = index["launches"][0]
        self.assertEqual(first["cubin"], "0-softmax_kernel-w4-s3-BLOCK1024/softmax_kernel.cubin")
        self.assertTrue(read(self.folder, first["cubin"]).startswith("\x7fELF fake cubin"))
        self.assertNotIn("0-softmax_kernel-w4-s3-BLOCK1024/softmax_kernel.sass", first["files"])
        # The orchestrator's step, after the samples: the command line of the module, with the
        # cuobjdump it finds on PATH.
        bin_dir = tempfile.mkdtemp(dir=self.folder)
        tool = os.path.join(bin_dir, "cuobjdump")
        with open(tool, "w") as f:
            f.write("#!/bin/sh\necho \"Fatbin elf code: $2\"\necho '  MOV R1 ;'\n")
        os.chmod(tool, os.stat(tool).st_mode | stat.S_IEXEC)
        path = os.environ["PATH"]
        os.environ["PATH"] = bin_dir + os.pathsep + path
        self.addCleanup(os.environ.__setitem__, "PATH", path)
        self.assertEqual(triton_ir.main(["sass", os.path.dirname(self.folder) + "/" + os.path.basename(self.folder)]), 0)
        on_disk = json.loads(read(self.folder, triton_ir.INDEX))
        for entry in on_disk["launches"]:
            self.assertNotIn("cubin", entry)
            self.assertEqual(entry["files"][-1][-5:], ".sass")
            self.assertEqual(read(self.folder, entry["files"][-1]), "  MOV R1 ;\n")  # its header line dropped
        self.assertFalse(os.path.exists(os.path.join(self.folder, triton_ir.FOLDER, first["cubin"])))
        self.assertEqual(triton_ir.finish_sass([self.folder], tool=tool), 0)  # nothing left to do
        self.assertEqual(triton_ir.main(["sass"]), 2)

    def test_a_failed_disassembly_says_why_and_the_cubin_goes(self):
        triton_ir.record(make_module().launch, self.folder, lambda: None, defer_sass=True)
        failing = self._tool("false-cuobjdump", "echo 'not a cubin' >&2\nexit 1\n")
        self.assertEqual(triton_ir.finish_sass([self.folder], tool=failing), 3)
        on_disk = json.loads(read(self.folder, triton_ir.INDEX))
        self.assertEqual([e["sass"] for e in on_disk["launches"]], ["cuobjdump exited 1: not a cubin"] * 3)
        self.assertEqual(triton_ir.finish_sass([self.folder], tool=None, find_tool=False), 0)

    def test_the_first_worker_writes_later_ones_leave_it(self):
        self.assertTrue(triton_ir.wanted(self.folder))
        triton_ir.record(make_module().launch, self.folder, lambda: None)
        self.assertFalse(triton_ir.wanted(self.folder))
        self.assertFalse(triton_ir.wanted(None))

    def test_the_folder_comes_from_the_c_environment(self):
        libc = ctypes.CDLL(None)
        libc.setenv.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
        libc.setenv(b"ISOBENCH_ARTIFACT_DIR", self.folder.encode(), 1)
        self.addCleanup(libc.unsetenv, b"ISOBENCH_ARTIFACT_DIR")
        self.assertNotIn("ISOBENCH_ARTIFACT_DIR", os.environ)  # setenv() after start: only C sees it
        self.assertEqual(triton_ir.artifact_folder(), self.folder)


if __name__ == "__main__":
    unittest.main()
