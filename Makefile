# Lightbox: the two commands are `make run` and `make test`; each installs what is missing first.
SWIFT ?= swift
BIN := .build/debug

.PHONY: deps build asan release run test test-swift test-python bench fuzz install install-files install-binaries install-user install-user-files uninstall-user clean

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

## The end-to-end suites that run again with both services' state on PostgreSQL (`TestDatabase`).
POSTGRES_SUITES = OwnerWritesAllOrNothingTests|AuthorizationStoryTests|AuthorizationTableTests|DurabilityTests|AuditTrailTests|GrantTermTests|AlbumGrantTests|LocationConsentTests|DecisionCacheTests|AuthTakeoverTests|PickAndLoadTests|LibraryQueryPagingTests|LibraryChangeTests|OwnerCatalogTests|MediaPlaneTests|SelectionLimitTests|VideoDeliveryTests|PickerFailoverTests

## Build and pass every test: Swift unit and end-to-end tests, the Python client's type check and tests
## (against the package `make deps` installed), then the surface's tests in headless Chromium
## (screenshots in .build/screenshots/), then lightbox-portal behind xdg-desktop-portal on a private
## session bus, answered in Chromium.
test: build asan
	$(SWIFT) build --build-tests
	LIGHTBOX_ASAN_BIN=$(CURDIR)/$(ASAN_BUILD)/debug $(SWIFT) test --skip-build
	LIGHTBOX_TEST_DATABASE=postgres $(SWIFT) test --skip-build --filter '$(POSTGRES_SUITES)'
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
install-files: install-binaries
	install -d -m 0755 $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(SYSCONFDIR)/lightbox
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

## The executables and the SwiftPM resource bundles (the surface's web files, found beside the binaries).
install-binaries:
	install -d -m 0755 $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(addprefix $(INSTALL_FROM)/,$(EXECUTABLES)) $(DESTDIR)$(PREFIX)/bin/
	rm -rf $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(notdir $(wildcard $(INSTALL_FROM)/*.resources)))
	cp -R $(INSTALL_FROM)/*.resources $(DESTDIR)$(PREFIX)/bin/

## Lightbox for one person, no root: binaries under ~/.local, systemd user units, the portal's files,
## data in $XDG_DATA_HOME/lightbox, sockets in $XDG_RUNTIME_DIR/lightbox, the library = Pictures.
##   make install-user [PREFIX=~/.local] [DESTDIR=/staging]; then: systemctl --user enable --now lightbox.target
##   make uninstall-user [PURGE=yes]   (PURGE also removes the data folder and the settings)
XDG_DATA_HOME ?= $(HOME)/.local/share
XDG_CONFIG_HOME ?= $(HOME)/.config
USER_UNITDIR ?= $(XDG_DATA_HOME)/systemd/user
USER_DATA ?= $(XDG_DATA_HOME)/lightbox
USER_SETTINGS ?= $(XDG_CONFIG_HOME)/lightbox/lightbox.env
# The library: the person's Pictures folder (xdg-user-dir answers the home folder itself when none is set).
PICTURES ?= $(shell folder="$$(xdg-user-dir PICTURES 2>/dev/null)"; \
  if [ -n "$$folder" ] && [ "$$folder" != "$(HOME)" ]; then echo "$$folder"; else echo "$(HOME)/Pictures"; fi)
SYSTEMCTL ?= systemctl
USER_UNITS := lightbox-auth.service lightbox-picker.service lightbox-surface.service lightbox-portal.service lightbox.target
PORTAL_SERVICE_FILE := org.freedesktop.impl.portal.desktop.lightbox.service
# Paths under the home folder are written as %h/… in the units, so they hold wherever the home is.
in_home = $(if $(filter $(HOME)/%,$(1)),%h/$(patsubst $(HOME)/%,%,$(1)),$(1))

install-user uninstall-user install-user-files: PREFIX = $(HOME)/.local

install-user: release install-user-files

## The copying half of `install-user`, from INSTALL_FROM (tests install a debug build with it).
install-user-files: install-binaries
	install -d -m 0755 $(DESTDIR)$(USER_UNITDIR) $(DESTDIR)$(XDG_DATA_HOME)/dbus-1/services \
	  $(DESTDIR)$(XDG_DATA_HOME)/xdg-desktop-portal/portals $(DESTDIR)$(dir $(USER_SETTINGS))
	install -d -m 0700 $(DESTDIR)$(USER_DATA)
	for unit in $(USER_UNITS); do \
	  sed -e 's|@BINDIR@|$(call in_home,$(PREFIX)/bin)|g' -e 's|@DATA@|$(call in_home,$(USER_DATA))|g' \
	    deploy/systemd-user/$$unit > $(DESTDIR)$(USER_UNITDIR)/$$unit; \
	  chmod 0644 $(DESTDIR)$(USER_UNITDIR)/$$unit; \
	done
# D-Bus starts the portal through systemd (SystemdService=); Exec= is for sessions without a user manager.
	{ sed -e 's|^Exec=/usr/local/bin/|Exec=$(PREFIX)/bin/|' deploy/portal/$(PORTAL_SERVICE_FILE); \
	  echo 'SystemdService=lightbox-portal.service'; } > $(DESTDIR)$(XDG_DATA_HOME)/dbus-1/services/$(PORTAL_SERVICE_FILE)
	chmod 0644 $(DESTDIR)$(XDG_DATA_HOME)/dbus-1/services/$(PORTAL_SERVICE_FILE)
# The backend's description (xdg-desktop-portal 1.16 reads it only from /usr/share/xdg-desktop-portal/portals:
# README "Use it on your desktop" copies it there), and the portals.conf for a desktop named lightbox (1.17 and later).
	install -m 0644 deploy/portal/lightbox.portal $(DESTDIR)$(XDG_DATA_HOME)/xdg-desktop-portal/portals/lightbox.portal
	install -m 0644 deploy/portal/lightbox-portals.conf $(DESTDIR)$(XDG_DATA_HOME)/xdg-desktop-portal/lightbox-portals.conf
# The person's settings are theirs: written once, kept on every later install. The library's folder exists.
	mkdir -p $(DESTDIR)$(PICTURES)
	test -e $(DESTDIR)$(USER_SETTINGS) || { sed -e 's|@PICTURES@|$(PICTURES)|' deploy/systemd-user/lightbox.env > $(DESTDIR)$(USER_SETTINGS) \
	  && chmod 0600 $(DESTDIR)$(USER_SETTINGS); }
	@if [ -z "$(DESTDIR)" ]; then $(SYSTEMCTL) --user daemon-reload 2>/dev/null || true; fi
	@echo "installed in $(DESTDIR)$(PREFIX); start with: systemctl --user enable --now lightbox.target"

uninstall-user:
	@if [ -z "$(DESTDIR)" ]; then $(SYSTEMCTL) --user disable --now lightbox.target $(USER_UNITS) 2>/dev/null || true; fi
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(EXECUTABLES)) $(addprefix $(DESTDIR)$(USER_UNITDIR)/,$(USER_UNITS)) \
	  $(DESTDIR)$(XDG_DATA_HOME)/dbus-1/services/$(PORTAL_SERVICE_FILE) \
	  $(DESTDIR)$(XDG_DATA_HOME)/xdg-desktop-portal/portals/lightbox.portal $(DESTDIR)$(XDG_DATA_HOME)/xdg-desktop-portal/lightbox-portals.conf
	rm -rf $(DESTDIR)$(PREFIX)/bin/Lightbox_*.resources $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(notdir $(wildcard $(INSTALL_FROM)/*.resources)))
	@if [ -z "$(DESTDIR)" ]; then $(SYSTEMCTL) --user daemon-reload 2>/dev/null || true; fi
	@if [ "$(PURGE)" = yes ]; then rm -rf $(DESTDIR)$(USER_DATA) $(DESTDIR)$(USER_SETTINGS); echo "removed the data folder $(USER_DATA) and $(USER_SETTINGS)"; \
	else echo "kept the data folder $(USER_DATA) and $(USER_SETTINGS) (make uninstall-user PURGE=yes removes them)"; fi

clean:
	rm -rf .build var
