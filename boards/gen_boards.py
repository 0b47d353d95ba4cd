#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Validates the board descriptions (boards/*.toml) and writes <quire/boards.h> from them.

    gen_boards.py --regs include/quire/regs.h --link-ld firmware/link.ld [-o OUT] BOARD.toml...
    gen_boards.py --check ... BOARD.toml...      validate only, write nothing

Every field is checked (presence, type, range) and a key the format does not know is
refused, naming the file and the key. The firmware's on-chip memories of a board must
hold what firmware/link.ld declares (IMEM, DMEM), and the BAR that carries quire's
register blocks must hold QUIRE_BAR0_BYTES of include/quire/regs.h. Any error: a line
"FILE: message" per error on stderr, exit status 2, nothing written. The format is
described in boards/README.md. Standard library only (tomllib: Python 3.11)."""
import argparse
import os
import re
import sys

try:
    import tomllib
except ImportError:  # Python < 3.11
    sys.stderr.write("gen_boards.py: needs Python 3.11 or later (tomllib)\n")
    sys.exit(2)

MIB = 1 << 20


class BoardError(Exception):
    pass


# The format: for each table, its keys and (type, required). "int" accepts integers only
# (TOML booleans are refused), "num" integers or floats, "str" non-empty strings.
TOP = {
    "board": ("str", True),       # the enumerator of enum quire_board, without QUIRE_BOARD_
    "name": ("str", True),
    "part": ("str", True),        # the FPGA part, as Vivado spells it
    "platform": ("str", True),    # the Vitis / shell platform the card image is built on
    "ran_on_hardware": ("bool", True),
    "unverified": ("list", False),  # the tables whose facts no source here confirms
    "pci": ("table", False),
    "bar": ("array", True),
    "memory": ("array", True),
    "clock": ("array", True),
    "firmware": ("table", True),
    "network": ("table", True),
    "xrt": ("table", False),
}
PCI = {"vendor": ("int", True), "device": ("int", True),
       "subsystem_vendor": ("int", False), "subsystem_device": ("int", False)}
BAR = {"index": ("int", True), "bits": ("int", True), "size": ("int", True),
       "prefetchable": ("bool", True), "purpose": ("str", True), "regs": ("bool", False)}
MEMORY = {"name": ("str", True), "type": ("str", True), "count": ("int", True),
          "size": ("int", True)}
CLOCK = {"name": ("str", True), "mhz": ("num", True), "engines": ("bool", False)}
FIRMWARE = {"imem": ("int", True), "dmem": ("int", True)}
NETWORK = {"ports": ("int", True), "gbps": ("int", True)}
# How the xrt backend finds the card in an xclbin: the kernel (compute unit) whose control
# registers carry quire's register blocks, and the UUID of the one xclbin built for this
# board (absent until one is built: the backend then wants QUIRE_XRT_UUID).
XRT = {"kernel": ("str", True), "xclbin_uuid": ("str", False)}
MEMORY_TYPES = ("DDR4", "HBM2", "host")  # host: the card model's memory, in its process
UNVERIFIABLE = ("pci", "bar", "memory", "clock", "firmware", "network", "platform", "xrt")


def check_keys(where, table, spec):
    for key in table:
        if key not in spec:
            raise BoardError(f"{where}: unknown key '{key}' (known: {', '.join(spec)})")
    for key, (kind, required) in spec.items():
        if key not in table:
            if required:
                raise BoardError(f"{where}: missing field '{key}'")
            continue
        v = table[key]
        ok = {
            "int": isinstance(v, int) and not isinstance(v, bool),
            "num": isinstance(v, (int, float)) and not isinstance(v, bool),
            "str": isinstance(v, str) and v.strip() != "",
            "bool": isinstance(v, bool),
            "list": isinstance(v, list),
            "table": isinstance(v, dict),
            "array": isinstance(v, list) and all(isinstance(e, dict) for e in v),
        }[kind]
        if not ok:
            want = {"int": "an integer", "num": "a number", "str": "a non-empty string",
                    "bool": "true or false", "list": "a list", "table": "a table",
                    "array": "an array of tables ([[" + key + "]])"}[kind]
            shown = str(v).lower() if isinstance(v, bool) else repr(v)
            raise BoardError(f"{where}: field '{key}' must be {want}, not {shown}")


def in_range(where, key, v, lo, hi):
    if not lo <= v <= hi:
        raise BoardError(f"{where}: {key} = {v} is out of range [{lo}, {hi}]")


def the_one(path, entries, table, flag, what):
    """The one entry of an array of tables with flag = true (the flag defaults to false)."""
    for e in entries:
        e.setdefault(flag, False)
    marked = [e for e in entries if e[flag]]
    if len(marked) != 1:
        raise BoardError(f"{path}: exactly one [[{table}]] must have {flag} = true ({what}), "
                         f"not {len(marked)}")
    return marked[0]


def power_of_two(v):
    return v > 0 and v & (v - 1) == 0


def read_enum(regs_h):
    """enum quire_board's enumerators and values, from include/quire/regs.h."""
    text = open(regs_h, encoding="utf-8").read()
    m = re.search(r"enum quire_board\s*\{(.*?)\}", text, re.S)
    if not m:
        raise BoardError(f"{regs_h}: no enum quire_board")
    enum = {n: int(v, 0) for n, v in re.findall(r"QUIRE_BOARD_(\w+)\s*=\s*(\w+)", m.group(1))}
    bar = re.search(r"#define\s+QUIRE_BAR0_BYTES\s+(0x[0-9a-fA-F]+|\d+)u?", text)
    if not bar:
        raise BoardError(f"{regs_h}: no QUIRE_BAR0_BYTES")
    return enum, int(bar.group(1), 0)


def read_link_ld(link_ld):
    """The LENGTH of IMEM and DMEM in the firmware's linker script, in bytes."""
    text = open(link_ld, encoding="utf-8").read()
    sizes = {}
    for name in ("IMEM", "DMEM"):
        m = re.search(name + r"\s*\([^)]*\)\s*:\s*ORIGIN\s*=\s*\w+\s*,\s*LENGTH\s*=\s*(\d+)([KM]?)",
                      text)
        if not m:
            raise BoardError(f"{link_ld}: no {name} region")
        sizes[name] = int(m.group(1)) << {"": 0, "K": 10, "M": 20}[m.group(2)]
    return sizes


def validate(path, doc, enum, bar0_bytes, fw_need):
    """The board of one file, checked, as a dict ready for the header."""
    check_keys(path, doc, TOP)
    b = dict(doc)
    b["file"] = os.path.basename(path)
    if b["board"] not in enum:
        raise BoardError(f"{path}: board '{b['board']}' is not in enum quire_board "
                         f"({', '.join(enum)})")
    if not re.fullmatch(r"[A-Z][A-Z0-9_]*", b["board"]):
        raise BoardError(f"{path}: board '{b['board']}' is not an upper-case C name")
    b["id"] = enum[b["board"]]
    for u in b.get("unverified", []):
        if u not in UNVERIFIABLE:
            raise BoardError(f"{path}: unverified names '{u}', not one of {', '.join(UNVERIFIABLE)}")
    for key in ("name", "part", "platform"):
        if len(b[key]) > 47 or '"' in b[key] or "\\" in b[key]:
            raise BoardError(f"{path}: {key} must be at most 47 characters, without quotes")

    if "pci" in b:
        check_keys(f"{path}: [pci]", b["pci"], PCI)
        for key in PCI:
            b["pci"].setdefault(key, 0xFFFF)  # subsystem not given: any
            in_range(f"{path}: [pci]", key, b["pci"][key], 1, 0xFFFF)

    bars, used = b["bar"], set()
    if not bars:
        raise BoardError(f"{path}: no [[bar]]")
    for i, bar in enumerate(bars):
        where = f"{path}: [[bar]] #{i + 1}"
        check_keys(where, bar, BAR)
        in_range(where, "index", bar["index"], 0, 5)
        if bar["bits"] not in (32, 64):
            raise BoardError(f"{where}: bits = {bar['bits']}, must be 32 or 64")
        if not power_of_two(bar["size"]) or bar["size"] < 128:
            raise BoardError(f"{where}: size = {bar['size']} must be a power of two, >= 128")
        if bar["bits"] == 32 and bar["size"] > 1 << 31:
            raise BoardError(f"{where}: a 32-bit BAR of {bar['size']} bytes")
        slots = {bar["index"]} | ({bar["index"] + 1} if bar["bits"] == 64 else set())
        if bar["bits"] == 64 and bar["index"] == 5:
            raise BoardError(f"{where}: a 64-bit BAR takes two slots, index 5 has one")
        if slots & used:
            raise BoardError(f"{where}: index {bar['index']} overlaps another BAR")
        used |= slots
    regs = the_one(path, bars, "bar", "regs", "the BAR of quire's register blocks")
    if regs["size"] < bar0_bytes:
        raise BoardError(f"{path}: the register BAR ({regs['size']} bytes) is smaller than "
                         f"QUIRE_BAR0_BYTES ({bar0_bytes})")
    b["regs_bar"] = regs
    bars.sort(key=lambda x: x["index"])

    if not b["memory"]:
        raise BoardError(f"{path}: no [[memory]]")
    for i, mem in enumerate(b["memory"]):
        where = f"{path}: [[memory]] #{i + 1}"
        check_keys(where, mem, MEMORY)
        if mem["type"] not in MEMORY_TYPES:
            raise BoardError(f"{where}: type '{mem['type']}', not one of {', '.join(MEMORY_TYPES)}")
        in_range(where, "count", mem["count"], 1, 64)
        if mem["size"] < MIB or mem["size"] % MIB:
            raise BoardError(f"{where}: size = {mem['size']} must be a whole number of MiB")
    b["mem_bytes"] = sum(m["count"] * m["size"] for m in b["memory"])

    if not b["clock"]:
        raise BoardError(f"{path}: no [[clock]]")
    for i, clk in enumerate(b["clock"]):
        where = f"{path}: [[clock]] #{i + 1}"
        check_keys(where, clk, CLOCK)
        in_range(where, "mhz", clk["mhz"], 1, 1000)
        hz = clk["mhz"] * 1000000
        if hz != int(hz):
            raise BoardError(f"{where}: mhz = {clk['mhz']} is not a whole number of Hz")
        clk["hz"] = int(hz)
    b["engine_clock"] = the_one(path, b["clock"], "clock", "engines",
                                "the clock QUIRE_ID_CLOCK_HZ reports")

    fw = b["firmware"]
    check_keys(f"{path}: [firmware]", fw, FIRMWARE)
    for key, region in (("imem", "IMEM"), ("dmem", "DMEM")):
        in_range(f"{path}: [firmware]", key, fw[key], 1, 1 << 24)
        if fw[key] < fw_need[region]:
            raise BoardError(f"{path}: [firmware] {key} = {fw[key]} bytes is smaller than the "
                             f"{fw_need[region]} bytes firmware/link.ld declares for {region}")

    net = b["network"]
    check_keys(f"{path}: [network]", net, NETWORK)
    in_range(f"{path}: [network]", "ports", net["ports"], 0, 8)
    in_range(f"{path}: [network]", "gbps", net["gbps"], 0, 800)
    if net["ports"] == 0 and net["gbps"] != 0:
        raise BoardError(f"{path}: [network] gbps must be 0 without ports")

    if "xrt" in b:
        x = b["xrt"]
        check_keys(f"{path}: [xrt]", x, XRT)
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,46}", x["kernel"]):
            raise BoardError(f"{path}: [xrt] kernel '{x['kernel']}' is not a C name of at most 47 characters")
        u = x.get("xclbin_uuid")
        if u is not None and not re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", u):
            raise BoardError(f"{path}: [xrt] xclbin_uuid '{u}' is not a lower-case UUID (8-4-4-4-12 hex digits)")
    return b


def c_str(s):
    return '"' + s + '"'


def header(boards):
    out = []
    w = out.append
    w("/* SPDX-License-Identifier: MIT */")
    w("/*")
    w(" * Generated by boards/gen_boards.py from " + ", ".join("boards/" + b["file"] for b in boards) + ":")
    w(" * do not edit. One description per board (boards/README.md): PCI IDs, BARs, card")
    w(" * memory, clocks, the firmware's on-chip memories, network ports. Sizes in bytes.")
    w(" */")
    w("#ifndef QUIRE_BOARDS_H")
    w("#define QUIRE_BOARDS_H")
    w("")
    w("#if defined(__KERNEL__) || defined(__linux__)")
    w("#include <linux/types.h>")
    w("#else")
    w("#include <stdint.h>")
    w("typedef uint8_t __u8;")
    w("typedef uint16_t __u16;")
    w("typedef uint32_t __u32;")
    w("typedef uint64_t __u64;")
    w("#endif")
    w("")
    w("#ifdef __cplusplus")
    w('extern "C" {')
    w("#endif")
    w("")
    w(f"#define QUIRE_BOARD_COUNT {len(boards)}")
    w("#define QUIRE_BOARD_MAX_BARS 6")
    w(f"#define QUIRE_BOARD_MAX_MEMS {max(len(b['memory']) for b in boards)}")
    w(f"#define QUIRE_BOARD_MAX_CLOCKS {max(len(b['clock']) for b in boards)}")
    w("#define QUIRE_BOARD_PCI_ANY 0xffffu /* a subsystem ID the board does not fix */")
    w("")
    for b in boards:
        p = "QUIRE_BOARD_" + b["board"]
        unv = b.get("unverified", [])
        w(f"/* {b['name']}: boards/{b['file']}" + (", has never run on hardware" if not b["ran_on_hardware"] else "")
          + (f"; unverified: {', '.join(unv)}" if unv else "") + " */")
        w(f"#define {p}_NAME {c_str(b['name'])}")
        w(f"#define {p}_PART {c_str(b['part'])}")
        w(f"#define {p}_PLATFORM {c_str(b['platform'])}")
        if "pci" in b:
            w(f"#define {p}_PCI_VENDOR 0x{b['pci']['vendor']:04x}u")
            w(f"#define {p}_PCI_DEVICE 0x{b['pci']['device']:04x}u")
            w(f"#define {p}_PCI_SUBSYSTEM_VENDOR 0x{b['pci']['subsystem_vendor']:04x}u")
            w(f"#define {p}_PCI_SUBSYSTEM_DEVICE 0x{b['pci']['subsystem_device']:04x}u")
        w(f"#define {p}_REGS_BAR {b['regs_bar']['index']}")
        w(f"#define {p}_REGS_BAR_BYTES 0x{b['regs_bar']['size']:x}ull")
        w(f"#define {p}_MEM_BYTES 0x{b['mem_bytes']:x}ull")
        w(f"#define {p}_CLOCK_HZ {b['engine_clock']['hz']}u")
        w(f"#define {p}_IMEM_BYTES {b['firmware']['imem']}u")
        w(f"#define {p}_DMEM_BYTES {b['firmware']['dmem']}u")
        w(f"#define {p}_NET_PORTS {b['network']['ports']}u")
        w(f"#define {p}_NET_GBPS {b['network']['gbps']}u")
        if "xrt" in b:
            w(f"#define {p}_XRT_KERNEL {c_str(b['xrt']['kernel'])}")
            if "xclbin_uuid" in b["xrt"]:
                w(f"#define {p}_XRT_XCLBIN_UUID {c_str(b['xrt']['xclbin_uuid'])}")
        w("")
    w("struct quire_board_bar {")
    w("\t__u8 index;        /* 0..5 */")
    w("\t__u8 bits;         /* 32 or 64 (a 64-bit BAR takes index and index + 1) */")
    w("\t__u8 prefetchable;")
    w("\t__u8 regs;         /* 1: quire's register blocks (include/quire/regs.h) */")
    w("\t__u64 size;")
    w("\tconst char *purpose;")
    w("};")
    w("")
    w("struct quire_board_mem {")
    w("\tconst char *name;")
    w("\tconst char *type; /* DDR4, HBM2, host (the card model's, in its process) */")
    w("\t__u32 count;")
    w("\t__u64 size;       /* of each */")
    w("};")
    w("")
    w("struct quire_board_clock {")
    w("\tconst char *name;")
    w("\t__u32 hz;")
    w("\t__u32 engines; /* 1: the clock QUIRE_ID_CLOCK_HZ reports */")
    w("};")
    w("")
    w("struct quire_board_desc {")
    w("\t__u32 board; /* enum quire_board */")
    w("\tconst char *name;")
    w("\tconst char *part;")
    w("\tconst char *platform;")
    w("\t__u32 ran_on_hardware;")
    w("\t__u16 pci_vendor, pci_device; /* 0: not a PCI device */")
    w("\t__u16 pci_subsystem_vendor, pci_subsystem_device;")
    w("\t__u32 n_bars;")
    w("\tstruct quire_board_bar bars[QUIRE_BOARD_MAX_BARS];")
    w("\t__u32 n_mems;")
    w("\tstruct quire_board_mem mems[QUIRE_BOARD_MAX_MEMS];")
    w("\t__u64 mem_bytes; /* all of them */")
    w("\t__u32 n_clocks;")
    w("\tstruct quire_board_clock clocks[QUIRE_BOARD_MAX_CLOCKS];")
    w("\t__u32 clock_hz; /* the engines' clock */")
    w("\t__u32 imem_bytes, dmem_bytes; /* the control core's on-chip memories */")
    w("\t__u32 net_ports, net_gbps;")
    w("\tconst char *xrt_kernel;      /* 0: not reached through XRT */")
    w("\tconst char *xrt_xclbin_uuid; /* 0: no xclbin built for it yet */")
    w("};")
    w("")
    w("static const struct quire_board_desc quire_boards[QUIRE_BOARD_COUNT] = {")
    for b in boards:
        p = "QUIRE_BOARD_" + b["board"]
        pci = b.get("pci")
        w("    {")
        w(f"\t{b['id']}, {p}_NAME, {p}_PART, {p}_PLATFORM, {int(b['ran_on_hardware'])},")
        if pci:
            w(f"\t{p}_PCI_VENDOR, {p}_PCI_DEVICE, {p}_PCI_SUBSYSTEM_VENDOR, {p}_PCI_SUBSYSTEM_DEVICE,")
        else:
            w("\t0, 0, 0, 0,")
        w(f"\t{len(b['bar'])},")
        w("\t{")
        for bar in b["bar"]:
            w(f"\t    {{{bar['index']}, {bar['bits']}, {int(bar['prefetchable'])}, {int(bar['regs'])}, "
              f"0x{bar['size']:x}ull, {c_str(bar['purpose'])}}},")
        w("\t},")
        w(f"\t{len(b['memory'])},")
        w("\t{")
        for m in b["memory"]:
            w(f"\t    {{{c_str(m['name'])}, {c_str(m['type'])}, {m['count']}, 0x{m['size']:x}ull}},")
        w("\t},")
        w(f"\t{p}_MEM_BYTES,")
        w(f"\t{len(b['clock'])},")
        w("\t{")
        for c in b["clock"]:
            w(f"\t    {{{c_str(c['name'])}, {c['hz']}u, {int(c['engines'])}}},")
        w("\t},")
        w(f"\t{p}_CLOCK_HZ,")
        w(f"\t{p}_IMEM_BYTES, {p}_DMEM_BYTES,")
        w(f"\t{p}_NET_PORTS, {p}_NET_GBPS,")
        x = b.get("xrt", {})
        w(f"\t{p + '_XRT_KERNEL' if 'kernel' in x else '0'}, "
          f"{p + '_XRT_XCLBIN_UUID' if 'xclbin_uuid' in x else '0'},")
        w("    },")
    w("};")
    w("")
    w("/*")
    w(" * The PCI IDs a driver binds, as an X-macro: X(vendor, device, subsystem vendor,")
    w(" * subsystem device, board), QUIRE_BOARD_PCI_ANY where a subsystem ID is not fixed.")
    w(" */")
    w("#define QUIRE_BOARD_PCI_IDS(X) \\")
    pcis = [b for b in boards if "pci" in b]
    for i, b in enumerate(pcis):
        p = "QUIRE_BOARD_" + b["board"]
        end = " \\" if i + 1 < len(pcis) else ""
        w(f"\tX({p}_PCI_VENDOR, {p}_PCI_DEVICE, {p}_PCI_SUBSYSTEM_VENDOR, "
          f"{p}_PCI_SUBSYSTEM_DEVICE, {b['id']}){end}")
    w("")
    w("/* The description of a board by its ID block's BOARD value, or 0 (NULL) for none. */")
    w("static inline const struct quire_board_desc *quire_board_find(__u32 board)")
    w("{")
    w("\tunsigned i;")
    w("\tfor (i = 0; i < QUIRE_BOARD_COUNT; i++)")
    w("\t\tif (quire_boards[i].board == board)")
    w("\t\t\treturn &quire_boards[i];")
    w("\treturn 0;")
    w("}")
    w("")
    w("#ifdef __cplusplus")
    w("}")
    w("#endif")
    w("")
    w("#endif /* QUIRE_BOARDS_H */")
    return "\n".join(out) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--regs", default="include/quire/regs.h")
    ap.add_argument("--link-ld", default="firmware/link.ld")
    ap.add_argument("-o", "--output")
    ap.add_argument("--check", action="store_true", help="validate only")
    ap.add_argument("boards", nargs="+")
    args = ap.parse_args(argv)
    errors, boards = [], []
    try:
        enum, bar0_bytes = read_enum(args.regs)
        fw_need = read_link_ld(args.link_ld)
    except (OSError, BoardError) as e:
        sys.stderr.write(f"gen_boards.py: {e}\n")
        return 2
    for path in args.boards:
        try:
            with open(path, "rb") as f:
                doc = tomllib.load(f)
            boards.append(validate(path, doc, enum, bar0_bytes, fw_need))
        except tomllib.TOMLDecodeError as e:
            errors.append(f"{path}: not TOML: {e}")
        except (OSError, BoardError) as e:
            errors.append(str(e))
    seen = {}
    for b in boards:
        if b["board"] in seen:
            errors.append(f"{b['file']}: board {b['board']} is also described by {seen[b['board']]}")
        seen[b["board"]] = b["file"]
    if errors:
        for e in errors:
            sys.stderr.write(f"gen_boards.py: {e}\n")
        return 2
    boards.sort(key=lambda b: b["id"])
    if args.check:
        print(f"gen_boards.py: {len(boards)} boards valid: "
              + ", ".join(f"{b['file']} ({b['board']})" for b in boards))
        return 0
    text = header(boards)
    if args.output:
        os.makedirs(os.path.dirname(args.output) or ".", exist_ok=True)
        tmp = args.output + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, args.output)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
