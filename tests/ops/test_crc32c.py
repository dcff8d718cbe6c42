"""CRC-32C: the numpy fallback (lanes of positional 16-bit tables, registers combined with shift
tables) must give exactly the checksum of the byte-at-a-time loop and of google-crc32c."""
import numpy as np
import pytest

from minitf.ops import crc32c as crc

# RFC 3720 (iSCSI) B.4 test vectors, and the standard check value
KNOWN = [(b"123456789", 0xE3069283), (bytes(32), 0x8A9136AA), (b"\xff" * 32, 0x62A8AB43),
         (bytes(range(32)), 0x46DD794E), (bytes(range(31, -1, -1)), 0x113FDB5C)]
# long inputs, values from google-crc32c's C build (an independent implementation)
KNOWN_LONG = [(bytes(1 << 20), 0x14298C12), (b"a" * 1000000, 0x436FE240),
              (bytes(range(256)) * 4099, 0xCBFF5B50)]

LANE, SEGMENT, FAN = crc._LANE, crc._SEGMENT, crc._FAN_IN
# around the lane, the segment and the combining steps (FAN ** k lanes), and odd tails
LENGTHS = [4, 31, 32, 33, 63, 64, 65, 1023, 1024, 1025, LANE * FAN - 1, LANE * FAN,
           LANE * FAN + 1, LANE * FAN ** 2 + 7, LANE * FAN ** 3 + LANE, LANE * (FAN ** 3 + 1) + 3,
           SEGMENT - 1, SEGMENT, SEGMENT + 1, SEGMENT + LANE, 2 * SEGMENT + 17, 70001]


def _random(n, seed=None):
    return np.random.default_rng(n if seed is None else seed).integers(0, 256, n, np.uint8).tobytes()


@pytest.mark.parametrize("data,want", KNOWN)
def test_known_vectors_every_path(data, want):
    assert crc._crc_python(data) == want
    assert crc._crc_numpy(data) == want
    assert crc.crc32c(data) == want


@pytest.mark.parametrize("data,want", KNOWN_LONG)
def test_known_long_vectors(data, want):
    assert crc._crc_numpy(data) == want
    assert crc._crc_fallback(data) == want
    assert crc.crc32c(data) == want


@pytest.mark.parametrize("n", LENGTHS)
def test_numpy_path_equals_the_byte_loop(n):
    data = _random(n)
    assert crc._crc_numpy(data) == crc._crc_python(data)


def test_every_short_length_and_the_threshold():
    for n in list(range(0, 80)) + [crc._NUMPY_MIN_BYTES - 1, crc._NUMPY_MIN_BYTES]:
        data = _random(n, seed=1000 + n)
        assert crc._crc_fallback(data) == crc._crc_python(data), n


def test_single_bit_flips_change_the_checksum_as_the_byte_loop_does():
    base = bytearray(_random(5000))
    for pos in (0, 1, 3, 4, 31, 32, 2047, 4999):
        for bit in (0, 7):
            flipped = bytearray(base)
            flipped[pos] ^= 1 << bit
            assert crc._crc_numpy(bytes(flipped)) == crc._crc_python(bytes(flipped))
            assert crc._crc_numpy(bytes(flipped)) != crc._crc_numpy(bytes(base))


def test_bytes_like_inputs_are_read_as_their_bytes():
    data = _random(5000)
    want = crc._crc_python(data)
    array = np.frombuffer(data, np.uint8).view(np.float32).reshape(25, 50)
    assert crc.crc32c(bytearray(data)) == want
    assert crc.crc32c(memoryview(data)) == want
    assert crc.crc32c(memoryview(array)) == want  # 2-D, 4-byte items
    assert crc.crc32c(memoryview(data)[::2]) == crc._crc_python(data[::2])  # not contiguous
    assert crc.crc32c(list(data[:10])) == crc._crc_python(data[:10])


def test_masked_checksum_keeps_tfs_formula():
    c = crc.crc32c(b"hello")
    assert crc.masked_crc32c(b"hello") == ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


@pytest.mark.parametrize("n", [0, 1, 1000, 4096, 65537, (1 << 20) + 5, 3 * (1 << 20) + 12345])
def test_fallback_matches_google_crc32c(n):
    google_crc32c = pytest.importorskip("google_crc32c")
    data = _random(n)
    assert crc._crc_fallback(data) == google_crc32c.value(data)
