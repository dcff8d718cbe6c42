"""The malloc tuning: opt-in (never applied by a plain import), effective on glibc Linux."""
import os
import subprocess
import sys

import pytest

from minitf import _host_tuning


@pytest.mark.parametrize("value,expected", [(None, False), ("", False), ("1", True), ("0", False),
                                            ("off", False), (" True ", True), ("no", False), ("yes", True)])
def test_switch(value, expected):
    environ = {} if value is None else {"MINITF_HOST_MALLOC_TUNING": value}
    assert _host_tuning.enabled(environ) is expected


def test_not_requested_does_nothing():
    assert _host_tuning.apply_if_requested({}) is False
    assert _host_tuning.apply_if_requested({"MINITF_HOST_MALLOC_TUNING": "0"}) is False


def _glibc():
    if not sys.platform.startswith("linux"):
        pytest.skip("mallopt is glibc's")
    import ctypes
    try:
        ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        pytest.skip("not glibc")


def test_thresholds_are_accepted_on_glibc():
    _glibc()
    assert _host_tuning.keep_freed_memory() is True
    assert _host_tuning.apply_if_requested({"MINITF_HOST_MALLOC_TUNING": "1"}) is True


def test_public_switch_is_in_config():
    _glibc()
    import minitf as tf
    assert tf.config.experimental.keep_freed_memory() is True


def test_import_does_not_tune_malloc():
    # a plain import must not call mallopt: import minitf in a fresh interpreter that spies on it
    code = ("import ctypes\n"
            "calls, real = [], ctypes.CDLL\n"
            "class Spy:\n"
            "    def __init__(self, name, *args, **kwargs):\n"
            "        self._lib = real(name, *args, **kwargs)\n"
            "    def __getattr__(self, attr):\n"
            "        calls.extend([attr] if attr == 'mallopt' else [])\n"
            "        return getattr(self._lib, attr)\n"
            "ctypes.CDLL = Spy\n"
            "import minitf\n"
            "print(len(calls))\n")
    env = {k: v for k, v in os.environ.items() if k != "MINITF_HOST_MALLOC_TUNING"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "0"
    if sys.platform.startswith("linux"):
        env["MINITF_HOST_MALLOC_TUNING"] = "1"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
        assert out.stdout.strip() == "1"
