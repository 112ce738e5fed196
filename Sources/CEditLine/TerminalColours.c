// The terminal's colours from its terminfo entry. Apart from CEditLine.c: <term.h> defines
// every capability's name (`columns`, `lines`, …) as a macro.
#include "CEditLine.h"
#include <curses.h>
#include <term.h>

int cl_terminal_colours(const char *term) {
    if (term == NULL || *term == '\0') return -1;
    // libedit keeps its own copy of the entry (read at el_init); whatever entry is current
    // is put back, and the one read here freed.
    TERMINAL *previous = cur_term;
    int error = 0;
    if (setupterm(term, -1, &error) != OK) {
        set_curterm(previous);
        return -1;
    }
    int colours = tigetnum("colors");
    del_curterm(cur_term);
    set_curterm(previous);
    return colours;
}
