# The one place that knows linking, installing and packaging.
#
#   make example            build, install into ./build/stage, run the examples
#   make check              every test: Swift core tests, C tests against the
#                           installed library (header, export, SONAME checks),
#                           the installed prefs command, a ThreadSanitizer stress run,
#                           the Swift and C tests under AddressSanitizer
#   make install PREFIX=/usr/local
#
# Both `example` and `check` install their own build dependencies first.

PREFIX      ?= /usr/local
STAGE       := $(CURDIR)/build/stage
VERSION     := 1.0.0
SOMAJOR     := 1
SWIFT       ?= swift
SWIFTFLAGS  ?= -c release
BUILD_DIR    = $(shell $(SWIFT) build $(SWIFTFLAGS) --show-bin-path)

# bin/prefs: the command's code is in libprefs.so (Sources/PrefsTool, entered
# through the private export prefs_tool_main), so the program is tools/prefs.c,
# a C main linked against the library just built: one copy of the core and of
# the Swift runtime per machine. It finds the library through an rpath to
# $(LIBDIR), except for PREFIX=/usr, whose library directory the dynamic
# linker searches by itself: there it carries none. CFLAGS, CPPFLAGS and
# LDFLAGS apply (hardening flags come in through them).
LIBDIR          ?= $(PREFIX)/lib
PREFS_RPATH      = $(if $(filter /usr,$(PREFIX)),,-Wl,-rpath,$(LIBDIR))
PREFS_CFLAGS    ?= -std=c99 -O2 -Wall -Wextra
define link-prefs-command
	@mkdir -p build
	$(CC) $(PREFS_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o build/prefs tools/prefs.c \
	    -L$(BUILD_DIR) -lprefs $(PREFS_RPATH)
endef

.PHONY: all deps build install example check conformance-notice test-swift test-c test-cli test-tsan clean

all: build

# Debian packages the build needs; installed only when missing.
deps:
	@if ! pkg-config --exists libxml-2.0 2>/dev/null; then \
	    echo "installing libxml2-dev and pkg-config"; \
	    (apt-get update -qq && apt-get install -y -qq libxml2-dev pkg-config) >/dev/null; \
	fi

build: deps
	$(SWIFT) build $(SWIFTFLAGS) --product prefs
	$(link-prefs-command)

install: build
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/prefs \
	    $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 build/prefs $(DESTDIR)$(PREFIX)/bin/prefs
	install -m 0644 doc/prefs.1 $(DESTDIR)$(PREFIX)/share/man/man1/prefs.1
	install -m 0755 $(BUILD_DIR)/libprefs.so $(DESTDIR)$(PREFIX)/lib/libprefs.so.$(VERSION)
	ln -sf libprefs.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libprefs.so.$(SOMAJOR)
	ln -sf libprefs.so.$(SOMAJOR) $(DESTDIR)$(PREFIX)/lib/libprefs.so
	install -m 0644 include/prefs/Prefs.h include/prefs/module.modulemap $(DESTDIR)$(PREFIX)/include/prefs/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' pkgconfig/prefs.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/prefs.pc

example:
	$(MAKE) install PREFIX=$(STAGE)
	@mkdir -p build
	cc -std=c99 -Wall -Wextra -o build/xml_demo examples/xml_demo.c \
	    $$(PKG_CONFIG_PATH=$(STAGE)/lib/pkgconfig pkg-config --cflags --libs prefs)
	./build/xml_demo
	@echo '--- prefs: write a value, read it back (XDG_CONFIG_HOME=build/demo-config)'
	XDG_CONFIG_HOME=$(CURDIR)/build/demo-config $(STAGE)/bin/prefs write com.example.demo Greeting -string "hello from prefs"
	XDG_CONFIG_HOME=$(CURDIR)/build/demo-config $(STAGE)/bin/prefs read com.example.demo Greeting
	XDG_CONFIG_HOME=$(CURDIR)/build/demo-config $(STAGE)/bin/prefs read com.example.demo

check: deps conformance-notice test-swift test-c test-cli test-tsan

# The conformance corpus (other projects' files) is not ours to ship: the
# Swift tests run it when it sits beside the repository. Say so loudly when
# it does not.
conformance-notice:
	@if [ ! -d ../shared/conformance ]; then \
	    echo '**********************************************************************'; \
	    echo '*** ../shared/conformance is absent: the conformance corpus is NOT ***'; \
	    echo '*** tested in this run.                                            ***'; \
	    echo '**********************************************************************'; \
	fi

# The tests are Swift Testing only: no empty XCTest pass.
test-swift:
	$(SWIFT) test --disable-xctest

test-c:
	$(MAKE) install PREFIX=$(STAGE)
	bash Tests/C/run.sh $(STAGE)

test-cli:
	$(MAKE) install PREFIX=$(STAGE)
	bash Tests/cli/run.sh $(STAGE)

test-tsan:
	bash Tests/tsan.sh

clean:
	rm -rf build .build

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

.PHONY: test-asan test-c-asan
check: test-asan test-c-asan

test-asan:
	bash Tests/asan.sh

test-c-asan: deps
	$(MAKE) install PREFIX=$(STAGE_ASAN) SWIFTFLAGS="$(ASAN_SWIFTFLAGS)"
	bin=$$(dirname "$$(readlink -f "$$(command -v $(SWIFT))")"); \
	SANITIZE=1 CLANG=$$bin/clang CLANGXX=$$bin/clang++ bash Tests/C/run.sh $(STAGE_ASAN)

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
check: fuzz-replay

fuzz-replay: deps
	bash Fuzz/fuzz.sh build replay
	bash Fuzz/fuzz.sh replay

fuzz: deps
	bash Fuzz/fuzz.sh build fuzz
	bash Fuzz/fuzz.sh fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)
