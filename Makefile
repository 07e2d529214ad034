# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The only build entry point. `make help` lists the targets.

OUT       ?= build
# The release version, the one place it is written; GIT_COMMIT is the
# commit built (make image passes it into the image build, which has no
# .git). Both reach every binary through $(OUT)/gen/rdmanet_version.h.
VERSION   := 0.9.0
GIT_COMMIT ?= $(shell git describe --always --dirty --abbrev=12 --match=NeVeR 2>/dev/null || echo unknown)
CLANG     ?= clang
# The BPF programs are built with Debian 12's newer clang (bookworm has
# 19 beside its default 14) for the ISA v3 ALU32 and JMP32 instructions
# (-mcpu=v3, kernels >= 5.1): clang 14 miscompiles v3 (it reads a
# register a helper call clobbered) and its v1 code zero-extends every
# 32-bit value by hand; per packet that was about 2 ns of XDP's 15 ns
# budget and about 5 ns of tc egress's (make bench, dp_prog_cost).
BPF_CLANG ?= clang-19
CC        ?= gcc
BPFTOOL   ?= bpftool
PREFIX    ?= /usr/local
CNI_BIN_DIR ?= /opt/cni/bin
MANDIR    ?= $(PREFIX)/share/man
BASH_COMPLETION_DIR ?= $(PREFIX)/share/bash-completion/completions
V         ?= 0

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

PKGS := libbpf libxdp libnl-3.0 libnl-route-3.0 libnl-genl-3.0 jansson sqlite3 libcurl libibverbs \
	libprotobuf-c yaml-0.1
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

# gRPC core is dlopen'ed by the kubelet plugins (user/lib/grpcrt/dl.c), never
# linked: an agent without a device plugin or DRA driver does not map it. The
# sonames are the ones the build's headers belong to.
soname = $(shell objdump -p $$($(CC) -print-file-name=$(1)) 2>/dev/null | awk '/SONAME/ { print $$2 }')
GRPC_DEFS := -DRN_LIBGRPC='"$(call soname,libgrpc.so)"' -DRN_LIBGPR='"$(call soname,libgpr.so)"'

CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Wshadow -Wno-missing-field-initializers \
	   -D_GNU_SOURCE -Iinclude -Iuser/lib -I$(OUT)/skel -I$(OUT)/gen -I. $(PKG_CFLAGS) -MMD -MP \
	   $(GRPC_DEFS)
LDLIBS  += $(PKG_LIBS) -lelf -lz -lpthread

# clang's BPF target does not know the host's system include dirs; Debian
# keeps asm/ under the multiarch dir, so hand them over after our own.
CLANG_BPF_SYS_INCLUDES := $(shell $(BPF_CLANG) -v -E - </dev/null 2>&1 | \
	sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')
# BPF_NO_PRESERVE_ACCESS_INDEX: the programs read packet headers (ethhdr,
# vlan_hdr, iphdr, ipv6hdr, frag_hdr, udphdr, tcphdr) and the UAPI contexts
# (__sk_buff, xdp_md), whose layouts are the wire's and the ABI's: CO-RE
# relocations of them are no-ops, and having any makes libbpf parse the
# kernel's BTF at every load (about 10 MiB of the agent's peak RSS).
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -DBPF_NO_PRESERVE_ACCESS_INDEX -Wall \
	      -Wno-unused-function -I. -Iinclude $(CLANG_BPF_SYS_INCLUDES) \
	      $(if $(BPF_VARIANT),-DRN_BUILD_VARIANT=$(BPF_VARIANT))

BPF_SRCS   := $(wildcard bpf/*.bpf.c)
BPF_OBJS   := $(patsubst bpf/%.bpf.c,$(OUT)/bpf/%.bpf.o,$(BPF_SRCS))
SKELS      := $(patsubst bpf/%.bpf.c,$(OUT)/skel/%.skel.h,$(BPF_SRCS))

# protobuf-c messages of the kubelet APIs, generated from the .proto files
# the project keeps (the tests generate their Python stubs from the same)
# (user/lib/M/api/X.proto -> gen/M/X.pb-c.{c,h}, included as "M/X.pb-c.h",
# private to module M): the device plugin API, kubelet's plugin registration
# (pluginreg/), and the DRA kubelet plugin API v1 only, as v1beta1 has the
# same messages field for field (the C side answers both with them; the
# tests' kubelet stand-in speaks each version with stubs from its own .proto)
PROTO_MODS  = $(sort $(foreach p,$(PROTOS),$(word 3,$(subst /, ,$(p)))))
PROTOS     := user/lib/devplugin/api/deviceplugin_v1beta1.proto \
	      user/lib/pluginreg/api/pluginregistration_v1.proto user/lib/dra/api/dra_v1.proto
PROTO_C    := $(foreach p,$(PROTOS),$(OUT)/gen/$(word 3,$(subst /, ,$(p)))/$(basename $(notdir $(p))).pb-c.c)
PROTO_H    := $(PROTO_C:.c=.h)

LIB_SRCS   := $(shell find user/lib -name '*.c' | sort)
LIB_OBJS   := $(patsubst %.c,$(OUT)/obj/%.o,$(LIB_SRCS) $(PROTO_C))
LIB        := $(OUT)/librdmanet.a

AGENT_OBJS := $(patsubst %.c,$(OUT)/obj/%.o,$(wildcard user/agent/*.c))
CTL_OBJS   := $(patsubst %.c,$(OUT)/obj/%.o,$(wildcard user/ctl/*.c))
CNI_OBJS   := $(patsubst %.c,$(OUT)/obj/%.o,$(wildcard user/cni/*.c))
BINS       := $(OUT)/bin/rdmanetd $(OUT)/bin/rdmanetctl
ifneq ($(CNI_OBJS),)
BINS       += $(OUT)/bin/rdmanet $(OUT)/bin/rdmanet-etcd
endif

# Tests: every selftests/<kind>/test_*.c is one binary linked with the
# library and that kind's lib/ helpers; every test_*.sh is run as is.
TEST_KINDS     := unit bpf
TEST_BINS      := $(foreach k,$(TEST_KINDS),$(patsubst selftests/$(k)/%.c,$(OUT)/selftests/$(k)/%,$(wildcard selftests/$(k)/test_*.c)))
TEST_LIB_SRCS  := $(wildcard selftests/lib/*.c) $(foreach k,$(TEST_KINDS),$(wildcard selftests/$(k)/lib/*.c))
TOOL_SRCS      := $(wildcard selftests/tools/*.c)
TOOLS          := $(patsubst selftests/tools/%.c,$(OUT)/tools/%,$(TOOL_SRCS))
# BPF objects the shell tests load with bpftool/tc (other tc users' programs)
TEST_BPF_SRCS  := $(wildcard selftests/*/bpf/*.bpf.c)
TEST_BPF_OBJS  := $(patsubst selftests/%.bpf.c,$(OUT)/selftests/%.bpf.o,$(TEST_BPF_SRCS))
BENCH_SRCS     := $(wildcard selftests/bench/*.c)
BENCH_BINS     := $(patsubst selftests/bench/%.c,$(OUT)/bench/%,$(BENCH_SRCS))

.PHONY: FORCE all bins image help deps build-deps print-deps print-version test test-fresh demo-fresh bench demo vmlinux install uninstall clean fuzz fuzz-long check-deps
.DEFAULT_GOAL := all
# skeletons and objects are inputs of other rules, not throwaway intermediates
.SECONDARY:

# "The next version" for selftests/netns/test_upgrade.sh and the image
# upgrade of selftests/deploy/test_kube_play.sh: the same agent built again
# into $(OUT)/variant with BPF_VARIANT=1 (bpf/build_variant.h), so its
# programs' code and kernel tags differ from the real build's, and with
# its own version (VERSION+variant).
VARIANT_AGENT := $(OUT)/variant/bin/rdmanetd

# the product alone: what the image ships
bins: $(BINS)

all: $(BINS) $(TEST_BINS) $(TOOLS) $(BENCH_BINS) $(TEST_BPF_OBJS) $(if $(BPF_VARIANT),,$(VARIANT_AGENT))

help:
	@echo "make deps     install every build and test dependency (apt-get; idempotent)"
	@echo "make all      build BPF objects, skeletons, binaries and test programs into $(OUT)/"
	@echo "make test     deps + all + run every test; prints 'N passed, N failed, N skipped'"
	@echo "make bench    deps + all + benchmarks; writes selftests/bench/results.json"
	@echo "make demo     deps + all + a throwaway netns topology with rdmanetd and traffic"
	@echo "make image    the container image, built with podman (IMAGE=name:tag, BASE=debian image)"
	@echo "make bins     the four product binaries only; make build-deps installs what they need"
	@echo "make test-fresh, make demo-fresh  the same in a brand-new Debian 12 root (what CI runs)"
	@echo "make fuzz     the parser fuzzers for a short time (part of make test)"
	@echo "make fuzz-long  the parser fuzzers for FUZZ_SECONDS (default 600) each"
	@echo "make vmlinux  regenerate vmlinux.h from /sys/kernel/btf/vmlinux"
	@echo "make install  install binaries, man pages and bash completion under $(PREFIX) and the CNI plugin under $(CNI_BIN_DIR)"
	@echo "make clean    remove $(OUT)/"

# --- BPF ------------------------------------------------------------------

# the objects follow their flags too (a build dir made before a flag
# changed would otherwise keep the old objects): the stamp is rewritten
# only when BPF_CFLAGS differ from the last build's
$(OUT)/bpf/.cflags: FORCE
	$(Q)mkdir -p $(@D)
	$(Q)echo '$(BPF_CFLAGS)' | cmp -s - $@ || echo '$(BPF_CFLAGS)' >$@
FORCE:
.PHONY: FORCE

$(OUT)/bpf/%.bpf.o: bpf/%.bpf.c vmlinux.h $(wildcard bpf/*.h maps/*.h include/rdmanet/*.h) \
		    $(OUT)/bpf/.cflags
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(BPF_CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/selftests/%.bpf.o: selftests/%.bpf.c vmlinux.h $(OUT)/bpf/.cflags
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(BPF_CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/skel/%.skel.h: $(OUT)/bpf/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*) > $@.tmp && mv $@.tmp $@

vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > vmlinux.h.tmp
	mv vmlinux.h.tmp vmlinux.h

# --- userspace ------------------------------------------------------------

# The C side needs the messages only (gRPC core carries them); the service
# blocks are left out because protoc-c would emit a struct member named
# `register` for kubelet's Register method, a C keyword.
define PROTO_RULE
$$(OUT)/gen/$(1)/%.pb-c.c $$(OUT)/gen/$(1)/%.pb-c.h: user/lib/$(1)/api/%.proto
	$$(call msg,PROTOC,$$@)
	$$(Q)mkdir -p $$(OUT)/gen/$(1)/msgs
	$$(Q)sed '/^service /,/^}/d' $$< > $$(OUT)/gen/$(1)/msgs/$$*.proto
	$$(Q)protoc-c --c_out=$$(OUT)/gen/$(1) -I$$(OUT)/gen/$(1)/msgs $$(OUT)/gen/$(1)/msgs/$$*.proto
endef
$(foreach m,$(PROTO_MODS),$(eval $(call PROTO_RULE,$(m))))

# rewritten only when the version or commit changed, so that only
# user/lib/version.o and the links follow a new commit
$(OUT)/gen/rdmanet_version.h: FORCE
	$(Q)mkdir -p $(@D)
	$(Q)printf '#define RN_VERSION "%s"\n#define RN_COMMIT "%s"\n' '$(VERSION)' '$(GIT_COMMIT)' | \
		cmp -s - $@ || printf '#define RN_VERSION "%s"\n#define RN_COMMIT "%s"\n' '$(VERSION)' '$(GIT_COMMIT)' >$@

$(OUT)/obj/%.o: %.c | $(SKELS) $(PROTO_H) $(OUT)/gen/rdmanet_version.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(OUT)/bin/rdmanetd: $(AGENT_OBJS) $(LIB)
	$(call msg,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

ifeq ($(BPF_VARIANT),)
$(VARIANT_AGENT): FORCE
	$(Q)$(MAKE) -s --no-print-directory OUT=$(OUT)/variant BPF_VARIANT=1 VERSION=$(VERSION)+variant $@
endif

$(OUT)/bin/rdmanetctl: $(CTL_OBJS) $(LIB)
	$(call msg,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# The CNI plugin is exec'd for every ADD and DEL, on the host: a static
# (static-pie) binary, so no run maps, relocates and binds libraries (about
# 0.4 ms of each ADD here) and it needs nothing of the host's. It reaches
# the pinned maps through datapath/map_syscall.c, not libbpf (whose loader
# would bring libelf, zlib and zstd). The etcd store's libcurl cannot be
# loaded into a static program: with etcd, rdmanet hands each request to
# rdmanet-etcd, the same objects linked dynamically, installed beside it
# (user/cni/handoff.h). The static link warns that dlopen and getaddrinfo
# need the host's glibc: the plugin never calls them (curl_lazy.c refuses
# in a static program; libnl's name lookups are not used).
CNI_LIBS := -lsqlite3 -ljansson -lnl-route-3 -lnl-3

$(OUT)/bin/rdmanet: $(CNI_OBJS) $(LIB)
	$(call msg,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -static-pie $^ $(CNI_LIBS) -lpthread -lm -o $@

# its calls into libc bound at exec (-z now): binding each at its first
# call costs more
$(OUT)/bin/rdmanet-etcd: $(CNI_OBJS) $(LIB)
	$(call msg,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -Wl,-z,now $^ -Wl,-Bstatic $(CNI_LIBS) -Wl,-Bdynamic -lpthread -lm -o $@

# --- tests, tools, benchmarks ------------------------------------------------

TEST_LIB_OBJS := $(patsubst %.c,$(OUT)/obj/%.o,$(TEST_LIB_SRCS))
TEST_INCLUDES := -Iselftests/lib $(patsubst %,-I%,$(wildcard selftests/*/lib))

$(OUT)/obj/selftests/%.o: CFLAGS += $(TEST_INCLUDES)

$(OUT)/selftests/%: $(OUT)/obj/selftests/%.o $(TEST_LIB_OBJS) $(LIB)
	$(call msg,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -lcmocka -o $@

$(OUT)/tools/%: $(OUT)/obj/selftests/tools/%.o $(LIB)
	$(call msg,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(OUT)/bench/%: $(OUT)/obj/selftests/bench/%.o $(TEST_LIB_OBJS) $(LIB)
	$(call msg,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -lcmocka -o $@

# Fuzzers: clang + libFuzzer + ASan/UBSan over the library sources.
FUZZ_SRCS  := $(wildcard selftests/fuzz/fuzz_*.c)
FUZZ_BINS  := $(patsubst selftests/fuzz/%.c,$(OUT)/fuzz/%,$(FUZZ_SRCS))
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
FUZZ_LIB_OBJS := $(patsubst %.c,$(OUT)/fuzzobj/%.o,$(LIB_SRCS) $(PROTO_C) $(wildcard selftests/bpf/lib/*.c))

$(OUT)/fuzzobj/selftests/%.o: CFLAGS += $(TEST_INCLUDES)
# the BPF headers load packet fields unaligned on purpose (the verifier
# allows it where the CPU does it cheaply: x86, arm64)
$(OUT)/fuzzobj/selftests/fuzz/fuzz_pod_guard.o: FUZZ_FLAGS += -fno-sanitize=alignment

$(OUT)/fuzzobj/%.o: %.c | $(SKELS) $(PROTO_H) $(OUT)/gen/rdmanet_version.h
	$(call msg,FUZZCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(filter-out -O2 -g -Wshadow,$(CFLAGS)) $(FUZZ_FLAGS) -c $< -o $@

$(OUT)/fuzz/%: $(OUT)/fuzzobj/selftests/fuzz/%.o $(FUZZ_LIB_OBJS)
	$(call msg,FUZZLD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -fsanitize=fuzzer,address,undefined $^ $(LDLIBS) -o $@

fuzz: deps $(FUZZ_BINS)
	selftests/fuzz/run.sh $(OUT) $${FUZZ_SECONDS:-20}

fuzz-long: deps $(FUZZ_BINS)
	selftests/fuzz/run.sh $(OUT) $${FUZZ_SECONDS:-600}

# --- dependencies -------------------------------------------------------------
# Debian 12, one apt transaction (deploy/install-deps.sh). libbpf and bpftool
# come from bookworm-backports (tcx links need libbpf >= 1.3; bookworm has
# 1.1) with the uapi headers that name tcx (linux-libc-dev), and with them the elfutils libraries of the same suite: backports'
# libbpf1 needs libelf1 0.192, and bookworm's libdw1 (valgrind, strace) pins
# libelf1 to 0.188 unless libdw1 comes from backports too.

# npm: Debian's package, unless the nodejs installed bundles npm (NodeSource's
# does, and conflicts with Debian's npm package). selftests/deploy
# installs its npm packages from its lock file with `npm ci`. Defined before
# DEPS_PKGS, which := expands at once.
# kubectl (its kustomize renders deploy/): Debian's kubernetes-client,
# unless another package's kubectl is installed (they own the same file)
DEPS_KUBECTL := $(or $(shell dpkg -S "$$(command -v kubectl)" 2>/dev/null | cut -d: -f1),kubernetes-client)
DEPS_NPM := $(if $(shell dpkg -S /usr/bin/npm 2>/dev/null | grep '^nodejs:'),,npm)
# What building the binaries needs (make build-deps; the image's build
# stage), and what testing them needs on top (make deps).
BUILD_PKGS := clang-19 gcc make pkg-config binutils zlib1g-dev libxdp-dev libnl-3-dev \
	libnl-route-3-dev libnl-genl-3-dev libjansson-dev libsqlite3-dev libcurl4-openssl-dev \
	libssl-dev libibverbs-dev libgrpc-dev protobuf-c-compiler libprotobuf-c-dev libyaml-dev
BUILD_BPO_PKGS := libbpf-dev libbpf1 bpftool libelf1 libelf-dev libdw1 linux-libc-dev
DEPS_PKGS := $(BUILD_PKGS) clang llvm libcmocka-dev libclang-rt-14-dev xdp-tools \
	iproute2 iperf3 tshark tcpdump etcd-server etcd-client prometheus \
	prometheus-node-exporter containernetworking-plugins qemu-system-x86 \
	busybox-static perftest qperf rdmacm-utils rdma-core ibverbs-utils ibverbs-providers kmod cpio \
	xz-utils zstd util-linux procps psmisc curl ca-certificates jq iputils-ping \
	valgrind strace bc mount sqlite3 apparmor python3-grpcio groff-base \
	python3-grpc-tools python3-pkg-resources podman runc catatonit containerd mmdebstrap nftables $(DEPS_KUBECTL) \
	python3 nodejs $(DEPS_NPM)
DEPS_BPO_PKGS := $(BUILD_BPO_PKGS)

build-deps:
	@deploy/install-deps.sh $(BUILD_PKGS) -- $(BUILD_BPO_PKGS)

deps:
	@deploy/install-deps.sh $(DEPS_PKGS) -- $(DEPS_BPO_PKGS)

# the package list, for the test that every command the tests run is in it
print-version:
	@echo $(VERSION)

print-deps:
	@echo $(DEPS_PKGS) $(DEPS_BPO_PKGS)

check-deps:
	@command -v $(BPFTOOL) >/dev/null || { echo "bpftool missing: run 'make deps'" >&2; exit 1; }

# --- entry points -------------------------------------------------------------

test: deps
	$(MAKE) all
	$(MAKE) $(FUZZ_BINS)
	selftests/run.sh $(OUT)

# The same in a brand-new Debian 12 root built here (selftests/fresh-root.sh):
# what CI runs, and what a new user's machine sees.
test-fresh:
	selftests/fresh-root.sh make test

demo-fresh:
	selftests/fresh-root.sh make demo

bench: deps
	$(MAKE) all
	selftests/bench/run.sh $(OUT)

# The container image, built locally with podman (deploy/image/build.sh):
# IMAGE names it (default rdmanet/rdmanet:VERSION); BASE is the Debian 12
# image to start FROM (default: one made here from this machine's apt
# sources, for machines that reach no registry).
IMAGE ?= rdmanet/rdmanet:$(VERSION)
image:
	IMAGE='$(IMAGE)' BASE='$(BASE)' VERSION='$(VERSION)' GIT_COMMIT='$(GIT_COMMIT)' \
		deploy/image/build.sh

demo: deps
	$(MAKE) all
	deploy/demo.sh $(OUT)

# man pages: rdmanetctl's is printed by rdmanetctl from the tables its
# parser reads (so it lists exactly its objects, verbs and options); the
# agent's and the CNI plugin's (rdmanet, rdmanet-etcd) are written in user/ctl/man/
MAN_PAGES := $(OUT)/man/rdmanetctl.8 $(OUT)/man/rdmanetd.8 $(OUT)/man/rdmanet.8 \
	     $(OUT)/man/rdmanet-etcd.8
$(OUT)/man/rdmanetctl.8: $(OUT)/bin/rdmanetctl
	@mkdir -p $(@D)
	$< __man >$@.tmp && mv $@.tmp $@
$(OUT)/man/%.8: user/ctl/man/%.8
	@mkdir -p $(@D)
	cp $< $@

install: all $(MAN_PAGES)
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(CNI_BIN_DIR)
	install -m 0755 $(OUT)/bin/rdmanetd $(DESTDIR)$(PREFIX)/sbin/rdmanetd
	install -m 0755 $(OUT)/bin/rdmanetctl $(DESTDIR)$(PREFIX)/bin/rdmanetctl
	[ ! -x $(OUT)/bin/rdmanet-etcd ] || install -m 0755 $(OUT)/bin/rdmanet-etcd $(DESTDIR)$(CNI_BIN_DIR)/rdmanet-etcd
	[ ! -x $(OUT)/bin/rdmanet ] || install -m 0755 $(OUT)/bin/rdmanet $(DESTDIR)$(CNI_BIN_DIR)/rdmanet
	install -d $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(BASH_COMPLETION_DIR)
	install -m 0644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 user/ctl/rdmanetctl.bash $(DESTDIR)$(BASH_COMPLETION_DIR)/rdmanetctl

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/sbin/rdmanetd $(DESTDIR)$(PREFIX)/bin/rdmanetctl $(DESTDIR)$(CNI_BIN_DIR)/rdmanet
	rm -f $(DESTDIR)$(CNI_BIN_DIR)/rdmanet-etcd
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(MAN_PAGES))) $(DESTDIR)$(BASH_COMPLETION_DIR)/rdmanetctl

clean:
	rm -rf $(OUT)

-include $(shell find $(OUT)/obj $(OUT)/fuzzobj -name '*.d' 2>/dev/null)
