# Lightbox: the two commands are `make run` and `make test`; each installs what is missing first.
SWIFT ?= swift
BIN := .build/debug

.PHONY: deps build asan release run test test-swift test-python bench fuzz install install-files clean

DEPS_FLAGS ?=
deps:
	@bash deploy/install-deps.sh $(DEPS_FLAGS)

build: deps
	$(SWIFT) build

## Serve both services and the owner's web surface from ./var with the sample library (Ctrl-C stops them).
run: build
	$(BIN)/lightbox run --data var --library Samples/library

## lightbox-picker built with AddressSanitizer, for the test that imports thousands of photos under it.
ASAN_BUILD := .build-asan
asan: deps
	$(SWIFT) build --scratch-path $(ASAN_BUILD) -Xswiftc -sanitize=address --product lightbox-picker

## Build and pass every test: Swift unit and end-to-end tests, the Python client's type check and tests
## (against the package `make deps` installed), then the surface's tests in headless Chromium
## (screenshots in .build/screenshots/), then lightbox-portal behind xdg-desktop-portal on a private
## session bus, answered in Chromium.
test: build asan
	$(SWIFT) build --build-tests
	LIGHTBOX_ASAN_BIN=$(CURDIR)/$(ASAN_BUILD)/debug $(SWIFT) test --skip-build
	cd Clients/python && python3 -m mypy
	LIGHTBOX_BIN=$(CURDIR)/$(BIN) python3 -m pytest -q Clients/python/tests
	LIGHTBOX_BIN=$(CURDIR)/$(BIN) python3 -m pytest -q -s Tests/BrowserTests
	LIGHTBOX_BIN=$(CURDIR)/$(BIN) python3 -m pytest -q -s Tests/DesktopTests

## Builds lightbox-bench (Bench/: the benchmarks, not installed) with the services it measures, then
## times a token load against bare ZeroMQ in the same run; `lightbox bench --help` lists the others.
bench: build
	$(BIN)/lightbox bench load

## libFuzzer + AddressSanitizer on the wire decoding and every media reader, FUZZ_SECONDS each
## (not part of `make test`; FUZZ_TARGETS="jpeg wire" runs some). Fails when any target crashed.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash Fuzz/run.sh $(FUZZ_TARGETS)

## Install the release binaries, the systemd units, the sysusers entry and the example environment:
##   make install [PREFIX=/usr/local] [DESTDIR=/staging]   (the Containerfile uses the same step)
PREFIX ?= /usr/local
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
INSTALL_FROM ?= .build/release
# lightbox-bench is not among them: benchmarks are for people working on Lightbox (`make bench`).
EXECUTABLES := lightbox lightbox-auth lightbox-picker lightbox-surface lightbox-portal

release: deps
	$(SWIFT) build -c release

install: release install-files

## The copying half of `install`, from INSTALL_FROM (tests install a debug build with it).
install-files:
	install -d -m 0755 $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(SYSCONFDIR)/lightbox
	install -m 0755 $(addprefix $(INSTALL_FROM)/,$(EXECUTABLES)) $(DESTDIR)$(PREFIX)/bin/
	cp -R $(INSTALL_FROM)/*.resources $(DESTDIR)$(PREFIX)/bin/  # SwiftPM resource bundles (the surface's web files) beside the binaries
	for unit in deploy/systemd/*.service; do \
	  sed -e 's|/usr/local/bin/|$(PREFIX)/bin/|' -e 's|/etc/lightbox/|$(SYSCONFDIR)/lightbox/|' $$unit > $(DESTDIR)$(UNITDIR)/$$(basename $$unit); \
	  chmod 0644 $(DESTDIR)$(UNITDIR)/$$(basename $$unit); \
	done
	install -m 0644 deploy/sysusers/lightbox.conf $(DESTDIR)$(SYSUSERSDIR)/lightbox.conf
# lightbox-portal: the portal file xdg-desktop-portal reads (1.16 reads only /usr/share/xdg-desktop-portal/portals:
# with another PREFIX link it there) and its D-Bus activation file (found through XDG_DATA_DIRS).
	install -d -m 0755 $(DESTDIR)$(PREFIX)/share/xdg-desktop-portal/portals $(DESTDIR)$(PREFIX)/share/dbus-1/services
	install -m 0644 deploy/portal/lightbox.portal $(DESTDIR)$(PREFIX)/share/xdg-desktop-portal/portals/lightbox.portal
	sed -e 's|/usr/local/bin/|$(PREFIX)/bin/|' deploy/portal/org.freedesktop.impl.portal.desktop.lightbox.service \
	  > $(DESTDIR)$(PREFIX)/share/dbus-1/services/org.freedesktop.impl.portal.desktop.lightbox.service
	chmod 0644 $(DESTDIR)$(PREFIX)/share/dbus-1/services/org.freedesktop.impl.portal.desktop.lightbox.service
	test -e $(DESTDIR)$(SYSCONFDIR)/lightbox/lightbox.env || install -m 0644 deploy/lightbox.env $(DESTDIR)$(SYSCONFDIR)/lightbox/lightbox.env
	@if [ -z "$(DESTDIR)" ] && command -v systemd-sysusers >/dev/null; then systemd-sysusers $(SYSUSERSDIR)/lightbox.conf; fi
	@echo "installed to $(DESTDIR)$(PREFIX); start with: systemctl daemon-reload && systemctl enable --now lightbox-auth lightbox-picker lightbox-surface"

clean:
	rm -rf .build var
