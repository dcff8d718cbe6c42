"""Parity rows for the image codecs under tf.image (the tf.io functions, one object in both
namespaces in TF and here): decoded pixels of the same encoded bytes, and encode-then-decode round
trips. Encoded bytes themselves are not compared: encoders may order headers differently."""
import io

from hypothesis import strategies as st
from PIL import Image

from parity_strategies import cases, values
from parity_table import Table

TABLE = Table()
add = TABLE.add

_MODES = {1: "L", 3: "RGB", 4: "RGBA"}


@st.composite
def images(draw, channels=(1, 3, 4)):
    """A uint8 image [h, w, c] with small sides."""
    c = draw(st.sampled_from(channels))
    shape = (draw(st.integers(1, 9)), draw(st.integers(1, 9)), c)
    return draw(values("uint8", shape, 0, 255))


def encoded(fmt, channels=(1, 3, 4), **options):
    """Bytes of a random image encoded by Pillow in `fmt`, or (sometimes) bytes that are no image."""
    def encode(img):
        buffer = io.BytesIO()
        Image.fromarray(img[:, :, 0] if img.shape[2] == 1 else img, _MODES[img.shape[2]]).save(
            buffer, fmt, **options)
        return buffer.getvalue()
    garbage = st.sampled_from([b"", b"not an image", b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"])
    return st.one_of(images(channels).map(encode), garbage)


add("image.decode_png", cases(encoded("PNG"), st.sampled_from([0, 1, 3, 4])),
    call=lambda lib, data, c: lib.image.decode_png(data, channels=c))
# Pillow and TF's libjpeg use different inverse-DCT and upsampling code: a few levels apart, so the
# JPEG rows compare as floats with a tolerance (integers are compared exactly)
add("image.decode_jpeg", cases(encoded("JPEG", channels=(1, 3), quality=90), st.sampled_from([0, 1, 3])),
    call=lambda lib, data, c: lib.cast(lib.image.decode_jpeg(data, channels=c), lib.float32), atol=8)
add("image.decode_image", cases(st.one_of(encoded("PNG"), encoded("BMP", channels=(3,)), encoded("GIF", (1,)))),
    call=lambda lib, data: lib.image.decode_image(data))
add("image.decode_bmp", cases(encoded("BMP", channels=(3,))), call=lambda lib, data: lib.image.decode_bmp(data))
add("image.decode_gif", cases(encoded("GIF", channels=(1,))), call=lambda lib, data: lib.image.decode_gif(data))
add("image.is_jpeg", cases(st.one_of(encoded("PNG"), encoded("JPEG", channels=(3,)))),
    call=lambda lib, data: lib.image.is_jpeg(data))
add("image.encode_png", cases(images()),
    call=lambda lib, img: lib.image.decode_png(lib.image.encode_png(lib.constant(img))))
add("image.encode_jpeg", cases(images(channels=(1, 3)), st.sampled_from([50, 95])),
    call=lambda lib, img, q: lib.cast(lib.image.decode_jpeg(lib.image.encode_jpeg(lib.constant(img), quality=q)),
                                      lib.float32), atol=8)
