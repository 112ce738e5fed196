# cardline — build, run and test. Every target first makes sure libedit's headers are present.
SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test build bench deps clean

deps:
	@pkg-config --exists libedit 2>/dev/null || { \
	  echo "cardline: installing libedit-dev (libedit headers)"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libedit-dev pkg-config; }

build: deps
	$(SWIFT) build

run: build
	@$(SWIFT) run --skip-build cardline $(ARGS)

test: deps
	$(SWIFT) build
	$(SWIFT) test
	$(SWIFT) run --skip-build cardline replay examples/

clean:
	rm -rf .build
