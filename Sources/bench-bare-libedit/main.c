// bench-bare-libedit: the baseline for the prompt rows of `make bench`. A bare libedit
// program: a fixed prompt, emacs bindings, el_gets until end of input. Each typed character
// goes through libedit's own insert path, so it costs what libedit alone costs per key.
#include <histedit.h>
#include <locale.h>
#include <stdio.h>

static char *prompt(EditLine *el) {
    (void)el;
    return "Card number: ";
}

int main(int argc, char **argv) {
    (void)argc;
    setlocale(LC_CTYPE, "");
    EditLine *el = el_init(argv[0], stdin, stdout, stderr);
    if (el == NULL) return 1;
    el_set(el, EL_EDITOR, "emacs");
    el_set(el, EL_PROMPT, prompt);
    int count = 0;
    while (el_gets(el, &count) != NULL) {}
    el_end(el);
    return 0;
}
