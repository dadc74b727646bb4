#!/usr/bin/env python3
"""Writes the PNG seed corpus (corpus/png/): tiny images of every colour type,
depth and interlacing the readers handle, and a few with ancillary chunks
(tEXt, zTXt, iTXt, tRNS, gAMA) so that the fuzzer starts from their shapes."""
import os
import struct
import zlib

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "png")


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def image(width, height, colour, depth, interlace, extra=b"", filters=(0, 1, 2, 3, 4)):
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]
    row = (width * channels * depth + 7) // 8
    raw = b""
    for y in range(height):
        raw += bytes([filters[y % len(filters)]]) + bytes((x * 37 + y * 11) & 0xFF for x in range(row))
    if interlace:  # the seed's data need not be a valid Adam7 layout: libpng refuses or reads it
        raw = raw * 2
    ihdr = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, interlace)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
    if colour == 3:
        png += chunk(b"PLTE", bytes(range(48)))
    png += extra + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")
    return png


def main():
    os.makedirs(HERE, exist_ok=True)
    seeds = {}
    for colour, depths in ((0, (8, 16)), (2, (8, 16)), (3, (8,)), (4, (8, 16)), (6, (8, 16))):
        for depth in depths:
            for interlace in (0, 1):
                seeds[f"c{colour}-d{depth}-i{interlace}.png"] = image(9, 7, colour, depth, interlace)
    text = chunk(b"tEXt", b"Comment\x00seed") + chunk(b"zTXt", b"Comment\x00\x00" + zlib.compress(b"seed"))
    text += chunk(b"iTXt", b"Comment\x00\x00\x00en\x00\x00seed") + chunk(b"gAMA", struct.pack(">I", 45455))
    seeds["grey8-text.png"] = image(16, 4, 0, 8, 0, text)
    seeds["palette-trns.png"] = image(5, 5, 3, 8, 0, chunk(b"tRNS", bytes([0, 128, 255])))
    for name, data in seeds.items():
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)
    print(f"{len(seeds)} seeds in {HERE}")


if __name__ == "__main__":
    main()
