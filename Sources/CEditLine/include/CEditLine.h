// Fixed-arity wrappers for the libedit calls cardline uses. Swift cannot call C variadic
// functions (el_set, el_get), and Swift 6 refuses the C globals stdin/stdout/stderr, so both
// live here. Every function returns what libedit returns.
#ifndef CEDITLINE_H
#define CEDITLINE_H

#include <histedit.h>

typedef char *(*cl_prompt_fn)(EditLine *);
typedef unsigned char (*cl_key_fn)(EditLine *, int);

/// el_init on the process's stdin, stdout and stderr.
EditLine *cl_init(const char *program);
int cl_set_prompt(EditLine *el, cl_prompt_fn fn, char invisible);   // EL_PROMPT_ESC
int cl_set_rprompt(EditLine *el, cl_prompt_fn fn, char invisible);  // EL_RPROMPT_ESC
int cl_set_editor(EditLine *el, const char *mode);                  // EL_EDITOR
int cl_set_signal(EditLine *el, int on);                            // EL_SIGNAL
int cl_add_function(EditLine *el, const char *name, const char *help, cl_key_fn fn); // EL_ADDFN
int cl_bind(EditLine *el, const char *key, const char *function);  // EL_BIND
int cl_set_client_data(EditLine *el, void *data);                  // EL_CLIENTDATA (set)
void *cl_client_data(EditLine *el);                                 // EL_CLIENTDATA (get)
/// Writes text to the stdout libedit draws on, and flushes it.
void cl_write(const char *text);
/// Changes one terminal flag of one libedit mode (EL_SETTY), e.g. ("-d", "-isig") turns
/// signal keys off while editing so Ctrl-C reaches the key bindings.
int cl_set_tty_flag(EditLine *el, const char *mode, const char *flag);
/// Stops the process group as the terminal's Ctrl-Z would (SIGTSTP).
void cl_suspend(void);

#endif
