"""The style-transfer example runs end to end, lowers its loss, writes PNGs and resumes."""
import os
import re
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "examples", "style_transfer.py")


def _run(tmp_path, *extra):
    env = dict(os.environ, MINITF_HOME=str(tmp_path / "home"), PYTHONPATH=ROOT)
    proc = subprocess.run([sys.executable, SCRIPT, "--size", "32", "--out", str(tmp_path / "out"),
                           "--quiet", *extra], capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    print(proc.stdout)
    return proc.stdout


def _loss(stdout, which):
    return float(re.search(rf"{which} loss ([0-9.eE+-]+)", stdout).group(1))


def test_runs_lowers_loss_and_resumes(tmp_path):
    from PIL import Image
    out = _run(tmp_path, "--steps", "6", "--save-every", "3")
    assert "random multi-scale conv net" in out  # no weights in the fresh cache
    initial, final = _loss(out, "initial"), _loss(out, "final")
    assert final < initial
    for name in ("stylized.png", "step_0003.png", "step_0006.png"):
        assert os.path.exists(tmp_path / "out" / name)
    img = np.asarray(Image.open(tmp_path / "out" / "stylized.png"))
    assert img.shape == (32, 32, 3) and img.std() > 0
    resumed = _run(tmp_path, "--steps", "9", "--save-every", "3", "--resume")
    assert "at step 6" in resumed
    assert abs(_loss(resumed, "initial") - final) <= 1e-4 * abs(final)
    assert os.path.exists(tmp_path / "out" / "step_0009.png")
    # resuming continues the same optimisation: 6 + 3 steps end where 9 straight steps end (Adam's
    # first steps may overshoot, so the loss need not fall from step 6 to step 9)
    straight = _run(tmp_path / "straight", "--steps", "9", "--save-every", "100")
    assert abs(_loss(resumed, "final") - _loss(straight, "final")) <= 1e-4 * abs(_loss(straight, "final"))
    assert _loss(straight, "final") < _loss(out, "initial")


def test_random_net_moves_toward_the_style(monkeypatch):
    """Without weights, 60 steps at 64 px cut the style loss by well over 30% (the tutorial's VGG
    weights on the random net left the image pinned to the content) and keep pixels in [0, 1]."""
    monkeypatch.syspath_prepend(os.path.join(ROOT, "examples"))
    import minitf as tf
    import style_transfer as S
    content = tf.constant(S.synthetic_content(64)[None])
    style = tf.constant(S.synthetic_style(64)[None])
    st = S.StyleTransfer(content, style)
    assert (st.style_weight, st.content_weight, st.total_variation_weight) == (
        S.RANDOM_NET_STYLE_WEIGHT, S.RANDOM_NET_CONTENT_WEIGHT, S.RANDOM_NET_TOTAL_VARIATION_WEIGHT)

    def style_loss():
        outputs = st.extractor(st.image)["style"]
        return sum(float(tf.reduce_mean((outputs[n] - st.style_targets[n]) ** 2).numpy()) for n in outputs)

    before, total_before = style_loss(), float(st.total_loss(st.image).numpy()[0])
    for _ in range(60):
        st.train_step(st.image)
    after, total_after = style_loss(), float(st.total_loss(st.image).numpy()[0])
    assert after < 0.7 * before, (before, after)
    assert total_after < 0.9 * total_before, (total_before, total_after)
    image = st.image.numpy()
    assert image.shape == (1, 64, 64, 3) and image.min() >= 0.0 and image.max() <= 1.0
    # It moved away from the content: the style changed the picture visibly, not by rounding.
    assert np.abs(image - content.numpy()).mean() > 0.05


def test_vgg_path_keeps_the_tutorial_weights(monkeypatch):
    """With real weights StyleTransfer uses the tutorial's loss weights (1e-2, 1e4, 30)."""
    monkeypatch.syspath_prepend(os.path.join(ROOT, "examples"))
    import minitf as tf
    import style_transfer as S
    seen = []
    real_vgg_layers = S.vgg_layers

    def fake_vgg_layers(names, weights=None):  # stands in for VGG19: no weights file in tests
        seen.append(weights)
        return real_vgg_layers(names, None)

    monkeypatch.setattr(S, "vgg_layers", fake_vgg_layers)
    image = tf.constant(S.synthetic_content(32)[None])
    st = S.StyleTransfer(image, image, weights="vgg19.h5")
    assert seen == ["vgg19.h5"]
    assert (st.style_weight, st.content_weight, st.total_variation_weight) == (1e-2, 1e4, 30)
    st = S.StyleTransfer(image, image, weights="vgg19.h5", content_weight=5.0)
    assert (st.style_weight, st.content_weight, st.total_variation_weight) == (1e-2, 5.0, 30)
