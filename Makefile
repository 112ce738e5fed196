# cardline — build, run and test. Every target first makes sure libedit's headers are present.
SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test test-asan build bench fuzz deps test-deps clean hostile-config install uninstall

deps:
	@pkg-config --exists libedit 2>/dev/null || { \
	  echo "cardline: installing libedit-dev (libedit headers)"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libedit-dev pkg-config; }

# The schema check in `make test` uses Python's jsonschema.
test-deps: deps
	@python3 -c 'import jsonschema' 2>/dev/null || { \
	  echo "cardline: installing python3-jsonschema (for the rule-schema check)"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-jsonschema; }

build: deps
	$(SWIFT) build

run: build
	@$(SWIFT) run --skip-build cardline $(ARGS)

# The tests run under a hostile personal configuration, so that neither they nor `replay`
# read the user's rule folders or environment by accident: XDG_CONFIG_HOME and CARDLINE_RULES
# each hold a broken rule file, and CARDLINE_NETWORKS names one network. HOME is never
# changed, and everything is built first with the caller's own environment. SwiftPM 6 keeps
# its configuration, fingerprints and Swift SDKs in $XDG_CONFIG_HOME/swiftpm when that is set,
# so the hostile folder's swiftpm is a link to the caller's own (what SwiftPM uses otherwise).
HOSTILE := $(CURDIR)/.build/hostile-config
HOSTILE_ENV := env XDG_CONFIG_HOME=$(HOSTILE) CARDLINE_RULES=$(HOSTILE)/cardline-rules CARDLINE_NETWORKS=discover
SWIFTPM_HOME := $(if $(XDG_CONFIG_HOME),$(XDG_CONFIG_HOME)/swiftpm,$(HOME)/.swiftpm)

hostile-config:
	@mkdir -p $(HOSTILE)/cardline/rules $(HOSTILE)/cardline-rules $(SWIFTPM_HOME)
	@ln -sfn $(SWIFTPM_HOME) $(HOSTILE)/swiftpm
	@printf '{"id": "broken",\n' > $(HOSTILE)/cardline/rules/broken.json
	@printf '{"id": "also-broken" "name": }\n' > $(HOSTILE)/cardline-rules/broken.json

test: test-deps
	$(SWIFT) build --build-tests
	@$(MAKE) --no-print-directory hostile-config
	$(HOSTILE_ENV) python3 Tests/check_schema.py
	$(HOSTILE_ENV) $(SWIFT) run --skip-build cardline replay examples/
	$(HOSTILE_ENV) $(SWIFT) test --skip-build
	Tests/install-check.sh
	Tests/Fuzz/fuzz.sh --runs $(FUZZ_RUNS)

# `make test` with everything built with AddressSanitizer (and LeakSanitizer) into its own
# scratch folder, .build/asan, so the normal build is left alone; no fuzz step (the fuzzers are
# built with AddressSanitizer already). Leak detection stays on: Tests/asan/lsan.supp suppresses
# only leaks that are libedit's own or the test runner's (XCTest, Foundation's Process), each
# explained there. The end-to-end tests pass these *_OPTIONS through to every cardline they
# start (sanitizerOptions in PseudoTerminal.swift); CARDLINE_TEST_ASAN=1 adapts the
# bounded-memory test and the mlockall checks to an instrumented binary. The binary finds the bundled
# rules/ as a normal debug build does, by looking upward from .build/asan/…/debug for the
# source tree's rules/ beside Package.swift.
ASAN_BUILD := --sanitize=address --scratch-path $(CURDIR)/.build/asan
ASAN_ENV := env ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1 \
  LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/asan/lsan.supp:print_suppressions=0 CARDLINE_TEST_ASAN=1
test-asan: test-deps
	$(SWIFT) build --build-tests $(ASAN_BUILD)
	@$(MAKE) --no-print-directory hostile-config
	$(HOSTILE_ENV) python3 Tests/check_schema.py
	$(HOSTILE_ENV) $(ASAN_ENV) $(SWIFT) run --skip-build $(ASAN_BUILD) cardline replay examples/
	$(HOSTILE_ENV) $(ASAN_ENV) $(SWIFT) test --skip-build $(ASAN_BUILD)

# Every libFuzzer harness (key decoder, rule loader, .session replay, check records), built
# with AddressSanitizer, for FUZZ_SECONDS each; `make test` runs each for FUZZ_RUNS inputs.
FUZZ_SECONDS ?= 600
FUZZ_RUNS ?= 3000
fuzz: deps
	Tests/Fuzz/fuzz.sh --seconds $(FUZZ_SECONDS)

# Installs cardline, its bundled rules and its shell completions under PREFIX (DESTDIR in
# front, for packagers); `make uninstall` removes exactly those files. CONFIG=debug installs
# the debug build instead (what `make test` does, to check the install without a release
# build).
PREFIX ?= /usr/local
CONFIG ?= release
BINDIR = $(DESTDIR)$(PREFIX)/bin
RULESDIR = $(DESTDIR)$(PREFIX)/share/cardline/rules
BASHDIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR = $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHDIR = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
install: deps
	$(SWIFT) build -c $(CONFIG) --product cardline
	install -d $(BINDIR) $(RULESDIR) $(BASHDIR) $(ZSHDIR) $(FISHDIR)
	install -m 0755 .build/$(CONFIG)/cardline $(BINDIR)/cardline
	install -m 0644 rules/*.json $(RULESDIR)/
	.build/$(CONFIG)/cardline --generate-completion-script bash > $(BASHDIR)/cardline
	.build/$(CONFIG)/cardline --generate-completion-script zsh > $(ZSHDIR)/_cardline
	.build/$(CONFIG)/cardline --generate-completion-script fish > $(FISHDIR)/cardline.fish

uninstall:
	rm -f $(BINDIR)/cardline $(BASHDIR)/cardline $(ZSHDIR)/_cardline $(FISHDIR)/cardline.fish
	rm -f $(addprefix $(RULESDIR)/,$(notdir $(wildcard rules/*.json)))
	-rmdir $(RULESDIR) $(DESTDIR)$(PREFIX)/share/cardline 2>/dev/null

# Release build, then the benchmark suite: medians next to their targets (see README).
bench: deps
	$(SWIFT) build -c release
	.build/release/cardline-bench

clean:
	rm -rf .build
