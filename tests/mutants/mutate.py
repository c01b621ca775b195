#!/usr/bin/env python3
"""tests/mutants/mutate.py - legality mutants: near-miss copies of the
eligible samples that kpipe must refuse, each with the refusal id expected.

For every eligible sample (samples/*.cu except refused_*.cu) and every
K-loop in it (a for loop whose body has two top-level __syncthreads() and
copies into __shared__ arrays, and that encloses no such loop: a persistent
kernel's tile loop with barriers of its own is not one), the script writes
one mutant per applicable mutation and variant:

  kind                 what changes                                  expected id
  divergent-barrier    a barrier moved under `if (threadIdx.x < 16)`  kpipe-divergent-barrier
  barrier-removed      the first, the second or both barriers gone    kpipe-no-barrier
  compute-writes-tile  the compute phase clears a loaded tile         kpipe-compute-writes-tile
  load-depends-on-acc  a tile copy's index reads the accumulator      kpipe-load-depends-on-compute
  smem-carried         the compute phase keeps state in __shared__    kpipe-smem-carried
                       that the next tile's copies read (an index)
  global-store-load    the compute phase stores into a tile source    kpipe-memory-order
                       (alone, or after a store to the output)
  atomic               an atomicAdd in the compute or the load phase  kpipe-memory-order
  cp-async             an existing cp.async (asm, or __pipeline_*)    kpipe-already-pipelined
  hidden-counter       the loop counter spelled in a macro body        kpipe-hidden-induction
                       (in the load phase), or read through a
                       reference bound to it there
  tile-escape          a pointer to a tile taken before the loop       kpipe-tile-escapes
  cond-side-effect     the loop condition counts its evaluations       kpipe-cond-side-effect
  store-alias          the compute phase stores through a local copy   kpipe-memory-order
                       of a tile source pointer
  outer-tile-after     the enclosing loop reads the last tile after    kpipe-tile-read-after-loop
                       the K-loop (nested K-loops only)
  outer-tile-before    the enclosing loop writes a tile before the     kpipe-tile-escapes
                       K-loop, every iteration (nested K-loops only)
  partial-barrier      a barrier replaced by __syncwarp() or a tile's   kpipe-no-barrier
                       sync() (cooperative groups): part of the block
  unmodelled-barrier   the first barrier a __syncthreads_count whose    kpipe-extra-barrier
                       count is used, or a grid sync in the compute
  macro-tile-write     a macro of the compute phase stores into a      kpipe-compute-writes-tile
                       tile passed to it as an argument
  macro-counter-step   a macro of the compute phase updates the        kpipe-loop-shape
                       counter passed to it
  macro-copy           a tile copy's `=` moved into a macro body       kpipe-macro-array
                       (COPY(lhs, rhs))
  guard-varies         a tile copy (alone, or twice in a block) put     kpipe-partial-tile-write
                       under a condition on the loop counter, or such
                       a condition added to a copy's guard
  macro-redefined      a macro the load phase names is #undef'd and     kpipe-macro-redefined
                       #define'd again before the second barrier
  load-mark-read       the load phase stores into the output, which    kpipe-memory-order
                       the compute phase reads (the prefetch would
                       store the next tile's mark first)

The edits are made on the source text (comments, strings and preprocessor
lines are masked while scanning, so they are never matched); every mutant
is still valid CUDA. A mutation that does not apply to a loop is skipped
with a line saying why.

Usage: mutate.py [--samples DIR] --out DIR
Writes DIR/NNN-SAMPLE-KIND-VARIANT.cu and DIR/manifest.json (a list of
{file, sample, kernel, kind, variant, expected, loop_line, loop_end_line}),
and prints one line per mutant and per skip, then a count per kind.
Standard library only.
"""

import argparse
import glob
import json
import os
import re
import shutil
import sys

EXPECTED = {
	"divergent-barrier": "kpipe-divergent-barrier",
	"barrier-removed": "kpipe-no-barrier",
	"compute-writes-tile": "kpipe-compute-writes-tile",
	"load-depends-on-acc": "kpipe-load-depends-on-compute",
	"smem-carried": "kpipe-smem-carried",
	"global-store-load": "kpipe-memory-order",
	"atomic": "kpipe-memory-order",
	"cp-async": "kpipe-already-pipelined",
	"hidden-counter": "kpipe-hidden-induction",
	"tile-escape": "kpipe-tile-escapes",
	"cond-side-effect": "kpipe-cond-side-effect",
	"store-alias": "kpipe-memory-order",
	"outer-tile-after": "kpipe-tile-read-after-loop",
	"outer-tile-before": "kpipe-tile-escapes",
	"partial-barrier": "kpipe-no-barrier",
	"unmodelled-barrier": "kpipe-extra-barrier",
	"macro-tile-write": "kpipe-compute-writes-tile",
	"macro-counter-step": "kpipe-loop-shape",
	"macro-copy": "kpipe-macro-array",
	"guard-varies": "kpipe-partial-tile-write",
	"macro-redefined": "kpipe-macro-redefined",
	"load-mark-read": "kpipe-memory-order",
}
KINDS = list(EXPECTED)

IDENT = re.compile(r"[A-Za-z_]\w*")
KEYWORDS = {"if", "for", "while", "do", "switch", "return", "else", "sizeof",
	    "const", "int", "float", "double", "unsigned", "size_t", "char",
	    "__launch_bounds__", "reinterpret_cast", "static_cast", "const_cast"}


class Skip(Exception):
	"""A mutation that does not apply; the message says why."""


# ------------------------------------------------------------ scanning

def mask(src):
	"""Same length as src; comments, string/char literals and preprocessor
	lines replaced by spaces (newlines kept)."""
	out = list(src)
	i, n = 0, len(src)
	line_start = True
	while i < n:
		c = src[i]
		if line_start and c in " \t":
			i += 1
			continue
		if line_start and c == "#":
			# a directive, with its continuation lines
			j = i
			while j < n and src[j] != "\n":
				if src[j] == "\\" and j + 1 < n and src[j + 1] == "\n":
					j += 2
					continue
				j += 1
			for k in range(i, j):
				if out[k] != "\n":
					out[k] = " "
			i = j
			continue
		line_start = False
		if c == "\n":
			line_start = True
			i += 1
		elif src.startswith("//", i):
			j = src.find("\n", i)
			j = n if j < 0 else j
			for k in range(i, j):
				out[k] = " "
			i = j
		elif src.startswith("/*", i):
			j = src.find("*/", i + 2)
			j = n if j < 0 else j + 2
			for k in range(i, j):
				if out[k] != "\n":
					out[k] = " "
			i = j
		elif c in "\"'":
			j = i + 1
			while j < n and src[j] != c:
				j += 2 if src[j] == "\\" else 1
			for k in range(i + 1, min(j, n)):
				if out[k] != "\n":
					out[k] = " "
			i = j + 1
		else:
			i += 1
	return "".join(out)


PAIRS = {"(": ")", "[": "]", "{": "}"}


def match(m, i):
	"""Index of the bracket closing the one at m[i]."""
	stack = []
	for j in range(i, len(m)):
		c = m[j]
		if c in PAIRS:
			stack.append(PAIRS[c])
		elif c in ")]}":
			if not stack or stack.pop() != c:
				raise ValueError("unbalanced brackets at %d" % j)
			if not stack:
				return j
	raise ValueError("unclosed bracket at %d" % i)


def skip_ws(m, i, e=None):
	e = len(m) if e is None else e
	while i < e and m[i].isspace():
		i += 1
	return i


def word_at(m, i):
	mo = IDENT.match(m, i)
	return mo.group(0) if mo and (i == 0 or not (m[i - 1].isalnum() or m[i - 1] == "_")) else None


def parse_stmt(m, i, e):
	"""End (exclusive) of the statement starting at i."""
	i = skip_ws(m, i, e)
	if m[i] == "{":
		return match(m, i) + 1
	w = word_at(m, i)
	if w in ("if", "for", "while", "switch"):
		j = skip_ws(m, i + len(w), e)
		j = match(m, j) + 1
		j = parse_stmt(m, j, e)
		if w == "if":
			k = skip_ws(m, j, e)
			if word_at(m, k) == "else":
				j = parse_stmt(m, k + 4, e)
		return j
	if w == "do":
		j = parse_stmt(m, i + 2, e)
		j = skip_ws(m, j, e)  # while
		j = skip_ws(m, j + 5, e)
		j = match(m, j) + 1
		return m.index(";", j) + 1
	j = i
	while j < e:
		c = m[j]
		if c in PAIRS:
			j = match(m, j) + 1
			continue
		if c == ";":
			return j + 1
		j += 1
	raise ValueError("statement without ';' at %d" % i)


def split_stmts(m, b, e):
	"""Top-level statements of the block interior [b, e): (start, end)."""
	out = []
	i = skip_ws(m, b, e)
	while i < e:
		j = parse_stmt(m, i, e)
		out.append((i, j))
		i = skip_ws(m, j, e)
	return out


BARRIER = re.compile(r"__syncthreads\s*\(\s*\)\s*;")


def is_barrier(m, s):
	return BARRIER.fullmatch(m[s[0]:s[1]].strip()) is not None


def find_kernels(m):
	"""(name, params_b, params_e, body_b, body_e) of every __global__ function
	with a body; body_b is the '{'."""
	out = []
	for mo in re.finditer(r"\b__global__\b", m):
		i = mo.end()
		name = None
		while True:
			p = m.find("(", i)
			if p < 0:
				break
			before = m[i:p].rstrip()
			w = re.search(r"(\w+)$", before)
			if w and w.group(1) == "__launch_bounds__":
				i = match(m, p) + 1
				continue
			name = w.group(1) if w else None
			break
		if not name or p < 0:
			continue
		pe = match(m, p)
		j = skip_ws(m, pe + 1)
		if j >= len(m) or m[j] != "{":
			continue  # a declaration or an explicit instantiation
		out.append((name, p + 1, pe, j, match(m, j)))
	return out


def in_scope(m, b, e):
	"""m[b:e] with every brace block that opens and closes inside it
	blanked: what is declared there is out of scope at e (a sibling loop's
	locals, say)."""
	out = list(m[b:e])
	stack = []
	for j in range(b, e):
		if m[j] == "{":
			stack.append(j)
		elif m[j] == "}" and stack:
			o = stack.pop()
			for k in range(o - b, j - b + 1):
				if out[k] != "\n":
					out[k] = " "
	return "".join(out)


def braced_loops(m, kb, ke):
	"""(keyword position, body '{', body '}', top-level statements, indices
	of the top-level barriers) of every for and while loop with a braced
	body in [kb, ke), in source order."""
	out = []
	for mo in re.finditer(r"\b(for|while)\s*\(", m[kb:ke]):
		f = kb + mo.start()
		hp = m.index("(", f)
		he = match(m, hp)
		bb = skip_ws(m, he + 1)
		if bb >= ke or m[bb] != "{":
			continue
		be = match(m, bb)
		stmts = split_stmts(m, bb + 1, be)
		bars = [k for k, s in enumerate(stmts) if is_barrier(m, s)]
		out.append((f, bb, be, stmts, bars, mo.group(1)))
	return out


def find_kloops(m, kern):
	"""The K-loops of a kernel: for loops with two top-level
	__syncthreads() that enclose no such loop (a loop around K-loops, with
	barriers of its own or not, is not one), in source order."""
	kb, ke = kern[3], kern[4]
	loops = braced_loops(m, kb, ke)
	cands = [lp for lp in loops if lp[5] == "for" and len(lp[4]) == 2]
	return [lp for lp in cands
		if not any(o is not lp and lp[1] < o[0] and o[2] < lp[2] for o in cands)]


class Loop:
	"""A K-loop of a kernel, with its phases, tiles, sources and names, and
	the loop it is nested in (if any)."""

	def __init__(self, src, m, kern, loop):
		self.src, self.m = src, m
		self.kernel, pb, pe, kb, ke = kern
		self.kb, self.ke = kb, ke
		self.for_pos, self.bb, self.be, self.stmts, bars, _ = loop
		stmts = self.stmts
		self.b1, self.b2 = bars
		# the innermost loop around this one, and whether it has barriers
		# of its own at its top level
		around = [o for o in braced_loops(m, kb, ke) if o[1] < self.for_pos and self.be < o[2]]
		self.outer = around[-1] if around else None
		self.outer_barriers = bool(self.outer and self.outer[4])
		# __shared__ arrays of the kernel and of file scope
		self.shared = {}
		for mo in re.finditer(r"__shared__\s+(?:__align__\s*\(\s*\d+\s*\)\s+)?"
				      r"((?:[\w:]+\s+)*?[\w:]+)\s+(\w+)\s*((?:\[[^\]]*\]\s*)+);", m):
			self.shared[mo.group(2)] = (mo.group(1).strip(), mo.group(3).count("["))
		# phases: skip __shared__ declarations that open the body
		first = 0
		while first < len(stmts) and m[stmts[first][0]:stmts[first][1]].lstrip().startswith("__shared__"):
			first += 1
		self.top = self.b1 == first
		if self.top:
			self.load = (stmts[self.b1][1], stmts[self.b2][0])
			self.comp = (stmts[self.b2][1], self.be)
			self.load_end_bar = self.b2
		else:
			self.load = (stmts[first][0], stmts[self.b1][0])
			self.comp = (stmts[self.b1][1], stmts[self.b2][0])
			self.load_end_bar = self.b1
		lt = m[self.load[0]:self.load[1]]
		self.tiles = [t for t in self.shared if re.search(r"\b%s\b" % t, lt)]
		if not self.tiles:
			raise Skip("the load phase names no __shared__ array")
		# pointers: parameters and locals declared with '*'
		self.pointers = {}
		params = self.split_commas(m[pb:pe])
		self.outputs = []  # pointer parameters without const
		for p in params:
			w = re.search(r"(\w+)\s*$", p)
			if w and "*" in p:
				self.pointers[w.group(1)] = self.base_type(p[:w.start()])
				if not re.search(r"\bconst\b", p):
					self.outputs.append(w.group(1))
		pre = m[kb:self.for_pos]
		for mo in re.finditer(r"((?:const\s+)?[\w:]+)\s*\*\s*(?:__restrict__\s+)?(\w+)\s*=", pre):
			self.pointers[mo.group(2)] = self.base_type(mo.group(1))
		self.sources = []
		for mo in re.finditer(r"\b(\w+)\s*\[", lt):
			nm = mo.group(1)
			if nm in self.pointers and nm not in self.sources:
				self.sources.append(nm)

	@staticmethod
	def split_commas(t):
		out, depth, cur = [], 0, ""
		for c in t:
			if c in "(<[":
				depth += 1
			elif c in ")>]":
				depth -= 1
			if c == "," and depth == 0:
				out.append(cur)
				cur = ""
			else:
				cur += c
		if cur.strip():
			out.append(cur)
		return out

	@staticmethod
	def base_type(t):
		t = re.sub(r"\b(const|__restrict__|volatile)\b", " ", t).replace("*", " ")
		return " ".join(t.split())

	# ------------------------------------------------------------ helpers

	def indent_at(self, pos):
		ls = self.src.rfind("\n", 0, pos) + 1
		return self.src[ls:pos] if not self.src[ls:pos].strip() else ""

	def before_stmt(self, k, text):
		"""Edit inserting `text` as a statement before top-level statement k."""
		p = self.stmts[k][0]
		return (p, 0, text + "\n" + self.indent_at(p))

	def at_compute_end(self, text):
		if not self.top:
			return self.before_stmt(self.b2, text)
		# top form: the compute phase runs to the end of the body
		last = self.stmts[-1]
		ind = self.indent_at(last[0])
		return (last[1], 0, "\n" + ind + text)

	def at_load_start(self, text):
		p = skip_ws(self.m, self.load[0])
		ind = self.indent_at(p)
		# above the directives (#pragma unroll) that belong to the statement
		ls = self.src.rfind("\n", 0, p) + 1
		while ls > 0:
			prev = self.src.rfind("\n", 0, ls - 1) + 1
			if not self.src[prev:ls].lstrip().startswith("#"):
				break
			ls = prev
		if ls < p - len(ind):
			return (ls, 0, ind + text + "\n")
		return (p, 0, text + "\n" + ind)

	def accumulators(self):
		"""Variables the compute phase writes that are declared before the
		loop in the kernel: (name, declared type, number of dims)."""
		ct = self.m[self.comp[0]:self.comp[1]]
		pre = in_scope(self.m, self.kb, self.for_pos)
		names = []
		for mo in re.finditer(r"(?<![\w.])(\w+)\s*((?:\[[^\]=;]*\]\s*)*)(?:\+=|-=|\*=|=(?!=))", ct):
			names.append(mo.group(1))
		for mo in re.finditer(r"\bmma_sync\s*\(\s*(\w+)", ct):
			names.append(mo.group(1))
		out = []
		for nm in names:
			if nm in self.shared or nm in KEYWORDS or any(o[0] == nm for o in out):
				continue
			d = re.search(r"(?:^|[;{}])\s*(?:const\s+)?([\w:]+(?:<[^;{}]*?>)?)\s+%s\s*((?:\[[^\]]*\]\s*)*)(?:=|;)"
				      % re.escape(nm), pre)
			if d and d.group(1) not in ("return",):
				out.append((nm, d.group(1), d.group(2).count("[")))
		return out

	def statements_with(self, names, b, e):
		"""Statements (any depth) in [b, e) whose text names one of `names`,
		as (start, end) with start after the preceding ';', '{' or '}'."""
		m = self.m
		seen, out = set(), []
		for mo in re.finditer(r"\b(%s)\b" % "|".join(map(re.escape, names)), m[b:e]):
			p = b + mo.start()
			s = p
			depth = 0
			header = False
			while s > b:
				c = m[s - 1]
				if c in ")]":
					depth += 1
				elif c in "([":
					depth -= 1
					if depth < 0 and re.search(r"\b(for|if|while|switch)\s*$", m[b:s - 1]):
						header = True  # inside a statement's header
						break
				elif c in ";{}":
					break
				s -= 1
			if header:
				continue
			s = skip_ws(m, s, e)
			t = s
			while t < e and m[t] != ";":
				t = match(m, t) + 1 if m[t] in PAIRS else t + 1
			if s not in seen and t < e:
				seen.add(s)
				out.append((s, t + 1))
		return out


def apply(src, edits):
	"""Applies (pos, deleted length, inserted text) edits of the original
	text; insertions at one position keep their order."""
	order = sorted(range(len(edits)), key=lambda i: (edits[i][0], i), reverse=True)
	for i in order:
		pos, dlen, ins = edits[i]
		src = src[:pos] + ins + src[pos + dlen:]
	return src


def zero_of(elem):
	if re.search(r"\b(half|__half)\b", elem):
		return "__float2half(0.0f)"
	if re.search(r"\b(float|double)\b", elem):
		return "0.0f"
	return "0"


def after_includes(src):
	last = 0
	for mo in re.finditer(r"^[ \t]*#[ \t]*include\b.*\n", src, re.M):
		last = mo.end()
	return last


# ------------------------------------------------------------ mutations

def mut_divergent(L):
	for k, which in ((L.b1, "first"), (L.b2, "second")):
		s = L.stmts[k]
		yield which, [(s[0], s[1] - s[0], "if (threadIdx.x < 16)\n" + L.indent_at(s[0]) +
			       "    __syncthreads();")]


def mut_removed(L):
	def rm(k):
		s = L.stmts[k]
		return (s[0], s[1] - s[0], "/* barrier removed */")
	yield "first", [rm(L.b1)]
	yield "second", [rm(L.b2)]
	if L.outer_barriers:
		# without barriers the loop is one more copy loop of the enclosing
		# loop, which is then the candidate: nothing is reported in it
		print("skip %s barrier-removed: (both variant) the enclosing loop has barriers of its own" % L.kernel)
		return
	yield "both", [rm(L.b1), rm(L.b2)]


def mut_compute_writes(L):
	for t in L.tiles:
		elem, nd = L.shared[t]
		lhs = t + "[0]" * nd
		yield t, [L.at_compute_end("%s = %s;" % (lhs, zero_of(elem)))]


def mut_load_dep(L):
	accs = L.accumulators()
	if not accs:
		raise Skip("no accumulator declared before the loop and written by the compute phase")
	nm, ty, nd = accs[0]
	expr = nm + "[0]" * nd + (".x[0]" if "fragment" in ty else "")
	if not L.sources:
		raise Skip("no global pointer subscripted in the load phase")
	lt = L.m[L.load[0]:L.load[1]]
	for srcp in L.sources:
		mo = re.search(r"\b%s\s*\[" % re.escape(srcp), lt)
		o = L.load[0] + mo.end() - 1
		close = match(L.m, o)
		yield "%s-%s" % (srcp, nm), [(close, 0, " + ((int)(%s) & 1)" % expr)]


def mut_smem(L):
	# state the compute phase keeps in __shared__ and the next tile's loads
	# read (a copy's index): pipelined, the loads would run before the write.
	# State the loads do not read is safe (the compute phase is kept in
	# order), so the mutant needs both.
	if not L.sources:
		raise Skip("no global pointer subscripted in the load phase")
	decl_at = L.src.rfind("\n", 0, L.for_pos) + 1
	ind = L.indent_at(L.for_pos)
	lt = L.m[L.load[0]:L.load[1]]
	srcp = L.sources[0]
	mo = re.search(r"\b%s\s*\[" % re.escape(srcp), lt)
	close = match(L.m, L.load[0] + mo.end() - 1)
	yield "array", [
		(decl_at, 0, ind + "__shared__ float kp_mut_carry[32];\n"),
		(close, 0, " + ((int)kp_mut_carry[threadIdx.x % 32] & 1)"),
		L.at_compute_end("kp_mut_carry[threadIdx.x % 32] += 1.0f;"),
	]
	yield "scalar", [
		(decl_at, 0, ind + "__shared__ float kp_mut_total;\n"),
		(close, 0, " + ((int)kp_mut_total & 1)"),
		L.at_compute_end("if (threadIdx.x == 0)\n" + L.indent_at(L.stmts[L.b2][0]) +
				 "    kp_mut_total = kp_mut_total + 1.0f;"),
	]


def mut_global_store(L):
	if not L.sources:
		raise Skip("no global pointer subscripted in the load phase")
	outs = [o for o in L.outputs if o not in L.sources]
	for srcp in L.sources:
		et = L.pointers[srcp] or "float"
		store = "((%s *)(%s))[threadIdx.x] = %s();" % (et, srcp, et)
		yield srcp, [L.at_compute_end(store)]
		if outs:
			# after a store to the output: every store counts, not the first
			o = outs[0]
			yield "%s-after-%s" % (srcp, o), [
				L.at_compute_end("%s[threadIdx.x] = %s();" % (o, L.pointers[o] or "float")),
				L.at_compute_end(store)]
		else:
			print("skip %s %s: (after-output variant) no non-const pointer parameter"
			      % (L.kernel, srcp))


def mut_atomic(L):
	decl = (after_includes(L.src), 0, "__device__ unsigned int kp_mut_counter;\n")
	yield "compute", [decl, L.at_compute_end("atomicAdd(&kp_mut_counter, 1u);")]
	yield "load", [decl, L.at_load_start("atomicAdd(&kp_mut_counter, 1u);")]


def plain_copy(L):
	"""The first unguarded plain copy `TILE... = SRC[...]` (or `*...SRC...`)
	of the load phase: (start, end after ';', lhs, rhs), or None."""
	for s, e in L.statements_with(L.tiles, L.load[0], L.load[1]):
		t = L.m[s:e - 1]
		if re.match(r"(if|else|for|while)\b", t) or "?" in t:
			continue
		eq = [mo.start() for mo in re.finditer(r"(?<![=!<>+\-*/%&|^])=(?!=)", t)]
		if len(eq) != 1:
			continue
		lhs, rhs = t[:eq[0]].strip(), t[eq[0] + 1:].strip()
		if not any(re.search(r"\b%s\b" % x, lhs) for x in L.tiles):
			continue
		if not any(re.fullmatch(r"(\*.*\b%s\b.*|%s\s*\[.*\]|\w+\s*\(\s*%s\s*\[.*\]\s*\))" % (p, p, p),
					rhs, re.S) for p in L.sources):
			continue
		return (s, e, " ".join(L.src[s:s + eq[0]].split()), " ".join(L.src[s + eq[0] + 1:e - 1].split()))
	return None


def mut_cp_async(L):
	bar = L.stmts[L.load_end_bar]
	yield "asm", [L.before_stmt(L.load_end_bar, 'asm volatile("cp.async.wait_all;\\n" ::: "memory");')]
	# a plain copy `TILE... = SRC[...]` turned into __pipeline_memcpy_async
	copy = plain_copy(L)
	if not copy:
		raise Skip("(pipeline variant) no unguarded plain copy in the load phase")
	s, e, lhs, rhs = copy
	ind = L.indent_at(bar[0])
	yield "pipeline", [
		(after_includes(L.src), 0, "#include <cuda_pipeline.h>\n"),
		(s, e - s, "__pipeline_memcpy_async(&(%s), &(%s), sizeof(%s));" % (lhs, rhs, lhs)),
		(bar[0], 0, "__pipeline_commit();\n" + ind + "__pipeline_wait_prior(0);\n" + ind),
	]


def for_header(L):
	"""(header open paren, [part spans]) of the K-loop's for header."""
	hp = L.m.index("(", L.for_pos)
	he = match(L.m, hp)
	parts, depth, start = [], 0, hp + 1
	for j in range(hp + 1, he):
		c = L.m[j]
		if c in "([{":
			depth += 1
		elif c in ")]}":
			depth -= 1
		elif c == ";" and depth == 0:
			parts.append((start, j))
			start = j + 1
	parts.append((start, he))
	return hp, parts


def counter_of(L):
	hp, parts = for_header(L)
	if len(parts) != 3:
		raise Skip("the for header has no three parts")
	init = L.m[parts[0][0]:parts[0][1]]
	mo = re.search(r"(\w+)\s*=", init)
	if not mo:
		raise Skip("no counter initialised in the for header")
	return mo.group(1)


def mut_hidden_counter(L):
	k = counter_of(L)
	lt = L.m[L.load[0]:L.load[1]]
	mo = re.search(r"\b%s\b" % re.escape(k), lt)
	if not mo:
		raise Skip("the load phase does not name the counter '%s'" % k)
	pos = L.load[0] + mo.start()
	yield "macro", [(after_includes(L.src), 0, "#define KP_MUT_COUNTER %s\n" % k),
			(pos, len(k), "KP_MUT_COUNTER")]
	yield "reference", [L.at_load_start("const auto &kp_mut_ref = %s;" % k),
			    (pos, len(k), "kp_mut_ref")]


def mut_tile_escape(L):
	decl_at = L.src.rfind("\n", 0, L.for_pos) + 1
	ind = L.indent_at(L.for_pos)
	found = False
	for t in L.tiles:
		d = re.search(r"__shared__[^;]*\b%s\s*\[" % re.escape(t), L.m[L.kb:L.for_pos])
		if not d:
			continue
		found = True
		yield t, [(decl_at, 0, ind + "const void *kp_mut_escape = (const void *)%s;\n" % t)]
	if not found:
		raise Skip("no tile declared in the kernel before the loop")


def mut_cond_side_effect(L):
	hp, parts = for_header(L)
	if len(parts) != 3 or not L.m[parts[1][0]:parts[1][1]].strip():
		raise Skip("the for header has no condition")
	cb, ce = parts[1]
	cond = L.src[cb:ce].strip()
	decl_at = L.src.rfind("\n", 0, L.for_pos) + 1
	ind = L.indent_at(L.for_pos)
	yield "counted", [(decl_at, 0, ind + "int kp_mut_calls = 0;\n"),
			  (cb, ce - cb, " (%s) && kp_mut_calls++ >= 0" % cond)]


def mut_store_alias(L):
	if not L.sources:
		raise Skip("no global pointer subscripted in the load phase")
	decl_at = L.src.rfind("\n", 0, L.for_pos) + 1
	ind = L.indent_at(L.for_pos)
	for srcp in L.sources:
		et = L.pointers[srcp] or "float"
		yield srcp, [(decl_at, 0, ind + "%s *kp_mut_w = (%s *)(%s);\n" % (et, et, srcp)),
			     L.at_compute_end("kp_mut_w[threadIdx.x] = %s();" % et)]


def tile_element(L, t):
	return t + "[0]" * L.shared[t][1]


def mut_outer_after(L):
	"""The enclosing loop reads the last tile after the K-loop (and carries
	it into its next iteration)."""
	if not L.outer:
		raise Skip("the K-loop is not nested in another loop")
	p = L.be + 1
	ind = L.indent_at(L.for_pos)
	for t in L.tiles:
		yield t, [(p, 0, "\n" + ind + "{ auto kp_mut_last = %s; (void)kp_mut_last; }"
			   % tile_element(L, t))]


def mut_outer_before(L):
	"""The enclosing loop writes a tile before the K-loop, every iteration."""
	if not L.outer:
		raise Skip("the K-loop is not nested in another loop")
	decl_at = L.src.rfind("\n", 0, L.for_pos) + 1
	ind = L.indent_at(L.for_pos)
	for t in L.tiles:
		elem = L.shared[t][0]
		yield t, [(decl_at, 0, ind + "%s = %s;\n" % (tile_element(L, t), zero_of(elem)))]
def cg_include(L):
	return (after_includes(L.src), 0, "#include <cooperative_groups.h>\n")


def mut_partial_barrier(L):
	s = L.stmts[L.b2]
	yield "warp", [(s[0], s[1] - s[0], "__syncwarp();")]
	s = L.stmts[L.b1]
	yield "tile", [cg_include(L), (s[0], s[1] - s[0], "cooperative_groups::tiled_partition<32>("
				       "cooperative_groups::this_thread_block()).sync();")]


def mut_unmodelled_barrier(L):
	s = L.stmts[L.load_end_bar]
	decl_at = L.src.rfind("\n", 0, L.for_pos) + 1
	ind = L.indent_at(L.for_pos)
	yield "count-used", [(decl_at, 0, ind + "int kp_mut_votes = 0;\n"),
			     (s[0], s[1] - s[0], "kp_mut_votes += __syncthreads_count(1);")]
	yield "grid", [cg_include(L), L.at_compute_end("cooperative_groups::this_grid().sync();")]
def mut_macro_tile_write(L):
	define = (after_includes(L.src), 0, "#define KP_MUT_SET(dst, v) (dst) = (v)\n")
	for t in L.tiles:
		elem, nd = L.shared[t]
		lhs = t + "[0]" * nd
		yield t, [define, L.at_compute_end("KP_MUT_SET(%s, %s);" % (lhs, zero_of(elem)))]


def mut_macro_counter_step(L):
	k = counter_of(L)
	yield k, [(after_includes(L.src), 0, "#define KP_MUT_STEP(k) ((k) += 0)\n"),
		  L.at_compute_end("KP_MUT_STEP(%s);" % k)]


def guarded_copies(L):
	"""`if (c) TILE... = ...;` statements of the load phase (no braces, no
	else): (open paren, close paren, copy start, copy end after ';', lhs, rhs)."""
	out = []
	m = L.m
	for mo in re.finditer(r"\bif\s*\(", m[L.load[0]:L.load[1]]):
		p = L.load[0] + mo.end() - 1
		q = match(m, p)
		b = skip_ws(m, q + 1)
		if m[b] == "{" or word_at(m, b) in ("if", "for", "while", "switch", "do"):
			continue
		e = parse_stmt(m, b, L.load[1])
		if word_at(m, skip_ws(m, e, L.load[1])) == "else":
			continue
		t = m[b:e - 1]
		eq = [x.start() for x in re.finditer(r"(?<![=!<>+\-*/%&|^])=(?!=)", t)]
		if len(eq) != 1 or "?" in t:
			continue
		if not any(re.search(r"\b%s\b" % x, t[:eq[0]]) for x in L.tiles):
			continue
		out.append((p, q, b, e, " ".join(L.src[b:b + eq[0]].split()),
			    " ".join(L.src[b + eq[0] + 1:e - 1].split())))
	return out


MUT_COPY = "#define KP_MUT_COPY(dst, ...) dst = __VA_ARGS__\n"


def mut_macro_copy(L):
	copy = plain_copy(L)
	if copy:
		s, e, lhs, rhs = copy
		yield "copy", [(after_includes(L.src), 0, MUT_COPY), (s, e - s, "KP_MUT_COPY(%s, %s);" % (lhs, rhs))]
	for p, q, b, e, lhs, rhs in guarded_copies(L)[:1]:
		yield "guarded", [(after_includes(L.src), 0, MUT_COPY), (b, e - b, "KP_MUT_COPY(%s, %s);" % (lhs, rhs))]
	if not copy and not guarded_copies(L):
		raise Skip("no plain copy in the load phase, guarded or not")


def mut_guard_varies(L):
	k = counter_of(L)
	# always true, but kpipe cannot know: where it failed, the element
	# would keep the previous tile
	cond = "(%s) + 1 != 0" % k
	copy = plain_copy(L)
	if copy:
		s, e, lhs, rhs = copy
		ind = L.indent_at(s)
		yield "stmt", [(s, 0, "if (" + cond + ")\n" + ind + "    ")]
		# a block of two statements (the copy twice): a lone copy in braces
		# was always checked, a block was not
		yield "block", [(s, 0, "if (" + cond + ") {\n" + ind + "    "),
				(e, 0, "\n" + ind + "    " + L.src[s:e] + "\n" + ind + "}")]
	for p, q, b, e, lhs, rhs in guarded_copies(L)[:1]:
		yield "cond", [(p + 1, 0, "("), (q, 0, ") && " + cond)]
	if not copy and not guarded_copies(L):
		raise Skip("no plain copy in the load phase, guarded or not")


def mut_macro_redefined(L):
	# the load phase names KP_MUT_ONE; the compute phase gives it another
	# value, which a store moved after the compute phase (register
	# staging) or a copy moved before the loop (cp.async) would see
	yield "undef", [(after_includes(L.src), 0, "#define KP_MUT_ONE 1\n"),
			L.at_load_start("(void)KP_MUT_ONE;"),
			L.at_compute_end("#undef KP_MUT_ONE\n#define KP_MUT_ONE 2")]


def mut_load_mark(L):
	outs = [o for o in L.outputs if o not in L.sources]
	if not outs:
		raise Skip("no non-const pointer parameter the loads do not read")
	o = outs[0]
	et = L.pointers[o] or "float"
	decl = (after_includes(L.src), 0, "__device__ %s kp_mut_seen[1024];\n" % et)
	yield o, [decl, L.at_load_start("%s[threadIdx.x] = %s();" % (o, et)),
		  L.at_compute_end("kp_mut_seen[threadIdx.x %% 1024] = %s[threadIdx.x];" % o)]


MUTATORS = {
	"divergent-barrier": mut_divergent,
	"barrier-removed": mut_removed,
	"compute-writes-tile": mut_compute_writes,
	"load-depends-on-acc": mut_load_dep,
	"smem-carried": mut_smem,
	"global-store-load": mut_global_store,
	"atomic": mut_atomic,
	"cp-async": mut_cp_async,
	"hidden-counter": mut_hidden_counter,
	"tile-escape": mut_tile_escape,
	"cond-side-effect": mut_cond_side_effect,
	"store-alias": mut_store_alias,
	"outer-tile-after": mut_outer_after,
	"outer-tile-before": mut_outer_before,
	"partial-barrier": mut_partial_barrier,
	"unmodelled-barrier": mut_unmodelled_barrier,
	"macro-tile-write": mut_macro_tile_write,
	"macro-counter-step": mut_macro_counter_step,
	"macro-copy": mut_macro_copy,
	"guard-varies": mut_guard_varies,
	"macro-redefined": mut_macro_redefined,
	"load-mark-read": mut_load_mark,
}


def line_of(text, pos):
	return text.count("\n", 0, pos) + 1


def main():
	here = os.path.dirname(os.path.abspath(__file__))
	ap = argparse.ArgumentParser(description="write legality mutants of the eligible samples")
	ap.add_argument("--samples", default=os.path.join(here, "..", "..", "samples"))
	ap.add_argument("--out", required=True)
	a = ap.parse_args()
	os.makedirs(a.out, exist_ok=True)
	files = sorted(f for f in glob.glob(os.path.join(a.samples, "*.cu"))
		       if not os.path.basename(f).startswith("refused_"))
	if not files:
		print("error: no samples in %s" % a.samples, file=sys.stderr)
		return 2
	# the samples' own headers (tile_loaders.cuh), beside the mutants that
	# include them
	for h in glob.glob(os.path.join(a.samples, "*.cuh")):
		shutil.copy(h, a.out)
	manifest, counts, skips = [], {k: 0 for k in KINDS}, 0
	for path in files:
		sample = os.path.splitext(os.path.basename(path))[0]
		with open(path, encoding="utf-8") as fh:
			src = fh.read()
		m = mask(src)
		for kern in find_kernels(m):
			loops = []
			try:
				kloops = find_kloops(m, kern)
				if not kloops:
					raise Skip("no for loop with two top-level __syncthreads()")
				for lp in kloops:
					loops.append(Loop(src, m, kern, lp))
			except Skip as why:
				print("skip %s %s: %s" % (sample, kern[0], why))
				skips += 1
				continue
			for L in loops:
				for kind in KINDS:
					try:
						for variant, edits in MUTATORS[kind](L):
							out = apply(src, edits)
							# where the loop is in the mutant
							shift = sum(ins.count("\n") - src[p:p + d].count("\n")
								    for p, d, ins in edits if p < L.for_pos)
							lb = line_of(src, L.for_pos) + shift
							le = line_of(out, L.be + sum(len(ins) - d for p, d, ins in edits if p <= L.be))
							name = "%03d-%s-%s-%s-%s.cu" % (len(manifest) + 1, sample, kern[0], kind,
											 re.sub(r"\W", "_", variant))
							with open(os.path.join(a.out, name), "w", encoding="utf-8") as fh:
								fh.write(out)
							manifest.append({"file": name, "sample": sample, "kernel": kern[0],
									 "kind": kind, "variant": variant,
									 "expected": EXPECTED[kind],
									 "loop_line": lb, "loop_end_line": le})
							counts[kind] += 1
							print("mutant %s  expects %s" % (name, EXPECTED[kind]))
					except Skip as why:
						print("skip %s %s %s: %s" % (sample, kern[0], kind, why))
						skips += 1
	with open(os.path.join(a.out, "manifest.json"), "w", encoding="utf-8") as fh:
		json.dump(manifest, fh, indent=1)
	for k in KINDS:
		print("kind %-20s %3d  %s" % (k, counts[k], EXPECTED[k]))
	print("mutants: %d written, %d skipped" % (len(manifest), skips))
	return 0


if __name__ == "__main__":
	sys.exit(main())
