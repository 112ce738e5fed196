#!/usr/bin/env python3
"""Emulated payment cards for cardline's chip tests, on vsmartcard's virtual reader (vpcd).

    Tests/chip/cards.py --port 35963 visa-contact

connects to vpcd on 127.0.0.1 (never another address) and is the card NAME until its standard
input ends or the card is pulled (`pulled`: the connection closes between two records, which
vpcd reports as the card removed). vpcd's protocol (vsmartcard doc/api.txt): each message,
both ways, is a 2-byte big-endian length then its bytes; one-byte messages from vpcd are
control (00 power off, 01 power on, 02 reset: no reply; 04: reply with the ATR); anything
else is a command APDU, answered with data and status word. `--list` names the cards.

Nothing here prints an APDU or an answer: the cards hold test numbers only, and the test
stack keeps to what production must (no APDU logging).
"""
import argparse, os, select, socket, struct, sys, threading


def with_tck(atr):
    """The ATR with its check byte (the XOR of every byte after TS), as T=1 needs."""
    check = 0
    for byte in atr[1:]:
        check ^= byte
    return atr + bytes([check])


# A contact card offering T=1 only (TD1 = 01), and one offering T=0 only (no TD1).
ATR_CONTACT_T1 = with_tck(bytes.fromhex("3B8001"))
ATR_CONTACT_T0 = bytes.fromhex("3B00")
# PC/SC part 3's ATR for an ISO/IEC 14443-4 card as a reader reports it: 3B 8n 80 01, n
# historical bytes, TCK.
ATR_CONTACTLESS = with_tck(bytes.fromhex("3B8880010000000000000000"))
PSE = b"1PAY.SYS.DDF01"
PPSE = b"2PAY.SYS.DDF01"
OK = b"\x90\x00"


def tlv(tag, value):
    t = tag.to_bytes((tag.bit_length() + 7) // 8, "big")
    n = len(value)
    length = bytes([n]) if n < 0x80 else (b"\x81" + bytes([n]) if n < 0x100 else b"\x82" + n.to_bytes(2, "big"))
    return t + length + value


def h(text):
    return bytes.fromhex(text.replace(" ", ""))


def pan(number):
    digits = number + ("F" if len(number) % 2 else "")
    return bytes.fromhex(digits)


def track2(number, yymm):
    text = number + "D" + yymm + "201" + "0000000000"
    return bytes.fromhex(text + ("F" if len(text) % 2 else ""))


def select(name):
    return bytes([0x00, 0xA4, 0x04, 0x00, len(name)]) + name + b"\x00"


def read_record(sfi, record):
    return bytes([0x00, 0xB2, record, sfi << 3 | 4, 0x00])


def entry(aid, label, priority):
    return tlv(0x61, tlv(0x4F, h(aid)) + tlv(0x50, label.encode()) + tlv(0x87, bytes([priority])))


def fci(aid, label, pdol=None):
    inner = tlv(0x50, label.encode()) + (tlv(0x9F38, h(pdol)) if pdol else b"")
    return tlv(0x6F, tlv(0x84, h(aid)) + tlv(0xA5, inner))


def ppse(*entries):
    return tlv(0x6F, tlv(0x84, PPSE) + tlv(0xA5, tlv(0xBF0C, b"".join(entries)))) + OK


class Card:
    """A card: answers by command, GET PROCESSING OPTIONS by the AID selected."""

    def __init__(self, atr=ATR_CONTACT_T1, t0=False, pulled_after=None):
        self.atr, self.t0, self.pulled_after = atr, t0, pulled_after
        self.answers, self.gpo = {}, {}
        self.selected, self.waiting, self.count = None, b"", 0

    def answer(self, command):
        """The answer to one command, or None when the card is pulled before it."""
        self.count += 1
        if self.pulled_after is not None and self.count > self.pulled_after:
            return None
        if self.t0 and len(command) == 5 and command[:4] == b"\x00\xC0\x00\x00":
            if command[4] != len(self.waiting):
                return bytes([0x6C, len(self.waiting)])
            out, self.waiting = self.waiting + OK, b""
            return out
        if command[:2] == b"\x80\xA8":
            whole = self.gpo.get(self.selected, lambda values: b"\x69\x85")(command[7:-1])
        else:
            whole = self.answers.get(bytes(command), b"\x6A\x82")
            if command[:4] == b"\x00\xA4\x04\x00" and whole[-2:] == OK:
                self.selected = bytes(command[5:-1]).hex().upper()
        if self.t0 and len(whole) > 2:
            self.waiting = whole[:-2]
            return bytes([0x61, len(self.waiting)])
        return whole


def visa_contact(number="4111111111111111", expiry="301231", t0=False, pulled_after=None):
    """Visa by contact: PSE, its directory record, a PDOL, format-1 GPO, two records."""
    card = Card(atr=ATR_CONTACT_T0 if t0 else ATR_CONTACT_T1, t0=t0, pulled_after=pulled_after)
    aid = "A0000000031010"
    card.answers[select(PSE)] = tlv(0x6F, tlv(0x84, PSE) + tlv(0xA5, tlv(0x88, b"\x01"))) + OK
    card.answers[read_record(1, 1)] = tlv(0x70, entry(aid, "VISA", 1)) + OK
    card.answers[read_record(1, 2)] = b"\x6A\x83"
    card.answers[select(h(aid))] = fci(aid, "VISA CREDIT", "9F66 04 9F02 06 9F37 04 5F2A 02 9A 03") + OK
    card.gpo[aid] = lambda values: (tlv(0x80, h("1C00 10010200")) + OK) if len(values) == 19 else b"\x67\x00"
    card.answers[read_record(2, 1)] = tlv(0x70, tlv(0x57, track2(number, expiry[:4]))
                                         + tlv(0x5F20, b"LOVELACE/ADA")) + OK
    card.answers[read_record(2, 2)] = tlv(0x70, tlv(0x5A, pan(number)) + tlv(0x5F24, h(expiry))
                                         + tlv(0x5F34, b"\x01")) + OK
    return card


def mastercard_contactless():
    """Mastercard tapped: no PSE, PPSE, format-2 GPO holding 9F6B and no records."""
    card = Card(atr=ATR_CONTACTLESS)
    aid = "A0000000041010"
    card.answers[select(PPSE)] = ppse(entry(aid, "MASTERCARD", 1))
    card.answers[select(h(aid))] = fci(aid, "MASTERCARD") + OK
    card.gpo[aid] = lambda values: tlv(0x77, tlv(0x82, h("1980")) + tlv(0x9F6B, track2("5555555555554444", "2812"))
                                       + tlv(0x5F34, b"\x02")) + OK
    return card


def amex():
    """American Express: no directory at all; 6985 to GPO unless the terminal type and the
    enhanced reader capabilities are filled (an all-zero PDOL is refused)."""
    card = Card()
    aid = "A00000002501"
    card.answers[select(h(aid))] = fci(aid, "AMERICAN EXPRESS", "9F35 01 9F6E 04 9F37 04") + OK

    def gpo(values):
        if len(values) != 9 or values[0] == 0 or values[1:5] == b"\x00" * 4:
            return b"\x69\x85"
        return tlv(0x80, h("1980 08010100")) + OK
    card.gpo[aid] = gpo
    card.answers[read_record(1, 1)] = tlv(0x70, tlv(0x5A, pan("378282246310005")) + tlv(0x5F24, h("291130"))) + OK
    return card


def co_badged():
    """Cartes Bancaires + Visa (tapped): two applications, CB first by priority."""
    card = Card(atr=ATR_CONTACTLESS)
    card.answers[select(PPSE)] = ppse(entry("A0000000031010", "VISA", 2), entry("A0000000421010", "CB", 1))
    for aid, label in (("A0000000031010", "VISA"), ("A0000000421010", "CB")):
        card.answers[select(h(aid))] = fci(aid, label) + OK
        card.gpo[aid] = lambda values: tlv(0x77, tlv(0x82, h("0000"))
                                           + tlv(0x57, track2("4035501000000008", "3001"))) + OK
    return card


def garbage():
    """A card whose directory and records are not BER-TLV."""
    card = Card()
    card.answers[select(PSE)] = b"\x6F\x82\xFF\xFF\x84" + OK
    card.answers[select(PPSE)] = b"\x6F\x05\x9F\x81\x81\x81\x01" + OK
    card.answers[select(h("A0000000031010"))] = b"\x6F\x03\xA5\x81" + OK
    card.gpo["A0000000031010"] = lambda values: b"\x80\x83\x00\x00\x01" + OK
    return card


CARDS = {
    "visa-contact": visa_contact,
    "visa-t0": lambda: visa_contact(number="4012888888881881", t0=True),
    "mastercard-contactless": mastercard_contactless,
    "amex": amex,
    "co-badged": co_badged,
    "pulled": lambda: visa_contact(pulled_after=6),  # the second record never answers
    "expired": lambda: visa_contact(expiry="250930"),
    "garbage": garbage,
    # CardMemoryTests' number: digits that turn up nowhere by chance.
    "memory": lambda: visa_contact(number="4973682519403570"),
}


def frame(data):
    return struct.pack(">H", len(data)) + data


def receive(sock, count):
    data = b""
    while len(data) < count:
        part = sock.recv(count - len(data))
        if not part:
            raise EOFError
        data += part
    return data


def serve(card, port, stdin_watch=True):
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.settimeout(None)
    if stdin_watch:
        # The card is removed when standard input ends (the test closes it, or goes away).
        def watch():
            try:
                while sys.stdin.buffer.read(1):
                    pass
            finally:
                os._exit(0)
        threading.Thread(target=watch, daemon=True).start()
    try:
        while True:
            (length,) = struct.unpack(">H", receive(sock, 2))
            message = receive(sock, length)
            if length == 1:
                if message[0] == 0x04:
                    sock.sendall(frame(card.atr))
                continue
            answer = card.answer(message)
            if answer is None:
                return  # pulled: vpcd sees the socket close
            sock.sendall(frame(answer))
    except (EOFError, ConnectionError):
        return
    finally:
        sock.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("card", nargs="?")
    args = parser.parse_args()
    if args.list:
        print("\n".join(CARDS))
        return
    if args.card not in CARDS or not args.port:
        parser.error(f"a card ({', '.join(CARDS)}) and --port")
    serve(CARDS[args.card](), args.port)


if __name__ == "__main__":
    main()
