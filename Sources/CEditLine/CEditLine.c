#include "CEditLine.h"
#include <signal.h>
#include <stdio.h>

EditLine *cl_init(const char *program) { return el_init(program, stdin, stdout, stderr); }
EditLine *cl_init_files(const char *program, FILE *in, FILE *out) {
    return el_init_fd(program, in, out, out, fileno(in), fileno(out), fileno(out));
}
FILE *cl_stdin(void) { return stdin; }
FILE *cl_stdout(void) { return stdout; }
int cl_set_prompt(EditLine *el, cl_prompt_fn fn, char invisible) { return el_set(el, EL_PROMPT_ESC, fn, invisible); }
int cl_set_rprompt(EditLine *el, cl_prompt_fn fn, char invisible) { return el_set(el, EL_RPROMPT_ESC, fn, invisible); }
int cl_set_editor(EditLine *el, const char *mode) { return el_set(el, EL_EDITOR, mode); }
int cl_set_signal(EditLine *el, int on) { return el_set(el, EL_SIGNAL, on); }
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
