#!/usr/bin/env python3
"""Writes the seed corpus of the ingress fuzz harness (docs/fuzzing.md) into DIR: one small input
per receiver check, framing error, wire fault and far-end behaviour, in the action language of
tests/fuzz/fuzz_ingress.cpp (its header comment), so that a fuzzing run starts with every branch
of the ingress path already reached.

Usage: scripts/fuzz_corpus.py DIR      (scripts/fuzz.sh seeds writes tests/fuzz_corpus)
"""
import os
import random
import sys

# Reduce (dtype, op) pairs in the harness's order: dtypes 0..6 x ops 0..3, valid ones only
# (Sum/Max/Min everywhere, Avg on the integer dtypes 0..3).
PAIRS = [(d, o) for d in range(7) for o in range(4) if o < 3 or d <= 3]
NORMAL, SHORT, LONG = 0x00, 0xE0, 0xF0


def flits_byte(n):
    """b_len for n payload flits: 0..8 directly, larger ones as 9 + 4k, and 128."""
    if n <= 8:
        return n
    k = 30 if n == 128 else (n - 9) // 4
    assert n == 128 or (9 + 4 * k == n and k < 30), n
    return 0xE0 | k


def packet(t, n=1, word=0, cfg=0, ctr=0, lane=0, sat=0, pay=0, frame=NORMAL, extra=b""):
    """One packet action: template t (0-2 Write, 3 Reduce, 4 mutated, 5 raw header, 6 token,
    7 another chip), n payload flits at DMEM word `word` (taken modulo the room left)."""
    misc = (ctr & 31) | (lane & 3) << 5 | (sat & 1) << 7
    return bytes([t << 5, flits_byte(n), word & 0xFF, cfg & 0xFF, misc, pay & 0xFF,
                  frame & 0xFF]) + extra


def reduce_cfg(dtype, op, fin=0, shift_sel=0):
    return PAIRS.index((dtype, op)) | (fin & 1) << 5 | (shift_sel & 3) << 6


def mutated(m, v, n=1, opcode=0, **kw):
    """Template 4 with mutation m (0 opcode, 1 len % 16, 2 len > 2048, 3 odd len > 2048, 4 no
    ALU pair, 5 just past DMEM, 6 far past it, 7 unaligned, 8 no such tile, 9 reserved bits,
    10 the very end of DMEM, 11 two of them)."""
    return packet(4, n=n, cfg=opcode | kw.pop("cfg", 0) & ~1, extra=bytes([m, v]), **kw)


def raw_header(rng, ht=3):
    return bytes(rng.randrange(256) for _ in range(16)) + bytes([ht])


def idle(n):
    return bytes([16, (n - 1) & 63])


def fault(kind, *operands):
    return bytes([19, kind & 0xFF]) + bytes(operands)


def inject(kind, k=0, flit=b"", ctl=b""):
    return bytes([22, (kind % 5) | (k & 31) << 3]) + flit + ctl


def op(selector, operand=None):
    return bytes([selector]) + (b"" if operand is None else bytes([operand]))


def seeds():
    rng = random.Random(2026)
    s = {}
    # Well-formed packets.
    s["write_one_flit"] = packet(0, n=1, word=16, pay=1)
    s["write_eight_flits"] = packet(1, n=8, word=100, pay=0)
    s["write_max_2048"] = packet(2, n=128, word=0, pay=3, ctr=7)
    s["write_dmem_end"] = mutated(10, 0, n=4)
    s["token_write"] = packet(6, cfg=0, ctr=31)
    s["token_reduce"] = packet(6, cfg=1, ctr=3)
    for dtype, name in enumerate(["int8", "uint8", "int16", "int32", "fp16", "bf16", "fp32"]):
        for o, oname in enumerate(["sum", "max", "min", "avg"]):
            if (dtype, o) not in PAIRS or (o != 0 and dtype not in (0, 3, 4, 6)):
                continue
            s[f"reduce_{name}_{oname}"] = (
                packet(3, n=3, word=40, cfg=reduce_cfg(dtype, o, fin=o == 3, shift_sel=1),
                       pay=1, sat=dtype == 3, ctr=dtype) +
                packet(3, n=3, word=40, cfg=reduce_cfg(dtype, o), pay=0, ctr=dtype))
    s["reduce_raw_payload"] = packet(3, n=2, word=8, cfg=reduce_cfg(6, 0), pay=2) + bytes(
        rng.randrange(256) for _ in range(32))
    s["write_then_reduce_same_word"] = (packet(0, n=2, word=50, pay=1) +
                                        packet(3, n=2, word=50, cfg=reduce_cfg(3, 0), pay=1) +
                                        packet(3, n=2, word=50, cfg=reduce_cfg(3, 1), pay=0))
    # Every receiver check (docs/packets.md section 6).
    s["bad_opcode"] = mutated(0, 5)
    s["bad_len_not_multiple"] = mutated(1, 7, n=2)
    s["bad_len_above_2048"] = mutated(2, 0)
    s["bad_len_odd_above_2048"] = mutated(3, 1)
    s["bad_pair_dtype7"] = mutated(4, 0x41, opcode=1)
    s["bad_pair_scaleadd"] = mutated(4, 0x02, opcode=1)
    s["bad_pair_avg_float"] = mutated(4, 0x04, opcode=1)
    s["window_just_past"] = mutated(5, 0, n=2)
    s["window_far_past"] = mutated(6, 3, n=1)
    s["window_unaligned"] = mutated(7, 4, n=1)
    s["misroute_no_tile"] = mutated(8, 2, n=2)
    s["reserved_bits_ignored"] = mutated(9, 0x77, n=2, pay=1)
    s["two_mutations"] = mutated(11, 0x22, n=2)
    s["bad_token_opcode"] = mutated(0, 9, n=0, ctr=2) + packet(6, ctr=2)
    s["bad_token_window"] = mutated(5, 2, n=0, ctr=3) + packet(6, ctr=3)
    s["raw_header"] = packet(5, extra=raw_header(rng))
    s["raw_header_local"] = packet(5, extra=bytes([0x00, 0x50, 0x00, 0x00, 0x00, 0x30, 0x00,
                                                   0x00] + [0] * 8 + [3]))
    # Framing against len: Short, Long, a head with tail, a token with payload (Headless).
    s["short_tail_early"] = packet(0, n=6, word=20, frame=SHORT | 2, pay=1)
    s["short_head_is_tail"] = packet(0, n=3, word=20, frame=SHORT | 3)
    s["long_extra_flits"] = packet(0, n=2, word=20, frame=LONG | 3, pay=1)
    s["long_at_dmem_end"] = mutated(10, 0, n=2, frame=LONG | 5)
    s["token_with_payload_headless"] = packet(6, frame=LONG | 2)
    s["short_then_valid"] = packet(0, n=4, frame=SHORT | 1) + packet(0, n=1, word=7, ctr=1)
    # Routing: forwarded to the link (lane + chip = 0 mod 3), no route (1), unconnected port (2),
    # outside the table, this chip's missing tiles.
    s["forward_chip0_lane0"] = packet(7, n=3, extra=bytes([0, 0x10]), pay=1)
    s["forward_chip4_lane2"] = packet(7, n=2, lane=2, extra=bytes([4, 0x20]))
    s["misroute_no_route"] = packet(7, n=2, extra=bytes([1, 0x10]))
    s["misroute_port1"] = packet(7, n=1, extra=bytes([2, 0x10]))
    s["misroute_beyond_table"] = packet(7, n=1, extra=bytes([0xC3, 0x45]))
    s["forward_long_packet"] = packet(7, n=33, extra=bytes([3, 0x00]), pay=3)
    s["forward_bad_framing"] = packet(7, n=4, extra=bytes([0, 0x00]), frame=SHORT | 2)
    # Faults on the wire into the chip.
    burst = packet(0, n=8, word=30, pay=1) + packet(3, n=4, word=60, cfg=reduce_cfg(6, 0))
    s["fault_drop_one"] = fault(0x80) + burst
    s["fault_link_down"] = fault(0x01 | 9 << 3) + burst
    s["fault_flip_1"] = fault(0x02, 77, 0) + burst
    s["fault_flip_2"] = fault(0x03, 10, 1, 140, 0) + burst
    s["fault_flip_3"] = fault(0x84, 1, 0, 128, 0, 129, 0) + burst
    s["fault_burst"] = fault(0x06, 120, 0xFF, 0xFF, 0xFF, 0x7F) + burst
    s["fault_seq_bit"] = fault(0x07, 3) + burst
    s["fault_many"] = (burst + fault(0x80) + idle(3) + fault(0x82, 5, 1) + idle(20) +
                       fault(0x01 | 3 << 3) + burst)
    # Extra words into the chip.
    s["extra_old_seq"] = burst + inject(0, 2) + inject(0, 9) + burst
    s["extra_ahead_seq"] = packet(0, n=2) + inject(1, 3, flit=raw_header(rng)) + burst
    s["extra_ctl_only_garbage_flit"] = inject(2, flit=raw_header(rng)) + burst
    s["extra_garbage_word"] = burst + inject(3, flit=raw_header(rng), ctl=b"\x12\x34\x56\x17")
    s["extra_slip"] = burst + inject(4) + inject(4) + burst
    # The other direction and the far transmitter.
    fwd = packet(7, n=8, extra=bytes([0, 0x00]), pay=1) + packet(7, n=5, extra=bytes([3, 0]))
    s["chip_words_lost"] = fwd + op(24, 5) + idle(40)
    s["chip_words_lost_long"] = fwd + op(24, 31) + idle(64) + fwd
    s["credit_hold"] = op(25, 60) + fwd + fwd + burst
    s["ack_hold"] = fwd + op(26, 200) + idle(64)
    # The chip's replay overtaken by an ack (xf_link: rp jumps to una): its timer replays the
    # flits whose acks are held, and the held acks arrive during that replay.
    for hold in (70, 85, 100):
        s[f"ack_overtakes_replay_{hold}"] = (packet(7, n=41, extra=bytes([0, 0]), pay=1) +
                                             op(26, hold) + idle(64) + idle(64))
    s["spurious_nak"] = fwd + op(27) + idle(10) + op(27) + idle(30)
    s["ignore_nak"] = op(28) + fault(0x80) + burst
    s["forced_replay"] = burst + op(29) + idle(5) + op(29) + burst
    s["pacing"] = op(30, 3) + burst + op(30, 0) + burst
    # Backpressure: more flits than the link has credits, a forwarded packet behind held credits.
    s["backpressure_credits"] = b"".join(packet(0, n=8, word=8 * i, pay=i & 1, ctr=i)
                                         for i in range(8))
    s["backpressure_forward_blocked"] = (op(25, 200) + packet(7, n=41, extra=bytes([0, 0]))
                                         + burst + burst)
    # A random mixture, for variety.
    mix = bytearray()
    for _ in range(40):
        mix += bytes([rng.randrange(256)])
        mix += bytes(rng.randrange(256) for _ in range(rng.randrange(2, 9)))
    s["random_mix"] = bytes(mix)
    return s


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out):
        os.remove(os.path.join(out, f))
    for name, data in sorted(seeds().items()):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print(f"fuzz_corpus: wrote {len(seeds())} seed inputs to {out}")


if __name__ == "__main__":
    main()
