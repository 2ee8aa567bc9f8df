# Exchange fabric: thin front end over CMake, Verilator and the scripts. `make help` lists targets.
SHELL      := /bin/bash
BUILD      ?= build
JOBS       ?= $(shell nproc)
CMAKE_DIR  := $(BUILD)/cmake
FABRIC     := $(CMAKE_DIR)/fabric
SETUP_STAMP := $(BUILD)/.setup-done
# The flit widths of the Verilated chip (docs/packets.md section 2); make demo builds 128 alone.
XF_FLIT_WIDTHS ?= 128;64;32
# The interpreter of the Python package's tests and the regressions: Debian's, which has what
# scripts/setup.sh installs (numpy, pytest, pytest-xdist, ml_dtypes, gmpy2; docs/python.md).
PY         ?= /usr/bin/python3
PYTEST     := $(PY) -m pytest -p no:cacheprovider

MAKEFLAGS += --no-print-directory
.DEFAULT_GOAL := help

.PHONY: help
help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | \
	  awk 'BEGIN {FS = ":.*## "}; {printf "  make %-12s %s\n", $$1, $$2}'

$(SETUP_STAMP): scripts/setup.sh
	@scripts/setup.sh
	@mkdir -p $(BUILD) && touch $@

.PHONY: setup
setup: ## install missing dependencies (apt-get; needs root or sudo)
	@scripts/setup.sh
	@mkdir -p $(BUILD) && touch $(SETUP_STAMP)

.PHONY: gen
gen: ## regenerate headers and doc tables from spec/xf_defs.json, FuseSoC cores and file lists
	python3 scripts/gen_defs.py spec/xf_defs.json .
	python3 scripts/gen_fusesoc.py .

.PHONY: check-gen
check-gen: ## fail if the committed generated files are stale
	@rm -rf $(BUILD)/gen && mkdir -p $(BUILD)/gen
	@# the copies of the .core files below must not shadow the real ones for FuseSoC
	@touch $(BUILD)/FUSESOC_IGNORE
	@python3 scripts/gen_defs.py spec/xf_defs.json $(BUILD)/gen
	@for f in sw/include/xf/defs.hpp rtl/xf_defs_pkg.sv rtl/xf_types.svh docs/generated/defs.md; do \
	  diff -u $$f $(BUILD)/gen/$$f > /dev/null || { \
	    echo "check-gen: $$f is stale; run 'make gen' and commit it"; exit 1; }; \
	done
	@python3 scripts/gen_fusesoc.py $(BUILD)/gen
	@for f in xf_fabric.core xf_fabric_fpga.core rtl/xf_chip.f rtl/xf_switch.f rtl/xf_uart_bridge.f \
	          $(foreach b,icebreaker ulx3s arty_a7,fpga/$(b)/$(b).f); do \
	  diff -u $$f $(BUILD)/gen/$$f > /dev/null || { \
	    echo "check-gen: $$f is stale; run 'make gen' and commit it"; exit 1; }; \
	done; echo "check-gen: generated files are up to date"

# The tuner's table (docs/compiler.md section 10): `fabric tune` measures every algorithm per
# topology and size on the model; Algo::kAuto reads the committed sw/lib/tune_table.cpp.
TUNE_TABLE := sw/lib/tune_table.cpp

.PHONY: tune
tune: $(SETUP_STAMP) build ## measure every algorithm per topology and size on the model, rewrite sw/lib/tune_table.cpp (~6 min)
	@SC_COPYRIGHT_MESSAGE=DISABLE $(FABRIC) tune --output $(TUNE_TABLE) $(TUNE_ARGS)
	@echo "tune: $(TUNE_TABLE) rewritten; rebuild (make build) and commit it"

.PHONY: check-tune
check-tune: $(SETUP_STAMP) build ## fail if sw/lib/tune_table.cpp is not what fabric tune measures today (~6 min)
	@mkdir -p $(BUILD)/tune
	@SC_COPYRIGHT_MESSAGE=DISABLE $(FABRIC) tune --output $(BUILD)/tune/tune_table.cpp \
	  $$(sed -n 's/^const char\* tune_command() { return "fabric tune\(.*\)"; }$$/\1/p' $(TUNE_TABLE) | \
	     sed "s/'//g") > $(BUILD)/tune/check.log
	@diff -u $(TUNE_TABLE) $(BUILD)/tune/tune_table.cpp > /dev/null || { \
	  echo "check-tune: $(TUNE_TABLE) is stale (the compiler or the model changed the cycles);"; \
	  echo "check-tune: run 'make tune' and commit it (diff: diff -u $(TUNE_TABLE) $(BUILD)/tune/tune_table.cpp)"; exit 1; }
	@echo "check-tune: the tuner's table is up to date"

.PHONY: check-slices
check-slices: ## fail on a hand-written slice of a format in rtl/ (docs/conventions.md, rule 12)
	@python3 scripts/check_slices.py --self-test > /dev/null
	@python3 scripts/check_slices.py

.PHONY: check-docs
check-docs: ## fail on a dangling path, link or anchor in a doc or comment, or an RTL module without its doc section
	@python3 scripts/check_docs.py

CXX_SOURCES = $(filter-out sw/include/xf/defs.hpp sw/lib/tune_table.cpp,$(wildcard sw/include/xf/*.hpp sw/lib/*.cpp \
              sw/tools/*.cpp sw/tools/*.hpp sw/examples/*.cpp sw/backends/*/*.cpp sw/driver/*.cpp \
              model/*.cpp model/*.hpp \
              tests/*.cpp tests/*.hpp tb/*.hpp tb/*.cpp sw/backends/*/*.hpp tests/fuzz/*.cpp \
              python/src/*.cpp))

.PHONY: format
format: ## apply .clang-format to the C++ sources
	clang-format -i $(CXX_SOURCES)

.PHONY: check-format
check-format: $(SETUP_STAMP) ## fail if a C++ source is not clang-formatted
	@clang-format --dry-run --Werror $(CXX_SOURCES) && echo "check-format: sources are formatted"

.PHONY: build
build: $(SETUP_STAMP) ## build the library, model, fabric tool and tests [XF_FLIT_WIDTHS="128;64;32"]
	@cmake -S . -B $(CMAKE_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DXF_FLIT_WIDTHS="$(XF_FLIT_WIDTHS)" -DXF_PYTHON=ON -DPython_EXECUTABLE=$(PY) > /dev/null
	@scripts/cmake_build.sh $(CMAKE_DIR) -j $(JOBS)

# The package's tests on the build tree's module (build/cmake/python/xfabric, no pip install).
PYTHON_TEST_ARGS ?= -m "not slow" -n $(JOBS)

.PHONY: python-test
python-test: build ## the Python package's tests on the build tree (make test: the quick ones)
	@PYTHONPATH=$(CMAKE_DIR)/python XF_FABRIC=$(FABRIC) $(PYTEST) python/tests -q $(PYTHON_TEST_ARGS)

.PHONY: python-test-all
python-test-all: build ## every test of the Python package, the slow ones too (~3 min)
	@$(MAKE) python-test PYTHON_TEST_ARGS="-n $(JOBS)"

.PHONY: lint
lint: $(SETUP_STAMP) ## lint the RTL (Verilator -Wall), synthesise it (Yosys), compile it (Icarus)
	@scripts/lint_rtl.sh
	@scripts/synth_check.sh $(SYNTH_FLAGS)
	@scripts/icarus_check.sh

.PHONY: synth-check
synth-check: $(SETUP_STAMP) ## Yosys generic + iCE40 + ECP5 synthesis of every block, cell counts (SYNTH_ARGS="--width 32,64 --blocks xf_link")
	@scripts/synth_check.sh $(SYNTH_ARGS)

.PHONY: synth-chip
synth-chip: $(SETUP_STAMP) ## Yosys synthesis of the 4-tile, 4-link chip (TILES=, LINKS=, ...), totals
	@scripts/synth_chip.sh

# ---- FPGA builds (docs/boards.md): BOARD=icebreaker|ulx3s|arty_a7, outputs in build/fpga/BOARD ----
FPGA_BOARDS := icebreaker ulx3s arty_a7
FPGA_SETUP_STAMP := $(BUILD)/.setup-fpga-done
ifneq ($(filter synth bitstream program,$(MAKECMDGOALS)),)
ifneq ($(words $(BOARD)) $(filter $(FPGA_BOARDS),$(BOARD)),1 $(strip $(BOARD)))
$(error BOARD='$(BOARD)': say which board, e.g. make synth BOARD=ulx3s; one of: $(FPGA_BOARDS))
endif
endif

$(FPGA_SETUP_STAMP): scripts/setup.sh
	@scripts/setup.sh fpga
	@mkdir -p $(BUILD) && touch $@

.PHONY: synth
synth: $(SETUP_STAMP) $(FPGA_SETUP_STAMP) ## synthesis, place and route, report: make synth BOARD=icebreaker|ulx3s|arty_a7
	@scripts/fpga_flow.sh synth $(BOARD)

.PHONY: bitstream
bitstream: $(SETUP_STAMP) $(FPGA_SETUP_STAMP) ## make synth, then the bitstream: make bitstream BOARD=icebreaker|ulx3s (arty_a7: Vivado)
	@scripts/fpga_flow.sh bitstream $(BOARD)

.PHONY: program
program: $(SETUP_STAMP) $(FPGA_SETUP_STAMP) ## load the bitstream into the board with openFPGALoader: make program BOARD=...
	@scripts/fpga_flow.sh program $(BOARD)

.PHONY: fpga-check
fpga-check: $(SETUP_STAMP) ## quick Yosys read of every board top, pins against constraints (part of make test)
	@scripts/fpga_flow.sh check

# make test's lint skips the three slowest synthesis runs and every ECP5 run
# (scripts/synth_check.sh --quick says which and why); make lint and make synth-check run them all.
test: SYNTH_FLAGS = --quick
.PHONY: test
test: $(SETUP_STAMP) check-gen check-docs check-format check-slices build lint fpga-check ## run every test (unit, model, compiler, tool, proofs, fuzz corpus)
	@cd $(CMAKE_DIR) && ctest --output-on-failure -j $(JOBS)
	@scripts/test_fabric_cli.sh $(FABRIC)
	@PYTHONPATH=$(CMAKE_DIR)/python XF_FABRIC=$(FABRIC) $(PYTEST) python/tests -q $(PYTHON_TEST_ARGS)
	@$(PYTEST) tests/regress --fabric $(FABRIC) --seeds 10 -n $(JOBS) -q
	@$(PYTEST) tests/tools -q
	@scripts/test_driver.sh $(FABRIC) $(CMAKE_DIR)/example_allreduce
	@scripts/fpga_machines.sh $(CMAKE_DIR)/gen_system --check
	@scripts/icarus_system.sh $(CMAKE_DIR)/gen_system
	@scripts/topo_pictures.sh $(FABRIC) --check
	@scripts/test_serial.sh $(FABRIC) $(CMAKE_DIR)/xf_board_sim
	@# The proofs (z3, one core) run beside the fuzz harness's build (clang, -j1): about 6 minutes
	@# less on 2 cores. The proofs' output follows the build's.
	@mkdir -p $(BUILD); scripts/formal.sh > $(BUILD)/formal-test.log 2>&1 & proofs=$$!; \
	  scripts/fuzz.sh build; built=$$?; wait $$proofs; proved=$$?; \
	  cat $(BUILD)/formal-test.log; [ $$built -eq 0 ] && [ $$proved -eq 0 ]
	@scripts/fuzz.sh corpus
	$(ORACLE) --pairs $(ORACLE_TEST_PAIRS) --self-test

.PHONY: topo-pictures
topo-pictures: $(SETUP_STAMP) build ## redraw docs/img/topo_*.png and .dot with fabric topo (Graphviz); commit both
	@scripts/topo_pictures.sh $(FABRIC)

.PHONY: demo
demo: $(SETUP_STAMP) ## build fabric alone, then collectives on the model and on the RTL against it
	@scripts/demo.sh $(CMAKE_DIR) $(JOBS)

SEEDS ?= 100
FIRST_SEED ?= 1
# The regressions run on pytest (tests/regress, docs/python.md section 6): JOBS processes at once
# (pytest-xdist), JUnit XML in build/regress/<target>.xml, SHARD=i/N for the i-th of N shards,
# an optional resumable results file (JSON lines; a rerun with the same RESULTS skips the seeds
# it holds), a progress line with the rate and ETA every 10 s.
REGRESS_ARGS = --fabric $(FABRIC) --seeds $(SEEDS) --first-seed $(or $(FIRST_SEED),1) \
  -n $(JOBS) -q -p xdist $(if $(SHARD),--shard $(SHARD)) $(if $(RESULTS),--results $(RESULTS))
REGRESS = @mkdir -p $(BUILD)/regress && $(PYTEST) tests/regress $(REGRESS_ARGS) \
  --junitxml=$(BUILD)/regress/$@$(if $(SHARD),-$(subst /,-of-,$(SHARD))).xml

.PHONY: regress-model
regress-model: $(SETUP_STAMP) build ## random collectives on the model: make regress-model SEEDS=N [FIRST_SEED=S] [SHARD=i/N]
	$(REGRESS)

.PHONY: regress
regress: $(SETUP_STAMP) build ## RTL vs model in lock step on random collectives: make regress SEEDS=N [FIRST_SEED=S] [SHARD=i/N]
	$(REGRESS) --rtl

.PHONY: regress-programs
regress-programs: $(SETUP_STAMP) build ## the chip test's random programs, RTL vs model to the cycle: make regress-programs SEEDS=N [FIRST_SEED=S] [RESULTS=F], resumable
	@$(PY) scripts/regress_programs.py --bin $(CMAKE_DIR)/test_rtl_chip --seeds $(SEEDS) \
	  --first $(or $(FIRST_SEED),1) --jobs $(JOBS) \
	  --results $(or $(RESULTS),$(BUILD)/regress/regress-programs.jsonl)

.PHONY: regress-faults
regress-faults: $(SETUP_STAMP) build ## RTL vs model under random link faults, small sizes: make regress-faults SEEDS=N
	$(REGRESS) --rtl --faults

.PHONY: bench-faults
bench-faults: $(SETUP_STAMP) build ## goodput of an allreduce against the link fault rate, RTL and model (table)
	@python3 scripts/bench_faults.py $(FABRIC)

.PHONY: cosim-ratios
cosim-ratios: $(SETUP_STAMP) build ## RTL/model cycle ratio per topology kind at 4K and 64K (~10 min)
	@scripts/cosim_ratios.sh $(FABRIC)

# make mutation: Yosys `mutate` mutants of every RTL block against its block tests (docs/mutation.md).
MUTANTS_PER_BLOCK ?= 25
MUTATION_SEED     ?= 1
MUTATION_BUDGET   ?= 7200
# The results file (empty: build/mutation/results-n<N>-s<seed>.jsonl); a record under
# tests/records/ lets a later run resume where a committed one stopped.
MUTATION_RESULTS  ?=
.PHONY: mutation
mutation: $(SETUP_STAMP) ## Yosys mutants per RTL block; resumes [MUTANTS_PER_BLOCK MUTATION_SEED MUTATION_BUDGET s MUTATION_RESULTS]
	@$(PY) scripts/mutation.py --mutants-per-block $(MUTANTS_PER_BLOCK) --seed $(MUTATION_SEED) \
	  --jobs $(JOBS) --budget $(MUTATION_BUDGET) --build $(BUILD) \
	  $(if $(MUTATION_RESULTS),--results $(MUTATION_RESULTS))

.PHONY: mutation-check
mutation-check: $(SETUP_STAMP) ## one-operator mutations of the ALU, XB and tile: make test must fail (~45 min)
	@scripts/mutation_check.sh $(BUILD)

.PHONY: formal
formal: $(SETUP_STAMP) ## prove the XB queue and the link retry layer (yosys-smtbmc + z3, ~5 min)
	@scripts/formal.sh

.PHONY: coverage
coverage: $(SETUP_STAMP) ## line and toggle coverage of rtl/ from the block tests and co-simulation, per file, bar 95/90 after waivers (COVERAGE_FUZZ=1: the fuzz corpus too)
	@scripts/coverage.sh $(BUILD)

# The long ALU regression (scripts/regress_alu.py, tests/test_rtl_alu_regress.cpp): 239 slices
# (per 16-bit configuration the 4096 set and 16 ranges of 4096 b values, the fp32 random test),
# JOBS at a time, a progress line with the ETA after each; the results file is resumable: the same
# command again skips the slices that passed (stop it with kill PID of the driver or Ctrl-C).
# XF_SEED=S changes the seed; REGRESS_ALU_ARGS="--only 'set4096,fp32'" picks slices (--list).
# REGRESS_ALU_RESULTS=tests/records/regress-alu.jsonl extends the project's committed record of
# the whole run (a row counts only for the design it ran on: docs/alu.md section 8).
REGRESS_ALU_RESULTS ?= $(BUILD)/regress/regress-alu.jsonl

.PHONY: regress-alu
regress-alu: $(SETUP_STAMP) build ## RTL ALU: all 2^32 pairs per 16-bit op, 4096 sets, 10^7 fp32 per op, JOBS slices at once (~2.4 h at JOBS=2 on idle cores), resumable
	@$(PY) scripts/regress_alu.py --bin $(CMAKE_DIR)/test_rtl_alu_regress --jobs $(JOBS) \
	  --results $(REGRESS_ALU_RESULTS) $(REGRESS_ALU_ARGS)

# The independent ALU oracle (docs/alu.md section 10): MPFR (gmpy2) and NumPy/ml_dtypes against
# the C++ ALU and the RTL ALU, every float and integer (dtype, op), in chunks of 65536 pairs over
# JOBS processes. make test runs ORACLE_TEST_PAIRS per configuration with the self-test.
ORACLE_PAIRS ?= 10000000
ORACLE_TEST_PAIRS ?= 131072
ORACLE_SEED ?= 23
ORACLE = @$(PY) scripts/alu_oracle.py --dut $(CMAKE_DIR)/alu_oracle_dut --seed $(ORACLE_SEED) \
  --jobs $(JOBS)

.PHONY: oracle
oracle: $(SETUP_STAMP) build ## MPFR/NumPy oracle vs the C++ and RTL ALU: make oracle [ORACLE_PAIRS=10^7 per dtype:op] [ORACLE_SEED=23] [ORACLE_ARGS=]
	$(ORACLE) --pairs $(ORACLE_PAIRS) $(ORACLE_ARGS)

.PHONY: bench
bench: $(SETUP_STAMP) build ## the performance set: sweeps, RTL at 256K, latency, simulator speed, scale, plot (~10 min; BENCH_RTL=0 ~1 min)
	@python3 scripts/bench.py $(FABRIC)

.PHONY: bench-scale
bench-scale: $(SETUP_STAMP) build ## 1 MiB allreduce on ring:1024 and ladder:1024 (model): wall time and memory (~25 min)
	@python3 scripts/bench.py $(FABRIC) --scale $(SCALE_TOPOLOGIES)

.PHONY: clean
clean: ## remove build outputs
	rm -rf $(BUILD)

# ---- Fuzzing (docs/fuzzing.md): libFuzzer on the Verilated ingress path, in build/fuzz ----
FUZZ_SECONDS ?= 600

.PHONY: fuzz
fuzz: $(SETUP_STAMP) ## fuzz the chip's ingress (link, router, tile receive): make fuzz [FUZZ_SECONDS=600]
	@scripts/fuzz.sh build
	@scripts/fuzz.sh run $(FUZZ_SECONDS)

.PHONY: fuzz-corpus
fuzz-corpus: $(SETUP_STAMP) ## replay the fuzz seed corpus, then a short fuzz run (~60 s)
	@scripts/fuzz.sh build
	@scripts/fuzz.sh corpus
