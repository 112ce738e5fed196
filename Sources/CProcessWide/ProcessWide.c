// C that changes the whole process, for executables only (cardline; a program that embeds
// CardPrompt may link it too: the `CardProcessWide` product): a free() that wipes, and the
// stack size of the threads made from now on.
//
// Freed memory wiped, for the executables that ask for it. Swift frees a String or
// Array that held card digits (a display text, a view) without clearing it, and glibc's free
// leaves the bytes in place; M_PERTURB alone does not help, as glibc skips it for the small
// blocks it keeps per thread (tcache), which is where such strings go. So free() itself is
// replaced in the programs that link this file: with wiping on, it zeroes the whole usable
// block, then hands it to glibc; off (until `cl_wipe_freed_memory`), it costs one test. Not
// with a sanitizer, which brings its own free(). No library target of cardline links it.
#define _GNU_SOURCE
#include "CProcessWide.h"
#include <malloc.h>
#include <pthread.h>
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

int cl_small_thread_stacks(void) {
    pthread_attr_t attributes;
    if (pthread_attr_init(&attributes) != 0) return -1;
    int set = pthread_attr_setstacksize(&attributes, 2 << 20) == 0 && pthread_setattr_default_np(&attributes) == 0;
    pthread_attr_destroy(&attributes);
    return set ? 0 : -1;
}
