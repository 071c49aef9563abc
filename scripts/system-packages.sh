#!/usr/bin/env bash
# Debian packages the project needs: SuiteSparse for scikit-sparse (built from source against it),
# OpenBLAS with threads (CHOLMOD is ~30x faster with it than with the reference BLAS), Chromium for the
# browser check of the built book, npm for MathJax. Installs what is missing when run as root; otherwise names it and stops.
set -euo pipefail
packages=(libsuitesparse-dev libopenblas0-pthread chromium)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# npm installs MathJax for the offline book; Debian's npm only where the machine has none (e.g. no NodeSource node).
command -v npm >/dev/null || missing+=(npm)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "error: missing Debian packages: ${missing[*]}" >&2
  echo "install them as root: apt-get install -y ${missing[*]}   (conda users: see environment.yml)" >&2
  exit 1
fi
echo "installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
