#!/usr/bin/env bash
# Installs what warpsim needs to build and test, from Debian's packages, if anything is missing.
# Safe to run again: it does nothing when everything is present. Run as root or with sudo.
#   tools/setup.sh           what building needs
#   tools/setup.sh --tests   also what the tests need: Chromium, which opens the HTML report headless
set -euo pipefail

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
