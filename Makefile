# Lightbox: the two commands are `make run` and `make test`; each installs what is missing first.
SWIFT ?= swift
BIN := .build/debug

.PHONY: deps build run test test-swift test-python bench fuzz clean

deps:
	@bash deploy/install-deps.sh

build: deps
	$(SWIFT) build

## Serve both services and the owner's web surface from ./var with the sample library (Ctrl-C stops them).
run: build
	$(BIN)/lightbox run --data var --library Samples/library

## Build and pass every test: Swift unit and end-to-end tests, the Python client's type check and tests
## (against the package `make deps` installed), then the surface's tests in headless Chromium
## (screenshots in .build/screenshots/).
test: build
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	cd Clients/python && python3 -m mypy
	LIGHTBOX_BIN=$(CURDIR)/$(BIN) python3 -m pytest -q Clients/python/tests
	LIGHTBOX_BIN=$(CURDIR)/$(BIN) python3 -m pytest -q -s Tests/BrowserTests

## Throughput of a token load against bare ZeroMQ, same run.
bench: build
	$(BIN)/lightbox bench load

## libFuzzer + AddressSanitizer on the wire decoding and every media reader, FUZZ_SECONDS each
## (not part of `make test`; FUZZ_TARGETS="jpeg wire" runs some). Fails when any target crashed.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash Fuzz/run.sh $(FUZZ_TARGETS)

clean:
	rm -rf .build var
