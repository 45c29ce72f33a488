# The one place that knows linking, installing and packaging.
#
#   make example            build, install into ./build/stage, run the examples
#   make check              every test: version, ABI and Swift API checks,
#                           Swift core tests, programs that must not
#                           compile, C tests against the installed
#                           library, the installed prefs command, the
#                           Python package
#                           (bindings/python), synced preferences over two
#                           real Syncthing instances, Ansible's osx_defaults
#                           driving libexec/prefs/defaults, a distribution install
#                           (no rpath), the Debian packages, a ThreadSanitizer
#                           stress run, the Swift and C tests under
#                           AddressSanitizer, the fuzz corpus replayed
#   make build              build the library and the prefs command (installs
#                           nothing, on the system or elsewhere)
#   make install            PREFIX=/usr/local DESTDIR= LIBDIR=... (see below)
#   make install-strip      the same, binaries stripped
#   make uninstall          removes what `make install` (same variables) put
#   make deb                Debian packages libprefs1, libprefs-dev, prefs
#   make deps               installs the Debian packages `check` needs
#                           (deps-build: those `example` needs); root only
#                           when one is missing
#
# `example` and `check` install their own dependencies (`deps-build`,
# `deps`) first; `build` and `install` never call apt-get.

# ---------------------------------------------------------------------------
# Version: VERSION is the one source. The Makefile derives the installed file
# name, the SONAME's major and the .pc from it; the files that must carry the
# number as a literal (the header, Package.swift, the man pages,
# debian/changelog) are compared with it by `make version-check`.

VERSION     := $(shell cat $(CURDIR)/VERSION)
SOMAJOR     := $(firstword $(subst ., ,$(VERSION)))
LIBPREFS    := libprefs.so
SONAME      := $(LIBPREFS).$(SOMAJOR)
LIBFILE     := $(LIBPREFS).$(VERSION)

# ---------------------------------------------------------------------------
# Install directories, as the GNU coding standards name them. LIBDIR is
# multiarch on Debian and its derivatives (lib/x86_64-linux-gnu), else lib.

PREFIX      ?= /usr/local
EXEC_PREFIX ?= $(PREFIX)
BINDIR      ?= $(EXEC_PREFIX)/bin
LIBEXECDIR  ?= $(EXEC_PREFIX)/libexec
INCLUDEDIR  ?= $(PREFIX)/include
DATAROOTDIR ?= $(PREFIX)/share
MANDIR      ?= $(DATAROOTDIR)/man
ifeq ($(origin MULTIARCH),undefined)
MULTIARCH   := $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch 2>/dev/null)
endif
LIBDIR      ?= $(EXEC_PREFIX)/lib$(if $(MULTIARCH),/$(MULTIARCH))
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DESTDIR     ?=

INSTALL         ?= install
INSTALL_PROGRAM ?= $(INSTALL) -m 0755
INSTALL_DATA    ?= $(INSTALL) -m 0644

# Directories the dynamic linker searches without being told. A program of
# this project that links libprefs.so and is installed elsewhere (a private
# prefix such as build/stage) gets an rpath to LIBDIR, PRIVATE_RPATH; in a
# system directory it gets none. The library itself never has one.
SYSTEM_LIBDIRS := /lib /usr/lib $(if $(MULTIARCH),/lib/$(MULTIARCH) /usr/lib/$(MULTIARCH) /usr/local/lib/$(MULTIARCH)) /usr/local/lib
PRIVATE_RPATH   = $(if $(filter $(SYSTEM_LIBDIRS),$(LIBDIR)),,-Wl,-rpath,$(LIBDIR))

# Installing into a system directory of this machine (no DESTDIR) refreshes
# the dynamic linker's cache, which /usr/local/lib/<multiarch> needs.
LDCONFIG = @if [ -z "$(DESTDIR)" ] && [ -z "$(PRIVATE_RPATH)" ] && [ -w /etc ] && \
               command -v ldconfig >/dev/null 2>&1; then echo ldconfig; ldconfig; fi

# ---------------------------------------------------------------------------
# Compilers and hardening.
#
# Swift: SWIFTFLAGS picks the configuration. The link is RELRO and BIND_NOW;
# the C target in Sources/ gets the stack protector and fortified glibc
# calls (Swift code has its stack protector on by default);
# --disable-local-rpath drops the RUNPATH $ORIGIN that SwiftPM would put on
# every product.
SWIFT       ?= swift
SWIFTFLAGS  ?= -c release
SWIFT_HARDENING = -Xcc -fstack-protector-strong -Xcc -D_FORTIFY_SOURCE=2 \
                  -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now
# SwiftPM would take CC from the environment for its C targets; they want
# the toolchain's clang, whatever CC the C programs below use.
SWIFT_BUILD = env -u CC -u CXX $(SWIFT) build $(SWIFTFLAGS) --disable-local-rpath $(SWIFT_HARDENING)
# Asked of SwiftPM once, when first used.
BUILD_DIR    = $(eval BUILD_DIR := $$(shell $(SWIFT_BUILD) --show-bin-path))$(BUILD_DIR)

# C programs this Makefile and the test scripts compile (examples, tests).
CC          ?= cc
CFLAGS      ?= -O2 -g
HARDENING_CFLAGS  = -fstack-protector-strong -D_FORTIFY_SOURCE=2
HARDENING_LDFLAGS = -Wl,-z,relro -Wl,-z,now
C_ENV = CC='$(CC)' CFLAGS='$(CFLAGS) $(HARDENING_CFLAGS)' LDFLAGS='$(LDFLAGS) $(HARDENING_LDFLAGS)'

# A private prefix for the examples and tests; lib, not multiarch, so that
# the README can name build/stage/lib/pkgconfig on every machine.
STAGE       := $(CURDIR)/build/stage
STAGE_VARS   = PREFIX=$(STAGE) LIBDIR=$(STAGE)/lib

# Man pages: every doc/*.N is installed in man<N>.
MAN_PAGES   := $(wildcard doc/*.[1-8])

.PHONY: all deps build build-lib build-bin \
        install install-lib install-dev install-bin install-man install-strip uninstall \
        example check conformance-notice lint format version-check abi-check abi-update \
        api-check api-update build-api \
        test-swift test-compile-fail test-c test-cli test-python test-sync test-ansible test-ui test-schema-swift test-fork-swift test-install test-deb test-tsan deb clean print-build-dir

all: build

# ---------------------------------------------------------------------------
# Dependencies: Debian packages the build and the tests need, installed only
# when missing. The Swift toolchain is not among them: put its bin on PATH.

# deps-build: what `make build` and `make example` need (libxml2's headers,
# ncurses for `prefs ui`, pkg-config). deps: also what `make check` needs
# (Debian packaging and lintian, readelf, clang-format, tmux for the ui test,
# syncthing for the synced-preferences test).
# Either installs only what is missing, which needs root (tools/deps.sh
# says so, and waits for the package manager's lock); with everything
# installed, nothing here needs root.
BUILD_DEPS := libxml2-dev libncurses-dev pkg-config
CHECK_DEPS := $(BUILD_DEPS) dpkg-dev debhelper fakeroot lintian binutils clang-format tmux syncthing

.PHONY: deps-build
deps:
	@bash tools/deps.sh $(CHECK_DEPS)
deps-build:
	@bash tools/deps.sh $(BUILD_DEPS)

# ---------------------------------------------------------------------------
# Build

build: build-lib build-bin

# SwiftPM does not know that the link reads the export map: relink by hand
# when the map is newer than the library.
build-lib:
	@lib=$(BUILD_DIR)/$(LIBPREFS); \
	if [ -e "$$lib" ] && [ Sources/Prefs/exports.map -nt "$$lib" ]; then rm -f "$$lib"; fi
	$(SWIFT_BUILD) --product prefs

# ---------------------------------------------------------------------------
# Install and uninstall. Each list names every file its step installs, so
# uninstall removes exactly those.

INSTALLED_LIB = $(LIBDIR)/$(LIBFILE) $(LIBDIR)/$(SONAME)
INSTALLED_DEV = $(LIBDIR)/$(LIBPREFS) $(INCLUDEDIR)/prefs/Prefs.h \
                $(INCLUDEDIR)/prefs/module.modulemap $(INCLUDEDIR)/prefs/CPrefs.apinotes \
                $(PKGCONFIGDIR)/prefs.pc
INSTALLED_MAN = $(foreach m,$(MAN_PAGES),$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m)))

install: install-lib install-dev install-bin install-man

install-lib: build-lib
	$(INSTALL) -d $(DESTDIR)$(LIBDIR)
	$(INSTALL_PROGRAM) $(BUILD_DIR)/$(LIBPREFS) $(DESTDIR)$(LIBDIR)/$(LIBFILE)
	ln -sf $(LIBFILE) $(DESTDIR)$(LIBDIR)/$(SONAME)
	$(LDCONFIG)

# prefs.pc names directories under ${prefix} where it can, and carries no
# rpath: a program built against a private prefix adds its own (README).
install-dev: install-lib
	$(INSTALL) -d $(DESTDIR)$(INCLUDEDIR)/prefs $(DESTDIR)$(PKGCONFIGDIR)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/$(LIBPREFS)
	$(INSTALL_DATA) include/prefs/Prefs.h include/prefs/module.modulemap $(DESTDIR)$(INCLUDEDIR)/prefs/
	@# Swift's view of the value references (see tools/gen-apinotes.py).
	$(INSTALL_DATA) include/swift/CPrefs.apinotes $(DESTDIR)$(INCLUDEDIR)/prefs/
	sed -e 's|@PREFIX@|$(PREFIX)|' \
	    -e 's|@EXEC_PREFIX@|$(patsubst $(PREFIX)%,$${prefix}%,$(EXEC_PREFIX))|' \
	    -e 's|@LIBDIR@|$(patsubst $(EXEC_PREFIX)%,$${exec_prefix}%,$(LIBDIR))|' \
	    -e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)%,$${prefix}%,$(INCLUDEDIR))|' \
	    -e 's|@VERSION@|$(VERSION)|' pkgconfig/prefs.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/prefs.pc
	chmod 0644 $(DESTDIR)$(PKGCONFIGDIR)/prefs.pc

install-man:
	@set -e; for m in $(MAN_PAGES); do \
	    s=$${m##*.}; \
	    echo "$(INSTALL_DATA) $$m $(DESTDIR)$(MANDIR)/man$$s/"; \
	    $(INSTALL) -d $(DESTDIR)$(MANDIR)/man$$s; \
	    $(INSTALL_DATA) $$m $(DESTDIR)$(MANDIR)/man$$s/; \
	done

# ---- The prefs command -----------------------------------------------------
# The command's code is in libprefs.so (Sources/PrefsTool, entered through the
# private export prefs_tool_main), so bin/prefs is a C main
# (Sources/PrefsTool/programs/prefs.c) linked against the library: one copy of the core and of the Swift runtime
# per machine. build-bin links it against the build directory; install-bin
# links it again with $(PRIVATE_RPATH), which depends on LIBDIR (a relink at
# install time, as libtool does).
PREFS_BIN      = build/prefs
# $(LIBEXECDIR)/prefs/defaults: the same program under the name of macOS's
# defaults, a relative symlink to bin/prefs; with that directory first on
# PATH, tools written for macOS (Ansible's osx_defaults) run unchanged.
INSTALLED_DEFAULTS = $(LIBEXECDIR)/prefs/defaults
# Shell completion (Sources/PrefsTool/completion), where bash-completion and zsh look.
INSTALLED_COMPLETION = $(DATAROOTDIR)/bash-completion/completions/prefs $(DATAROOTDIR)/zsh/vendor-completions/_prefs
INSTALLED_BIN  = $(BINDIR)/prefs $(INSTALLED_DEFAULTS) $(INSTALLED_COMPLETION)
PREFS_LINK     = $(CC) -std=c99 -Wall -Wextra $(CFLAGS) $(HARDENING_CFLAGS) $(CPPFLAGS) -o $(PREFS_BIN) \
                 -DPREFS_UI='"$(LIBEXECDIR)/prefs/prefs-ui"' \
                 Sources/PrefsTool/programs/prefs.c -L$(BUILD_DIR) -lprefs $(LDFLAGS) $(HARDENING_LDFLAGS)
# `prefs ui`: a C program of its own over the public C API and ncurses,
# so that libprefs.so links no terminal library; bin/prefs execs it.
PREFS_UI_BIN   = build/prefs-ui
INSTALLED_UI   = $(LIBEXECDIR)/prefs/prefs-ui
PREFS_UI_LINK  = $(CC) -std=c99 -Wall -Wextra $(CFLAGS) $(HARDENING_CFLAGS) $(CPPFLAGS) -o $(PREFS_UI_BIN) \
                 -Iinclude Sources/PrefsTool/programs/prefs-ui.c $$(pkg-config --cflags ncursesw) -L$(BUILD_DIR) -lprefs \
                 $$(pkg-config --libs ncursesw) $(LDFLAGS) $(HARDENING_LDFLAGS)

build-bin: build-lib
	@mkdir -p build
	$(PREFS_LINK)
	$(PREFS_UI_LINK)

install-bin: build-bin
	$(PREFS_LINK) $(PRIVATE_RPATH)
	$(PREFS_UI_LINK) $(PRIVATE_RPATH)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR)/prefs
	$(INSTALL_PROGRAM) $(PREFS_BIN) $(DESTDIR)$(BINDIR)/prefs
	ln -sfn "$$(realpath -m --relative-to=$(LIBEXECDIR)/prefs $(BINDIR)/prefs)" $(DESTDIR)$(INSTALLED_DEFAULTS)
	$(INSTALL_PROGRAM) $(PREFS_UI_BIN) $(DESTDIR)$(INSTALLED_UI)
	$(INSTALL) -d $(DESTDIR)$(DATAROOTDIR)/bash-completion/completions $(DESTDIR)$(DATAROOTDIR)/zsh/vendor-completions
	$(INSTALL_DATA) Sources/PrefsTool/completion/prefs.bash $(DESTDIR)$(DATAROOTDIR)/bash-completion/completions/prefs
	$(INSTALL_DATA) Sources/PrefsTool/completion/_prefs $(DESTDIR)$(DATAROOTDIR)/zsh/vendor-completions/_prefs
# ----------------------------------------------------------------------------

install-strip:
	$(MAKE) install INSTALL_PROGRAM='$(INSTALL_PROGRAM) -s'

# Leaves directories alone, except include/prefs and libexec/prefs, which are ours.
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED_BIN) $(INSTALLED_UI) $(INSTALLED_LIB) $(INSTALLED_DEV) $(INSTALLED_MAN))
	rmdir $(DESTDIR)$(INCLUDEDIR)/prefs $(DESTDIR)$(LIBEXECDIR)/prefs 2>/dev/null || true
	$(LDCONFIG)

# ---------------------------------------------------------------------------
# The README's route: a private prefix, built as a user builds (pkg-config,
# plus an rpath to the private libdir), run without LD_LIBRARY_PATH.

STAGE_PC = PKG_CONFIG_PATH=$(STAGE)/lib/pkgconfig pkg-config

# build/stage/env.sh, sourced by a shell (`. build/stage/env.sh`, from any
# directory by its full path), puts the private prefix first: bin/prefs on
# PATH, its man pages, prefs.pc for pkg-config, its installed schemas.
STAGE_ENV := $(STAGE)/env.sh

example: deps-build
	$(STAGE_INSTALL)
	@printf '%s\n' '# Sourced by sh, bash or zsh: the private prefix of `make example` first.' \
	    'PATH="$(STAGE)/bin:$$PATH"' \
	    'MANPATH="$(STAGE)/share/man:$${MANPATH-}"' \
	    'PKG_CONFIG_PATH="$(STAGE)/lib/pkgconfig$${PKG_CONFIG_PATH:+:$$PKG_CONFIG_PATH}"' \
	    'XDG_DATA_DIRS="$(STAGE)/share:$${XDG_DATA_DIRS:-/usr/local/share:/usr/share}"' \
	    'export PATH MANPATH PKG_CONFIG_PATH XDG_DATA_DIRS' >$(STAGE_ENV)
	@mkdir -p build
	$(CC) $(CFLAGS) $(HARDENING_CFLAGS) -std=c99 -Wall -Wextra -o build/xml_demo examples/xml_demo.c \
	    $$($(STAGE_PC) --cflags --libs prefs) -Wl,-rpath,$$($(STAGE_PC) --variable=libdir prefs) \
	    $(LDFLAGS) $(HARDENING_LDFLAGS)
	./build/xml_demo
	@echo '--- prefs: write a value, read it back (XDG_CONFIG_HOME=build/demo-config)'
	XDG_CONFIG_HOME=$(CURDIR)/build/demo-config $(STAGE)/bin/prefs write com.example.demo Greeting -string "hello from prefs"
	XDG_CONFIG_HOME=$(CURDIR)/build/demo-config $(STAGE)/bin/prefs read com.example.demo Greeting
	XDG_CONFIG_HOME=$(CURDIR)/build/demo-config $(STAGE)/bin/prefs read com.example.demo
	@echo '--- an installed schema (examples/schema): defaults with no call, through a generated header'
	$(INSTALL) -d $(STAGE)/share/prefs/schemas
	$(INSTALL_DATA) examples/schema/com.example.notes.plist examples/schema/Appearance.plist $(STAGE)/share/prefs/schemas/
	$(STAGE)/bin/prefs schema check $(STAGE)/share/prefs/schemas/com.example.notes.plist
	XDG_DATA_DIRS=$(STAGE)/share $(STAGE)/bin/prefs schema c com.example.notes >build/notes.h
	$(CC) $(CFLAGS) $(HARDENING_CFLAGS) -std=c99 -Wall -Wextra -pedantic -Werror -Ibuild -o build/notes examples/schema/notes.c \
	    $$($(STAGE_PC) --cflags --libs prefs) -Wl,-rpath,$$($(STAGE_PC) --variable=libdir prefs) \
	    $(LDFLAGS) $(HARDENING_LDFLAGS)
	rm -rf $(CURDIR)/build/demo-notes
	XDG_CONFIG_HOME=$(CURDIR)/build/demo-notes XDG_DATA_DIRS=$(STAGE)/share ./build/notes
	XDG_CONFIG_HOME=$(CURDIR)/build/demo-notes XDG_DATA_DIRS=$(STAGE)/share $(STAGE)/bin/prefs write com.example.notes FontSize -int 18
	XDG_CONFIG_HOME=$(CURDIR)/build/demo-notes XDG_DATA_DIRS=$(STAGE)/share ./build/notes
	XDG_CONFIG_HOME=$(CURDIR)/build/demo-notes XDG_DATA_DIRS=$(STAGE)/share $(STAGE)/bin/prefs explain com.example.notes FontSize
	@echo '--- done. To use this build from any shell: . $(STAGE_ENV)'

# The documents as tests: every command block of README.md, doc/ and the
# build lines of examples/, run as written after `make example`
# (Tests/docs/run.py says how, and lists what it skips and why).
.PHONY: test-docs
test-docs: example
	python3 Tests/docs/run.py $(CURDIR)

# ---------------------------------------------------------------------------
# Documentation: PrefsCore's doc comments and its catalog
# (Sources/PrefsCore/PrefsCore.docc: overview and articles) built by the
# toolchain's swift-symbolgraph-extract and docc, offline, from the module
# the release build made, into build/docs/PrefsCore.doccarchive (open it
# with `docc preview`, or serve it as static files). A warning (a link to a
# symbol that does not exist or names several) fails it. The articles'
# Swift is compiled by test-docs.
DOCC_OUT   = build/docs
DOCC_FLAGS = --fallback-display-name PrefsCore --fallback-bundle-identifier org.libprefs.PrefsCore \
             --transform-for-static-hosting --warnings-as-errors

.PHONY: docs
docs: build-lib
	rm -rf $(DOCC_OUT)
	mkdir -p $(DOCC_OUT)/symbol-graphs
	swift-symbolgraph-extract -module-name PrefsCore -target $(shell uname -m)-unknown-linux-gnu \
	    -I $(BUILD_DIR)/Modules -I Sources/CSystemShims -I Sources/CProcessHooks/include \
	    -I Sources/CLibXML2/include -minimum-access-level public -skip-synthesized-members \
	    -output-dir $(DOCC_OUT)/symbol-graphs
	docc convert Sources/PrefsCore/PrefsCore.docc --additional-symbol-graph-dir $(DOCC_OUT)/symbol-graphs \
	    $(DOCC_FLAGS) --output-path $(DOCC_OUT)/PrefsCore.doccarchive
	@echo "docs: $(DOCC_OUT)/PrefsCore.doccarchive"

# ---------------------------------------------------------------------------
# Tests

# `make check` runs each step below as its own make, its output in
# build/check/<step>.log, and prints one line per step and a summary
# (Tests/check.sh). `stage` installs build/stage once; the steps that use
# it (STAGE_INSTALL) do not install it again. Later sections add steps.
CHECK_STEPS := stage lint version-check abi-check api-check docs test-swift test-compile-fail test-c test-cli \
               test-python test-sync test-ansible test-ui test-schema-swift test-fork-swift test-install test-deb \
               test-tsan test-docs

check: deps conformance-notice
	@MAKE='$(MAKE)' bash Tests/check.sh $(CHECK_STEPS)

# The conformance corpus (property-list files of other projects, not ours
# to ship) is run by test-swift when it sits beside the checkout.
conformance-notice:
	@if [ ! -d ../shared/conformance ]; then \
	    echo 'note: ../shared/conformance (a corpus of other projects'"'"' plist files) is absent: test-swift runs without it'; \
	fi

.PHONY: stage
STAGE_INSTALL = $(if $(STAGE_INSTALLED),@:,$(MAKE) install $(STAGE_VARS))
stage:
	$(MAKE) install $(STAGE_VARS)

# Formatting: Swift by .swift-format (swift-format, in the toolchain), C by
# .clang-format (Debian's clang-format). `lint` checks, `format` rewrites.
# The public header keeps its hand-made layout: one declaration a line.
SWIFT_SOURCES = $(shell git ls-files '*.swift')
C_SOURCES     = $(filter-out include/prefs/Prefs.h,$(shell git ls-files '*.c' '*.h'))

lint:
	@swift-format lint --strict --parallel $(SWIFT_SOURCES)
	@clang-format --dry-run -Werror $(C_SOURCES)
	@python3 tools/gen-apinotes.py --check
	@echo "lint: $(words $(SWIFT_SOURCES)) Swift and $(words $(C_SOURCES)) C files formatted as configured"

format:
	swift-format format -i --parallel $(SWIFT_SOURCES)
	clang-format -i $(C_SOURCES)

# Every copy of the version number agrees with VERSION.
version-check:
	bash Tests/packaging/version-check.sh

# The built library exports exactly the symbols of debian/libprefs1.symbols.
abi-check: build-lib
	bash Tests/packaging/abi-check.sh $(BUILD_DIR)/$(LIBPREFS)

# Rewrites debian/libprefs1.symbols from the built library: for a deliberate
# change of the exported list (review the difference before committing it).
abi-update: build-lib
	bash Tests/packaging/abi-check.sh --update $(BUILD_DIR)/$(LIBPREFS)

# The public Swift API of each Swift product (PrefsCore, PrefsFoundation)
# is exactly that of api/<Module>.swift-api.txt: what Swift programs
# compile against, read from the built modules by swift-symbolgraph-extract.
api-check: build-api
	bash Tests/packaging/api-check.sh $(BUILD_DIR)/Modules

# Rewrites api/*.swift-api.txt from the built modules: for a deliberate
# change of the Swift API (review the difference before committing it).
api-update: build-api
	bash Tests/packaging/api-check.sh --update $(BUILD_DIR)/Modules

build-api:
	$(SWIFT_BUILD) --target PrefsFoundation

# The tests are Swift Testing only: no empty XCTest pass. The trait
# Configuration builds PrefsConfiguration and its tests too.
test-swift:
	$(SWIFT) test --disable-xctest --traits Configuration

# Small packages that must not build, and the errors the compiler must
# give for them (a mistake with a typed key gets a plain message).
test-compile-fail:
	bash Tests/compile-fail/run.sh

# One C program: make test-c TEST=values (Tests/C/test_values.c); one
# group of items: GROUP=header|library|example|programs.
test-c:
	$(STAGE_INSTALL)
	$(C_ENV) TEST='$(TEST)' GROUP='$(GROUP)' bash Tests/C/run.sh $(STAGE)

# One group of the command's checks: make test-cli GROUP=managed, or
# GROUP="managed watch" (the groups are the "#@group" lines of
# Tests/cli/run.sh; GROUP=hardening runs Tests/cli/hardening.sh alone).
test-cli:
	$(STAGE_INSTALL)
	$(if $(GROUP),,$(C_ENV) bash Tests/cli/run.sh $(STAGE))
	$(if $(filter-out hardening,$(GROUP)),$(C_ENV) GROUP='$(filter-out hardening,$(GROUP))' bash Tests/cli/run.sh $(STAGE))
	$(if $(GROUP),$(if $(filter hardening,$(GROUP)),bash Tests/cli/hardening.sh $(STAGE)),bash Tests/cli/hardening.sh $(STAGE))

# The Python package (bindings/python): pytest against the installed
# library, the package installed by pip as a user installs it. pytest and
# setuptools come from PyPI, pinned, into a virtual environment cached
# outside the tree ($(XDG_CACHE_HOME) or ~/.cache, libprefs/pytest-<versions>).
PYTEST_VERSION ?= 8.4.2

test-python:
	$(STAGE_INSTALL)
	PYTEST_VERSION=$(PYTEST_VERSION) $(C_ENV) bash bindings/python/tests/run.sh $(STAGE)

# Synced preferences over two (then three) real Syncthing instances on
# loopback, started and stopped by the test (Tests/sync/run.py).
test-sync:
	$(STAGE_INSTALL)
	python3 Tests/sync/run.py $(STAGE)

# A real client: Ansible's community.general.osx_defaults drives
# libexec/prefs/defaults (Tests/ansible/run.sh). Ansible comes from PyPI,
# pinned, into a virtual environment cached outside the tree
# ($(XDG_CACHE_HOME) or ~/.cache, libprefs/ansible-<version>).
ANSIBLE_VERSION ?= 12.3.0

test-ansible:
	$(STAGE_INSTALL)
	ANSIBLE_VERSION=$(ANSIBLE_VERSION) $(C_ENV) bash Tests/ansible/run.sh $(STAGE)

# A distribution install (PREFIX=/usr into DESTDIR): no RUNPATH or RPATH in
# any ELF file; install-strip strips; uninstall leaves nothing of ours.
# The Swift keys `prefs schema swift` writes type-check against PrefsCore.
test-schema-swift: build
	$(STAGE_INSTALL)
	bash Tests/cli/schema-swift.sh $(STAGE) $(BUILD_DIR)

# A Swift program that forks while another thread declares typed keys.
test-fork-swift: build
	bash Tests/fork/run.sh $(BUILD_DIR)

# prefs ui in a real terminal: tmux, driven by send-keys, read by capture-pane.
test-ui: deps
	$(STAGE_INSTALL)
	bash Tests/ui/run.sh $(STAGE)
	bash Tests/ui/editing.sh $(STAGE)

test-install: build
	MAKE='$(MAKE)' $(C_ENV) bash Tests/packaging/install-check.sh

print-build-dir:
	@echo $(BUILD_DIR)

test-tsan:
	bash Tests/tsan.sh

# ---------------------------------------------------------------------------
# Debian packages, built from debian/ by debian/rules, which builds in
# .build/deb (any-user domains in /etc: PREFS_SYSTEM_DIR_ETC) and reuses
# that build the next time. The .deb files, .buildinfo and .changes
# go to build/deb instead of the parent directory.

DEB_OUT := $(CURDIR)/build/deb

deb:
	rm -rf $(DEB_OUT) && mkdir -p $(DEB_OUT)
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL SWIFT='$(SWIFT)' PREFS_DEB_DESTDIR=$(DEB_OUT) \
	    dpkg-buildpackage -us -uc -b \
	    --buildinfo-option=-u$(DEB_OUT) --changes-option=-u$(DEB_OUT) \
	    --buildinfo-file=$(DEB_OUT)/libprefs.buildinfo --changes-file=$(DEB_OUT)/libprefs.changes
	@ls -l $(DEB_OUT)/*.deb

# Unpacks the packages into a scratch root, builds and runs a C program
# against it through pkg-config, runs lintian.
test-deb: deb
	$(C_ENV) bash Tests/packaging/deb-check.sh $(DEB_OUT)

# Also what a package build leaves in debian/ (debian/rules clean would
# need debhelper).
clean:
	rm -rf build .build
	rm -rf debian/.debhelper debian/tmp debian/libprefs$(SOMAJOR) debian/libprefs-dev debian/prefs \
	    debian/files debian/*.substvars debian/*.debhelper.log debian/debhelper-build-stamp

# ------------------------------------------------------------------------
# Sanitizer runs, part of `make check`:
#   test-asan     every Swift test under AddressSanitizer + LeakSanitizer
#   test-c-asan   the C tests against libprefs built with AddressSanitizer
#                 (UBSan over the C it compiles in), installed in
#                 build/stage-asan; the programs are linked by the Swift
#                 toolchain's clang, whose sanitizer runtimes the library needs
# Leaks in code that is not ours: Tests/lsan.supp.

STAGE_ASAN      := $(CURDIR)/build/stage-asan
# lld: gold warns about every sanitizer runtime symbol it exports.
ASAN_SWIFTFLAGS := -c release --sanitize=address -Xcc -fsanitize=undefined \
                   -Xswiftc -use-ld=lld --scratch-path .build/asan-lib

.PHONY: test-asan test-c-asan example-swift
CHECK_STEPS += test-asan test-c-asan example-swift

# examples/swift, a SwiftPM program over this package: built and run with
# its files in build/ (its packages in .build/, as every SwiftPM build).
example-swift:
	rm -rf $(CURDIR)/build/example-swift-config
	cd examples/swift && XDG_CONFIG_HOME=$(CURDIR)/build/example-swift-config \
	    swift run --scratch-path $(CURDIR)/.build/example-swift editor


test-asan:
	bash Tests/asan.sh

# bin/prefs links the sanitized library too, so clang links it with the runtimes.
test-c-asan: deps
	bin=$$(dirname "$$(readlink -f "$$(command -v $(SWIFT))")"); \
	$(MAKE) install PREFIX=$(STAGE_ASAN) LIBDIR=$(STAGE_ASAN)/lib SWIFTFLAGS="$(ASAN_SWIFTFLAGS)" \
	    CC=$$bin/clang CFLAGS='-O1 -g' LDFLAGS='-fsanitize=address,undefined -fuse-ld=lld' && \
	SANITIZE=1 CLANG=$$bin/clang CLANGXX=$$bin/clang++ CFLAGS='-O1 -g' LDFLAGS= bash Tests/C/run.sh $(STAGE_ASAN)

# ---- Fuzzing (FUZZING.md) ------------------------------------------------
# Fuzz targets for the readers, the round trip, the C face's parsing, the
# typed-getter coercions, the argument domain and the prefs value grammar,
# built with swiftc into .build/fuzz/ (Fuzz/fuzz.sh).
#   make fuzz-replay   every committed corpus file through its target once,
#                      with AddressSanitizer and LeakSanitizer (part of check)
#   make fuzz          libFuzzer on each target for FUZZ_SECONDS (default 60;
#                      FUZZ_RUNS caps executions, FUZZ_TARGETS picks targets),
#                      new inputs merged into Fuzz/corpus/
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=

.PHONY: fuzz fuzz-replay
CHECK_STEPS += fuzz-replay

fuzz-replay: deps
	bash Fuzz/fuzz.sh build replay
	bash Fuzz/fuzz.sh replay

fuzz: deps
	bash Fuzz/fuzz.sh build fuzz
	bash Fuzz/fuzz.sh fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# ---------------------------------------------------------------------------
# bench: libprefs side by side with dconf, QSettings, Foundation and
# libplist at 1,000, 100,000 and 1,000,000 keys (Benchmarks/compare.sh;
# about 25 minutes on an idle 2-core machine, installs its contenders as
# root). Markdown tables on stdout. BENCH_ARGS="--sizes 1000 --quick" for
# a smoke test.
BENCH_ARGS ?=

.PHONY: bench
bench:
	bash Benchmarks/compare.sh $(BENCH_ARGS)
