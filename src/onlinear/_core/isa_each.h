/* Compile the body header ISA_BODY (a quoted file name, #defined by the includer) once for each
 * instruction set, with SFX set to generic, avx2 and avx512 around the inclusions and the
 * matching target, no multiply-add contraction asked for (the package's -ffp-contract=off
 * holds); defines ONLINEAR_ISA_X86 where the AVX2 and AVX-512 versions exist.  Included once
 * per body; onlinear_isa() (isa_choice.h) picks which version a CPU runs.
 *
 * The bodies are compiled without trapping math (GCC): a loop whose selects guard a division
 * or a square root is otherwise not if-converted, so not vectorized at all (the adaptive
 * steps ran one class at a time).  It changes no value: only whether the FPU's exception flags
 * may be raised by a lane whose result is discarded. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("no-trapping-math")
#endif
#define SFX generic
#include ISA_BODY
#undef SFX

#if (defined(__x86_64__) || defined(_M_X64)) && defined(__GNUC__)
#ifndef ONLINEAR_ISA_X86
#define ONLINEAR_ISA_X86 1
#endif
#if defined(__clang__)
#pragma clang attribute push (__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
#define SFX avx2
#include ISA_BODY
#undef SFX
#if defined(__clang__)
#pragma clang attribute pop
#pragma clang attribute push (__attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,avx2"))), apply_to = function)
#else
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512dq,avx512bw,avx2")
#endif
#define SFX avx512
#include ISA_BODY
#undef SFX
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
