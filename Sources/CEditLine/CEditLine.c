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

int cl_set_buffer(FILE *out, char *buffer, size_t size) { return setvbuf(out, buffer, _IOLBF, size); }
void cl_wipe(void *bytes, size_t count) { explicit_bzero(bytes, count); }
__attribute__((noinline)) void cl_wipe_stack(size_t count) {
    unsigned char below[count];  // on this stack, just below the caller's frame
    explicit_bzero(below, count);
    __asm__ volatile("" : : "r"(below) : "memory");
}
int cl_refresh(EditLine *el) { return el_set(el, EL_REFRESH); }

// The stream that takes libedit's drawing in cl_refresh_silently and discards it. The drawing holds the field: the whole buffer is wiped
// each time its bytes are discarded, and the buffer is flushed after each use.
static char cl_sink_buffer[4096];
static ssize_t cl_sink_write(void *cookie, const char *bytes, size_t size) {
    (void)cookie;
    (void)bytes;
    explicit_bzero(cl_sink_buffer, sizeof cl_sink_buffer);
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
// libedit's editing mode, as first seen while waiting for a key (cl_wait_inputs, only ever called
// inside el_gets): what SIGCONT puts back after a stop cardline could not see (SIGSTOP), when
// the shell has put the terminal back into its own cooked mode with echo on.
static struct termios cl_raw;
static volatile sig_atomic_t cl_raw_known = 0;
static volatile sig_atomic_t cl_stopping = 0;  // cl_on_stop is stopping the process: it restores itself
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
// The stop signals handled like Ctrl-Z: the terminal's, and a background read or write.
static const int cl_stops[] = {SIGTSTP, SIGTTIN, SIGTTOU};
#define CL_STOP_COUNT (sizeof cl_stops / sizeof cl_stops[0])
static struct sigaction cl_previous_stops[CL_STOP_COUNT], cl_previous_winch, cl_previous_continue;

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

static void cl_let_go(int sig);

// A write to a closed pipe raises SIGPIPE in the writing process itself (sent as by kill, from its
// own pid): that write fails with EPIPE and its caller reports it, so only a SIGPIPE sent from
// outside ends the prompt.
static void cl_on_ending(int sig, siginfo_t *info, void *context) {
    (void)context;
    if (sig == SIGPIPE && info != NULL && info->si_code == SI_USER && info->si_pid == getpid()) return;
    int saved = errno;
    cl_let_go(sig);
    signal(sig, SIG_DFL);
    raise(sig);  // pending until this handler returns (the signal is blocked in it), then ends the process
    errno = saved;
}

// The stop signals blocked while one of them is handled: the handler's own tcsetattr from the
// background (a read after `bg` raises SIGTTIN) would otherwise raise SIGTTOU inside it, and
// the process would stop twice; blocked, the change is made.
static void cl_stops_blocked(sigset_t *set) {
    sigemptyset(set);
    for (size_t i = 0; i < CL_STOP_COUNT; i++) sigaddset(set, cl_stops[i]);
}

// SIGTSTP (Ctrl-Z), SIGTTIN and SIGTTOU: the live field cleared and the terminal put back before
// the shell's prompt appears; after `fg`, the prompt's mode again and a full redraw.
static void cl_on_stop(int sig) {
    int saved = errno;
    if (cl_tty >= 0) {
        cl_write_tty(cl_leave);  // the live field is cleared before the shell's prompt appears
        tcgetattr(cl_tty, &cl_editing);
        tcsetattr(cl_tty, TCSANOW, &cl_saved);
    }
    signal(sig, SIG_DFL);
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, sig);
    sigprocmask(SIG_UNBLOCK, &stop, NULL);
    cl_stopping = 1;
    raise(sig);  // stops here; execution goes on after `fg`
    cl_stopping = 0;
    sigprocmask(SIG_BLOCK, &stop, NULL);
    struct sigaction again;
    memset(&again, 0, sizeof again);
    again.sa_handler = cl_on_stop;
    again.sa_flags = SA_RESTART;
    cl_stops_blocked(&again.sa_mask);
    sigaction(sig, &again, NULL);
    if (cl_tty >= 0) tcsetattr(cl_tty, TCSANOW, &cl_editing);
    cl_write_tty(cl_enter);
    cl_resized = 1;  // redraw in full
    errno = saved;
}

// SIGCONT after a stop cardline could not see (SIGSTOP, which cannot be caught): the shell has
// put its own settings back (echo on, cooked), so a card typed after `fg` would be echoed by
// the terminal. The prompt's mode is put back and the line drawn again in full. Only in the
// foreground: a background process changing the terminal would be stopped (SIGTTOU), and `fg`
// sends SIGCONT again.
static void cl_on_continue(int sig) {
    (void)sig;
    if (cl_stopping || cl_tty < 0 || tcgetpgrp(cl_tty) != getpgrp()) return;
    int saved = errno;
    if (cl_raw_known) tcsetattr(cl_tty, TCSANOW, &cl_raw);
    cl_write_tty(cl_enter);
    cl_resized = 1;
    errno = saved;
}

static void cl_on_winch(int sig) {
    cl_resized = 1;
    (void)sig;
}

static int cl_stop_ignored = 0;         // the caller ignores SIGTSTP: no suspending
static int cl_stop_kept[CL_STOP_COUNT];    // the caller ignores this stop signal: left alone

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
    struct sigaction ending;
    memset(&ending, 0, sizeof ending);
    ending.sa_flags = SA_RESTART | SA_SIGINFO;
    ending.sa_sigaction = cl_on_ending;
    for (size_t i = 0; i < cl_ending_count; i++) {
        cl_installed[i] = 0;
        struct sigaction current;
        // A signal the caller ignores stays ignored.
        if (sigaction(cl_ending[i], NULL, &current) != 0 || current.sa_handler == SIG_IGN) continue;
        if (sigaction(cl_ending[i], &ending, &cl_previous[i]) == 0) cl_installed[i] = 1;
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_flags = SA_RESTART;
    for (size_t i = 0; i < CL_STOP_COUNT; i++) {
        struct sigaction current;
        cl_stop_kept[i] = sigaction(cl_stops[i], NULL, &current) == 0 && current.sa_handler == SIG_IGN;
        if (cl_stops[i] == SIGTSTP) cl_stop_ignored = cl_stop_kept[i];
        if (cl_stop_kept[i]) continue;
        struct sigaction stopping = action;
        stopping.sa_handler = cl_on_stop;
        cl_stops_blocked(&stopping.sa_mask);
        sigaction(cl_stops[i], &stopping, &cl_previous_stops[i]);
    }
    action.sa_handler = cl_on_winch;
    sigaction(SIGWINCH, &action, &cl_previous_winch);
    cl_raw_known = 0;
    action.sa_handler = cl_on_continue;
    sigaction(SIGCONT, &action, &cl_previous_continue);
    return 0;
}

void cl_signals_end(void) {
    for (size_t i = 0; i < cl_ending_count; i++) {
        if (cl_installed[i]) sigaction(cl_ending[i], &cl_previous[i], NULL);
        cl_installed[i] = 0;
    }
    for (size_t i = 0; i < CL_STOP_COUNT; i++) {
        if (!cl_stop_kept[i]) sigaction(cl_stops[i], &cl_previous_stops[i], NULL);
    }
    sigaction(SIGWINCH, &cl_previous_winch, NULL);
    sigaction(SIGCONT, &cl_previous_continue, NULL);
    cl_raw_known = 0;
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

int cl_wait_inputs(int fd, int wake_fd, int timeout_ms) {
    // SIGWINCH, SIGTSTP and SIGCONT (whose handlers flag the redraw after `fg`) are blocked while the
    // flag is looked at, and let in only by ppoll itself: one that lands in between is not
    // lost until the next key.
    sigset_t block, previous;
    sigemptyset(&block);
    sigaddset(&block, SIGWINCH);
    sigaddset(&block, SIGTSTP);
    sigaddset(&block, SIGCONT);
    sigprocmask(SIG_BLOCK, &block, &previous);
    // The editing mode is raw here (libedit set it before asking for a character): kept for
    // SIGCONT. A cooked one (a SIGCONT came first and put nothing back) is not libedit's.
    if (!cl_raw_known && cl_tty >= 0 && tcgetattr(cl_tty, &cl_raw) == 0 && !(cl_raw.c_lflag & ICANON)) cl_raw_known = 1;
    int result;
    if (cl_resized) {
        result = 2;
    } else {
        struct pollfd entries[2] = {{fd, POLLIN, 0}, {wake_fd, POLLIN, 0}};
        struct timespec wait = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};
        // A resize is let in even when the caller started with SIGWINCH blocked (a mask is
        // inherited through exec: a parent that blocks it would leave the prompt drawn for the
        // old width, never cleared).
        sigset_t during = previous;
        sigdelset(&during, SIGWINCH);
        result = ppoll(entries, wake_fd >= 0 ? 2 : 1, timeout_ms < 0 ? NULL : &wait, &during);
        // Ready: 1 for the terminal (its keys come first), 3 when only the other descriptor is.
        if (result > 0) result = entries[0].revents == 0 && entries[1].revents != 0 ? 3 : 1;
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

// Faults, aborts and quits (a Swift trap is SIGILL or SIGTRAP; Ctrl-\\ outside the prompt is
// SIGQUIT). These replace the Swift runtime's backtracer, which handles the same signals and
// would print every thread's registers and the memory they point at (card digits), then wait
// for a key on a terminal: one line says the program crashed, the live field is cleared, the
// terminal put back and unread input dropped, then the default action ends the process with
// the signal (128+N in a shell), without a core file (they are off). SIGQUIT is among them:
// the runtime's reporter handles it too, and a run went on after its `exit`.
static const int cl_fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS, SIGQUIT};
// The handler runs on a stack of its own, so a stack overflow can still be reported: 256 KiB,
// far more than the kernel's signal frame with every register file (AVX-512: a few KiB) and
// the handler's calls, nested once for each fatal signal (none nests into itself: no
// SA_NODEFER), with a guard page below it, so that an overflow faults rather than overwrites
// what lies beneath (the Swift runtime's own handler, SA_NODEFER, once ran 904 bytes past a
// static stack into cardline's saved signal state). Made once, by mmap, kept for the process.
#define CL_FATAL_STACK_SIZE (256 * 1024)
static char *cl_fatal_stack = NULL;

static int cl_is_fatal(int sig) {
    for (size_t i = 0; i < sizeof cl_fatal / sizeof cl_fatal[0]; i++) if (cl_fatal[i] == sig) return 1;
    return 0;
}

// "NAME: crashed (signal N)\n" on stderr, with write(2) alone (async-signal-safe).
static void cl_say_crashed(int sig) {
    char line[160];
    size_t at = 0;
    const char *name = program_invocation_short_name;
    for (; name != NULL && *name != 0 && at < 64; name++) line[at++] = *name;
    const char *middle = ": crashed (signal ";
    for (; *middle != 0; middle++) line[at++] = *middle;
    char digits[12];
    size_t count = 0;
    unsigned value = (unsigned)sig;
    do { digits[count++] = (char)('0' + value % 10); value /= 10; } while (value != 0 && count < sizeof digits);
    while (count > 0) line[at++] = digits[--count];
    line[at++] = ')';
    line[at++] = '\n';
    const char *text = line;
    while (at > 0) {
        ssize_t written = write(STDERR_FILENO, text, at);
        if (written <= 0) { if (written < 0 && errno == EINTR) continue; return; }
        text += written;
        at -= (size_t)written;
    }
}

// What every ending handler does before the process ends: the live field cleared, the terminal
// put back, keys typed ahead dropped (they could be the rest of a card number, read next by the
// shell), and for a crash the one line.
static void cl_let_go(int sig) {
    cl_write_tty(cl_leave);
    if (cl_tty >= 0) {
        tcsetattr(cl_tty, TCSANOW, &cl_saved);
        tcflush(cl_tty, TCIFLUSH);
    }
    if (cl_is_fatal(sig)) cl_say_crashed(sig);
}

static void cl_on_fatal(int sig) {
    int saved = errno;
    cl_let_go(sig);
    signal(sig, SIG_DFL);
    raise(sig);  // a signal sent with kill: delivered when the handler returns; a fault: raised again by the instruction
    errno = saved;
}

int cl_fatal_signals_install(void) {
    int result = 0;
    if (cl_fatal_stack == NULL) {
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        char *memory = mmap(NULL, CL_FATAL_STACK_SIZE + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
        if (memory != MAP_FAILED && mprotect(memory, page, PROT_NONE) == 0) cl_fatal_stack = memory + page;
    }
    if (cl_fatal_stack != NULL) {
        stack_t stack;
        memset(&stack, 0, sizeof stack);
        stack.ss_sp = cl_fatal_stack;
        stack.ss_size = CL_FATAL_STACK_SIZE;
        result = sigaltstack(&stack, NULL);
    } else {
        result = -1;
    }
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
