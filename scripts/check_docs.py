#!/usr/bin/env python3
"""make check-docs: the specification stands alone and points only at what exists.

Six checks over the files git knows (tracked and untracked-but-not-ignored, so build/ is
never read):

  paths    every repository path named in a document or a source file exists: a token that
           starts with a top-level folder (rtl/, docs/, model/, ...) or is a top-level file
           (README.md, Makefile, ...); globs (rtl/xf_tile*.sv) and brace lists
           (model/link.{hpp,cpp}) must match at least one file; a bare file name with a source
           extension (xf_link.sv, chip.hpp, sources.md) must be the name of some file in the
           repository.
  links    every Markdown link in every .md file resolves: the file or folder exists, and an
           #anchor names a heading of the target document (GitHub's slug rule).
  modules  every module in rtl/*.sv has its section in docs/: MODULE_SECTIONS below maps it to
           a document and a heading; the heading must exist and its section must name the
           module.
  outside  nothing points outside the repository: no ../shared, /tmp/, /work/, DESIGN.md,
           STYLE.md, the chip interfaces note, seeds/ or "seed 00x" (the source patents are cited
           by title in docs/sources.md).
  names    an xf_* identifier in a document or a comment is an RTL module or package, a file of
           the repository, or in XF_NAME_ALLOW (a stale xf_alu is caught here); a port named in
           a document (`tx_ready_o`) is a port of some SystemVerilog module, an assertion
           (`QueueNoOverflow_A`, `..._M`) is one of some SystemVerilog file; a C++ Class::member
           in a document or a comment names a class of the sources and a member they have.
  sections "docs/x.md section N" (or "[x.md](x.md) section N", "sections N-M") cites a heading
           numbered N in that document.

Usage: python3 scripts/check_docs.py [ROOT]   (ROOT defaults to the repository of this script)
Prints one line per failure (file:line: what is wrong; what to do) and exits 1 on any.
Standard library only.
"""

import fnmatch
import os
import re
import subprocess
import sys

# ---- What counts as a repository path ------------------------------------------------------

TOP_DIRS = ("rtl", "model", "sw", "tb", "tests", "scripts", "docs", "spec", "formal", "fpga",
            "python", "examples", ".ci")
TOP_FILES = ("README.md", "CHANGELOG.md", "Makefile", "CMakeLists.txt", "pyproject.toml", "xf_fabric.core",
             "xf_fabric_fpga.core", ".clang-format", ".gitignore")
# Bare file names with these extensions must be the name of a file in the repository.
SOURCE_EXTS = ("sv", "svh", "cpp", "hpp", "py", "sh", "md", "json", "core")
# Files whose text is read (binary files and generated images are skipped).
TEXT_EXTS = (".md", ".sv", ".svh", ".v", ".cpp", ".hpp", ".h", ".py", ".sh", ".json", ".core",
             ".f", ".txt", ".cmake", ".pcf", ".lpf", ".xdc", ".tcl", ".dot", ".ys", ".sby")
TEXT_NAMES = ("Makefile", "CMakeLists.txt", "run", ".gitignore")

# Files not read at all, with the reason.
SKIP_FILES = {
    # this script names the forbidden patterns in order to find them
    "scripts/check_docs.py",
}

# Named paths that need not exist, with the reason. Matched with fnmatch against the token as
# written (before glob expansion).
PATH_ALLOW = [
    # "RTL/model" written in lower case: the cycle ratio of the two backends, not a path
    ("*", "rtl/model"),
    # the iCEBreaker pin file's path in YosysHQ's icestorm repository, not in this one
    ("*", "examples/icebreaker/icebreaker.pcf"),
]
# Bare file names that need not exist: examples of the user's own files and outputs.
NAME_ALLOW = {
    # outputs of make synth in build/fpga/BOARD/ (docs/boards.md section 3)
    "fpga.json", "stat.json", "pnr_report.json", "report.md", "levels.json",
    # output of make bench in build/bench/ (docs/performance.md)
    "summary.md",
    # the testbench header gen_system writes next to its Verilog (docs/simulators.md)
    "xf_system_tb_gen.svh",
    # the copy of the RTL scripts/formal.sh reads in build/formal/ (docs/formal.md part 2)
    "link.xf_link.sv",
    # the wrapper and mutant selector scripts/mutation.py writes in build/mutation/GROUP/
    "wrapper.sv", "mutsel.cpp", "original.json",
    # the C++ Verilator makes from the ALU, which scripts/regress_alu.py hashes as its design
    "Vxf_reduce_alu.cpp",
    # examples of the user's own files in help texts and documents
    "FILE.json", "b.json", "a.sv", "b.sv", "NETLIST.json",
    # temporary files of tests/tools/test_logic_levels.py (pytest's tmp_path)
    "net.json", "bad.json",
}

# Identifiers xf_* named in documents and comments must be an RTL module or package, or the
# stem of a file of the repository (xf_chip.f), or one of these:
XF_NAME_ALLOW = {
    "xf_board_sim",     # the serial-board simulator program (tb/board_sim.cpp, CMake target)
    "xf_rtl_chip",      # the CMake library of the Verilated chip and switch
    "xf_mismatch",      # the default wave file of a mismatch's reproduce command
    "xf_lint_top",      # the top scripts/lint_rtl.sh writes into build/lint/
    "xf_system_pkg",    # the package gen_system writes with a machine (fpga/*/xf_system_top.sv)
    "xf_system_tb_gen",  # the testbench header gen_system writes (docs/simulators.md)
    "xf_chip_idle",     # the Icarus executable tb/icarus/xf_chip_idle_tb.sv builds
    "xf_mutsel",        # the DPI-C mutant selector of scripts/mutation.py's wrappers
}

# Namespaces and classes of libraries, not of this project (Class::member is checked for the rest).
CPP_EXTERNAL = {"GTest", "SC_METHOD", "SystemC"}  # SystemC::Coverage: Verilator's .dat header

# References to things outside the repository, and where such a text is legitimate.
OUTSIDE_PATTERNS = [
    (re.compile(r"\.\./shared\b"), "../shared (the project's shared folder is not in the "
     "repository)", "point at the section of docs/ that holds the content"),
    (re.compile(r"(?<![\w.])/tmp/"), "/tmp/ (a temporary file is not part of the repository)",
     "point at the section of docs/ that holds the content"),
    (re.compile(r"(?<![\w.])/work/"), "/work/ (a path of one machine)",
     "use a path relative to the repository"),
    (re.compile(r"\bDESIGN\.md\b"), "DESIGN.md (the architecture brief is not in the "
     "repository)", "point at the section of docs/ that holds that content (correctness: "
     "model.md section 9; the bandwidth bound: performance.md section 1)"),
    (re.compile(r"\bSTYLE\.md\b"), "STYLE.md (the style guide is not in the repository)",
     "cite the rule in docs/conventions.md"),
    (re.compile(r"chip_ifaces|chip interfaces", re.IGNORECASE),
     "the chip interfaces note (a file of one machine)",
     "cite docs/tile.md \"Interfaces\" or docs/exchange.md \"RTL: xf_exchange\""),
    (re.compile(r"\bseeds/"), "seeds/ (the source patents are not in the repository)",
     "cite the patent by its short name from docs/sources.md"),
    (re.compile(r"\bseeds?[ -]?0{1,2}[0-4]\b", re.IGNORECASE), "\"seed 00x\"",
     "cite the source patent by its short name from docs/sources.md (the averaging, tree, "
     "exchange, ladder or sharded-update patent)"),
]
OUTSIDE_ALLOW = [
    # mkdtemp templates: the code creates a scratch folder under /tmp at run time
    ("tests/test_average_study.cpp", "/tmp/avg_study_test_XXXXXX"),
    ("sw/lib/average_study.cpp", "/tmp/average_study_XXXXXX"),
    # a rate in the regressions' progress line (scripts/progress.py), not the patents' folder
    ("docs/python.md", "seeds/s"),
]

# ---- Module -> section of docs/ -------------------------------------------------------------
# Every module of rtl/*.sv: (document, heading). The heading must exist in the document and the
# section under it (to the next heading of the same or a higher level) must name the module.
MODULE_SECTIONS = {
    "xf_chip": ("docs/chip.md", "1. Structure"),
    "xf_switch": ("docs/chip.md", "5. The switch node"),
    "xf_host_port": ("docs/chip.md", "3. The host port"),
    "xf_link_array": ("docs/chip.md", "1. Structure"),
    "xf_exchange": ("docs/exchange.md", "RTL: xf_exchange"),
    "xf_xb": ("docs/exchange.md", "RTL: xf_xb"),
    "xf_fifo": ("docs/exchange.md", "The queue: xf_fifo"),
    "xf_buf_ram": ("docs/fpga.md", "10. Buffers in block RAM"),
    "xf_router": ("docs/exchange.md", "RTL: xf_router"),
    "xf_link": ("docs/exchange.md", "RTL: xf_link"),
    "xf_link_phy": ("docs/exchange.md", "RTL: xf_link"),
    "xf_crc32": ("docs/reliability.md", "2. The CRC and what it guarantees"),
    "xf_tile": ("docs/tile.md", "RTL: xf_tile"),
    "xf_tile_seq": ("docs/tile.md", "Sequencer"),
    "xf_tile_send": ("docs/tile.md", "Send engine"),
    "xf_tile_recv": ("docs/tile.md", "Receive engine"),
    "xf_tile_ram": ("docs/tile.md", "Memories and their ports"),
    "xf_reduce_alu": ("docs/alu.md", "8. RTL"),
    "xf_int_lane": ("docs/alu.md", "8. RTL"),
    "xf_fp_add": ("docs/alu.md", "8. RTL"),
    "xf_fp_mul": ("docs/alu.md", "8. RTL"),
    "xf_fp_maxmin": ("docs/alu.md", "8. RTL"),
    "xf_delay": ("docs/alu.md", "8. RTL"),
    "xf_uart_rx": ("docs/fpga.md", "2. The UART"),
    "xf_uart_tx": ("docs/fpga.md", "2. The UART"),
    "xf_uart_bridge": ("docs/fpga.md", "3. The bridge protocol"),
    "xf_reset_sync": ("docs/fpga.md", "1. Layout"),
}


class Checker:
    def __init__(self, root):
        self.root = root
        self.failures = []
        self.files = self.list_files()
        self.file_set = set(self.files)
        self.dir_set = set()
        for f in self.files:
            d = os.path.dirname(f)
            while d:
                self.dir_set.add(d)
                d = os.path.dirname(d)
        self.basenames = {os.path.basename(f) for f in self.files}
        self.text_cache = {}
        self.heading_cache = {}

    def list_files(self):
        try:
            out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                                 cwd=self.root, capture_output=True, text=True, check=True).stdout
            files = [f for f in out.splitlines() if f]
        except (OSError, subprocess.CalledProcessError):
            files = []
            for dirpath, dirnames, filenames in os.walk(self.root):
                dirnames[:] = [d for d in dirnames if d not in (".git", "build")]
                for n in filenames:
                    files.append(os.path.relpath(os.path.join(dirpath, n), self.root))
        # a file deleted in the work tree but still in the index does not exist
        return sorted(f for f in files if not f.startswith("build/") and
                      os.path.isfile(os.path.join(self.root, f)))

    def fail(self, where, what, todo):
        self.failures.append(f"{where}: {what}; {todo}")

    def text(self, rel):
        if rel not in self.text_cache:
            with open(os.path.join(self.root, rel), encoding="utf-8", errors="replace") as fh:
                self.text_cache[rel] = fh.read().splitlines()
        return self.text_cache[rel]

    def text_files(self):
        for f in self.files:
            if f in SKIP_FILES:
                continue
            base = os.path.basename(f)
            if base.endswith(TEXT_EXTS) or base in TEXT_NAMES:
                yield f

    # ---- (a) named paths ----------------------------------------------------------------------
    PATH_RE = re.compile(
        r"(?<![\w./$<>{-])(?:\./)?((?:" + "|".join(re.escape(d) for d in TOP_DIRS) +
        r")/[\w.*{},/<>$+-]*[\w*}>])")
    TOP_FILE_RE = re.compile(
        r"(?<![\w./-])(" + "|".join(re.escape(f) for f in TOP_FILES) + r")(?![\w/-])")
    NAME_RE = re.compile(r"(?<![\w./$<>{-])([A-Za-z0-9_][\w.-]*\.(?:" + "|".join(SOURCE_EXTS) +
                         r"))(?![\w/*-])")

    def exists(self, path):
        """True when path (possibly a glob or a brace list) names a file or folder."""
        m = re.search(r"\{([^{}]*)\}", path)
        if m:
            return all(self.exists(path[:m.start()] + alt + path[m.end():])
                       for alt in m.group(1).split(","))
        path = path.rstrip("/")
        if any(c in path for c in "*?["):
            return any(fnmatch.fnmatchcase(f, path) for f in self.files) or \
                any(fnmatch.fnmatchcase(d, path) for d in self.dir_set)
        return path in self.file_set or path in self.dir_set

    def allowed_path(self, rel, token):
        return any(fnmatch.fnmatchcase(rel, fpat) and fnmatch.fnmatchcase(token, tpat)
                   for fpat, tpat in PATH_ALLOW)

    def check_paths(self):
        # Whole lines, code included, and code blocks of documents too: a command or an include
        # that names a path must name one that exists.
        for rel in self.text_files():
            for n, line in enumerate(self.text(rel), 1):
                # links are checked (relative to their document) by check_links
                scan = re.sub(r"\]\([^)]*\)", "]()", line) if rel.endswith(".md") else line
                for m in self.PATH_RE.finditer(scan):
                    tok = m.group(1)
                    if self.allowed_path(rel, tok) or self.exists(self.placeholders(tok)):
                        continue
                    self.fail(f"{rel}:{n}", f"names '{tok}', which does not exist in the "
                              "repository", "correct the path, or, if it is an output or an "
                              "example the user creates, add it to PATH_ALLOW in "
                              "scripts/check_docs.py with the reason")
                for m in self.TOP_FILE_RE.finditer(scan):
                    if not self.exists(m.group(1)):
                        self.fail(f"{rel}:{n}", f"names '{m.group(1)}', which does not exist",
                                  "correct the name")
                for m in self.NAME_RE.finditer(scan):
                    name = m.group(1)
                    if name in self.basenames or name in NAME_ALLOW:
                        continue
                    if any(p.search(name) for p, _, _ in OUTSIDE_PATTERNS):
                        continue  # reported by check_outside
                    self.fail(f"{rel}:{n}", f"names the file '{name}', and no file of the "
                              "repository has that name", "give its path in the repository, "
                              "or add it to NAME_ALLOW in scripts/check_docs.py if it is an "
                              "example of the user's own")

    @staticmethod
    def placeholders(tok):
        """A placeholder stands for any name: <name>, {name} (a format field, not a brace
        list), $NAME, ${NAME}, and the upper-case words BOARD, NAME, FILE. The path must then
        match some file (tests/test_rtl_<name>.cpp -> tests/test_rtl_*.cpp)."""
        tok = re.sub(r"<[^<>/]*>|\{[^{},/]*\}|\$\{?\w+\}?", "*", tok)
        tok = re.sub(r"\{[^{}]*$", "*", tok)  # a format field cut off at the end of the token
        return re.sub(r"(?<![A-Za-z])(BOARD|NAME|FILE)(?![A-Za-z])", "*", tok)

    # ---- (a') xf_* names in documents and comments ------------------------------------------
    XF_RE = re.compile(r"(?<![\w$/.])(xf_[a-z0-9_]*[a-z0-9])(?![\w*])")

    def xf_names(self):
        if not hasattr(self, "_xf_names"):
            names = set(XF_NAME_ALLOW)
            for f in self.files:
                names.add(os.path.basename(f).split(".")[0])
                if f.endswith((".sv", ".svh", ".v")):
                    for line in self.text(f):
                        m = re.match(r"\s*(?:module|package|interface)\s+(\w+)", line)
                        if m:
                            names.add(m.group(1))
            self._xf_names = names
        return self._xf_names

    @staticmethod
    def comment_part(rel, line):
        """The comment of a source line (the whole line of a document)."""
        if rel.endswith(".md"):
            return line
        if rel.endswith((".py", ".sh", ".f", ".cmake")) or os.path.basename(rel) in (
                "Makefile", "CMakeLists.txt", "run", ".gitignore"):
            i = line.find("#")
        else:
            i = line.find("//")
        return line[i:] if i >= 0 else ""

    def port_names(self):
        """Every port of every SystemVerilog module of the repository."""
        if not hasattr(self, "_ports"):
            ports = set()
            for f in self.files:
                if not f.endswith((".sv", ".svh", ".v")):
                    continue
                for line in self.text(f):
                    code = re.sub(r"\[[^\]]*\]", " ", line.split("//")[0])
                    m = re.match(r"\s*(?:input|output|inout)\b([^,;)]*)", code)
                    if m:
                        ids = re.findall(r"[A-Za-z_]\w*", m.group(1))
                        if ids:
                            ports.add(ids[-1])
                    for a in re.findall(r"\b([A-Z]\w*_[AM])\b", code):
                        ports.add(a)  # assertion (_A) and assumption (_M) labels
            self._ports = ports
        return self._ports

    def check_port_names(self):
        """A port named in a document (`name_i`, `name_o`, `name_ni`) is a port of some module."""
        for rel in self.files:
            if not rel.endswith(".md") or rel in SKIP_FILES:
                continue
            for n, line in enumerate(self.text(rel), 1):
                for m in re.finditer(r"`([a-z][a-z0-9_]*_(?:i|o|ni|no)|[A-Z]\w*_[AM])`", line):
                    if m.group(1) not in self.port_names():
                        kind = "assertion" if m.group(1)[0].isupper() else "port"
                        self.fail(f"{rel}:{n}", f"names the {kind} '{m.group(1)}', which no "
                                  "SystemVerilog file of the repository has",
                                  f"use the {kind}'s current name")

    def cpp_names(self):
        """Classes, structs, enums and namespaces of the C++ sources, and every identifier."""
        if not hasattr(self, "_cpp"):
            types, idents = set(), set()
            for f in self.files:
                if f.endswith((".cpp", ".hpp", ".h")):
                    text = "\n".join(self.text(f))
                    types.update(re.findall(r"\b(?:class|struct|enum(?:\s+class)?|namespace|using)"
                                            r"\s+(\w+)", text))
                    idents.update(re.findall(r"\b\w+\b", text))
            self._cpp = (types, idents)
        return self._cpp

    def check_cpp_names(self):
        """Class::member named in a document or a comment: the class is one of the C++ sources
        and the member is an identifier there (a renamed or removed method shows up here)."""
        types, idents = self.cpp_names()
        for rel in self.text_files():
            for n, line in enumerate(self.text(rel), 1):
                for m in re.finditer(r"(?<![\w:])([A-Z]\w*)::(~?[A-Za-z_]\w*)",
                                     self.comment_part(rel, line)):
                    cls, member = m.groups()
                    if cls in CPP_EXTERNAL or (cls in types and member.lstrip("~") in idents):
                        continue
                    what = f"class {cls}" if cls not in types else f"{cls}::{member}"
                    self.fail(f"{rel}:{n}", f"names {cls}::{member}, and the C++ sources have no "
                              f"{what}", "name the class and member as they are now")

    def check_xf_names(self):
        for rel in self.text_files():
            for n, line in enumerate(self.text(rel), 1):
                for m in self.XF_RE.finditer(self.comment_part(rel, line)):
                    if m.group(1) not in self.xf_names():
                        self.fail(f"{rel}:{n}", f"names '{m.group(1)}', which is no RTL module "
                                  "and no file of the repository", "use the module's real name "
                                  "(rtl/*.sv), or add it to XF_NAME_ALLOW in "
                                  "scripts/check_docs.py with what it is")

    # ---- (e) "doc.md section N" names a section that exists ------------------------------------
    SECTION_RE = re.compile(
        r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.md)\]?(?:\([^)]*\))?\)?,?\s+(?:sections?|sec\.)\s+"
        r"(\d+(?:\.\d+)?)(?:\s*(?:-|\u2013|\.\.|and|to|,)\s*(\d+(?:\.\d+)?)(?![\w-]))?")

    def resolve_md(self, rel, name):
        """The Markdown file a reference from rel means: a path from the referring file's folder
        or from the repository root, or a bare name of a document in docs/."""
        if "/" in name:
            for base in (os.path.dirname(rel), ""):
                p = os.path.normpath(os.path.join(base, name))
                if p in self.file_set:
                    return p
            return None
        local = os.path.join(os.path.dirname(rel), name)
        if local in self.file_set:
            return local
        docs = [f for f in self.files if f.startswith("docs/") and os.path.basename(f) == name]
        return docs[0] if len(docs) == 1 else None

    def check_section_refs(self):
        for rel in self.text_files():
            for n, line in enumerate(self.text(rel), 1):
                for m in self.SECTION_RE.finditer(line):
                    doc = self.resolve_md(rel, m.group(1))
                    if doc is None:
                        continue  # a missing file is reported by check_paths
                    heads = [h[2] for h in self.headings(doc)]
                    for sec in (m.group(2), m.group(3)):
                        if sec and not any(re.match(re.escape(sec) + r"[.\s]", h) for h in heads):
                            self.fail(f"{rel}:{n}", f"cites {doc} section {sec}, which has no "
                                      f"heading numbered {sec}", "correct the section number")

    # ---- (b) Markdown links -------------------------------------------------------------------
    LINK_RE = re.compile(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")

    @staticmethod
    def slug(heading):
        t = heading.strip()
        t = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", t)  # a link's text stays
        t = re.sub(r"<[^>]+>", "", t)                     # HTML tags go
        t = t.lower()
        t = re.sub(r"[^\w\- ]", "", t)                    # punctuation goes, _ and - stay
        return t.replace(" ", "-")

    def prose_lines(self, rel):
        """(line number, line) of a Markdown file outside its code fences."""
        in_fence = False
        for n, line in enumerate(self.text(rel), 1):
            if re.match(r"\s*(```|~~~)", line):
                in_fence = not in_fence
            elif not in_fence:
                yield n, line

    def headings(self, rel):
        """[(line, level, text, slug)] of a Markdown file, code fences skipped."""
        if rel not in self.heading_cache:
            out, seen = [], {}
            for n, line in self.prose_lines(rel):
                m = re.match(r"(#{1,6})\s+(.*?)\s*#*\s*$", line)
                if not m:
                    continue
                s = self.slug(m.group(2))
                k = seen.get(s, 0)
                seen[s] = k + 1
                out.append((n, len(m.group(1)), m.group(2), s if k == 0 else f"{s}-{k}"))
            self.heading_cache[rel] = out
        return self.heading_cache[rel]

    def check_links(self):
        for rel in self.files:
            if not rel.endswith(".md"):
                continue
            for n, line in self.prose_lines(rel):
                scan = re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), line)
                for m in self.LINK_RE.finditer(scan):
                    self.check_link(rel, n, m.group(2))

    def check_link(self, rel, n, target):
        where = f"{rel}:{n}"
        if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", target):  # http:, https:, mailto:
            return
        path, _, anchor = target.partition("#")
        if path:
            dest = os.path.normpath(os.path.join(os.path.dirname(rel), path))
            if dest.startswith(".."):
                self.fail(where, f"links to '{target}', outside the repository",
                          "link to a file of the repository")
                return
            if not self.exists(dest):
                self.fail(where, f"links to '{target}', and '{dest}' does not exist",
                          "correct the link")
                return
        else:
            dest = rel
        if anchor:
            if not dest.endswith(".md"):
                self.fail(where, f"links to '{target}': an anchor into a file that is not "
                          "Markdown", "drop the anchor")
                return
            slugs = [h[3] for h in self.headings(dest)]
            if anchor not in slugs:
                near = [s for s in slugs if anchor.split("-")[0] in s][:3]
                self.fail(where, f"links to '{target}', and {dest} has no heading with the "
                          f"anchor '#{anchor}'", "correct the anchor (GitHub's slug: lower "
                          "case, punctuation dropped, spaces to '-')" +
                          (f"; near: {', '.join('#' + s for s in near)}" if near else ""))

    # ---- (c) every RTL module has its section ---------------------------------------------------
    def check_modules(self):
        modules = {}
        for rel in self.files:
            if re.fullmatch(r"rtl/[^/]+\.sv", rel):
                for n, line in enumerate(self.text(rel), 1):
                    m = re.match(r"\s*module\s+(\w+)", line)
                    if m:
                        modules[m.group(1)] = (rel, n)
        for mod, (rel, n) in sorted(modules.items()):
            if mod not in MODULE_SECTIONS:
                self.fail(f"{rel}:{n}", f"module {mod} has no entry in MODULE_SECTIONS",
                          "write its section in docs/ and add (document, heading) to "
                          "MODULE_SECTIONS in scripts/check_docs.py")
                continue
            doc, heading = MODULE_SECTIONS[mod]
            if doc not in self.file_set:
                self.fail(f"{rel}:{n}", f"module {mod}'s section is in {doc}, which does not "
                          "exist", "correct MODULE_SECTIONS in scripts/check_docs.py")
                continue
            hs = self.headings(doc)
            lines = self.text(doc)
            found = [i for i, h in enumerate(hs) if re.sub(r"`", "", h[2]) == heading]
            if not found:
                self.fail(f"{rel}:{n}", f"module {mod}'s section '{heading}' is missing from "
                          f"{doc}", "restore that section, or correct MODULE_SECTIONS in "
                          "scripts/check_docs.py")
                continue
            named = False
            for i in found:
                start, level = hs[i][0], hs[i][1]
                end = len(lines) + 1
                for h in hs[i + 1:]:
                    if h[1] <= level:
                        end = h[0]
                        break
                body = "\n".join(lines[start - 1:end - 1])
                if re.search(r"\b" + re.escape(mod) + r"\b", body):
                    named = True
            if not named:
                self.fail(f"{doc}:{hs[found[0]][0]}", f"section '{heading}' does not name "
                          f"module {mod} ({rel})", "describe the module there, or point "
                          "MODULE_SECTIONS at its real section")
        for mod in sorted(set(MODULE_SECTIONS) - set(modules)):
            self.fail("scripts/check_docs.py", f"MODULE_SECTIONS lists {mod}, which is no "
                      "module of rtl/*.sv", "remove the entry")

    # ---- (d) nothing outside the repository ---------------------------------------------------
    def check_outside(self):
        for rel in self.text_files():
            for n, line in enumerate(self.text(rel), 1):
                for pat, what, todo in OUTSIDE_PATTERNS:
                    for m in pat.finditer(line):
                        if any(rel == f and s in line for f, s in OUTSIDE_ALLOW):
                            continue
                        self.fail(f"{rel}:{n}", f"refers outside the repository: {what}", todo)

    def run(self):
        self.check_paths()
        self.check_xf_names()
        self.check_port_names()
        self.check_cpp_names()
        self.check_links()
        self.check_modules()
        self.check_outside()
        self.check_section_refs()
        for f in self.failures:
            print(f"check-docs: {f}")
        if self.failures:
            print(f"check-docs: {len(self.failures)} failure(s)")
            return 1
        n_md = sum(1 for f in self.files if f.endswith(".md"))
        print(f"check-docs: {len(list(self.text_files()))} files, {n_md} Markdown documents, "
              f"{len(MODULE_SECTIONS)} RTL modules: every named path, link, anchor and section "
              "resolves, every module has its section, nothing points outside the repository")
        return 0


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return Checker(os.path.abspath(root)).run()


if __name__ == "__main__":
    sys.exit(main())
