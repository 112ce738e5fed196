// PC/SC (pcsc-lite) loaded at run time: libpcsclite.so.1 is opened with dlopen on first use
// and its functions found with dlsym, as GnuPG's scdaemon and OpenSC do, so cardline builds
// without libpcsclite-dev and starts on a machine without libpcsclite. The constants and the
// reader-state structure are defined here, as pcsc-lite 1.9.9 on Linux has them (DWORD and
// LONG are `unsigned long` and `long`). Every function returns pcsc-lite's status (0 for
// success), or CL_PCSC_NOT_LOADED when the library could not be loaded.
#ifndef CPCSC_H
#define CPCSC_H

#include <stddef.h>
#include <stdint.h>

// What every call returns when libpcsclite.so.1 could not be loaded (SCARD_E_UNSUPPORTED_FEATURE).
#define CL_PCSC_NOT_LOADED ((long)0x80100022)

#define CL_SCARD_S_SUCCESS 0L
#define CL_SCARD_E_CANCELLED ((long)0x80100002)
#define CL_SCARD_E_TIMEOUT ((long)0x8010000A)
#define CL_SCARD_E_NO_SMARTCARD ((long)0x8010000C)
#define CL_SCARD_E_NO_SERVICE ((long)0x8010001D)
#define CL_SCARD_E_NO_READERS_AVAILABLE ((long)0x8010002E)
#define CL_SCARD_F_COMM_ERROR ((long)0x80100013)
#define CL_SCARD_E_UNKNOWN_READER ((long)0x80100009)
#define CL_SCARD_E_READER_UNAVAILABLE ((long)0x80100017)
#define CL_SCARD_W_REMOVED_CARD ((long)0x80100069)

#define CL_SCARD_STATE_UNAWARE 0x0000UL
#define CL_SCARD_STATE_CHANGED 0x0002UL
#define CL_SCARD_STATE_UNKNOWN 0x0004UL
#define CL_SCARD_STATE_UNAVAILABLE 0x0008UL
#define CL_SCARD_STATE_EMPTY 0x0010UL
#define CL_SCARD_STATE_PRESENT 0x0020UL
#define CL_SCARD_STATE_MUTE 0x0200UL

/// The most readers watched at once, and the longest ATR.
#define CL_PCSC_MOST_READERS 16
#define CL_PCSC_ATR_SIZE 36

/// Whether libpcsclite.so.1 is loaded (it is tried once; later calls answer from memory).
int cl_pcsc_available(void);

/// SCardEstablishContext(SCARD_SCOPE_SYSTEM).
long cl_pcsc_establish(intptr_t *context);
/// SCardReleaseContext.
long cl_pcsc_release(intptr_t context);
/// SCardListReaders: with `names` NULL, `*length` gets the size needed; else the
/// NUL-separated names, ending in two NULs.
long cl_pcsc_list_readers(intptr_t context, char *names, unsigned long *length);
/// SCardGetStatusChange over `count` readers, whose names are `names`, each ended by a NUL
/// (as cl_pcsc_list_readers gives them): `current[i]` is the state the caller knows
/// (copied from the last `event`), `event[i]` gets the new state and `atr` (CL_PCSC_ATR_SIZE
/// bytes a reader) and `atr_length[i]` its card's ATR. `timeout` in milliseconds.
long cl_pcsc_wait(intptr_t context, unsigned long timeout, const char *names, size_t count,
                  const unsigned long *current, unsigned long *event, uint8_t *atr, unsigned long *atr_length);
/// SCardCancel: makes a cl_pcsc_wait on the same context return CL_SCARD_E_CANCELLED.
long cl_pcsc_cancel(intptr_t context);
/// SCardConnect, shared, T=0 or T=1; `*protocol` gets the one in use (1: T=0, 2: T=1).
long cl_pcsc_connect(intptr_t context, const char *reader, intptr_t *card, unsigned long *protocol);
/// SCardTransmit with the protocol's PCI (g_rgSCardT0Pci or g_rgSCardT1Pci).
long cl_pcsc_transmit(intptr_t card, unsigned long protocol, const uint8_t *command, size_t command_length,
                      uint8_t *answer, unsigned long *answer_length);
/// SCardDisconnect, resetting the card.
long cl_pcsc_disconnect(intptr_t card);


/// Starts `body(context)` on a detached thread of its own (256 KiB of stack); 0 on success,
/// else pthread_create's error. The chip reader's watcher and each card read run on one.
/// The thread blocks every signal but the faults it may raise itself (SIGSEGV, SIGBUS,
/// SIGILL, SIGFPE, SIGTRAP, SIGSYS): any other signal sent to the process is handled by the
/// thread that drives the terminal.
int cl_start_thread(void (*body)(void *), void *context);

#endif
