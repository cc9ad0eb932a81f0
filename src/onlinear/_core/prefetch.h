/* Ask for the cache lines of [p, p + bytes) to be read: a hint, which changes no value.  Used
 * where a pass knows what it reads next and the hardware cannot guess it (the next dense row;
 * the weights of a wide sparse row's next non-zeros, far apart). */
#ifndef ONLINEAR_PREFETCH_H
#define ONLINEAR_PREFETCH_H

#include <stddef.h>

static inline void onlinear_prefetch(const void *p, ptrdiff_t bytes) {
#if defined(__GNUC__)
    const char *c = (const char *)p;
    for (ptrdiff_t off = 0; off < bytes; off += 64) __builtin_prefetch(c + off, 0, 3);
#else
    (void)p;
    (void)bytes;
#endif
}

/* Whether a row's first and last features (`first`, `last`), each with `row_bytes` of state,
 * lie farther apart than ONLINEAR_FAR_BYTES: past what the caches hold, so that every value
 * read would be a miss worth asking for ahead.  A dense row of 784 features keeps its state in
 * L2, where the requests would only cost their instructions. */
#define ONLINEAR_FAR_BYTES (512 * 1024)

static inline int onlinear_far_apart(double first, double last, double row_bytes) {
    return (last - first) * row_bytes > ONLINEAR_FAR_BYTES;
}

#endif
