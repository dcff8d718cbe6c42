"""The namespaces and classes `minitf` loads on first use: each one resolves, `dir(tf)` lists them,
and names minitf does not have answer `hasattr` with False (not an import error)."""
import minitf as tf


def test_every_lazy_name_resolves_and_is_listed():
    for name in dir(tf):
        getattr(tf, name)  # resolves (tf.newaxis is None)
        assert name in dir(tf)


def test_missing_names_answer_hasattr_with_false():
    assert not hasattr(tf, "tpu")  # a TF namespace minitf does not have
    assert not hasattr(tf, "no_such_namespace")
