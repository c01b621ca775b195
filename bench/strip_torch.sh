# strip_torch.sh - sourced by the scripts that build LeetCUDA's PyTorch
# extensions without libtorch (gpu_headers.sh, families.sh).
#
# strip_torch FILE: drops the <torch/...> includes and everything from the
# binding section's first line (`#define STRINGFY`) on, in place.
strip_torch() {
	sed -i -e '/^#include <torch\//d' -e '/^#define STRINGFY/,$d' "$1"
}
