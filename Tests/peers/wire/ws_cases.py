"""WebSocket conformance cases modelled on the Autobahn|Testsuite case groups 1-7 and 10.

Our own descriptions of the same behaviours (Autobahn itself needs Python 2). Each case is a
list of steps the tester performs and what the endpoint under test must answer. The same cases
run against our server (tester = client, frames masked) and against our client (tester =
server, frames unmasked), the endpoint under test being an echo endpoint in both directions.
"""

TEXT, BINARY, CLOSE, PING, PONG, CONT = 1, 2, 8, 9, 10, 0


class Frame:
    """Send one frame. `chop` sends its bytes in pieces of that size, `pause` seconds apart."""

    def __init__(self, opcode, payload=b"", fin=True, rsv=0, chop=None, pause=0.0, split_at=None,
                 fail_fast_after=None):
        self.opcode, self.payload, self.fin, self.rsv = opcode, payload, fin, rsv
        self.chop, self.pause = chop, pause
        # Payload offsets where the frame's bytes are cut into separate writes (the header
        # goes with the first piece); after piece `fail_fast_after` the endpoint must already
        # have failed the connection.
        self.split_at, self.fail_fast_after = split_at, fail_fast_after


class Pause:
    def __init__(self, seconds):
        self.seconds = seconds


class ExpectFailureNow:
    """The endpoint must have failed the connection by now (fail fast), before more is sent."""


def close_payload(code, reason=b""):
    return code.to_bytes(2, "big") + reason


class Case:
    def __init__(self, case_id, description, steps, echo=(), fail=None, close=1000, sends_close=False):
        self.id = case_id
        self.group = case_id.split(".")[0]
        self.description = description
        self.steps = steps
        # Frames (opcode, payload) the endpoint must send back, in order, before closing.
        self.echo = list(echo)
        # None: the case ends with a clean close; else the set of acceptable failure codes.
        self.fail = fail
        # The close code expected in the endpoint's close frame on a clean close (None: empty).
        self.close = close
        # Whether the steps already include the tester's close frame.
        self.sends_close = sends_close


GROUP_NAMES = {
    "1": "framing",
    "2": "pings/pongs",
    "3": "reserved bits",
    "4": "opcodes",
    "5": "fragmentation",
    "6": "UTF-8 handling",
    "7": "close handling",
    "10": "miscellaneous (large fragmented message)",
    "L": "limits (ours, beyond Autobahn)",
}

PROTOCOL = {1002}
INVALID_UTF8 = {1007}
TOO_BIG = {1009}

# κόσμε as Autobahn spells it: the ό is U+1F79 (three bytes), so its boundaries are 2, 5, 7, 9, 11.
KOSME = b"\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5"


def _framing():
    cases = []
    sizes = [0, 125, 126, 127, 128, 65535, 65536]
    for kind, opcode, sub in (("text", TEXT, "1"), ("binary", BINARY, "2")):
        fill = b"*" if opcode == TEXT else b"\xfe"
        for index, size in enumerate(sizes, start=1):
            payload = fill * size
            cases.append(Case(f"1.{sub}.{index}", f"{kind} message of {size} bytes",
                              [Frame(opcode, payload)], echo=[(opcode, payload)]))
        payload = fill * 65536
        cases.append(Case(f"1.{sub}.8", f"{kind} message of 65536 bytes sent in 997-byte pieces",
                          [Frame(opcode, payload, chop=997)], echo=[(opcode, payload)]))
    return cases


def _pings():
    binary = b"\x00\xff\xfe\xfd\xfc\xfb\x00\xff"
    cases = [
        Case("2.1", "ping without payload", [Frame(PING)], echo=[(PONG, b"")]),
        Case("2.2", "ping with a small text payload", [Frame(PING, b"Hello, world!")],
             echo=[(PONG, b"Hello, world!")]),
        Case("2.3", "ping with a small binary payload", [Frame(PING, binary)], echo=[(PONG, binary)]),
        Case("2.4", "ping with 125 bytes", [Frame(PING, b"\xfe" * 125)], echo=[(PONG, b"\xfe" * 125)]),
        Case("2.5", "ping with 126 bytes is a protocol error", [Frame(PING, b"\xfe" * 126)],
             fail=PROTOCOL),
        Case("2.6", "ping with 125 bytes sent one byte at a time",
             [Frame(PING, b"\xfe" * 125, chop=1, pause=0.001)], echo=[(PONG, b"\xfe" * 125)]),
        Case("2.7", "unsolicited pong without payload is ignored", [Frame(PONG)]),
        Case("2.8", "unsolicited pong with payload is ignored", [Frame(PONG, b"unsolicited")]),
        Case("2.9", "unsolicited pong, then ping", [Frame(PONG, b"unsolicited"), Frame(PING, b"ping")],
             echo=[(PONG, b"ping")]),
        Case("2.10", "ten pings", [Frame(PING, f"payload-{i}".encode()) for i in range(10)],
             echo=[(PONG, f"payload-{i}".encode()) for i in range(10)]),
        Case("2.11", "ten pings, each sent one byte at a time",
             [Frame(PING, f"payload-{i}".encode(), chop=1) for i in range(10)],
             echo=[(PONG, f"payload-{i}".encode()) for i in range(10)]),
    ]
    return cases


def _reserved_bits():
    return [
        Case("3.1", "text with RSV=1", [Frame(TEXT, b"Hello", rsv=1)], fail=PROTOCOL),
        Case("3.2", "text, then text with RSV=2, then ping",
             [Frame(TEXT, b"Hello"), Frame(TEXT, b"Hello", rsv=2), Frame(PING, b"Hello")],
             echo=[(TEXT, b"Hello")], fail=PROTOCOL),
        Case("3.3", "text, then text with RSV=3, then ping, one byte at a time",
             [Frame(TEXT, b"Hello", chop=1), Frame(TEXT, b"Hello", rsv=3, chop=1),
              Frame(PING, b"Hello", chop=1)],
             echo=[(TEXT, b"Hello")], fail=PROTOCOL),
        Case("3.4", "text, then text with RSV=4, then ping, with pauses",
             [Frame(TEXT, b"Hello", pause=0.01), Frame(TEXT, b"Hello", rsv=4, pause=0.01),
              Frame(PING, b"Hello")],
             echo=[(TEXT, b"Hello")], fail=PROTOCOL),
        Case("3.5", "binary with RSV=5", [Frame(BINARY, b"\x00\xff\xfe", rsv=5)], fail=PROTOCOL),
        Case("3.6", "ping with RSV=6", [Frame(PING, b"Hello", rsv=6)], fail=PROTOCOL),
        Case("3.7", "close with RSV=7", [Frame(CLOSE, close_payload(1000), rsv=7)], fail=PROTOCOL),
    ]


def _opcodes():
    cases = []
    for prefix, opcodes in (("4.1", [3, 4, 5, 6, 7]), ("4.2", [11, 12, 13, 14, 15])):
        kind = "data" if prefix == "4.1" else "control"
        for index, opcode in enumerate(opcodes, start=1):
            payload = b"reserved payload" if index in (2, 4, 5) else b""
            if index <= 2:
                steps, echo = [Frame(opcode, payload)], []
            else:
                steps = [Frame(TEXT, b"Hello"), Frame(opcode, payload), Frame(PING, b"Hello")]
                echo = [(TEXT, b"Hello")]
            cases.append(Case(f"{prefix}.{index}", f"reserved {kind} opcode {opcode}", steps,
                              echo=echo, fail=PROTOCOL))
    return cases


def _fragmentation():
    f1, f2 = b"fragment1", b"fragment2"
    cases = [
        Case("5.1", "fragmented ping", [Frame(PING, f1, fin=False), Frame(CONT, f2)], fail=PROTOCOL),
        Case("5.2", "fragmented pong", [Frame(PONG, f1, fin=False), Frame(CONT, f2)], fail=PROTOCOL),
    ]
    variants = [(None, 0.0, "in one write each"), (1, 0.0, "one byte at a time"),
                (3, 0.005, "in pieces with pauses")]
    for offset, (chop, pause, how) in enumerate(variants):
        cases.append(Case(f"5.{3 + offset}", f"text in two fragments, {how}",
                          [Frame(TEXT, f1, fin=False, chop=chop, pause=pause),
                           Frame(CONT, f2, chop=chop, pause=pause)],
                          echo=[(TEXT, f1 + f2)]))
    for offset, (chop, pause, how) in enumerate(variants):
        cases.append(Case(f"5.{6 + offset}", f"text in two fragments with a ping between, {how}",
                          [Frame(TEXT, f1, fin=False, chop=chop, pause=pause),
                           Frame(PING, b"ping payload", chop=chop, pause=pause),
                           Frame(CONT, f2, chop=chop, pause=pause)],
                          echo=[(PONG, b"ping payload"), (TEXT, f1 + f2)]))
    for offset, (chop, pause, how) in enumerate(variants):
        cases.append(Case(f"5.{9 + offset}", f"final continuation without a message, {how}",
                          [Frame(CONT, b"non-continuation payload", chop=chop, pause=pause),
                           Frame(TEXT, b"Hello, world!")], fail=PROTOCOL))
    for offset, (chop, pause, how) in enumerate(variants):
        cases.append(Case(f"5.{12 + offset}", f"non-final continuation without a message, {how}",
                          [Frame(CONT, b"non-continuation payload", fin=False, chop=chop, pause=pause),
                           Frame(TEXT, b"Hello, world!")], fail=PROTOCOL))
    cases += [
        Case("5.15", "a whole fragmented message, then a continuation that starts nothing",
             [Frame(TEXT, f1, fin=False), Frame(CONT, f2), Frame(CONT, b"fragment3", fin=False),
              Frame(TEXT, b"fragment4")],
             echo=[(TEXT, f1 + f2)], fail=PROTOCOL),
        Case("5.16", "continuation (not final) before any message, twice",
             [Frame(CONT, f1, fin=False), Frame(TEXT, f2, fin=False), Frame(CONT, b"fragment3")] * 2,
             fail=PROTOCOL),
        Case("5.17", "continuation (final) before any message, twice",
             [Frame(CONT, f1), Frame(TEXT, f2, fin=False), Frame(CONT, b"fragment3")] * 2,
             fail=PROTOCOL),
        Case("5.18", "a text frame inside a fragmented text message",
             [Frame(TEXT, f1, fin=False), Frame(TEXT, f2)], fail=PROTOCOL),
    ]
    for number, pause in ((19, 0.0), (20, 0.05)):
        cases.append(Case(f"5.{number}", "five fragments with two pings between"
                          + (", with pauses" if pause else ""),
                          [Frame(TEXT, f1, fin=False), Frame(CONT, f2, fin=False),
                           Frame(PING, b"pongme 1!"), Frame(CONT, b"fragment3", fin=False),
                           Pause(pause), Frame(CONT, b"fragment4", fin=False),
                           Frame(PING, b"pongme 2!"), Frame(CONT, b"fragment5")],
                          echo=[(PONG, b"pongme 1!"), (PONG, b"pongme 2!"),
                                (TEXT, f1 + f2 + b"fragment3fragment4fragment5")]))
    return cases


def _utf8_case(case_id, description, payload, valid):
    if valid:
        return Case(case_id, description, [Frame(TEXT, payload)], echo=[(TEXT, payload)])
    return Case(case_id, description, [Frame(TEXT, payload)], fail=INVALID_UTF8)


def _utf8():
    cases = [
        Case("6.1.1", "empty text message", [Frame(TEXT, b"")], echo=[(TEXT, b"")]),
        Case("6.1.2", "three empty fragments",
             [Frame(TEXT, b"", fin=False), Frame(CONT, b"", fin=False), Frame(CONT, b"")],
             echo=[(TEXT, b"")]),
        Case("6.1.3", "empty first and last fragments",
             [Frame(TEXT, b"", fin=False), Frame(CONT, b"middle frame payload", fin=False),
              Frame(CONT, b"")],
             echo=[(TEXT, b"middle frame payload")]),
    ]
    hello = "Hello-µ@ßöäüàá-UTF-8!!".encode()
    cases += [
        Case("6.2.1", "valid UTF-8 in one frame", [Frame(TEXT, hello)], echo=[(TEXT, hello)]),
        Case("6.2.2", "valid UTF-8 in two fragments split on a character boundary",
             [Frame(TEXT, hello[:7], fin=False), Frame(CONT, hello[7:])], echo=[(TEXT, hello)]),
        Case("6.2.3", "valid UTF-8, one byte per fragment (characters split across frames)",
             [Frame(TEXT if i == 0 else CONT, hello[i:i + 1], fin=i == len(hello) - 1)
              for i in range(len(hello))], echo=[(TEXT, hello)]),
        Case("6.2.4", "κόσμε, one byte per fragment",
             [Frame(TEXT if i == 0 else CONT, KOSME[i:i + 1], fin=i == len(KOSME) - 1)
              for i in range(len(KOSME))], echo=[(TEXT, KOSME)]),
    ]
    invalid = KOSME + b"\xed\xa0\x80edited"
    cases += [
        Case("6.3.1", "invalid UTF-8 (a surrogate) in one frame", [Frame(TEXT, invalid)],
             fail=INVALID_UTF8),
        Case("6.3.2", "invalid UTF-8 (a surrogate), one byte per fragment",
             [Frame(TEXT if i == 0 else CONT, invalid[i:i + 1], fin=i == len(invalid) - 1)
              for i in range(len(invalid))], fail=INVALID_UTF8),
    ]
    # Fail fast: the endpoint must fail as soon as the invalid bytes arrive, before the rest.
    cases += [
        Case("6.4.1", "fail fast: an invalid code point in the second of three fragments",
             [Frame(TEXT, KOSME, fin=False), Frame(CONT, b"\xf4\x90\x80\x80", fin=False),
              ExpectFailureNow(), Frame(CONT, b"edited")], fail=INVALID_UTF8),
        Case("6.4.2", "fail fast: a sequence made invalid by the second fragment's first byte",
             [Frame(TEXT, KOSME + b"\xf4", fin=False), Frame(CONT, b"\x90", fin=False),
              ExpectFailureNow(), Frame(CONT, b"\x80\x80edited")], fail=INVALID_UTF8),
        Case("6.4.3", "fail fast inside one frame: an invalid code point in the second chunk",
             [Frame(TEXT, KOSME + b"\xf4\x90\x80\x80edited",
                    split_at=[len(KOSME), len(KOSME) + 4], fail_fast_after=1)], fail=INVALID_UTF8),
        Case("6.4.4", "fail fast inside one frame: the invalid byte alone in a chunk",
             [Frame(TEXT, KOSME + b"\xf4\x90\x80\x80edited",
                    split_at=[len(KOSME) + 1, len(KOSME) + 2], fail_fast_after=1)],
             fail=INVALID_UTF8),
    ]
    samples = [KOSME, "Приветствую".encode(), "こんにちは世界".encode(), "😀 🎉 🚀".encode(),
               b"nul \x00 inside"]
    for index, sample in enumerate(samples, start=1):
        cases.append(_utf8_case(f"6.5.{index}", "valid UTF-8 sample", sample, True))
    for length in range(1, 12):
        prefix = KOSME[:length]
        cases.append(_utf8_case(f"6.6.{length}", f"the first {length} bytes of κόσμε", prefix,
                                length in (2, 5, 7, 9, 11)))
    groups = [
        ("6.7", "first possible sequence of its length",
         [b"\x00", b"\xc2\x80", b"\xe0\xa0\x80", b"\xf0\x90\x80\x80"], True),
        ("6.8", "first possible 5- and 6-byte sequences (not UTF-8)",
         [b"\xf8\x88\x80\x80\x80", b"\xfc\x84\x80\x80\x80\x80"], False),
        ("6.9", "last possible sequence of its length",
         [b"\x7f", b"\xdf\xbf", b"\xef\xbf\xbf", b"\xf4\x8f\xbf\xbf"], True),
        ("6.10", "last possible 4-, 5- and 6-byte patterns (beyond U+10FFFF)",
         [b"\xf7\xbf\xbf\xbf", b"\xfb\xbf\xbf\xbf\xbf", b"\xfd\xbf\xbf\xbf\xbf\xbf"], False),
    ]
    for prefix, description, payloads, valid in groups:
        for index, payload in enumerate(payloads, start=1):
            cases.append(_utf8_case(f"{prefix}.{index}", description, payload, valid))
    boundaries = [(b"\xed\x9f\xbf", True), (b"\xee\x80\x80", True), (b"\xef\xbf\xbd", True),
                  (b"\xf4\x8f\xbf\xbf", True), (b"\xf4\x90\x80\x80", False)]
    for index, (payload, valid) in enumerate(boundaries, start=1):
        cases.append(_utf8_case(f"6.11.{index}", "other boundary condition", payload, valid))
    continuations = [b"\x80", b"\xbf", b"\x80\xbf", b"\x80\xbf\x80", b"\x80\xbf\x80\xbf",
                     b"\x80\xbf\x80\xbf\x80", b"\x80\xbf\x80\xbf\x80\xbf", bytes(range(0x80, 0xC0))]
    for index, payload in enumerate(continuations, start=1):
        cases.append(_utf8_case(f"6.12.{index}", "unexpected continuation bytes", payload, False))
    lonely = [(0xC0, 0xE0), (0xE0, 0xF0), (0xF0, 0xF8), (0xF8, 0xFC), (0xFC, 0xFE)]
    for index, (low, high) in enumerate(lonely, start=1):
        payload = b"".join(bytes([b]) + b" " for b in range(low, high))
        cases.append(_utf8_case(f"6.13.{index}", "lonely start bytes followed by a space", payload,
                                False))
    missing = [b"\xc0", b"\xe0\x80", b"\xf0\x80\x80", b"\xf8\x80\x80\x80", b"\xfc\x80\x80\x80\x80",
               b"\xdf", b"\xef\xbf", b"\xf7\xbf\xbf", b"\xfb\xbf\xbf\xbf", b"\xfd\xbf\xbf\xbf\xbf"]
    for index, payload in enumerate(missing, start=1):
        cases.append(_utf8_case(f"6.14.{index}", "sequence with its last byte missing", payload,
                                False))
    cases.append(_utf8_case("6.15.1", "concatenated incomplete sequences", b"".join(missing), False))
    for index, payload in enumerate([b"\xfe", b"\xff", b"\xfe\xfe\xff\xff"], start=1):
        cases.append(_utf8_case(f"6.16.{index}", "impossible bytes", payload, False))
    overlong_groups = [
        ("6.17", "overlong '/'", [b"\xc0\xaf", b"\xe0\x80\xaf", b"\xf0\x80\x80\xaf",
                                  b"\xf8\x80\x80\x80\xaf", b"\xfc\x80\x80\x80\x80\xaf"]),
        ("6.18", "maximum overlong sequence", [b"\xc1\xbf", b"\xe0\x9f\xbf", b"\xf0\x8f\xbf\xbf",
                                               b"\xf8\x87\xbf\xbf\xbf",
                                               b"\xfc\x83\xbf\xbf\xbf\xbf"]),
        ("6.19", "overlong NUL", [b"\xc0\x80", b"\xe0\x80\x80", b"\xf0\x80\x80\x80",
                                  b"\xf8\x80\x80\x80\x80", b"\xfc\x80\x80\x80\x80\x80"]),
    ]
    for prefix, description, payloads in overlong_groups:
        for index, payload in enumerate(payloads, start=1):
            cases.append(_utf8_case(f"{prefix}.{index}", description, payload, False))
    singles = [b"\xed\xa0\x80", b"\xed\xad\xbf", b"\xed\xae\x80", b"\xed\xaf\xbf", b"\xed\xb0\x80",
               b"\xed\xbe\x80", b"\xed\xbf\xbf"]
    for index, payload in enumerate(singles, start=1):
        cases.append(_utf8_case(f"6.20.{index}", "single UTF-16 surrogate", payload, False))
    highs = [b"\xed\xa0\x80", b"\xed\xad\xbf", b"\xed\xae\x80", b"\xed\xaf\xbf"]
    lows = [b"\xed\xb0\x80", b"\xed\xbf\xbf"]
    for index, payload in enumerate([h + l for h in highs for l in lows], start=1):
        cases.append(_utf8_case(f"6.21.{index}", "paired UTF-16 surrogates", payload, False))
    noncharacters = []
    for plane in range(17):
        for low in (0xFFFE, 0xFFFF):
            noncharacters.append(chr(plane * 0x10000 + low).encode("utf-8", "surrogatepass"))
    for index, payload in enumerate(noncharacters, start=1):
        cases.append(_utf8_case(f"6.22.{index}", "noncharacter (valid UTF-8)", payload, True))
    specials = [b"\xef\xbf\xbd", b"\xef\xbb\xbf", b"a\x00b", b"\xef\xb7\x90", b"\xef\xb7\xaf",
                b"\xe2\x80\xa8", b"\xf0\x90\x80\x80"]
    for index, payload in enumerate(specials, start=1):
        cases.append(_utf8_case(f"6.23.{index}", "special but valid character", payload, True))
    return cases


def _close():
    hello = b"Hello World!"
    big = b"BAsd7&jh23" * 26214
    cases = [
        Case("7.1.1", "a message, then a close", [Frame(TEXT, hello), Frame(CLOSE, close_payload(1000))],
             echo=[(TEXT, hello)], sends_close=True),
        Case("7.1.2", "two close frames", [Frame(CLOSE, close_payload(1000)),
                                           Frame(CLOSE, close_payload(1000))], sends_close=True),
        Case("7.1.3", "a ping after the close is ignored",
             [Frame(CLOSE, close_payload(1000)), Frame(PING, b"Hello")], sends_close=True),
        Case("7.1.4", "a message after the close is ignored",
             [Frame(CLOSE, close_payload(1000)), Frame(TEXT, hello)], sends_close=True),
        Case("7.1.5", "a close between the fragments of a message",
             [Frame(TEXT, b"fragment1", fin=False), Frame(CLOSE, close_payload(1000)),
              Frame(CONT, b"fragment2")], sends_close=True),
        Case("7.1.6", "a 256 KiB message, a close, then a ping",
             [Frame(TEXT, big), Frame(CLOSE, close_payload(1000)), Frame(PING, b"Hello")],
             echo=[(TEXT, big)], sends_close=True),
        Case("7.3.1", "close without payload", [Frame(CLOSE, b"")], sends_close=True, close=None),
        Case("7.3.2", "close with a one-byte payload", [Frame(CLOSE, b"a")], fail=PROTOCOL,
             sends_close=True),
        Case("7.3.3", "close with a code and no reason", [Frame(CLOSE, close_payload(1000))],
             sends_close=True),
        Case("7.3.4", "close with a code and a reason",
             [Frame(CLOSE, close_payload(1000, b"Hello World!"))], sends_close=True),
        Case("7.3.5", "close with a 123-byte reason",
             [Frame(CLOSE, close_payload(1000, b"*" * 123))], sends_close=True),
        Case("7.3.6", "close with a 124-byte reason (payload over 125)",
             [Frame(CLOSE, close_payload(1000, b"*" * 124))], fail=PROTOCOL, sends_close=True),
        Case("7.5.1", "close with an invalid UTF-8 reason",
             [Frame(CLOSE, close_payload(1000, KOSME + b"\xed\xa0\x80edited"))],
             fail=INVALID_UTF8, sends_close=True),
    ]
    valid = [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999]
    for index, code in enumerate(valid, start=1):
        cases.append(Case(f"7.7.{index}", f"close with valid code {code}",
                          [Frame(CLOSE, close_payload(code))], sends_close=True, close=code))
    invalid = [0, 999, 1004, 1005, 1006, 1016, 1100, 2000, 2999]
    for index, code in enumerate(invalid, start=1):
        cases.append(Case(f"7.9.{index}", f"close with invalid code {code}",
                          [Frame(CLOSE, close_payload(code))], fail=PROTOCOL, sends_close=True))
    for index, code in enumerate([5000, 65535], start=1):
        cases.append(Case(f"7.13.{index}", f"close with out-of-range code {code}",
                          [Frame(CLOSE, close_payload(code))], fail=PROTOCOL, sends_close=True))
    return cases


def _misc():
    payload = b"*" * 65536
    fragments = [payload[i:i + 1300] for i in range(0, len(payload), 1300)]
    steps = [Frame(TEXT if i == 0 else CONT, part, fin=i == len(fragments) - 1)
             for i, part in enumerate(fragments)]
    return [Case("10.1.1", "a 64 KiB message in 1300-byte fragments", steps, echo=[(TEXT, payload)])]


def _limits(max_message):
    over = b"x" * (max_message + 1)
    half = b"y" * (max_message // 2 + 1)
    return [
        Case("L.1", "a text message over the limit is refused with 1009",
             [Frame(TEXT, over)], fail=TOO_BIG),
        Case("L.2", "a binary message over the limit is refused with 1009",
             [Frame(BINARY, over)], fail=TOO_BIG),
        Case("L.3", "fragments that add up to more than the limit are refused with 1009",
             [Frame(TEXT, half, fin=False), Frame(CONT, half)], fail=TOO_BIG),
        Case("L.4", "a message exactly at the limit is accepted",
             [Frame(BINARY, b"z" * max_message)], echo=[(BINARY, b"z" * max_message)]),
        Case("L.5", "the refusal comes from the frame header, before the payload",
             [Frame(TEXT, over, split_at=[0], fail_fast_after=0)], fail=TOO_BIG),
    ]


def all_cases(max_message):
    return (_framing() + _pings() + _reserved_bits() + _opcodes() + _fragmentation() + _utf8()
            + _close() + _misc() + _limits(max_message))
