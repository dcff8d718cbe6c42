"""DCGAN (the TF tutorial) on minitf: generate handwritten digits.

    python examples/dcgan.py                          # built-in digits, ~8 minutes on a 2-core CPU
    python examples/dcgan.py --dataset mnist --epochs 50 --batch-size 256   # the tutorial's run
    python examples/dcgan.py --resume                 # continue from the latest checkpoint

The generator and discriminator, their losses, the two Adam(1e-4) optimizers and the two-tape
train_step follow the tutorial. Every epoch a 4x4 grid generated from a fixed seed is saved as
<out>/image_at_epoch_NNNN.png and a checkpoint is written; at the end the grids become dcgan.gif.
"""
import argparse
import glob
import os
import sys
import time

from tqdm import tqdm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minitf as tf  # noqa: E402
from _common import load_images, output_dir, save_grid_png  # noqa: E402

layers = None  # set in main() so importing this module stays cheap
NOISE_DIM = 100
SAMPLES_TAKE_SHAPE = 20  # epochs (at the defaults) before the generated digits are recognisable


def make_generator_model():
    """Noise [100] -> 7x7x256 -> 7x7x128 -> 14x14x64 -> 28x28x1 image in [-1, 1]."""
    model = tf.keras.Sequential()
    model.add(layers.Dense(7 * 7 * 256, use_bias=False, input_shape=(NOISE_DIM,)))
    model.add(layers.BatchNormalization())
    model.add(layers.LeakyReLU())
    model.add(layers.Reshape((7, 7, 256)))
    model.add(layers.Conv2DTranspose(128, (5, 5), strides=(1, 1), padding="same", use_bias=False))
    model.add(layers.BatchNormalization())
    model.add(layers.LeakyReLU())
    model.add(layers.Conv2DTranspose(64, (5, 5), strides=(2, 2), padding="same", use_bias=False))
    model.add(layers.BatchNormalization())
    model.add(layers.LeakyReLU())
    model.add(layers.Conv2DTranspose(1, (5, 5), strides=(2, 2), padding="same", use_bias=False,
                                     activation="tanh"))
    return model


def make_discriminator_model():
    """28x28x1 image -> one logit: real (positive) or generated (negative)."""
    model = tf.keras.Sequential()
    model.add(layers.Conv2D(64, (5, 5), strides=(2, 2), padding="same", input_shape=[28, 28, 1]))
    model.add(layers.LeakyReLU())
    model.add(layers.Dropout(0.3))
    model.add(layers.Conv2D(128, (5, 5), strides=(2, 2), padding="same"))
    model.add(layers.LeakyReLU())
    model.add(layers.Dropout(0.3))
    model.add(layers.Flatten())
    model.add(layers.Dense(1))
    return model


class DCGAN:
    """The tutorial's models, losses, optimizers and train_step, plus checkpointing."""

    def __init__(self, learning_rate, batch_size, out):
        self.generator = make_generator_model()
        self.discriminator = make_discriminator_model()
        self.cross_entropy = tf.keras.losses.BinaryCrossentropy(from_logits=True)
        self.generator_optimizer = tf.keras.optimizers.Adam(learning_rate)
        self.discriminator_optimizer = tf.keras.optimizers.Adam(learning_rate)
        self.batch_size = batch_size
        self.epoch = tf.Variable(0, dtype=tf.int64, trainable=False)
        self.checkpoint = tf.train.Checkpoint(
            generator_optimizer=self.generator_optimizer,
            discriminator_optimizer=self.discriminator_optimizer,
            generator=self.generator, discriminator=self.discriminator, epoch=self.epoch)
        self.manager = tf.train.CheckpointManager(self.checkpoint, os.path.join(out, "training_checkpoints"),
                                                  max_to_keep=3)

    def discriminator_loss(self, real_output, fake_output):
        """Real images should score 1, generated ones 0."""
        real_loss = self.cross_entropy(tf.ones_like(real_output), real_output)
        fake_loss = self.cross_entropy(tf.zeros_like(fake_output), fake_output)
        return real_loss + fake_loss

    def generator_loss(self, fake_output):
        """The generator wins when its images score 1."""
        return self.cross_entropy(tf.ones_like(fake_output), fake_output)

    @tf.function
    def train_step(self, images):
        """One step of both players, each with its own tape."""
        noise = tf.random.normal([self.batch_size, NOISE_DIM])
        with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
            generated_images = self.generator(noise, training=True)
            real_output = self.discriminator(images, training=True)
            fake_output = self.discriminator(generated_images, training=True)
            gen_loss = self.generator_loss(fake_output)
            disc_loss = self.discriminator_loss(real_output, fake_output)
        gradients_of_generator = gen_tape.gradient(gen_loss, self.generator.trainable_variables)
        gradients_of_discriminator = disc_tape.gradient(disc_loss, self.discriminator.trainable_variables)
        self.generator_optimizer.apply_gradients(zip(gradients_of_generator, self.generator.trainable_variables))
        self.discriminator_optimizer.apply_gradients(
            zip(gradients_of_discriminator, self.discriminator.trainable_variables))
        return gen_loss, disc_loss


def make_gif(out):
    """Animate the per-epoch grids into <out>/dcgan.gif (Pillow)."""
    from PIL import Image
    frames = [Image.open(p) for p in sorted(glob.glob(os.path.join(out, "image_at_epoch_*.png")))]
    if not frames:
        return None
    path = os.path.join(out, "dcgan.gif")
    frames[0].save(path, save_all=True, append_images=frames[1:] + frames[-1:] * 3, duration=400, loop=0)
    return path


def main(argv=None):
    """Train the DCGAN and write the image grids, checkpoints and the GIF."""
    global layers
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default="digits", choices=["digits", "mnist", "fashion_mnist"])
    parser.add_argument("--epochs", type=int, default=20)
    # the tutorial's 256 suits a GPU; on a CPU, batches of 32 give 8x the updates per minute
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--num-train", type=int, default=8192, help="images per epoch (0: all)")
    parser.add_argument("--learning-rate", type=float, default=1e-4)
    parser.add_argument("--max-steps", type=int, default=0, help="stop after this many steps (smoke tests)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/dcgan")
    parser.add_argument("--resume", action="store_true", help="continue from the latest checkpoint")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    layers = tf.keras.layers

    tf.keras.utils.set_random_seed(args.seed)  # Python, numpy and TF: what Keras layers seed from
    out = output_dir(args.out)
    (train_images, _), _ = load_images(args.dataset, num_train=args.num_train or None, num_test=16,
                                       seed=args.seed)
    train_images = (train_images.reshape(-1, 28, 28, 1).astype("float32") - 127.5) / 127.5
    dataset = tf.data.Dataset.from_tensor_slices(train_images).shuffle(
        len(train_images), seed=args.seed).batch(args.batch_size, drop_remainder=True)

    gan = DCGAN(args.learning_rate, args.batch_size, out)
    seed = tf.random.normal([16, NOISE_DIM], seed=args.seed + 1)  # fixed: the same 16 digits each epoch
    if args.resume and gan.manager.latest_checkpoint:
        gan.checkpoint.restore(gan.manager.latest_checkpoint)
        print(f"resumed from {gan.manager.latest_checkpoint} (epoch {int(gan.epoch)})")

    steps = 0
    while int(gan.epoch) < args.epochs:
        start = time.time()
        bar = tqdm(dataset, desc=f"epoch {int(gan.epoch) + 1}/{args.epochs}", leave=False,
                   disable=args.quiet, mininterval=0.5)
        for image_batch in bar:
            gen_loss, disc_loss = gan.train_step(image_batch)
            steps += 1
            bar.set_postfix(gen=f"{float(gen_loss):.3f}", disc=f"{float(disc_loss):.3f}", refresh=False)
            if args.max_steps and steps >= args.max_steps:
                break
        gan.epoch.assign_add(1)
        predictions = gan.generator(seed, training=False)
        save_grid_png(predictions.numpy() * 0.5 + 0.5,
                      os.path.join(out, f"image_at_epoch_{int(gan.epoch):04d}.png"))
        gan.manager.save()
        print(f"epoch {int(gan.epoch)}: gen loss {float(gen_loss):.3f}, disc loss {float(disc_loss):.3f} "
              f"({time.time() - start:.0f} s)")
        if args.max_steps and steps >= args.max_steps:
            break
    gif = make_gif(out)
    print(f"images and {gif} in {out}")
    if int(gan.epoch) < SAMPLES_TAKE_SHAPE:
        print(f"note: after {int(gan.epoch)} epoch(s) the samples are still mostly noise (dark grids); "
              f"digits take shape after about {SAMPLES_TAKE_SHAPE} epochs (the default --epochs)")
    return gan


if __name__ == "__main__":
    main()
