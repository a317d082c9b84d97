#!/bin/sh
# Renders the PNG, .icns and .ico files from the SVG sources in this folder. The results are committed, so a
# build needs none of these tools; run this after changing an SVG.
# Needs: rsvg-convert (librsvg2-bin), png2icns (icnsutils), python3.
set -eu
cd "$(dirname "$0")"
app=io.zeusdesktop.ZeusDesktop
for size in 16 22 24 32 48 64 128 256 512; do
    mkdir -p "hicolor/${size}x${size}/apps"
    rsvg-convert -w "$size" -h "$size" "$app.svg" -o "hicolor/${size}x${size}/apps/$app.png"
done
mkdir -p tray/png
for state in ready busy disconnected no-runtime error; do
    for size in 16 22 32 64; do
        rsvg-convert -w "$size" -h "$size" "tray/$state.svg" -o "tray/png/$state-$size.png"
    done
done
# macOS icon set and Windows icon, both from the same PNGs.
png2icns zeus-desktop.icns hicolor/16x16/apps/$app.png hicolor/32x32/apps/$app.png hicolor/48x48/apps/$app.png \
    hicolor/128x128/apps/$app.png hicolor/256x256/apps/$app.png hicolor/512x512/apps/$app.png >/dev/null
python3 - "$app" <<'PY'
import struct, sys
app = sys.argv[1]
images = [open(f"hicolor/{s}x{s}/apps/{app}.png", "rb").read() for s in (16, 24, 32, 48, 64, 128, 256)]
sizes = (16, 24, 32, 48, 64, 128, 256)
header = struct.pack("<HHH", 0, 1, len(images))
offset = 6 + 16 * len(images)
entries = b""
for size, data in zip(sizes, images):
    dim = 0 if size >= 256 else size  # 0 means 256 in an ICO directory entry
    entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(data), offset)
    offset += len(data)
with open("zeus-desktop.ico", "wb") as f:
    f.write(header + entries + b"".join(images))
PY
