#!/usr/bin/env bash
# setup.sh - install what kpipe needs to build and test, when it is missing.
#
# Debian packages: libclang-19-dev clang-19 clang-tools-19 clang-format-19 (libclang's C API,
# the matching clang, clang-apply-replacements-19, libclang-rt-19-dev for
# the libFuzzer runtime of tests/fuzz; clang-format-19 for the format check),
# libcriterion-dev,
# libcjson-dev, cmake, pkg-config, valgrind, perl (golden tests) and python3;
# for the editor and report tests: neovim (tests/cli/editor_nvim.sh runs it
# headless) and python3-jsonschema (SARIF checked against the schema);
# for the install and package tests: dpkg-dev (dpkg-shlibdeps, the Debian
# package's Depends), man-db (man through MANPATH), zsh and fish (their
# completions driven).
# pip wheels: nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm, when no
# cuobjdump/nvdisasm is found (CUDA 13's toolkit here ships neither).
# The CUDA toolkit itself (nvcc) is not installed here: it comes with the
# machine, and tests that need it skip without it.
#
# Idempotent and quiet: prints nothing when everything is there, runs
# apt-get update only when a package is missing, and shows the installer's
# output only when it fails. Works as root without a terminal (CI=true);
# as another user it uses sudo when there is one.
set -euo pipefail

apt_packages=(libclang-19-dev clang-19 clang-tools-19 clang-format-19 libclang-rt-19-dev libcriterion-dev libcjson-dev
	cmake pkg-config valgrind perl python3 neovim python3-jsonschema dpkg-dev man-db zsh fish)
pip_packages=(nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm)

log="$(mktemp "${TMPDIR:-/tmp}/kpipe-setup.XXXXXX")"
trap 'rm -f "$log"' EXIT

die() {
	echo "setup.sh: $*" >&2
	if [ -s "$log" ]; then
		echo "--- output ---" >&2
		tail -n 60 "$log" >&2
	fi
	exit 1
}

# shellcheck disable=SC2317 # called through retry
as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo -n "$@"
	else
		die "need root (or sudo) to run: $*"
	fi
}

# Retry once: a mirror hiccup should not fail a CI run.
retry() {
	"$@" >>"$log" 2>&1 || { sleep 5; "$@" >>"$log" 2>&1; }
}

# --- Debian packages -------------------------------------------------------
missing=()
for p in "${apt_packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done
apt_updated=0
apt_install() {
	command -v apt-get >/dev/null 2>&1 || die "missing $* and no apt-get: install them by hand"
	export DEBIAN_FRONTEND=noninteractive
	if [ "$apt_updated" = 0 ]; then
		retry as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q || die "apt-get update failed"
		apt_updated=1
	fi
	retry as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" </dev/null ||
		die "apt-get install $* failed"
}
if [ ${#missing[@]} -gt 0 ]; then
	apt_install "${missing[@]}"
fi

# --- cuobjdump / nvdisasm --------------------------------------------------
# Same places kpipe looks (src/validate/cuda_env.c): the toolkit roots, PATH, then the
# wheels in python's site-packages.
have_tool() {
	local t="$1" d
	for d in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
		[ -n "$d" ] && [ -x "$d/bin/$t" ] && return 0
	done
	command -v "$t" >/dev/null 2>&1 && return 0
	python3 - "$t" <<'PY' >/dev/null 2>&1
import glob, os, site, sys, sysconfig
dirs = {sysconfig.get_paths().get(k, "") for k in ("purelib", "platlib")}
if site.ENABLE_USER_SITE:
    dirs.add(site.getusersitepackages())
for d in filter(None, dirs):
    for layout in ("nvidia/cu[0-9]*/bin", "nvidia/cuda_*/bin"):
        if any(os.access(p, os.X_OK) for p in glob.glob(os.path.join(d, layout, sys.argv[1]))):
            sys.exit(0)
sys.exit(1)
PY
}

if ! have_tool cuobjdump || ! have_tool nvdisasm; then
	command -v python3 >/dev/null 2>&1 || die "python3 not found (needed for the cuobjdump/nvdisasm wheels)"
	if ! python3 -m pip --version >/dev/null 2>&1; then
		# Debian's own python3 comes without pip.
		apt_install python3-pip
	fi
	# The variables are ignored by a pip too old to know them: running as
	# root is intended, and Debian's python3 is "externally managed".
	retry env PIP_ROOT_USER_ACTION=ignore PIP_BREAK_SYSTEM_PACKAGES=1 \
		python3 -m pip install --quiet --disable-pip-version-check --no-input "${pip_packages[@]}" ||
		die "pip install ${pip_packages[*]} failed"
	have_tool cuobjdump || die "cuobjdump still not found after installing the wheels"
	have_tool nvdisasm || die "nvdisasm still not found after installing the wheels"
fi
exit 0
