# strip_torch.sh - sourced by the scripts that build LeetCUDA's PyTorch
# extensions without libtorch, and programs whose kernels sit beside their
# own main() (gpu_headers.sh, families.sh).
#
# strip_torch FILE: drops the <torch/...> includes (the first becomes
# <stdint.h>, which they brought and some kernels need for uint32_t) and
# everything from the binding section's first line (`#define STRINGFY`)
# on, in place.
strip_torch() {
	sed -i -e '0,/^#include <torch\//s/^#include <torch\/.*/#include <stdint.h>/' \
		-e '/^#include <torch\//d' -e '/^#define STRINGFY/,$d' "$1"
}

# strip_main FILE: drops everything from `int main(` on, in place (the
# harness brings its own main).
strip_main() {
	sed -i -e '/^int main(/,$d' "$1"
}

# strip_source KEY FILE: what a copy of a checkout's file loses before the
# harness builds it: lc (LeetCUDA) its torch binding, nw (nicolaswilde) its
# main; other keys nothing.
strip_source() {
	case "$1" in
	lc) strip_torch "$2" ;;
	nw) strip_main "$2" ;;
	esac
}
