#!/usr/bin/env bash
# Installs what warpsim needs to build and test, from Debian's packages, if anything is missing.
# Safe to run again: it does nothing when everything is present. Run as root or with sudo.
#   tools/setup.sh           what building needs
#   tools/setup.sh --tests   also what the tests need: Chromium, which opens the HTML report headless
#   tools/setup.sh --sass    also NVIDIA's disassemblers (cuobjdump, nvdisasm) into build/sass-tools/bin,
#                            which tools/kernels_make_sass.sh needs to turn ptxas's cubins into SASS text
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

# CUDA 13 ships nvcc and ptxas here but no disassembler. Debian's non-free nvidia-cuda-toolkit
# 12.4 (trixie) has cuobjdump and nvdisasm, which read CUDA 13's sm_80 and sm_90a cubins (not
# sm_100) and need only libc. The package is fetched from Debian's archive, checked against the
# SHA-256 its Packages index gives, and only those two programs are unpacked: apt's
# configuration and the system are left as they are.
sass_tools() {
  local dest="$root/build/sass-tools/bin"
  if [ -x "$dest/nvdisasm" ] && [ -x "$dest/cuobjdump" ]; then return 0; fi
  local deb_url="http://deb.debian.org/debian/pool/non-free/n/nvidia-cuda-toolkit/nvidia-cuda-toolkit_12.4.131~12.4.1-2_amd64.deb"
  local sha256="cd5fe85aee38d108b315f408a688641478f2402622a10c677478eb7a6c4e5319"
  command -v curl >/dev/null || { echo "setup: --sass needs curl" >&2; return 1; }
  local work
  work=$(mktemp -d)
  echo "setup: fetching cuobjdump and nvdisasm (Debian's nvidia-cuda-toolkit 12.4, 87 MB)" >&2
  curl -fsSL -o "$work/toolkit.deb" "$deb_url"
  echo "$sha256  $work/toolkit.deb" | sha256sum -c --quiet - || { echo "setup: the package's SHA-256 does not match" >&2; rm -rf "$work"; return 1; }
  (cd "$work" && dpkg-deb --fsys-tarfile toolkit.deb | tar -x ./usr/bin/cuobjdump ./usr/bin/nvdisasm)
  mkdir -p "$dest"
  mv "$work/usr/bin/cuobjdump" "$work/usr/bin/nvdisasm" "$dest/"
  rm -rf "$work"
}
if [ "${1:-}" = "--sass" ]; then
  sass_tools
  shift
fi

packages=(g++ cmake ninja-build libboost-program-options-dev libspdlog-dev libyaml-cpp-dev
          libgtest-dev nlohmann-json3-dev zlib1g-dev liblzma-dev)
if [ "${1:-}" = "--tests" ]; then
  packages+=(chromium)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "setup: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
