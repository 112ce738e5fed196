// C that changes the whole process, for executables only: linking this target replaces the
// C library's free() for the whole process (through glibc's __libc_free), so no library
// target depends on it. cardline links it; a program that embeds CardPrompt may link the `CardProcessWide`
// product and call cl_wipe_freed_memory() itself.
#ifndef CPROCESSWIDE_H
#define CPROCESSWIDE_H

/// From now on, for the rest of the process, every block handed to free() is overwritten with
/// zeros first, and the C library's own frees are overwritten too where it can (mallopt
/// M_PERTURB). 0, or -1 when free() is not replaced (a sanitizer's allocator is in use).
int cl_wipe_freed_memory(void);

/// Threads made from now on get 2 MiB stacks rather than RLIMIT_STACK's 8 MiB (glibc's default
/// thread attributes), for a process held to little address space (`ulimit -v`), where
/// Dispatch would otherwise wait for ever for a thread it cannot make. 0, or -1.
int cl_small_thread_stacks(void);

#endif
