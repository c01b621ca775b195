/*
 * valgrind-libclang-repro.c - shows that the two errors cmake/valgrind.supp
 * suppresses are libclang's own: it parses a CUDA file the way src/parse.c
 * does and asks clang_Type_getSizeOf for every variable, with no kpipe code
 * involved.  Under valgrind (libclang-19 1:19.1.7-3~deb12u1) it reports an
 * "Invalid read of size 4" inside a block libclang freed on its parse
 * thread, and a "Conditional jump ... uninitialised value" on that thread.
 *
 *   cc -std=c11 valgrind-libclang-repro.c -I/usr/lib/llvm-19/include \
 *      -L/usr/lib/llvm-19/lib -lclang -Wl,-rpath,/usr/lib/llvm-19/lib -o repro
 *   printf '__global__ void k(float *a) { int x = 1; a[0] = x; }\n' > k.cu
 *   valgrind ./repro k.cu [-isystem DIR]    (about 90 s)
 *
 * The extra argument is for a CUDA toolkit whose headers need kpipe's stub
 * directory ($TMPDIR/kpipe-stub-UID, see parse.c).  Not built by CMake.
 */
#include <clang-c/Index.h>
#include <stdio.h>

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	(void)data;
	if (clang_getCursorKind(c) == CXCursor_VarDecl) {
		CXType t = clang_getCanonicalType(clang_getCursorType(c));
		if (clang_Type_getSizeOf(t) == 0)
			puts("size 0");
	}
	return CXChildVisit_Recurse;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE.cu [EXTRA-ARG]\n", argv[0]);
		return 2;
	}
	const char *args[] = {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90",
			      "-std=c++17", "-Wno-unknown-cuda-version", argc > 2 ? argv[2] : "-Dx"};
	CXIndex idx = clang_createIndex(1, 0);
	CXTranslationUnit tu = NULL;
	if (clang_parseTranslationUnit2(idx, argv[1], args, 7, NULL, 0,
					CXTranslationUnit_KeepGoing, &tu) != CXError_Success) {
		fprintf(stderr, "cannot parse %s\n", argv[1]);
		clang_disposeIndex(idx);
		return 1;
	}
	clang_visitChildren(clang_getTranslationUnitCursor(tu), visit, NULL);
	clang_disposeTranslationUnit(tu);
	clang_disposeIndex(idx);
	return 0;
}
