import pytest

import minitf as tf


@pytest.fixture(autouse=True)
def _float32_policy():
    """Every test starts and ends with the default float32 policy."""
    tf.keras.mixed_precision.set_global_policy("float32")
    yield
    tf.keras.mixed_precision.set_global_policy("float32")
