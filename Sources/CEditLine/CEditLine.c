#include "CEditLine.h"
#include <signal.h>
#include <stdio.h>

EditLine *cl_init(const char *program) { return el_init(program, stdin, stdout, stderr); }
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
void cl_write(const char *text) { fputs(text, stdout); fflush(stdout); }

int cl_set_tty_flag(EditLine *el, const char *mode, const char *flag) {
    return el_set(el, EL_SETTY, mode, flag, NULL);
}
void cl_suspend(void) { kill(0, SIGTSTP); }
