# cardline — build, run and test. Every target first makes sure libedit's headers are present.
SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run release test test-asan build bench fuzz deps test-deps clean hostile-config install uninstall man rules messages deb lint format

deps:
	@pkg-config --exists libedit 2>/dev/null || { \
	  echo "cardline: installing libedit-dev (libedit headers)" >&2; \
	  $(SUDO) apt-get update -qq >&2 && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libedit-dev pkg-config >&2; }

# The schema check in `make test` uses Python's jsonschema; the chip tests run pcscd with
# vsmartcard-vpcd; the install check renders the
# man pages with man-db and groff and loads the bash completion with bash-completion's loader;
# the scrollback tests drive the prompt in tmux; the
# encryption tests decrypt with joserfc.
test-deps: deps
	@python3 -c 'import jsonschema' 2>/dev/null || { \
	  echo "cardline: installing python3-jsonschema (for the rule-schema check)"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-jsonschema; }
	@{ command -v man && command -v groff; } >/dev/null 2>&1 || { \
	  echo "cardline: installing man-db and groff-base (to check the man page renders)"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq man-db groff-base; }
	@[ -f /usr/share/bash-completion/bash_completion ] || { \
	  echo "cardline: installing bash-completion (the install check loads cardline's completion with it)"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bash-completion; }
	@# The chip tests start their own pcscd (socket-activated by systemd-socket-activate) with
	@# vsmartcard's virtual reader, vpcd, and feed it emulated cards (Tests/chip/cards.py).
	@{ [ -x /usr/sbin/pcscd ] && [ -f /usr/lib/pcsc/drivers/serial/libifdvpcd.so ] && [ -x /usr/bin/systemd-socket-activate ]; } || { \
	  echo "cardline: installing pcscd, vsmartcard-vpcd and systemd (for the chip reader tests)"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pcscd vsmartcard-vpcd systemd; }
	@command -v tmux >/dev/null 2>&1 || { \
	  echo "cardline: installing tmux (for the scrollback tests)"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux; }
	@# The encryption tests decrypt cardline's JWEs with joserfc (on Python's cryptography), an
	@# implementation independent of cardline's; Debian has no package of it, so it comes from PyPI.
	@python3 -c 'import joserfc' 2>/dev/null || { \
	  echo "cardline: installing joserfc from PyPI (the encryption tests' JWE decrypter)"; \
	  python3 -m pip --version >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pip; }; \
	  python3 -m pip install -q joserfc 2>/dev/null || $(SUDO) python3 -m pip install -q --break-system-packages joserfc; }

build: deps
	$(SWIFT) build

# The release build, as `make install` and `make deb` install it: optimised, with the Swift
# standard library and FoundationEssentials linked in statically (--static-swift-stdlib), so
# the binary needs only libc, libstdc++, libgcc_s, libedit and libtinfo at run time, not the Swift toolchain, and
# starts with less dynamic linking. Linked with the toolchain's lld: the default linker, gold,
# warns about mktemp inside the static FoundationEssentials, which cardline never calls. Its
# own scratch folder keeps it apart from the debug build (`make test`).
STATIC_RELEASE := $(SWIFT) build -c release --static-swift-stdlib -Xswiftc -use-ld=lld \
  --scratch-path $(CURDIR)/.build/static
RELEASE_BUILD := $(STATIC_RELEASE) --product cardline
RELEASE_BINARY := .build/static/release/cardline
DEBUG_BINARY := .build/debug/cardline
SOURCES := Package.swift $(shell find Sources -type f)

# Each binary is rebuilt only when a source changed, so that `sudo make install` after
# `make release` does not build as root. The build writes to standard error, and so does
# `deps`, so that `card=$(make run ARGS="--print --once")` captures the card alone.
$(RELEASE_BINARY): $(SOURCES) | deps
	@echo '$(RELEASE_BUILD)' >&2
	@$(RELEASE_BUILD) >&2
	@touch $@
$(DEBUG_BINARY): $(SOURCES) | deps
	$(SWIFT) build --product cardline
	@touch $@

# `make release` builds the release binary (a few minutes the first time); `make run` builds
# it and runs it.
release: $(RELEASE_BINARY)
run: $(RELEASE_BINARY)
	@$(RELEASE_BINARY) $(ARGS)

# Rewrites man/cardline.1 from the command definitions and man/sections.mdoc (see
# man/generate.sh); `make test` fails while the committed page is out of date, or while any
# page in man/ renders with a warning from groff -ww.
man: deps
	man/generate.sh

# Rewrites Sources/CardPrompt/Sources/BundledRuleFiles.swift, the copy of rules/*.json compiled into
# the library (what a program built on CardPrompt, and a cardline that is not installed, reads);
# run it after changing a rule file. `make test` fails while the copy is out of date.
rules:
	python3 rules/bundle.py

# Rewrites Sources/CardKit/Text/BundledMessageCatalogs.swift, the prompt's words in every language of
# messages/*.json compiled into CardKit; run it after changing a catalog. `make test` fails while
# the copy is out of date.
messages:
	python3 messages/bundle.py

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

# Formatting is swift-format's job, with the committed .swift-format (120 columns, 4 spaces):
# `make format` rewrites the Swift sources and tests in place, `make lint` (which .ci/run runs)
# fails on anything it would change or any rule it finds broken. The generated Bundled* files
# are left as their generators write them.
SWIFT_FILES = $(shell find Sources Tests -name '*.swift' ! -name 'Bundled*' | LC_ALL=C sort)
format:
	@echo "swift format format -i (Sources, Tests)"
	@$(SWIFT) format format -i --parallel $(SWIFT_FILES)
lint:
	@echo "swift format lint --strict (Sources, Tests)"
	@$(SWIFT) format lint --strict --parallel $(SWIFT_FILES)

# The tests are Swift Testing tests: --disable-xctest leaves out XCTest's runner, which
# would find no test and say "Executed 0 tests" (and would skip an XCTest test: refused).
test: test-deps
	@! grep -rl '^import XCTest' Tests || { echo "make test: XCTest tests are not run (swift test --disable-xctest); use Swift Testing"; exit 1; }
	$(SWIFT) build --build-tests
	man/generate.sh --check
	python3 rules/bundle.py --check
	python3 messages/bundle.py --check
	@# Issue 21: at most 40 lines of Sources use an unsafe pointer, each with its reason; no
	@# @_silgen_name (a C function Swift cannot see goes through a C target).
	python3 Tests/tools/unsafe-uses.py --check 40 > .build/unsafe-uses.txt && tail -1 .build/unsafe-uses.txt
	@python3 Tests/tools/unsafe-uses.py --wide | tail -1
	@! grep -rn '@_silgen_name' Sources || { echo "make test: @_silgen_name in Sources (use a C target)"; exit 1; }
	@$(MAKE) --no-print-directory hostile-config
	$(HOSTILE_ENV) python3 Tests/check_schema.py
	$(HOSTILE_ENV) python3 Tests/check_readme.py .build/debug/cardline
	@# Issue 38: every JSON output of every command against schema/*.schema.json.
	$(HOSTILE_ENV) python3 Tests/check_json_outputs.py .build/debug/cardline
	$(HOSTILE_ENV) $(SWIFT) run --skip-build cardline replay examples/
	$(HOSTILE_ENV) $(SWIFT) test --skip-build --disable-xctest
	Tests/install-check.sh
	Tests/library-check.sh
	Tests/Fuzz/fuzz.sh --runs $(FUZZ_RUNS)
	python3 Tests/PtyFuzz/ptyfuzz.py --binary $(DEBUG_BINARY) --sessions $(PTY_FUZZ_SESSIONS) --base-seed 1 --jobs 2 --quiet

# `make test` with everything built with AddressSanitizer (and LeakSanitizer) into its own
# scratch folder, .build/asan, so the normal build is left alone; no fuzz step (the fuzzers are
# built with AddressSanitizer already). Leak detection stays on: Tests/asan/lsan.supp suppresses
# only leaks that are libedit's own or the test runner's (XCTest, Foundation's Process), each
# explained there. The end-to-end tests pass these *_OPTIONS through to every cardline they
# start (sanitizerOptions in Sources/PTYSupport/PseudoTerminal.swift); CARDLINE_TEST_ASAN=1 adapts the
# bounded-memory test and the mlockall checks to an instrumented binary. The binary reads the
# bundled rules compiled into it, as a normal debug build does.
ASAN_BUILD := --sanitize=address --scratch-path $(CURDIR)/.build/asan
ASAN_ENV := env ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1 \
  LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/asan/lsan.supp:print_suppressions=0 CARDLINE_TEST_ASAN=1
test-asan: test-deps
	$(SWIFT) build --build-tests $(ASAN_BUILD)
	@$(MAKE) --no-print-directory hostile-config
	$(HOSTILE_ENV) python3 Tests/check_schema.py
	$(HOSTILE_ENV) $(ASAN_ENV) $(SWIFT) run --skip-build $(ASAN_BUILD) cardline replay examples/
	$(HOSTILE_ENV) $(ASAN_ENV) $(SWIFT) test --skip-build --disable-xctest $(ASAN_BUILD)

# Every libFuzzer harness (key decoder, rule loader, .session replay, check records, chip
# answers), built
# with AddressSanitizer, for FUZZ_SECONDS each; `make test` runs each for FUZZ_RUNS inputs.
FUZZ_SECONDS ?= 600
FUZZ_RUNS ?= 3000
# The pty fuzzer (Tests/PtyFuzz/ptyfuzz.py): the debug binary on a pseudo-terminal, random
# bursts, escape sequences, pastes, swipes, Ctrl keys, resizes and signals across the prompt's
# modes, languages and TERMs, for PTY_FUZZ_SECONDS; `make test` runs PTY_FUZZ_SESSIONS of them.
# Findings (crash, hang, terminal left in a bad state) go to .build/pty-fuzz/, each replayable
# with --replay FILE or --seed N.
PTY_FUZZ_SECONDS ?= 600
PTY_FUZZ_SESSIONS ?= 40
fuzz: deps $(DEBUG_BINARY)
	Tests/Fuzz/fuzz.sh --seconds $(FUZZ_SECONDS)
	python3 Tests/PtyFuzz/ptyfuzz.py --binary $(DEBUG_BINARY) --seconds $(PTY_FUZZ_SECONDS) --jobs 2

# Installs cardline (the release build above, stripped), its bundled rules (and their JSON
# Schema), its man pages (cardline(1), cardline-session(5), cardline-rules(5)) and its bash,
# zsh and fish completions (argument-parser's scripts, each followed by its part of
# packaging/completions: options typed before any subcommand complete as the default
# subcommand's, enter's) under PREFIX (DESTDIR in front, for packagers); `make uninstall`
# removes exactly those files. CONFIG=debug installs the debug build instead (what
# `make test` does, to check the install without a release build).
PREFIX ?= /usr/local
CONFIG ?= release
BINDIR = $(DESTDIR)$(PREFIX)/bin
RULESDIR = $(DESTDIR)$(PREFIX)/share/cardline/rules
MESSAGESDIR = $(DESTDIR)$(PREFIX)/share/cardline/messages
SCHEMADIR = $(DESTDIR)$(PREFIX)/share/cardline/schema
MANDIR = $(DESTDIR)$(PREFIX)/share/man/man1
MAN5DIR = $(DESTDIR)$(PREFIX)/share/man/man5
BASHDIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR = $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHDIR = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
BUILT = $(if $(filter debug,$(CONFIG)),$(DEBUG_BINARY),$(RELEASE_BINARY))
install: $(BUILT)
	install -d $(BINDIR) $(RULESDIR) $(MESSAGESDIR) $(SCHEMADIR) $(MANDIR) $(MAN5DIR) $(BASHDIR) $(ZSHDIR) $(FISHDIR)
	install -s -m 0755 $(BUILT) $(BINDIR)/cardline
	install -m 0644 rules/*.json $(RULESDIR)/
	install -m 0644 messages/*.json $(MESSAGESDIR)/
	install -m 0644 schema/*.schema.json $(SCHEMADIR)/
	install -m 0644 man/cardline.1 $(MANDIR)/cardline.1
	install -m 0644 man/cardline-session.5 man/cardline-rules.5 $(MAN5DIR)/
	{ $(BUILT) --generate-completion-script bash && cat packaging/completions/default-command.bash; } > $(BASHDIR)/cardline
	@# zsh: the generated script's closing `if [[ "${funcstack[1]}" = _cardline ]] ... fi`
	@# gives way to the one in default-command.zsh.
	{ $(BUILT) --generate-completion-script zsh | sed '/^if \[\[ "$${funcstack\[1\]}" = _cardline \]\]; then$$/,$$d' \
	  && cat packaging/completions/default-command.zsh; } > $(ZSHDIR)/_cardline
	{ $(BUILT) --generate-completion-script fish && cat packaging/completions/default-command.fish; } > $(FISHDIR)/cardline.fish

uninstall:
	rm -f $(BINDIR)/cardline $(MANDIR)/cardline.1 $(MAN5DIR)/cardline-session.5 $(MAN5DIR)/cardline-rules.5 $(BASHDIR)/cardline $(ZSHDIR)/_cardline $(FISHDIR)/cardline.fish
	rm -f $(addprefix $(RULESDIR)/,$(notdir $(wildcard rules/*.json)))
	rm -f $(addprefix $(MESSAGESDIR)/,$(notdir $(wildcard messages/*.json)))
	rm -f $(addprefix $(SCHEMADIR)/,$(notdir $(wildcard schema/*.schema.json)))
	-rmdir $(RULESDIR) $(MESSAGESDIR) $(SCHEMADIR) $(DESTDIR)$(PREFIX)/share/cardline 2>/dev/null

# A Debian package of what `make install PREFIX=/usr` installs (the man pages gzipped, as
# Debian does), built with dpkg-deb alone: .build/cardline_VERSION_ARCH.deb.
deb: deps
	@command -v dpkg-shlibdeps >/dev/null || { \
	  echo "cardline: installing dpkg-dev (dpkg-shlibdeps works out the package's Depends)"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dpkg-dev; }
	packaging/build-deb.sh

# The release build as it is installed (static Swift runtime, lld) with every bench target
# (the empty Swift binary and the C baselines built the same way), then the benchmark suite:
# medians next to their targets (see README); exits 1 when a target is missed. ONLY names the
# sections to run, of engine, check, replay, start and prompt (`make bench ONLY=prompt`,
# `make bench ONLY="start prompt"`); all by default.
ONLY ?=
bench: deps
	$(STATIC_RELEASE)
	.build/static/release/cardline-bench $(ONLY)

clean:
	rm -rf .build
