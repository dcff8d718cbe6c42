"""Neural style transfer (the TF tutorial) on minitf: paint a content image in a style's texture.

    python examples/style_transfer.py                                  # built-in images, no weights
    python examples/style_transfer.py --weights vgg19_weights_tf_dim_ordering_tf_kernels_notop.h5 \
        --content photo.jpg --style painting.jpg --size 256 --steps 1000
    python examples/style_transfer.py --resume                        # continue the last run

As in the tutorial: a feature extractor `vgg_layers(...)` built from
`VGG19(include_top=False)` outputs, Gram-matrix style targets on block1_conv1 ... block5_conv1,
content target block5_conv2, loss = style_weight * style MSE + content_weight * content MSE +
total_variation_weight * tf.image.total_variation, and an image `tf.Variable` optimised with
Adam(learning_rate=0.02, beta_1=0.99, epsilon=1e-1), clipped to [0, 1] after every step.
Stylised images are written to <out>/step_NNNN.png and <out>/stylized.png.

What quality to expect: with the Keras ImageNet VGG19 weights (passed with --weights, or found
in the `tf.keras.utils.get_file` cache under models/) the results are the tutorial's: the
content's shapes rendered with the style's colours and brush strokes; this wants a few hundred
steps at 256-512 pixels, which is slow on a CPU (VGG19 is ~20 GFLOPs per 224x224 forward pass;
use a GPU). Without weights the script uses a seeded random conv net with the same layer names
(`random_multiscale_net`), so the code path is identical (same StyleContentModel, gram_matrix
and train step), with three changes that apply to the random net only:

- the net itself: wider layers (48-128 filters), blurred 2x downsampling instead of 2x2 average
  pooling (whose grid showed up as blocks and lines in the image), the content layer at 1/8 of
  the image size so round shapes stay round, and reflect padding instead of zero padding in
  every conv, so that filters near the edges see mirrored image rather than zeros (which
  left bars along the borders);
- RANDOM_NET_CONTENT_WEIGHT = 3e1 instead of 1e4: random features carry far less content
  information per unit of loss than VGG's, and at 1e4 the content term pinned the image (the
  loss fell 0.2% in 200 steps);
- RANDOM_NET_TOTAL_VARIATION_WEIGHT = 1 instead of 30: the style's sharp strokes have ten times
  the content's total variation, and at 30 the smoothness term alone outweighed the style loss.
  (RANDOM_NET_STYLE_WEIGHT stays the tutorial's 1e-2.)

Random filters still capture only colour statistics and local texture: the output keeps the
content's layout and takes on the style's palette and patchy, edge-rich texture, without the
recognisable brush strokes a trained VGG19 gives. The built-in content and style images are
procedurally generated (a smooth landscape, a colourful stroke pattern), so the script runs
offline with no downloads.
"""
import argparse
import os
import sys

import numpy as np
from tqdm import tqdm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minitf as tf  # noqa: E402
from _common import output_dir  # noqa: E402

CONTENT_LAYERS = ["block5_conv2"]
STYLE_LAYERS = ["block1_conv1", "block2_conv1", "block3_conv1", "block4_conv1", "block5_conv1"]
NOTOP_FILE = "vgg19_weights_tf_dim_ordering_tf_kernels_notop.h5"
# The tutorial's loss weights, used with the real VGG19 weights.
STYLE_WEIGHT, CONTENT_WEIGHT, TOTAL_VARIATION_WEIGHT = 1e-2, 1e4, 30
# The loss weights used with the random stand-in (see the module docstring for why they differ).
RANDOM_NET_STYLE_WEIGHT, RANDOM_NET_CONTENT_WEIGHT, RANDOM_NET_TOTAL_VARIATION_WEIGHT = 1e-2, 3e1, 1


# -- images --------------------------------------------------------------------------------
def synthetic_content(size, seed=0):
    """A smooth landscape: sky gradient, a sun, two rolling hill lines, a lake. [H, W, 3] in [0, 1]."""
    rng = np.random.RandomState(seed)
    y, x = np.mgrid[0:size, 0:size] / float(size)
    img = np.empty((size, size, 3), np.float32)
    sky = np.stack([0.35 + 0.4 * y, 0.55 + 0.3 * y, 0.95 - 0.2 * y], -1)
    img[:] = sky
    sun = (x - 0.72) ** 2 + (y - 0.25) ** 2 < 0.012
    img[sun] = (1.0, 0.85, 0.3)
    phase = rng.uniform(0, 2 * np.pi, 2)
    far = 0.55 + 0.06 * np.sin(6 * x + phase[0])
    near = 0.7 + 0.05 * np.sin(9 * x + phase[1])
    img[y > far] = np.stack([0.25 + 0 * y, 0.45 - 0.2 * (y - 0.5), 0.3 + 0 * y], -1)[y > far]
    img[y > near] = np.stack([0.15 + 0 * y, 0.6 - 0.3 * (y - 0.7), 0.15 + 0 * y], -1)[y > near]
    lake = (y > 0.82) & ((x - 0.35) ** 2 / 0.09 + (y - 0.92) ** 2 / 0.012 < 1)
    img[lake] = (0.2, 0.4, 0.8)
    return np.clip(img, 0, 1)


def synthetic_style(size, seed=1, strokes=220):
    """A colourful texture of short, thick, oriented strokes on a warm background."""
    rng = np.random.RandomState(seed)
    palette = np.array([[0.95, 0.75, 0.1], [0.1, 0.3, 0.75], [0.85, 0.2, 0.15], [0.1, 0.6, 0.5],
                        [0.95, 0.95, 0.85], [0.3, 0.1, 0.4]], np.float32)
    y, x = np.mgrid[0:size, 0:size] / float(size)
    img = np.stack([0.9 - 0.3 * y, 0.6 + 0 * x, 0.3 + 0.2 * x], -1).astype(np.float32)
    for _ in range(strokes):
        cx, cy = rng.uniform(0, 1, 2)
        angle = rng.uniform(0, np.pi)
        length, width = rng.uniform(0.05, 0.2), rng.uniform(0.008, 0.025)
        u = (x - cx) * np.cos(angle) + (y - cy) * np.sin(angle)
        v = -(x - cx) * np.sin(angle) + (y - cy) * np.cos(angle)
        mask = (np.abs(u) < length / 2) & (np.abs(v) < width * (1 + 0.5 * np.sin(40 * u)))
        img[mask] = palette[rng.randint(len(palette))] * rng.uniform(0.8, 1.1)
    return np.clip(img, 0, 1)


def load_img(path, max_dim):
    """An image file as [1, H, W, 3] float32 in [0, 1], longest side scaled to `max_dim`."""
    from PIL import Image
    img = Image.open(path).convert("RGB")
    scale = max_dim / max(img.size)
    img = img.resize((max(1, round(img.size[0] * scale)), max(1, round(img.size[1] * scale))),
                     Image.BILINEAR)
    return tf.constant(np.asarray(img, np.float32)[None] / 255.0)


def save_png(image, path):
    """Write a [1, H, W, 3] image in [0, 1] as a PNG."""
    from PIL import Image
    pixels = (np.clip(np.asarray(image)[0], 0, 1) * 255).round().astype(np.uint8)
    Image.fromarray(pixels).save(path)
    return path


# -- the feature extractor ------------------------------------------------------------------
def find_cached_weights():
    """The VGG19 notop h5 file in the get_file cache, or None."""
    from minitf.utils.data_utils import cache_root
    path = os.path.join(cache_root(None), "models", NOTOP_FILE)
    return path if os.path.exists(path) else None


def _reflect_pad_1(features):
    """Mirror one pixel around a feature map: a 3x3 'valid' conv after it keeps the size."""
    return tf.pad(features, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")


def random_multiscale_net(seed=0):
    """A seeded random conv net with VGG19's layer names, built for texture statistics.

    One wide ReLU conv per block for the five style layers, each reflect-padded instead of
    zero-padded (zero padding made the edge pixels special, and the optimiser painted bars along
    the borders), blurred 2x downsampling after blocks 1-3 (a [1, 2, 1] binomial filter from two
    2x2 average pools: plain 2x2 pooling left its grid in the image), and blocks 4-5 at 1/8
    resolution so the content layer block5_conv2 still holds the layout.
    """
    layers = tf.keras.layers
    inputs = tf.keras.Input(shape=(None, None, 3))
    x = inputs
    for block, (filters, convs, downsample) in enumerate(
            ((48, 1, True), (64, 1, True), (96, 1, True), (128, 1, False), (128, 2, False)), 1):
        for i in range(1, convs + 1):
            init = tf.keras.initializers.HeNormal(seed=seed + 10 * block + i)
            x = layers.Lambda(_reflect_pad_1, name=f"block{block}_pad{i}")(x)
            x = layers.Conv2D(filters, 3, padding="valid", activation="relu",
                              kernel_initializer=init, name=f"block{block}_conv{i}")(x)
        if downsample:
            x = layers.AveragePooling2D(2, strides=1, padding="same", name=f"block{block}_blur")(x)
            x = layers.AveragePooling2D(2, name=f"block{block}_pool")(x)
    return tf.keras.Model(inputs, x, name="vgg19_random")


def vgg_layers(layer_names, weights=None):
    """A Model from an image to the outputs of `layer_names` of VGG19 (or its random stand-in)."""
    if weights:
        base = tf.keras.applications.VGG19(include_top=False, weights=weights)
    else:
        base = random_multiscale_net()
    base.trainable = False
    outputs = [base.get_layer(name).output for name in layer_names]
    return tf.keras.Model([base.input], outputs)


def gram_matrix(input_tensor):
    """Channel-by-channel feature correlations, averaged over spatial locations: [B, C, C]."""
    result = tf.linalg.einsum("bijc,bijd->bcd", input_tensor, input_tensor)
    shape = tf.shape(input_tensor)
    num_locations = tf.cast(shape[1] * shape[2], tf.float32)
    return result / num_locations


class StyleContentModel(tf.keras.models.Model):
    """Image in [0, 1] -> {'style': {layer: gram}, 'content': {layer: features}}."""

    def __init__(self, style_layers, content_layers, weights=None):
        super().__init__()
        self.vgg = vgg_layers(style_layers + content_layers, weights)
        self.style_layers = style_layers
        self.content_layers = content_layers
        self.num_style_layers = len(style_layers)
        self.vgg.trainable = False

    def call(self, inputs):
        """Style Gram matrices and content features of `inputs` (values in [0, 1])."""
        inputs = inputs * 255.0
        preprocessed = tf.keras.applications.vgg19.preprocess_input(inputs)
        outputs = self.vgg(preprocessed)
        style_outputs = [gram_matrix(o) for o in outputs[:self.num_style_layers]]
        content_outputs = outputs[self.num_style_layers:]
        return {"content": dict(zip(self.content_layers, content_outputs)),
                "style": dict(zip(self.style_layers, style_outputs))}


def clip_0_1(image):
    """Keep pixel values in [0, 1]."""
    return tf.clip_by_value(image, clip_value_min=0.0, clip_value_max=1.0)


class StyleTransfer:
    """The targets, losses, optimizer and @tf.function train step of the tutorial."""

    def __init__(self, content_image, style_image, weights=None, style_weight=None,
                 content_weight=None, total_variation_weight=None):
        # None: the tutorial's weights with VGG19, the RANDOM_NET_* ones with the random net.
        defaults = ((STYLE_WEIGHT, CONTENT_WEIGHT, TOTAL_VARIATION_WEIGHT) if weights else
                    (RANDOM_NET_STYLE_WEIGHT, RANDOM_NET_CONTENT_WEIGHT, RANDOM_NET_TOTAL_VARIATION_WEIGHT))
        style_weight, content_weight, total_variation_weight = (
            d if v is None else v
            for v, d in zip((style_weight, content_weight, total_variation_weight), defaults))
        self.extractor = StyleContentModel(STYLE_LAYERS, CONTENT_LAYERS, weights)
        self.style_targets = self.extractor(style_image)["style"]
        self.content_targets = self.extractor(content_image)["content"]
        self.style_weight = style_weight
        self.content_weight = content_weight
        self.total_variation_weight = total_variation_weight
        self.image = tf.Variable(content_image)
        self.opt = tf.keras.optimizers.Adam(learning_rate=0.02, beta_1=0.99, epsilon=1e-1)
        self.train_step = tf.function(self._train_step)

    def style_content_loss(self, outputs):
        """Weighted mean squared distance to the style Gram and content feature targets."""
        style, content = outputs["style"], outputs["content"]
        style_loss = tf.add_n([tf.reduce_mean((style[n] - self.style_targets[n]) ** 2)
                               for n in style])
        style_loss *= self.style_weight / len(style)
        content_loss = tf.add_n([tf.reduce_mean((content[n] - self.content_targets[n]) ** 2)
                                 for n in content])
        content_loss *= self.content_weight / len(content)
        return style_loss + content_loss

    def total_loss(self, image):
        """The full objective for `image`: style + content + total variation."""
        loss = self.style_content_loss(self.extractor(image))
        return loss + self.total_variation_weight * tf.image.total_variation(image)

    def _train_step(self, image):
        with tf.GradientTape() as tape:
            loss = self.total_loss(image)
        grad = tape.gradient(loss, image)
        self.opt.apply_gradients([(grad, image)])
        image.assign(clip_0_1(image))
        return loss


# -- command line ------------------------------------------------------------------------------
def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--content", help="content image file (default: a generated landscape)")
    p.add_argument("--style", help="style image file (default: a generated stroke texture)")
    p.add_argument("--size", type=int, default=128, help="longest side in pixels (default 128)")
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--save-every", type=int, default=50, help="write a PNG every N steps")
    p.add_argument("--weights", help=f"path of {NOTOP_FILE} (default: the get_file cache)")
    p.add_argument("--out", default="runs/style_transfer")
    p.add_argument("--resume", action="store_true", help="continue from the last checkpoint")
    p.add_argument("--quiet", action="store_true")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    out = output_dir(args.out)
    weights = args.weights or find_cached_weights()
    if weights is None:
        print("note: no VGG19 ImageNet weights found (pass --weights); using a fixed random "
              "multi-scale conv net. Expect texture/colour transfer, not the tutorial's quality.")
    content = (load_img(args.content, args.size) if args.content
               else tf.constant(synthetic_content(args.size)[None]))
    style = (load_img(args.style, args.size) if args.style
             else tf.constant(synthetic_style(args.size)[None]))
    st = StyleTransfer(content, style, weights)
    step = tf.Variable(0, dtype=tf.int64)
    ckpt = tf.train.Checkpoint(image=st.image, optimizer=st.opt, step=step)
    manager = tf.train.CheckpointManager(ckpt, os.path.join(out, "ckpt"), max_to_keep=2)
    if args.resume and manager.latest_checkpoint:
        ckpt.restore(manager.latest_checkpoint)
        print(f"resumed from {manager.latest_checkpoint} at step {int(step.numpy())}")
    print(f"initial loss {float(st.total_loss(st.image).numpy()[0]):.6g}")
    start = int(step.numpy())
    bar = tqdm(range(start, args.steps), disable=args.quiet, desc="style transfer")
    for i in bar:
        loss = float(st.train_step(st.image).numpy()[0])
        step.assign_add(1)
        bar.set_postfix(loss=f"{loss:.4g}")
        if (i + 1) % args.save_every == 0:
            save_png(st.image.numpy(), os.path.join(out, f"step_{i + 1:04d}.png"))
            manager.save()
    if start < args.steps:
        manager.save()
    print(f"final loss {float(st.total_loss(st.image).numpy()[0]):.6g}")
    path = save_png(st.image.numpy(), os.path.join(out, "stylized.png"))
    save_png(content.numpy(), os.path.join(out, "content.png"))
    save_png(style.numpy(), os.path.join(out, "style.png"))
    print(f"wrote {path}")
    return path


if __name__ == "__main__":
    main()
