"""PNG bytes of an 8-bit image, with the standard library only (zlib and its CRC-32).

Image summaries store PNG files. tf.io.encode_png in minitf goes through Pillow, an optional
package; summaries should not need it, and the 8-bit PNG subset they use is small: the
signature, an IHDR chunk, one zlib-compressed IDAT chunk of rows each prefixed by filter type
0 (none), and IEND.
"""
import struct
import zlib

import numpy as np

__all__ = ["encode_png"]

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> grey, grey+alpha, RGB, RGBA


def _chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def encode_png(image, level=6):
    """The PNG file (bytes) of a uint8 array [height, width, channels], channels 1 to 4."""
    image = np.ascontiguousarray(image, dtype=np.uint8)
    height, width, channels = image.shape
    header = struct.pack(">IIBBBBB", width, height, 8, _COLOR_TYPES[channels], 0, 0, 0)
    rows = np.zeros((height, 1 + width * channels), dtype=np.uint8)
    rows[:, 1:] = image.reshape(height, width * channels)
    return (_SIGNATURE + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(rows.tobytes(), level)) + _chunk(b"IEND", b""))
