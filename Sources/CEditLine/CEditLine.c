#define _GNU_SOURCE
#include "CEditLine.h"
#include <signal.h>
#include <stdio.h>
#include <wchar.h>
#include <string.h>

EditLine *cl_init(const char *program) { return el_init(program, stdin, stdout, stderr); }
EditLine *cl_init_files(const char *program, FILE *in, FILE *out) {
    return el_init_fd(program, in, out, out, fileno(in), fileno(out), fileno(out));
}
FILE *cl_stdin(void) { return stdin; }
FILE *cl_stdout(void) { return stdout; }
int cl_set_prompt(EditLine *el, cl_prompt_fn fn, char invisible) { return el_set(el, EL_PROMPT_ESC, fn, invisible); }
int cl_set_rprompt(EditLine *el, cl_prompt_fn fn, char invisible) { return el_set(el, EL_RPROMPT_ESC, fn, invisible); }
int cl_set_editor(EditLine *el, const char *mode) { return el_set(el, EL_EDITOR, mode); }
int cl_add_function(EditLine *el, const char *name, const char *help, cl_key_fn fn) {
    return el_set(el, EL_ADDFN, name, help, fn);
}
int cl_bind(EditLine *el, const char *key, const char *function) { return el_set(el, EL_BIND, key, function, NULL); }
int cl_set_client_data(EditLine *el, void *data) { return el_set(el, EL_CLIENTDATA, data); }
void *cl_client_data(EditLine *el) {
    void *data = NULL;
    el_get(el, EL_CLIENTDATA, &data);
    return data;
}
void cl_write(FILE *out, const char *text) { fputs(text, out); fflush(out); }
void cl_write_bytes(FILE *out, const unsigned char *bytes, size_t count) {
    fwrite(bytes, 1, count, out);
    fflush(out);
}
int cl_wcwidth(int character) { return wcwidth((wchar_t)character); }
const char *cl_terminal_string(EditLine *el, const char *name) {
    char *value = NULL;
    if (el_get(el, EL_GETTC, name, &value) != 0) return NULL;
    return value;
}

int cl_set_tty_flag(EditLine *el, const char *mode, const char *flag) {
    return el_set(el, EL_SETTY, mode, flag, NULL);
}
void cl_suspend(void) { kill(0, SIGTSTP); }

// Process protection (Swift's Glibc module lacks prctl and the RLIMIT_* names).
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#ifndef MCL_ONFAULT
#define MCL_ONFAULT 4
#endif

int cl_disable_core_dumps(void) {
    struct rlimit none = {0, 0};
    int limited = setrlimit(RLIMIT_CORE, &none);
    int undumpable = prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    return limited == 0 && undumpable == 0 ? 0 : -1;
}

long long cl_memlock_limit(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_MEMLOCK, &limit) != 0) return 0;
    return limit.rlim_cur == RLIM_INFINITY ? -1 : (long long)limit.rlim_cur;
}

int cl_lock_memory(void) { return mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT); }

// Freed memory is wiped. Swift frees a String or Array that held card digits (a display text,
// a view) without clearing it, and glibc's free leaves the bytes in place; M_PERTURB alone does
// not help, as glibc skips it for the small blocks it keeps per thread (tcache), which is where
// such strings go. So free() itself is replaced: with wiping on, it zeroes the whole usable
// block, then hands it to glibc. Off (the default) it costs one test. Not with a sanitizer,
// which brings its own free().
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

long long cl_address_space_limit(int *isData) {
    long long smallest = -1;
    int kinds[] = {RLIMIT_AS, RLIMIT_DATA};
    for (int i = 0; i < 2; i++) {
        struct rlimit limit;
        if (getrlimit(kinds[i], &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
            && (smallest < 0 || (long long)limit.rlim_cur < smallest)) {
            smallest = (long long)limit.rlim_cur;
            if (isData != NULL) *isData = kinds[i] == RLIMIT_DATA;
        }
    }
    return smallest;
}

int cl_tune_allocator(void) {
    long long limit = cl_address_space_limit(NULL);
    if (limit >= 0 && limit < (1LL << 30)) {
        // Held to little memory: glibc's defaults, which take it in small steps (an 8 MiB step
        // of the heap fails where 100 KiB would do), and threads with 2 MiB stacks rather than
        // the 8 MiB of RLIMIT_STACK (Dispatch waits forever for a thread it cannot make).
        pthread_attr_t attributes;
        if (pthread_attr_init(&attributes) != 0) return -1;
        int set = pthread_attr_setstacksize(&attributes, 2 << 20) == 0 && pthread_setattr_default_np(&attributes) == 0;
        pthread_attr_destroy(&attributes);
        return set ? 1 : -1;
    }
    int ok = mallopt(M_MMAP_THRESHOLD, 32 << 20);
    ok &= mallopt(M_TRIM_THRESHOLD, 64 << 20);
    ok &= mallopt(M_TOP_PAD, 8 << 20);
    return ok ? 0 : -1;
}

int cl_set_buffer(FILE *out, char *buffer, size_t size) { return setvbuf(out, buffer, _IOLBF, size); }
void cl_wipe(void *bytes, size_t count) { explicit_bzero(bytes, count); }
__attribute__((noinline)) void cl_wipe_stack(size_t count) {
    unsigned char below[count];  // on this stack, just below the caller's frame
    explicit_bzero(below, count);
    __asm__ volatile("" : : "r"(below) : "memory");
}
void cl_wipe_written(char *buffer, size_t size) { explicit_bzero(buffer, strnlen(buffer, size)); }
int cl_refresh(EditLine *el) { return el_set(el, EL_REFRESH); }

// The stream that takes libedit's drawing in cl_refresh_silently (and between cl_draw_into_sink
// and cl_draw_into) and discards it. The drawing holds the field: what reaches the sink from its
// buffer is wiped there as it is discarded (only the bytes written, not the whole 4 KiB, which
// cost 4,000 instructions a use), and the buffer is flushed after each use.
static char cl_sink_buffer[4096];
static ssize_t cl_sink_write(void *cookie, const char *bytes, size_t size) {
    (void)cookie;
    if (bytes >= cl_sink_buffer && bytes + size <= cl_sink_buffer + sizeof cl_sink_buffer) {
        explicit_bzero(cl_sink_buffer + (bytes - cl_sink_buffer), size);
    }
    return (ssize_t)size;
}

static FILE *cl_sink = NULL;

int cl_silent_refresh_ready(void) {
    if (cl_sink == NULL) {
        cookie_io_functions_t io = {NULL, cl_sink_write, NULL, NULL};
        cl_sink = fopencookie(NULL, "w", io);
        if (cl_sink == NULL) return -1;
        setvbuf(cl_sink, cl_sink_buffer, _IOFBF, sizeof cl_sink_buffer);
    }
    return 0;
}

int cl_draw_into_sink(EditLine *el, FILE *out) {
    if (cl_silent_refresh_ready() != 0) return -1;
    fflush(out);
    return el_set(el, EL_SETFP, 1, cl_sink);
}

int cl_draw_into(EditLine *el, FILE *out) {
    fflush(cl_sink);  // (wiped as it is discarded)
    return el_set(el, EL_SETFP, 1, out);
}

int cl_refresh_silently(EditLine *el, FILE *out) {
    if (cl_silent_refresh_ready() != 0) return -1;
    FILE *sink = cl_sink;
    fflush(out);
    el_set(el, EL_SETFP, 1, sink);
    int status = el_set(el, EL_REFRESH);
    fflush(sink);
    el_set(el, EL_SETFP, 1, out);
    explicit_bzero(cl_sink_buffer, sizeof cl_sink_buffer);
    return status;
}

// Signals while the prompt runs. libedit's own handling (EL_SIGNAL) re-sends a signal with
// kill(0, …), to the whole process group, which kills the shell or program that called
// cardline; these handlers put the terminal back and end or stop this process only.
#include <errno.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static int cl_tty = -1;
static int cl_tty_out = -1;             // where the handlers write (the terminal's output side)
static struct termios cl_saved;            // the terminal as it was before the prompt
static struct termios cl_editing;          // as it was when a stop signal came
static volatile sig_atomic_t cl_resized = 0;
// Every catchable signal whose default action ends the process (issue 20: SIGXCPU, SIGXFSZ,
// SIGVTALRM, SIGPROF, SIGIO, SIGPWR and the real-time signals used to end it with the terminal
// raw and the number on screen), besides the faults of cl_fatal; the real-time ones are added
// in cl_signals_begin. SIGXFSZ among them: the cardline executable ignores it (a write too
// large is an error), a program embedding the prompt may not.
static const int cl_ending_fixed[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2,
                                      SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT};
#define CL_FIXED_COUNT (sizeof cl_ending_fixed / sizeof cl_ending_fixed[0])
#define CL_ENDING_MAX (CL_FIXED_COUNT + 64)
static int cl_ending[CL_ENDING_MAX];
static size_t cl_ending_count = 0;
static struct sigaction cl_previous[CL_ENDING_MAX];
static int cl_installed[CL_ENDING_MAX];
static struct sigaction cl_previous_stop, cl_previous_winch;

// What the terminal is told when the prompt lets go of it (clear the live field, bracketed
// paste off) and when it takes it back after a stop (bracketed paste on).
static char cl_leave[64];
static char cl_enter[64];

static void cl_write_tty(const char *text) {
    if (cl_tty < 0 || cl_tty_out < 0) return;
    size_t left = strlen(text);
    while (left > 0) {
        ssize_t written = write(cl_tty_out, text, left);
        if (written <= 0) { if (written < 0 && errno == EINTR) continue; return; }
        text += written;
        left -= (size_t)written;
    }
}

void cl_set_terminal_modes(const char *enter, const char *leave) {
    snprintf(cl_enter, sizeof cl_enter, "%s", enter);
    snprintf(cl_leave, sizeof cl_leave, "%s", leave);
}

static void cl_on_ending(int sig) {
    int saved = errno;
    cl_write_tty(cl_leave);
    if (cl_tty >= 0) tcsetattr(cl_tty, TCSANOW, &cl_saved);
    signal(sig, SIG_DFL);
    raise(sig);  // pending until this handler returns (the signal is blocked in it), then ends the process
    errno = saved;
}

static void cl_on_stop(int sig) {
    int saved = errno;
    if (cl_tty >= 0) {
        cl_write_tty(cl_leave);  // the live field is cleared before the shell's prompt appears
        tcgetattr(cl_tty, &cl_editing);
        tcsetattr(cl_tty, TCSANOW, &cl_saved);
    }
    signal(SIGTSTP, SIG_DFL);
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTSTP);
    sigprocmask(SIG_UNBLOCK, &stop, NULL);
    raise(SIGTSTP);  // stops here; execution goes on after `fg`
    sigprocmask(SIG_BLOCK, &stop, NULL);
    struct sigaction again;
    memset(&again, 0, sizeof again);
    again.sa_handler = cl_on_stop;
    again.sa_flags = SA_RESTART;
    sigaction(SIGTSTP, &again, NULL);
    if (cl_tty >= 0) tcsetattr(cl_tty, TCSANOW, &cl_editing);
    cl_write_tty(cl_enter);
    cl_resized = 1;  // redraw in full
    (void)sig;
    errno = saved;
}

static void cl_on_winch(int sig) {
    cl_resized = 1;
    (void)sig;
}

static int cl_stop_ignored = 0;         // the caller ignores SIGTSTP: no suspending

int cl_signals_begin(int tty, int tty_out) {
    if (tcgetattr(tty, &cl_saved) != 0) return -1;
    cl_tty = tty;
    cl_tty_out = tty_out;
    // No echo from here on: keys typed before libedit's raw mode must not show a digit.
    // No flow control either (IXON): a Ctrl-S would stop the terminal's output, and a signal
    // handler's write to it would then block. libedit keeps both as it finds them; the
    // handlers and cl_signals_end put the original settings back.
    struct termios quiet = cl_saved;
    quiet.c_lflag &= ~(ECHO | ECHONL);
    quiet.c_iflag &= ~IXON;
    tcsetattr(tty, TCSANOW, &quiet);
    cl_ending_count = 0;
    for (size_t i = 0; i < CL_FIXED_COUNT; i++) cl_ending[cl_ending_count++] = cl_ending_fixed[i];
    for (int sig = SIGRTMIN; sig <= SIGRTMAX && cl_ending_count < CL_ENDING_MAX; sig++) cl_ending[cl_ending_count++] = sig;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_flags = SA_RESTART;
    for (size_t i = 0; i < cl_ending_count; i++) {
        cl_installed[i] = 0;
        struct sigaction current;
        // A signal the caller ignores (SIG_IGN, or SIGPIPE while delivering) stays ignored.
        if (sigaction(cl_ending[i], NULL, &current) != 0 || current.sa_handler == SIG_IGN) continue;
        action.sa_handler = cl_on_ending;
        if (sigaction(cl_ending[i], &action, &cl_previous[i]) == 0) cl_installed[i] = 1;
    }
    struct sigaction current_stop;
    cl_stop_ignored = sigaction(SIGTSTP, NULL, &current_stop) == 0 && current_stop.sa_handler == SIG_IGN;
    action.sa_handler = cl_stop_ignored ? SIG_IGN : cl_on_stop;
    sigaction(SIGTSTP, &action, &cl_previous_stop);
    action.sa_handler = cl_on_winch;
    sigaction(SIGWINCH, &action, &cl_previous_winch);
    return 0;
}

void cl_signals_end(void) {
    for (size_t i = 0; i < cl_ending_count; i++) {
        if (cl_installed[i]) sigaction(cl_ending[i], &cl_previous[i], NULL);
        cl_installed[i] = 0;
    }
    sigaction(SIGTSTP, &cl_previous_stop, NULL);
    sigaction(SIGWINCH, &cl_previous_winch, NULL);
    if (cl_tty >= 0) tcsetattr(cl_tty, TCSANOW, &cl_saved);
    cl_tty = -1;
    cl_tty_out = -1;
    cl_enter[0] = cl_leave[0] = 0;
}

int cl_can_suspend(void) { return !cl_stop_ignored; }

// Reading keys: cardline reads the terminal itself (EL_GETCFN) and decodes whole key
// sequences before libedit sees anything.
#include <poll.h>
#include <sys/ioctl.h>

int cl_set_getcfn(EditLine *el, cl_getc_fn fn) { return el_set(el, EL_GETCFN, fn); }

int cl_wait_input(int fd, int timeout_ms) {
    // SIGWINCH and SIGTSTP (whose handler flags the redraw after `fg`) are blocked while the
    // flag is looked at, and let in only by ppoll itself: one that lands in between is not
    // lost until the next key.
    sigset_t block, previous;
    sigemptyset(&block);
    sigaddset(&block, SIGWINCH);
    sigaddset(&block, SIGTSTP);
    sigprocmask(SIG_BLOCK, &block, &previous);
    int result;
    if (cl_resized) {
        result = 2;
    } else {
        struct pollfd entry = {fd, POLLIN, 0};
        struct timespec wait = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};
        // A resize is let in even when the caller started with SIGWINCH blocked (a mask is
        // inherited through exec: a parent that blocks it would leave the prompt drawn for the
        // old width, never cleared).
        sigset_t during = previous;
        sigdelset(&during, SIGWINCH);
        result = ppoll(&entry, 1, timeout_ms < 0 ? NULL : &wait, &during);
        if (result < 0 && errno == EINTR && cl_resized) result = 2;
    }
    int saved = errno;
    sigprocmask(SIG_SETMASK, &previous, NULL);
    if (result == 2) cl_resized = 0;
    errno = saved;
    return result;
}

int cl_columns(int fd) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) return 80;
    return size.ws_col;
}

// Faults and aborts (a Swift trap is SIGILL or SIGTRAP). These replace the Swift runtime's
// backtracer, which would print registers and stack that may hold card digits (and, on a
// pipe, wait for a debugger): the terminal is put back, then the default action ends the
// process with the signal, without a core file (they are off).
static const int cl_fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS};
static char cl_fatal_stack[65536];  // the handler runs here when the fault is a stack overflow

static void cl_on_fatal(int sig) {
    int saved = errno;
    cl_write_tty(cl_leave);
    if (cl_tty >= 0) tcsetattr(cl_tty, TCSANOW, &cl_saved);
    signal(sig, SIG_DFL);
    raise(sig);  // a signal sent with kill: delivered when the handler returns; a fault: raised again by the instruction
    errno = saved;
}

int cl_fatal_signals_install(void) {
    stack_t stack;
    memset(&stack, 0, sizeof stack);
    stack.ss_sp = cl_fatal_stack;
    stack.ss_size = sizeof cl_fatal_stack;
    int result = sigaltstack(&stack, NULL);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = cl_on_fatal;
    action.sa_flags = SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < sizeof cl_fatal / sizeof cl_fatal[0]; i++) {
        if (sigaction(cl_fatal[i], &action, NULL) != 0) result = -1;
    }
    return result;
}

