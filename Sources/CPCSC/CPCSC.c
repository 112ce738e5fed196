// See CPCSC.h. The function types below are pcsc-lite's (winscard.h, 1.9.9), written out so
// that no header of it is needed to build.
#include "CPCSC.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

typedef long (*establish_fn)(unsigned long, const void *, const void *, intptr_t *);
typedef long (*release_fn)(intptr_t);
typedef long (*list_fn)(intptr_t, const char *, char *, unsigned long *);
typedef long (*cancel_fn)(intptr_t);
typedef long (*connect_fn)(intptr_t, const char *, unsigned long, unsigned long, intptr_t *, unsigned long *);
typedef long (*disconnect_fn)(intptr_t, unsigned long);

// SCARD_READERSTATE on Linux: 80 bytes.
typedef struct {
    const char *reader;
    void *user_data;
    unsigned long current_state;
    unsigned long event_state;
    unsigned long atr_length;
    unsigned char atr[CL_PCSC_ATR_SIZE];
} reader_state;

// SCARD_IO_REQUEST.
typedef struct {
    unsigned long protocol;
    unsigned long pci_length;
} io_request;

typedef long (*wait_fn)(intptr_t, unsigned long, reader_state *, unsigned long);
typedef long (*transmit_fn)(intptr_t, const io_request *, const uint8_t *, unsigned long, io_request *, uint8_t *,
                            unsigned long *);

static struct {
    int loaded;
    establish_fn establish;
    release_fn release;
    list_fn list;
    wait_fn wait;
    cancel_fn cancel;
    connect_fn connect;
    transmit_fn transmit;
    disconnect_fn disconnect;
    const io_request *t0;
    const io_request *t1;
} pcsc;

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen("libpcsclite.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) return;
    pcsc.establish = (establish_fn)dlsym(library, "SCardEstablishContext");
    pcsc.release = (release_fn)dlsym(library, "SCardReleaseContext");
    pcsc.list = (list_fn)dlsym(library, "SCardListReaders");
    pcsc.wait = (wait_fn)dlsym(library, "SCardGetStatusChange");
    pcsc.cancel = (cancel_fn)dlsym(library, "SCardCancel");
    pcsc.connect = (connect_fn)dlsym(library, "SCardConnect");
    pcsc.transmit = (transmit_fn)dlsym(library, "SCardTransmit");
    pcsc.disconnect = (disconnect_fn)dlsym(library, "SCardDisconnect");
    pcsc.t0 = (const io_request *)dlsym(library, "g_rgSCardT0Pci");
    pcsc.t1 = (const io_request *)dlsym(library, "g_rgSCardT1Pci");
    if (pcsc.establish && pcsc.release && pcsc.list && pcsc.wait && pcsc.cancel && pcsc.connect && pcsc.transmit &&
        pcsc.disconnect && pcsc.t0 && pcsc.t1) {
        pcsc.loaded = 1;
    } else {
        dlclose(library);
    }
}

int cl_pcsc_available(void) {
    pthread_once(&once, load);
    return pcsc.loaded;
}

long cl_pcsc_establish(intptr_t *context) {
    if (!cl_pcsc_available()) return CL_PCSC_NOT_LOADED;
    return pcsc.establish(2 /* SCARD_SCOPE_SYSTEM */, NULL, NULL, context);
}

long cl_pcsc_release(intptr_t context) {
    if (!cl_pcsc_available()) return CL_PCSC_NOT_LOADED;
    return pcsc.release(context);
}

long cl_pcsc_list_readers(intptr_t context, char *names, unsigned long *length) {
    if (!cl_pcsc_available()) return CL_PCSC_NOT_LOADED;
    return pcsc.list(context, NULL, names, length);
}

long cl_pcsc_wait(intptr_t context, unsigned long timeout, const char *names, size_t count,
                  const unsigned long *current, unsigned long *event, uint8_t *atr, unsigned long *atr_length) {
    if (!cl_pcsc_available()) return CL_PCSC_NOT_LOADED;
    if (count > CL_PCSC_MOST_READERS) count = CL_PCSC_MOST_READERS;
    reader_state states[CL_PCSC_MOST_READERS];
    memset(states, 0, sizeof states);
    const char *name = names;
    for (size_t i = 0; i < count; i++) {
        states[i].reader = name;
        states[i].current_state = current[i];
        name += strlen(name) + 1;
    }
    long status = pcsc.wait(context, timeout, states, (unsigned long)count);
    for (size_t i = 0; i < count; i++) {
        event[i] = states[i].event_state;
        unsigned long length = states[i].atr_length <= CL_PCSC_ATR_SIZE ? states[i].atr_length : CL_PCSC_ATR_SIZE;
        memcpy(atr + i * CL_PCSC_ATR_SIZE, states[i].atr, length);
        atr_length[i] = length;
    }
    return status;
}

long cl_pcsc_cancel(intptr_t context) {
    if (!cl_pcsc_available()) return CL_PCSC_NOT_LOADED;
    return pcsc.cancel(context);
}

long cl_pcsc_connect(intptr_t context, const char *reader, intptr_t *card, unsigned long *protocol) {
    if (!cl_pcsc_available()) return CL_PCSC_NOT_LOADED;
    return pcsc.connect(context, reader, 2 /* SCARD_SHARE_SHARED */, 3 /* SCARD_PROTOCOL_T0 | T1 */, card, protocol);
}

long cl_pcsc_transmit(intptr_t card, unsigned long protocol, const uint8_t *command, size_t command_length,
                      uint8_t *answer, unsigned long *answer_length) {
    if (!cl_pcsc_available()) return CL_PCSC_NOT_LOADED;
    return pcsc.transmit(card, protocol == 1 ? pcsc.t0 : pcsc.t1, command, (unsigned long)command_length, NULL,
                         answer, answer_length);
}

long cl_pcsc_disconnect(intptr_t card) {
    if (!cl_pcsc_available()) return CL_PCSC_NOT_LOADED;
    return pcsc.disconnect(card, 1 /* SCARD_RESET_CARD */);
}

typedef struct {
    void (*body)(void *);
    void *context;
} thread_start;

static void *run_thread(void *start) {
    thread_start what = *(thread_start *)start;
    free(start);
    what.body(what.context);
    return NULL;
}

int cl_start_thread(void (*body)(void *), void *context) {
    thread_start *start = malloc(sizeof *start);
    if (!start) return -1;
    start->body = body;
    start->context = context;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attributes, 256 * 1024);
    // The thread takes no signal sent to the process (it starts with them blocked, whatever
    // its creator blocks): the prompt's handlers put the terminal back on the thread that
    // drives it, never beside it. (A SIGTERM given to the watcher while the main thread put
    // raw mode back after SIGCONT left the terminal raw.) Only the faults a thread raises
    // itself are left open (blocked, they would end the process unhandled); abort() unblocks
    // SIGABRT itself. A fault too deep for the thread's stack still ends it unhandled: the
    // handlers' own stack is the main thread's.
    sigset_t blocked, previous;
    sigfillset(&blocked);
    const int faults[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS};
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) sigdelset(&blocked, faults[i]);
    pthread_sigmask(SIG_SETMASK, &blocked, &previous);
    pthread_t thread;
    int status = pthread_create(&thread, &attributes, run_thread, start);
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    pthread_attr_destroy(&attributes);
    if (status != 0) free(start);
    return status;
}
