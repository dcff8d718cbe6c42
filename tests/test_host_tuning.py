"""The malloc tuning applied at import: switchable, and effective on glibc Linux."""
import sys

import pytest

from minitf import _host_tuning


@pytest.mark.parametrize("value,expected", [(None, True), ("1", True), ("0", False), ("off", False),
                                            (" False ", False), ("no", False), ("yes", True)])
def test_switch(value, expected):
    environ = {} if value is None else {"MINITF_HOST_TUNING": value}
    assert _host_tuning.enabled(environ) is expected


def test_disabled_tuning_does_nothing():
    assert _host_tuning.keep_freed_memory({"MINITF_HOST_TUNING": "0"}) is False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mallopt is glibc's")
def test_thresholds_are_accepted_on_glibc():
    import ctypes
    try:
        ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        pytest.skip("not glibc")
    assert _host_tuning.keep_freed_memory({}) is True
