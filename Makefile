# ikigai: build, test, install.
#
#   make                      build bin/ikigai, libexec/ikigai/*-tool and the Markdown helper
#   make check                go vet, gofmt, staticcheck and every test of every module
#   make install PREFIX=...   install (DESTDIR honoured); make uninstall reverses it
#   make bench                benchmarks side by side with peer tools, into bench/RESULTS.md
#   make clean

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec
SYSCONFDIR ?= $(PREFIX)/etc
DATADIR    ?= $(PREFIX)/share
# The release in VERSION, and the commit when built from a git checkout.
VERSION    ?= $(shell cat VERSION 2>/dev/null || echo dev)$(shell git rev-parse --short HEAD 2>/dev/null | sed 's/^/+/')

GO         ?= go
PKG        := github.com/ikigai-tools/ikigai
LDFLAGS    := -s -w \
	-X $(PKG)/internal/buildinfo.Version=$(VERSION) \
	-X $(PKG)/internal/buildinfo.Prefix=$(PREFIX) \
	-X $(PKG)/internal/buildinfo.LibexecDir=$(LIBEXECDIR) \
	-X $(PKG)/internal/buildinfo.SysconfDir=$(SYSCONFDIR) \
	-X $(PKG)/internal/buildinfo.DataDir=$(DATADIR)
# urfave_cli_no_docs drops the CLI library's man-page generator, and with it
# a Markdown parser whose start-up every ikigai command would pay.
# Static binaries: nothing to resolve at start-up (the dynamic loader costs a
# tool call about half a millisecond), and nothing to depend on once
# installed. The tests that are not under the race detector (which needs cgo)
# build the same way, and so do the end-to-end scripts' binaries
# (script_test.go), so that one compilation of the dependencies serves all.
STATIC     := CGO_ENABLED=0
GOFLAGS_STATIC := -trimpath -tags urfave_cli_no_docs
BUILD      := $(STATIC) $(GO) build
BUILDFLAGS := $(GOFLAGS_STATIC) -ldflags '$(LDFLAGS)'

TOOLS      := $(notdir $(wildcard cmd/*-tool))
SKILLS     := $(notdir $(wildcard share/ikigai/skills/*.md))
# toolsdk's source, installed so that a Go tool builds against it offline.
TOOLSDK    := $(shell cd toolsdk && find . -type f \( -name go.mod -o -name LICENSE -o \( -name '*.go' ! -name '*_test.go' \) \) ! -path '*/testdata/*' | sort)
MODULES    := . toolsdk examples/git-status-tool

.PHONY: all build check vet test install uninstall bench clean

all: build

# go build decides what is stale, so these always run; a no-op build is quick.
build:
	@mkdir -p bin libexec/ikigai
	$(BUILD) $(BUILDFLAGS) -o bin/ ./cmd/ikigai
	$(BUILD) $(BUILDFLAGS) -o libexec/ikigai/ $(addprefix ./cmd/,$(TOOLS)) ./cmd/ikigai-markdown

check: vet test

vet:
	@unformatted=$$(gofmt -l .); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	@for m in $(MODULES); do echo "go vet ($$m)"; (cd $$m && $(GO) vet ./...) || exit 1; done
	@echo "staticcheck"
	@$(GO) tool staticcheck ./... $(patsubst %,./%/...,$(filter-out .,$(MODULES)))

# The agent's own packages run under the race detector. The end-to-end
# scripts (in the root package) build the real binaries with go build, which
# the test cache cannot see, so they always run (-count=1).
test:
	$(GO) test -race ./internal/...
	$(STATIC) $(GO) test $(GOFLAGS_STATIC) -count=1 $$($(GO) list ./... | grep -v /internal/)
	cd toolsdk && $(STATIC) $(GO) test $(GOFLAGS_STATIC) ./...
	cd examples/git-status-tool && $(STATIC) $(GO) test $(GOFLAGS_STATIC) ./...

install: build
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR)/ikigai $(DESTDIR)$(SYSCONFDIR)/ikigai $(DESTDIR)$(DATADIR)/ikigai/skills
	install -m 755 bin/ikigai $(DESTDIR)$(BINDIR)/ikigai
	install -m 755 $(addprefix libexec/ikigai/,$(TOOLS) ikigai-markdown) $(DESTDIR)$(LIBEXECDIR)/ikigai/
	install -m 644 $(addprefix share/ikigai/skills/,$(SKILLS)) $(DESTDIR)$(DATADIR)/ikigai/skills/
	@for f in $(TOOLSDK); do install -D -m 644 toolsdk/$$f $(DESTDIR)$(DATADIR)/ikigai/toolsdk/$$f || exit 1; done
	@# An administrator's edited configuration is never overwritten.
	test -e $(DESTDIR)$(SYSCONFDIR)/ikigai/config.json || \
		install -m 644 etc/config.json $(DESTDIR)$(SYSCONFDIR)/ikigai/config.json

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ikigai $(addprefix $(DESTDIR)$(LIBEXECDIR)/ikigai/,$(TOOLS) ikigai-markdown)
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/ikigai/skills/,$(SKILLS))
	rm -rf $(DESTDIR)$(DATADIR)/ikigai/toolsdk
	@# The configuration goes only if nobody changed it.
	@if cmp -s etc/config.json $(DESTDIR)$(SYSCONFDIR)/ikigai/config.json; then \
		rm -f $(DESTDIR)$(SYSCONFDIR)/ikigai/config.json; \
	elif [ -e $(DESTDIR)$(SYSCONFDIR)/ikigai/config.json ]; then \
		echo "kept edited config $(DESTDIR)$(SYSCONFDIR)/ikigai/config.json"; \
	fi
	@# Directories go when empty; one holding a kept config stays.
	@for d in $(DESTDIR)$(LIBEXECDIR)/ikigai $(DESTDIR)$(SYSCONFDIR)/ikigai \
		$(DESTDIR)$(DATADIR)/ikigai/skills $(DESTDIR)$(DATADIR)/ikigai; do \
		rmdir $$d 2>/dev/null || true; \
	done

bench: build
	$(GO) run ./bench -o bench/RESULTS.md

clean:
	rm -rf bin libexec
