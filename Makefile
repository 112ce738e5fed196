# cardline — build, run and test. Every target first makes sure libedit's headers are present.
SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test build bench fuzz deps test-deps clean

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

test: test-deps
	$(SWIFT) build --build-tests
	@mkdir -p $(HOSTILE)/cardline/rules $(HOSTILE)/cardline-rules $(SWIFTPM_HOME)
	@ln -sfn $(SWIFTPM_HOME) $(HOSTILE)/swiftpm
	@printf '{"id": "broken",\n' > $(HOSTILE)/cardline/rules/broken.json
	@printf '{"id": "also-broken" "name": }\n' > $(HOSTILE)/cardline-rules/broken.json
	$(HOSTILE_ENV) python3 Tests/check_schema.py
	$(HOSTILE_ENV) $(SWIFT) run --skip-build cardline replay examples/
	$(HOSTILE_ENV) $(SWIFT) test --skip-build
	Tests/Fuzz/fuzz.sh --runs $(FUZZ_RUNS)

# Every libFuzzer harness (key decoder, rule loader, .session replay, check records), built
# with AddressSanitizer, for FUZZ_SECONDS each; `make test` runs each for FUZZ_RUNS inputs.
FUZZ_SECONDS ?= 600
FUZZ_RUNS ?= 3000
fuzz: deps
	Tests/Fuzz/fuzz.sh --seconds $(FUZZ_SECONDS)

# Release build, then the benchmark suite: medians next to their targets (see README).
bench: deps
	$(SWIFT) build -c release
	.build/release/cardline-bench

clean:
	rm -rf .build
