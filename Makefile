# cardline — build, run and test. Every target first makes sure libedit's headers are present.
SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test build bench deps test-deps clean

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

test: test-deps
	$(SWIFT) build
	python3 Tests/check_schema.py
	$(SWIFT) run --skip-build cardline replay examples/
	$(SWIFT) test

# Release build, then the benchmark suite: medians next to their targets (see README).
bench: deps
	$(SWIFT) build -c release
	.build/release/cardline-bench

clean:
	rm -rf .build
