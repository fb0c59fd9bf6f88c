#!/usr/bin/env python3
"""ansi2png.py CAPTURE PNG [COLS ROWS]: draws a `tmux capture-pane -e -p` capture
(text with SGR colour sequences) as a terminal image, for the README's
screenshots (tools/tui-screenshots.sh). Needs python3-pil and
fonts-dejavu-core (DejaVu Sans Mono); only for making the images.

Understood: SGR 0/1/2/7/22/27, colours 30-37/90-97/39 and 40-47/100-107/49,
38;5;N and 48;5;N (the 16 base colours and the 6x6x6 cube), 38;2;R;G;B.
Other escape sequences are dropped."""
import re
import sys

from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
# the braille spinner, which the mono face lacks
SYMS = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
SIZE = 13
# the xterm palette
BASE = [(0, 0, 0), (205, 49, 49), (13, 188, 121), (229, 229, 16), (36, 114, 200),
        (188, 63, 188), (17, 168, 205), (229, 229, 229), (102, 102, 102), (241, 76, 76),
        (35, 209, 139), (245, 245, 67), (59, 142, 234), (214, 112, 214), (41, 184, 219),
        (255, 255, 255)]
FG, BG = (220, 220, 220), (24, 24, 24)


def colour256(n):
    if n < 16:
        return BASE[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[n // 6 % 6], steps[n % 6])
    g = 8 + (n - 232) * 10
    return (g, g, g)


def parse(text):
    """Lines of (char, fg, bg, bold) cells."""
    lines = []
    fg = bg = None
    bold = dim = rev = False
    for raw in text.split("\n"):
        cells = []
        for m in re.finditer(r"\x1b\[([0-9;:]*)([A-Za-z])|\x1b[()][0-9A-Za-z]|\x1b.|([^\x1b])", raw):
            if m.group(3) is not None:
                f, b = fg or FG, bg or BG
                if dim:
                    f = tuple(c * 2 // 3 for c in f)
                if rev:
                    f, b = b, f
                cells.append((m.group(3), f, b, bold))
                continue
            if m.group(2) != "m":
                continue
            p = [int(x) if x else 0 for x in re.split("[;:]", m.group(1))] or [0]
            i = 0
            while i < len(p):
                c = p[i]
                if c == 0:
                    fg = bg = None
                    bold = dim = rev = False
                elif c == 1:
                    bold = True
                elif c == 2:
                    dim = True
                elif c == 22:
                    bold = dim = False
                elif c == 7:
                    rev = True
                elif c == 27:
                    rev = False
                elif 30 <= c <= 37:
                    fg = BASE[c - 30 + (8 if bold else 0)]
                elif 90 <= c <= 97:
                    fg = BASE[c - 90 + 8]
                elif c == 39:
                    fg = None
                elif 40 <= c <= 47:
                    bg = BASE[c - 40]
                elif 100 <= c <= 107:
                    bg = BASE[c - 100 + 8]
                elif c == 49:
                    bg = None
                elif c in (38, 48) and i + 1 < len(p):
                    if p[i + 1] == 5 and i + 2 < len(p):
                        col = colour256(p[i + 2])
                        i += 2
                    elif p[i + 1] == 2 and i + 4 < len(p):
                        col = tuple(p[i + 2:i + 5])
                        i += 4
                    else:
                        col = None
                    if c == 38:
                        fg = col
                    else:
                        bg = col
                i += 1
        lines.append(cells)
    return lines


def main():
    src, out = sys.argv[1], sys.argv[2]
    lines = parse(open(src, encoding="utf-8", errors="replace").read().rstrip("\n"))
    cols = int(sys.argv[3]) if len(sys.argv) > 3 else max(len(l) for l in lines)
    rows = int(sys.argv[4]) if len(sys.argv) > 4 else len(lines)
    font, bfont = ImageFont.truetype(FONT, SIZE), ImageFont.truetype(BOLD, SIZE)
    sfont = ImageFont.truetype(SYMS, SIZE)
    cw = round(font.getlength("M"))
    asc, desc = font.getmetrics()
    ch = asc + desc + 1
    pad = 6
    img = Image.new("RGB", (cols * cw + 2 * pad, rows * ch + 2 * pad), BG)
    d = ImageDraw.Draw(img)
    for y, cells in enumerate(lines[:rows]):
        for x, (c, f, b, bo) in enumerate(cells[:cols]):
            px, py = pad + x * cw, pad + y * ch
            if b != BG:
                d.rectangle([px, py, px + cw - 1, py + ch - 1], fill=b)
            if c == " ":
                continue
            if "\u2580" <= c <= "\u259f":   # block elements fill the cell
                frac = {"\u2588": 1.0}.get(c)
                if frac:
                    d.rectangle([px, py, px + cw - 1, py + ch - 1], fill=f)
                    continue
            d.text((px, py), c, font=sfont if 0x2800 <= ord(c) <= 0x28ff else bfont if bo else font, fill=f)
    img = img.convert("P", palette=Image.ADAPTIVE, colors=64)
    img.save(out, optimize=True)


if __name__ == "__main__":
    main()
