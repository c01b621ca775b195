// adversarial input: plain C++ with no CUDA at all (no kernel, no __shared__).
// Expected: exit 1, "nothing to pipeline".
#include <cstddef>

namespace geom {
template <typename T> struct Vec {
	T x, y;
	Vec operator+(const Vec &o) const { return {x + o.x, y + o.y}; }
};
} // namespace geom

static int sum(const int *v, std::size_t n)
{
	int s = 0;
	for (std::size_t i = 0; i < n; i++)
		s += v[i];
	return s;
}

int main()
{
	int v[4] = {1, 2, 3, 4};
	geom::Vec<float> a{1, 2}, b{3, 4};
	return sum(v, 4) + (int)(a + b).x;
}
