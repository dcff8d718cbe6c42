"""Safe mode is per thread: one thread's SafeModeScope(False) never unlocks another thread."""
import threading

import numpy as np
import pytest

import minitf as tf
from minitf.layers import serialization as S

_WAIT_S = 10


def _lambda_config():
    config = tf.keras.layers.serialize(tf.keras.layers.Lambda(lambda t: t * 3.0))
    assert config["config"]["function"]["class_name"] == "__lambda__"  # python bytecode inside
    return config


@pytest.fixture
def restore_safe_mode():
    before = S._safe_mode.enabled
    yield
    S._safe_mode.enabled = before


def _run_threads(*targets):
    errors = []

    def guarded(fn):
        def run():
            try:
                fn()
            except BaseException as e:  # reported to the main thread below
                errors.append(e)
        return run
    threads = [threading.Thread(target=guarded(fn)) for fn in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(_WAIT_S)
        assert not t.is_alive(), "a test thread hung"
    if errors:
        raise errors[0]


def test_unsafe_scope_in_one_thread_does_not_unlock_another():
    config = _lambda_config()
    a_inside, b_done = threading.Event(), threading.Event()
    results = {}

    def thread_a():
        with S.SafeModeScope(False):
            a_inside.set()
            assert b_done.wait(_WAIT_S)  # B deserializes while A's unsafe scope is open
            assert not S.in_safe_mode()
            results["a"] = tf.keras.layers.deserialize(config)

    def thread_b():
        assert a_inside.wait(_WAIT_S)
        try:
            results["b_safe"] = S.in_safe_mode()
            with pytest.raises(ValueError, match="enable_unsafe_deserialization") as info:
                tf.keras.layers.deserialize(config)
            results["b_error"] = info.value
        finally:
            b_done.set()

    _run_threads(thread_a, thread_b)
    assert results["b_safe"] is True
    assert "lambda" in str(results["b_error"])
    layer = results["a"]
    np.testing.assert_allclose(layer(tf.constant([2.0])).numpy(), [6.0])
    assert S.in_safe_mode()  # the main thread was never affected either


def test_safe_scope_in_one_thread_leaves_another_unsafe_scope_alone():
    config = _lambda_config()
    b_inside, a_done = threading.Event(), threading.Event()
    results = {}

    def thread_a():  # strict scope opened while B is inside its unsafe one
        assert b_inside.wait(_WAIT_S)
        try:
            with S.SafeModeScope(True):
                with pytest.raises(ValueError):
                    tf.keras.layers.deserialize(config)
        finally:
            a_done.set()

    def thread_b():
        with S.SafeModeScope(False):
            b_inside.set()
            assert a_done.wait(_WAIT_S)
            results["b"] = tf.keras.layers.deserialize(config)  # A's exit did not reset B's scope

    _run_threads(thread_a, thread_b)
    assert isinstance(results["b"], tf.keras.layers.Lambda)


def test_the_unsafe_switch_is_per_thread_as_in_keras_3(restore_safe_mode):
    # Keras 3 keeps enable_unsafe_deserialization() in thread-local state: other threads stay safe
    config = _lambda_config()
    S.enable_unsafe_deserialization()
    assert S.in_safe_mode() is False
    results = {}

    def worker():
        results["default"] = S.in_safe_mode()
        with pytest.raises(ValueError, match="enable_unsafe_deserialization"):
            tf.keras.layers.deserialize(config)
        with S.SafeModeScope(False):
            results["layer"] = tf.keras.layers.deserialize(config)

    _run_threads(worker)
    assert results["default"] is True
    assert isinstance(results["layer"], tf.keras.layers.Lambda)
    with S.SafeModeScope(True):  # a scope still overrides the switch in its own thread
        with pytest.raises(ValueError):
            tf.keras.layers.deserialize(config)


def test_scopes_nest_and_none_keeps_the_enclosing_setting():
    assert S.in_safe_mode()
    with S.SafeModeScope(False):
        with S.SafeModeScope(None):
            assert not S.in_safe_mode()
        with S.SafeModeScope(True):
            assert S.in_safe_mode()
        assert not S.in_safe_mode()
    with S.SafeModeScope(None):
        assert S.in_safe_mode()
    assert S.in_safe_mode()


def test_scope_is_restored_when_loading_raises():
    with pytest.raises(RuntimeError):
        with S.SafeModeScope(False):
            raise RuntimeError("boom")
    assert S.in_safe_mode()
