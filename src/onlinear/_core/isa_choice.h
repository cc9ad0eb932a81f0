/* Which version of isa_each.h's bodies this CPU runs: 0 the baseline, 1 AVX2, 2 AVX-512 (the
 * fastest it has); ONLINEAR_CPU=generic (in the environment before import) keeps the baseline. */
#ifndef ONLINEAR_ISA_CHOICE_H
#define ONLINEAR_ISA_CHOICE_H

#include <stdlib.h>
#include <string.h>

static int onlinear_isa(void) {
    const char *forced = getenv("ONLINEAR_CPU");
    if (forced != NULL && strcmp(forced, "generic") == 0) return 0;
#if (defined(__x86_64__) || defined(_M_X64)) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw")) return 2;
    if (__builtin_cpu_supports("avx2")) return 1;
#endif
    return 0;
}

#endif
