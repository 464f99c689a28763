#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mkseeds_agent_unwind.py DIR: the seed corpus of tests/fuzz/fuzz_agent_unwind.c.

Builds a small shared object from assembly (gcc, binutils), one function per CFI
case: ordinary CFI, a frame with a pushed register, the hostile CFI of issue 16
item 1 (DW_OP_skip -3, lit1; bra -4, a looping val_expression, an expression
length that wraps: patched after linking, as ld refuses to index it), a signal
frame; then writes, per function, the image (.eh_frame_hdr to the end of
.eh_frame, as mapped) with a pc in the function and a stack copy whose first
return address (after the pushed register, if any) goes into the next function,
and zero words after it (the walk's end, or the next function's CFI cuts it).
Not part of the build:  python3 tests/fuzz/mkseeds_agent_unwind.py tests/fuzz/corpus/agent_unwind
"""
import os
import struct
import subprocess
import sys
import tempfile

BASE = 0x6F0000000000
FUNCS = {
    "plain": "",
    "pushed": "push %rbx\n.cfi_adjust_cfa_offset 8\n.cfi_offset %rbx, -16\n",
    "skip": ".cfi_escape 0x0f, 0x03, 0x2f, 0xfd, 0xff\n",
    "bra": ".cfi_escape 0x0f, 0x04, 0x31, 0x28, 0xfc, 0xff\n",
    "valexpr": ".cfi_escape 0x16, 0x10, 0x03, 0x2f, 0xfd, 0xff\n",
    "lenwrap": ".cfi_escape 0x16, 0x03, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x96\n",
    "fwdskip": ".cfi_escape 0x0f, 0x06, 0x77, 0x08, 0x2f, 0x01, 0x00, 0x96\n",
    "deref": ".cfi_escape 0x0f, 0x03, 0x77, 0x00, 0x06\n",
    "remember": ".cfi_remember_state\n.cfi_adjust_cfa_offset 16\n.cfi_restore_state\n",
}
SANE_LEN = bytes([0x16, 0x03, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00])
WRAP_LEN = bytes([0x16, 0x03, 0xF4, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])


def build(tmp):
    src = [".text"]
    for name, cfi in FUNCS.items():
        src += [f".globl f_{name}", f".type f_{name},@function", f"f_{name}:",
                ".cfi_startproc", cfi, "nop", "nop", "ret", ".cfi_endproc"]
    asm = os.path.join(tmp, "s.s")
    so = os.path.join(tmp, "s.so")
    with open(asm, "w") as f:
        f.write("\n".join(src) + "\n")
    subprocess.run(["gcc", "-shared", "-nostdlib", "-o", so, asm], check=True)
    return so


def sections(so):
    out = subprocess.run(["readelf", "-SW", so], capture_output=True, text=True).stdout
    s = {}
    for line in out.splitlines():
        if "]" not in line:
            continue
        f = line.split("]", 1)[1].split()
        if len(f) > 4 and f[0].startswith("."):
            s[f[0]] = (int(f[2], 16), int(f[3], 16), int(f[4], 16))  # addr, off, size
    return s


def symbols(so):
    out = subprocess.run(["nm", so], capture_output=True, text=True).stdout
    return {l.split()[2][2:]: int(l.split()[0], 16) for l in out.splitlines()
            if len(l.split()) == 3 and l.split()[2].startswith("f_")}


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        so = build(tmp)
        sec = sections(so)
        syms = symbols(so)
        data = open(so, "rb").read()
    h_addr, h_off, _ = sec[".eh_frame_hdr"]
    e_addr, e_off, e_size = sec[".eh_frame"]
    assert e_addr - h_addr == e_off - h_off, "hdr and eh_frame not laid out alike"
    image = bytearray(data[h_off:e_off + e_size])
    at = image.find(SANE_LEN)
    image[at:at + len(WRAP_LEN)] = WRAP_LEN
    names = list(FUNCS)
    for i, name in enumerate(names):
        nxt = names[(i + 1) % len(names)]
        pc_rel = syms[name] + 1 - h_addr
        ret = BASE + syms[nxt] + 2 - h_addr  # a return address inside the next function
        frame = 16 if name == "pushed" else 8  # where the return address is, past the CFA rule
        stack = struct.pack("<QQQQ", 0, 0, 0, 0)
        stack = stack[:frame - 8] + struct.pack("<Q", ret) + stack[frame:]
        head = struct.pack("<iIIIQQ", pc_rel, 0, len(image), 0, 0, 0)
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(head + bytes(image) + stack)


main()
