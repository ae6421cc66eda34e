"""Staged page bodies (gzip files) into the warehouse's zlib form, without compressing them again.

gzip and zlib wrap the same DEFLATE stream in different headers and trailers, so a body is
re-wrapped rather than re-compressed: inflate it once (to check its SHA-256 against the staged
``content_hash`` and to take its Adler-32), then put a zlib header and the Adler-32 around the
original DEFLATE bytes (the gzip CRC-32 and length are checked too). Recompressing 3 GB of HTML at zlib level 6 took most of a 100k-page
load; re-wrapping costs one inflate. A file of several gzip members is recompressed instead. zlib and hashlib release the GIL on large buffers, so a thread pool
spreads the work over the cores.
"""

from __future__ import annotations

import gzip
import hashlib
import zlib
from dataclasses import dataclass

_ZLIB_HEADER = b"\x78\x9c"  # deflate, 32 KiB window, default level; (0x789c % 31 == 0)
_GZIP_TRAILER = 8  # CRC-32 and the length, little-endian


class BodyError(ValueError):
    """A body that is not a readable gzip file."""


@dataclass(frozen=True)
class StoredBody:
    sha256: str
    zlib_bytes: bytes


def _deflate_start(data: bytes) -> int:
    """Offset of the DEFLATE stream after a gzip member header (RFC 1952)."""
    if len(data) < 18 or data[:2] != b"\x1f\x8b" or data[2] != 8:
        raise BodyError("not a gzip file (bad magic number or method)")
    flags, pos = data[3], 10
    if flags & 0x04:  # FEXTRA
        pos += 2 + int.from_bytes(data[pos:pos + 2], "little")
    for bit in (0x08, 0x10):  # FNAME, FCOMMENT: zero-terminated
        if flags & bit:
            end = data.find(b"\x00", pos)
            if end < 0:
                raise BodyError("truncated gzip header")
            pos = end + 1
    if flags & 0x02:  # FHCRC
        pos += 2
    return pos


def gzip_to_zlib(data: bytes, *, level: int = 6) -> StoredBody:
    """The SHA-256 of the body inside the gzip ``data`` and the body as a zlib stream."""
    start = _deflate_start(data)
    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
    try:
        body = inflater.decompress(data[start:])
    except zlib.error as exc:
        raise BodyError(f"corrupt gzip data: {exc}") from None
    if not inflater.eof:
        raise BodyError("truncated gzip data")
    trailer = inflater.unused_data
    if len(trailer) < _GZIP_TRAILER:
        raise BodyError("truncated gzip trailer")
    if len(trailer) > _GZIP_TRAILER:  # several members: the stdlib reads them all, then recompress
        try:
            body = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise BodyError(f"corrupt gzip data: {exc}") from None
        return StoredBody(hashlib.sha256(body).hexdigest(), zlib.compress(body, level))
    if int.from_bytes(trailer[:4], "little") != zlib.crc32(body) or int.from_bytes(trailer[4:], "little") != len(body) & 0xFFFFFFFF:
        raise BodyError("gzip trailer does not match the data (CRC-32 or length)")
    stream = data[start:len(data) - len(trailer)]
    return StoredBody(hashlib.sha256(body).hexdigest(), _ZLIB_HEADER + stream + zlib.adler32(body).to_bytes(4, "big"))
