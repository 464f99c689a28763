// SPDX-License-Identifier: MIT
// A C++ program whose hot function has a mangled name: profil report must
// show it demangled (demo::Hot<long>::spin(long)).  It spins there until the
// process has used 0.4 s of CPU time (measured by itself).
#include <cstdio>
#include <ctime>

namespace demo {
template <typename T> struct Hot {
	__attribute__((noinline)) static T spin(T rounds)
	{
		volatile T acc = 0;

		for (T i = 0; i < rounds; i++)
			acc = acc * 31 + (i ^ 7);
		return acc;
	}
};
} // namespace demo

static double cpu_seconds()
{
	timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main()
{
	long sink = 0;

	while (cpu_seconds() < 0.4)
		sink += demo::Hot<long>::spin(200000);
	std::printf("cpu %.3f sink %ld\n", cpu_seconds(), sink & 1);
	return 0;
}
