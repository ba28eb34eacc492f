"""triton.knobs of the stand-in: the runtime hooks (Triton 3.4 on keeps them here)."""


class _Runtime:
    launch_enter_hook = None
    launch_exit_hook = None


runtime = _Runtime()
