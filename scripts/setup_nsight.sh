#!/usr/bin/env bash
# Installs Debian's Nsight Systems (nsys) and Nsight Compute (ncu) for the
# real-tools test tier (CTest label nsight). Idempotent: prints nothing when
# both are installed. They live in Debian's non-free component, which is
# enabled for this one apt run only (a private source list beside the
# system's); the system's apt sources are left as they were.
# LLMPO_NSIGHT=0 skips it (the nsight tier then skips too, outside CI).
set -euo pipefail

[[ ${LLMPO_NSIGHT:-1} == 0 ]] && exit 0

# Debian's nsys looks for its host folder (QdstrmImporter) beside the target
# folder; without it every capture stops at a .qdstrm ("importer binary ...
# not found"). Link it where nsys looks.
link_importer() {
  local host=/usr/lib/nsight-systems/host-linux-x64
  local beside=/usr/lib/x86_64-linux-gnu/nsight-systems/host-linux-x64
  [[ -x $host/QdstrmImporter && -d ${beside%/*} && ! -e $beside ]] || return 0
  "${sudo_cmd[@]}" ln -s "$host" "$beside"
}

installed() {
  [[ $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true) == "install ok installed" ]]
}

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi

if command -v nsys >/dev/null && command -v ncu >/dev/null; then
  link_importer
  exit 0
fi

# shellcheck disable=SC1091
. /etc/os-release
if [[ ${ID:-} != debian || -z ${VERSION_CODENAME:-} ]] || ! command -v apt-get >/dev/null; then
  echo "setup: not Debian; install Nsight Systems and Nsight Compute yourself for the nsight test tier" >&2
  exit 0
fi
# A driver installed outside dpkg (NVIDIA's .run installer) owns its own
# libcuda.so.1, which Debian's libcuda1 would replace: leave such a machine alone.
for lib in /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1 /usr/lib/libcuda.so.1; do
  if [[ -e $lib ]] && ! dpkg -S "$lib" >/dev/null 2>&1; then
    echo "setup: $lib is not from a Debian package (NVIDIA's own driver?); install Nsight Systems and" \
      "Nsight Compute from NVIDIA for the nsight test tier, or set LLMPO_NSIGHT=0" >&2
    exit 0
  fi
done
if [[ ${#sudo_cmd[@]} -gt 0 ]] && ! command -v sudo >/dev/null; then
  echo "setup: need root (or sudo) to install nsight-systems and nsight-compute" >&2
  exit 1
fi

# The mirror that serves main, from the system's deb822 sources.
mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[[ -n $mirror && $mirror != *security* ]] || mirror=http://deb.debian.org/debian

echo "setup: installing Debian's nsight-systems and nsight-compute (non-free, about 1.2 GB)"
parts=$(mktemp -d); trap 'rm -rf "$parts"' EXIT
cp /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list "$parts"/ 2>/dev/null || true
chmod 755 "$parts"; chmod 644 "$parts"/* 2>/dev/null || true
cat >"$parts/llmpo-nsight.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $VERSION_CODENAME $VERSION_CODENAME-updates
Components: contrib non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
apt_opts=(-o "Dir::Etc::SourceParts=$parts" -o APT::Get::List-Cleanup=0)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get "${apt_opts[@]}" update -qq
# libcuda1 first: installing it together with the tools fails to resolve.
installed libcuda1 ||
  "${sudo_cmd[@]}" apt-get "${apt_opts[@]}" install -y -qq --no-install-recommends libcuda1 >/dev/null
"${sudo_cmd[@]}" apt-get "${apt_opts[@]}" install -y -qq --no-install-recommends \
  nsight-systems nsight-compute >/dev/null
link_importer
echo "setup: nsight done ($(nsys --version 2>/dev/null | head -1); $(ncu --version 2>/dev/null | tail -1))"
