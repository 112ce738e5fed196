// Fixed-arity wrappers for the libedit calls cardline uses. Swift cannot call C variadic
// functions (el_set, el_get), and Swift 6 refuses the C globals stdin/stdout/stderr, so both
// live here. Every function returns what libedit returns.
#ifndef CEDITLINE_H
#define CEDITLINE_H

#include <stdio.h>
#include <histedit.h>

typedef char *(*cl_prompt_fn)(EditLine *);
typedef unsigned char (*cl_key_fn)(EditLine *, int);

/// el_init on the process's stdin, stdout and stderr.
EditLine *cl_init(const char *program);
/// el_init_fd on a terminal opened by the caller (/dev/tty): keys from `in`, drawing and
/// errors to `out`, so the prompt works whatever the process's stdin and stdout are.
EditLine *cl_init_files(const char *program, FILE *in, FILE *out);
/// The C library's stdin and stdout (Swift 6 refuses the globals).
FILE *cl_stdin(void);
FILE *cl_stdout(void);
int cl_set_prompt(EditLine *el, cl_prompt_fn fn, char invisible);   // EL_PROMPT_ESC
int cl_set_rprompt(EditLine *el, cl_prompt_fn fn, char invisible);  // EL_RPROMPT_ESC
int cl_set_editor(EditLine *el, const char *mode);                  // EL_EDITOR
int cl_add_function(EditLine *el, const char *name, const char *help, cl_key_fn fn); // EL_ADDFN
int cl_bind(EditLine *el, const char *key, const char *function);  // EL_BIND
int cl_set_client_data(EditLine *el, void *data);                  // EL_CLIENTDATA (set)
void *cl_client_data(EditLine *el);                                 // EL_CLIENTDATA (get)
/// Writes text to the stream libedit draws on, and flushes it.
void cl_write(FILE *out, const char *text);
/// Writes `count` bytes to the stream libedit draws on, and flushes them.
void cl_write_bytes(FILE *out, const unsigned char *bytes, size_t count);
/// One of the terminal's string capabilities as libedit holds it, by termcap name (EL_GETTC):
/// "ch" (move to a column), "ce" (clear to the end of the line); NULL when it has none.
const char *cl_terminal_string(EditLine *el, const char *name);
/// The columns a character takes on the terminal (wcwidth), -1 when it is not printable.
int cl_wcwidth(int character);
/// Changes one terminal flag of one libedit mode (EL_SETTY), e.g. ("-d", "-isig") turns
/// signal keys off while editing so Ctrl-C reaches the key bindings.
int cl_set_tty_flag(EditLine *el, const char *mode, const char *flag);
/// Stops the process group as the terminal's Ctrl-Z would (SIGTSTP).
void cl_suspend(void);

/// Saves the terminal `tty`'s settings, turns its echo off, and installs handlers for the
/// signals that end or stop the process (they write to `tty_out`, the terminal's output
/// side): they put the saved settings back and act on this
/// process only (libedit's EL_SIGNAL re-sends them to the whole process group, killing the
/// caller). Signals the caller ignores stay ignored. SIGWINCH and a resume after a stop set
/// a flag that cl_wait_inputs reports and clears. Returns -1 when `tty` is not a terminal.
int cl_signals_begin(int tty, int tty_out);
/// Restores the previous handlers and the saved terminal settings.
void cl_signals_end(void);
/// Text written to the terminal by the signal handlers: `leave` before the process ends or
/// stops on a signal (e.g. clear the line, bracketed paste off), `enter` after it resumes.
/// Each is cut at 63 bytes.
void cl_set_terminal_modes(const char *enter, const char *leave);
/// Reads one character for libedit: 1 with `*ch` set, 0 at end of input, -1 on error.
typedef int (*cl_getc_fn)(EditLine *, wchar_t *);
/// EL_GETCFN: libedit takes its characters from `fn` instead of reading the terminal.
int cl_set_getcfn(EditLine *el, cl_getc_fn fn);
/// Waits for input on `fd` (`timeout_ms` < 0: no limit): 1 readable, 0 timed out, 2 the
/// terminal was resized or the process resumed from a stop (the flag is cleared), -1 with
/// errno (EINTR on another signal). No resize is lost between looking and waiting (ppoll).
/// Also woken by `wake_fd` (-1: none) becoming readable: then 3, when `fd` is not readable
/// too (its keys come first).
int cl_wait_inputs(int fd, int wake_fd, int timeout_ms);
/// 0 when the caller ignores SIGTSTP (so Ctrl-Z must not stop the process), else 1.
int cl_can_suspend(void);
/// The terminal's width in columns (TIOCGWINSZ), or 80 when it cannot be told.
int cl_columns(int fd);
/// The colours terminal type `term` has by its terminfo entry (`colors`): -1 when it says
/// none, or there is no entry (libtinfo, which libedit uses, reads it).
int cl_terminal_colours(const char *term);


/// Handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS and SIGQUIT, on an
/// alternate stack, in place of the Swift runtime's backtracer (which prints registers and
/// memory, and can wait for a key): one line `NAME: crashed (signal N)` on stderr, the terminal
/// put back (when a prompt holds it) and its unread input dropped, then the signal's default
/// action ends the process. 0, or -1 when one could not be installed.
int cl_fatal_signals_install(void);
/// RLIMIT_CORE 0 and PR_SET_DUMPABLE 0; 0 when both took, -1 otherwise.
int cl_disable_core_dumps(void);
/// RLIMIT_MEMLOCK's soft limit in bytes, or -1 for unlimited.
long long cl_memlock_limit(void);
/// mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT); 0 or -1 with errno.
int cl_lock_memory(void);
/// The smaller of the soft RLIMIT_AS (ulimit -v) and RLIMIT_DATA (ulimit -d) in bytes, and
/// whether it is the data limit (`isData`, may be NULL); -1 when neither is limited.
long long cl_address_space_limit(int *isData);
/// Gives `out` a buffer of `size` bytes owned by the caller (setvbuf, line-buffered as a
/// terminal's stream is), so that it can be wiped; NULL gives the stream back a buffer of the
/// C library's own.
int cl_set_buffer(FILE *out, char *buffer, size_t size);
/// Wipes `count` bytes at `bytes` in a way the compiler cannot leave out (explicit_bzero).
void cl_wipe(void *bytes, size_t count);
/// Writes zeros over `count` bytes of the stack below the caller's frame (a buffer of the C
/// stack, never the heap), where what the caller's callees left lies: copies of card digits.
void cl_wipe_stack(size_t count);
/// EL_REFRESH: libedit draws prompt and line again in full, the cursor being at the start of
/// the line's first row.
int cl_refresh(EditLine *el);
/// EL_REFRESH with libedit's drawing discarded (its output stream is a sink meanwhile, then
/// `out` again): libedit's picture of the screen becomes prompt and line as they now are, the
/// cursor at its place in the line, when cardline has drawn them itself. -1 when the sink cannot be made.
int cl_refresh_silently(EditLine *el, FILE *out);
/// Makes the stream cl_refresh_silently draws into: 0 once it exists, -1 when it cannot be made.
int cl_silent_refresh_ready(void);

#endif
