// Freed memory wiped, for the executables that ask for it (cardline; a program that embeds
// CardPrompt may link this target too: the `CardWipingFree` product). Swift frees a String or
// Array that held card digits (a display text, a view) without clearing it, and glibc's free
// leaves the bytes in place; M_PERTURB alone does not help, as glibc skips it for the small
// blocks it keeps per thread (tcache), which is where such strings go. So free() itself is
// replaced in the programs that link this file: with wiping on, it zeroes the whole usable
// block, then hands it to glibc; off (until `cl_wipe_freed_memory`), it costs one test. Not
// with a sanitizer, which brings its own free(). No library target of cardline links it.
#define _GNU_SOURCE
#include "CWipingFree.h"
#include <malloc.h>
#include <string.h>
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer)
#define CL_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CL_SANITIZED 1
#endif

#ifndef CL_SANITIZED
extern void __libc_free(void *pointer);
static volatile int cl_wipes_freed = 0;

void free(void *pointer) {
    if (pointer != NULL && cl_wipes_freed) explicit_bzero(pointer, malloc_usable_size(pointer));
    __libc_free(pointer);
}

int cl_wipe_freed_memory(void) {
    cl_wipes_freed = 1;
    mallopt(M_PERTURB, 0xA5);  // the C library's own frees (stdio, realloc), where glibc honours it
    return 0;
}
#else
int cl_wipe_freed_memory(void) { return -1; }
#endif
