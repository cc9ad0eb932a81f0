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

#endif
