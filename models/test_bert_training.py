"""Checks of the BERT training step (bert_training.py) on the tiny configuration, where torch and
a GPU are (bench/gpu/model_step.sh runs them on the H200; CI has no torch and only compiles this
file). Dropout is off so the modes can be compared: from one seed, the three modes must leave
the same weights after the same steps, the loss must fall, and an eager step must not
synchronise (the worker's events and the capture rely on it)."""

import unittest

try:
    import torch
except ImportError:  # CI: no torch
    torch = None

HAVE_CUDA = torch is not None and torch.cuda.is_available()


def trained(mode, steps=2, adamw="fused"):
    import bert_training
    step = bert_training.bert_training_step("bert-tiny", 2, 16, mode, adamw, seed=7, device="cuda:0",
                                            stream=None, dropout=0.0)
    first = step.last_loss.item()
    for _ in range(steps):
        step.launch()
    torch.cuda.synchronize()
    weights = torch.cat([p.detach().float().flatten() for p in step.model.parameters()])
    return step, first, weights


@unittest.skipUnless(HAVE_CUDA, "needs torch and a CUDA device")
class TrainingStepTest(unittest.TestCase):
    def test_graph_replays_the_eager_step(self):
        _, first, eager = trained("eager")
        step, _, graph = trained("graph")
        torch.testing.assert_close(graph, eager, rtol=1e-2, atol=1e-3)
        self.assertLess(step.last_loss.item(), first)  # the same batch again: the loss falls
        self.assertIsNone(step.check())

    def test_compile_trains_like_eager(self):
        _, _, eager = trained("eager")
        _, _, compiled = trained("compile")
        torch.testing.assert_close(compiled, eager, rtol=5e-2, atol=5e-3)

    def test_foreach_adamw_trains_like_fused(self):
        _, _, fused = trained("eager")
        _, _, foreach = trained("eager", adamw="foreach")
        torch.testing.assert_close(foreach, fused, rtol=1e-2, atol=1e-3)

    def test_an_eager_step_does_not_synchronise(self):
        step, _, _ = trained("eager", steps=0)
        torch.cuda.set_sync_debug_mode("error")
        try:
            step.launch()
        finally:
            torch.cuda.set_sync_debug_mode("default")
        torch.cuda.synchronize()

    def test_bad_parameters_are_refused(self):
        import bert_training
        with self.assertRaisesRegex(ValueError, "mode 'lazy' is not one of eager, graph, compile"):
            bert_training.bert_training_step("bert-tiny", 2, 16, "lazy", "fused", 1, "cuda:0", None)
        with self.assertRaisesRegex(ValueError, "seq 1024 is outside 1..512"):
            bert_training.bert_training_step("bert-tiny", 2, 1024, "eager", "fused", 1, "cuda:0", None)


if __name__ == "__main__":
    unittest.main()
