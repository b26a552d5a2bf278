#!/usr/bin/env python3
"""Render a deck's slides as one grid image, each slide labelled with its number.

    python3 thumbnail.py DECK.pptx [OUT.png] [--cols 4] [--width 320]

OUT defaults to DECK's stem + "-thumbnails.png" in the current directory. LibreOffice converts the deck to PDF,
pdftoppm renders each page, Pillow lays them out. Also works for .odp, .ppt and .pdf input. Large decks are cut
at --max-slides (default 48) so the image stays readable; pick a range with --first.
"""
import argparse
import math
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    from PIL import Image, ImageDraw, ImageFont
except ImportError:
    sys.exit("error: Pillow is missing; run this with the skills runtime's python3")

sys.dont_write_bytecode = True  # no __pycache__ in the skill folder (read-only in the sandbox, and shipped)
from office import OfficeError, convert

GAP = 12
LABEL = 22


def render_pages(pdf, folder, width, first, last):
    if not shutil.which("pdftoppm"):
        raise OfficeError("pdftoppm (poppler-utils) is not installed")
    command = ["pdftoppm", "-png", "-scale-to-x", str(width), "-scale-to-y", "-1", "-f", str(first), "-l", str(last),
               str(pdf), str(folder / "slide")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise OfficeError(f"pdftoppm failed: {done.stderr.strip()[:300]}")
    # pdftoppm pads page numbers to the width of the last one (slide-01.png ... slide-12.png).
    return sorted(folder.glob("slide-*.png"), key=lambda p: int(p.stem.rsplit("-", 1)[1]))


def page_count(pdf):
    done = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, timeout=60)
    for line in done.stdout.splitlines():
        if line.startswith("Pages:"):
            return int(line.split()[1])
    raise OfficeError(f"pdfinfo could not read {pdf.name}: {done.stderr.strip()[:300]}")


def grid(images, numbers, cols):
    cols = max(1, min(cols, len(images)))
    rows = math.ceil(len(images) / cols)
    cell_w = max(i.width for i in images)
    cell_h = max(i.height for i in images) + LABEL
    sheet = Image.new("RGB", (GAP + cols * (cell_w + GAP), GAP + rows * (cell_h + GAP)), "white")
    draw = ImageDraw.Draw(sheet)
    try:
        font = ImageFont.load_default(size=16)
    except TypeError:  # Pillow < 10.1 has one fixed-size default font
        font = ImageFont.load_default()
    for index, (image, number) in enumerate(zip(images, numbers)):
        x = GAP + (index % cols) * (cell_w + GAP)
        y = GAP + (index // cols) * (cell_h + GAP)
        draw.text((x, y + 2), f"Slide {number}", fill="black", font=font)
        sheet.paste(image, (x, y + LABEL))
        draw.rectangle([x - 1, y + LABEL - 1, x + image.width, y + LABEL + image.height], outline="#999999")
    return sheet


def thumbnail(deck, output, cols, width, first, max_slides):
    deck = Path(deck)
    with tempfile.TemporaryDirectory(prefix="thumbs-") as scratch:
        folder = Path(scratch)
        pdf = deck if deck.suffix.lower() == ".pdf" else convert(deck, "pdf", folder)
        total = page_count(pdf)
        if first > total:
            raise OfficeError(f"--first {first} is past the last slide ({total})")
        last = min(total, first + max_slides - 1)
        pages = render_pages(pdf, folder, width, first, last)
        images = [Image.open(p).convert("RGB") for p in pages]
        if not images:
            raise OfficeError(f"no pages rendered from {deck.name}")
        grid(images, range(first, first + len(images)), cols).save(output)
    return total, first, first + len(images) - 1


def main(argv=None):
    parser = argparse.ArgumentParser(description="Render a .pptx deck as a grid of numbered slide thumbnails (PNG).")
    parser.add_argument("deck", help="the .pptx (or .odp, .ppt, .pdf)")
    parser.add_argument("output", nargs="?", help="the PNG to write (default: DECK-thumbnails.png here)")
    parser.add_argument("--cols", type=int, default=4, help="slides per row (default 4)")
    parser.add_argument("--width", type=int, default=320, help="width of each slide in pixels (default 320)")
    parser.add_argument("--first", type=int, default=1, help="first slide to show (default 1)")
    parser.add_argument("--max-slides", type=int, default=48, help="at most this many slides (default 48)")
    args = parser.parse_args(argv)
    output = args.output or f"{Path(args.deck).stem}-thumbnails.png"
    try:
        total, first, last = thumbnail(args.deck, output, args.cols, args.width, max(1, args.first), args.max_slides)
    except (OfficeError, OSError, subprocess.TimeoutExpired) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"wrote {output}: slides {first}-{last} of {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
