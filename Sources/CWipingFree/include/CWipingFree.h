// A free() that wipes, for executables only: linking this target replaces the C library's
// free() for the whole process (through glibc's __libc_free), so no library target depends
// on it. cardline links it; a program that embeds CardPrompt may link the `CardWipingFree`
// product and call cl_wipe_freed_memory() itself.
#ifndef CWIPINGFREE_H
#define CWIPINGFREE_H

/// From now on, for the rest of the process, every block handed to free() is overwritten with
/// zeros first, and the C library's own frees are overwritten too where it can (mallopt
/// M_PERTURB). 0, or -1 when free() is not replaced (a sanitizer's allocator is in use).
int cl_wipe_freed_memory(void);

#endif
