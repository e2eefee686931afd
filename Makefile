# nfsfair: the one entry point. `make help` lists the targets.

SHELL := /bin/bash
KERNEL := build/linux/um/linux
KERNEL_BASELINE := build/linux-baseline/um/linux

# Userspace parts, each a directory with its own Makefile: built before
# the tests, natively; the guest runs the same binaries from hostfs.
USERSPACE_DIRS := $(dir $(wildcard lib/Makefile cli/Makefile daemon/Makefile tests/load/Makefile))

# Suites: tests/unit/*.sh run natively, tests/integration/*.sh each in a
# UML guest of their own (tests/run-suites).
UNIT_SUITES := $(sort $(wildcard tests/unit/*.sh))
INTEGRATION_SUITES := $(sort $(wildcard tests/integration/*.sh))
SUITES := $(UNIT_SUITES) tests/kunit/run $(INTEGRATION_SUITES) tests/systemd/check tests/bench/smoke.sh
# Run beside the others, from the start: its image waits on Debian's
# mirror, its qemu guest on a throttled disk and one CPU.
ALONGSIDE_SUITES := tests/debian/check

.PHONY: all help deps kernel kernel-baseline export-series split-series netlink-gen userspace check bench \
	bench-overhead bench-enqueues bench-appends bench-real-client bench-dispatch-cost kernel-deb deps-qemu kernel-smp kernel-baseline-smp kernel-debug-smp check-smp-debug bench-smp fuzz \
	kernel-kasan-um check-unload-kasan kernel-kasan-smp kernel-kcsan-smp check-smp-kasan check-smp-kcsan soak-smp modules \
	demo clean distclean check-debian12 check-debian13 check-debian13-bpo kernel-6.12 check-6.12

all: kernel userspace

help:
	@echo "make deps             install the Debian packages nfsfair needs (as root)"
	@echo "make kernel           build the patched UML kernel ($(KERNEL))"
	@echo "make kernel-baseline  the same kernel without our series ($(KERNEL_BASELINE))"
	@echo "make kernel-6.12      the series' 6.12 backport, what nfsfair-dkms builds (build/linux-6.12/um/linux)"
	@echo "make check-6.12       the UML suites booted on it (make check boots the series on 7.3)"
	@echo "make export-series    write build/linux's commits back to kernel/patches/ (NFSFAIR_KERNEL=6.12: build/linux-6.12 to kernel/backport-6.12/)"
	@echo "make split-series     write the series patch by patch from kernel/split/ into build/linux-split (kernel/split/README.md)"
	@echo "make netlink-gen      regenerate the family's code from netlink-spec/nfsfair.yaml"
	@echo "make userspace        build lib/, cli/, daemon/ and tests/load/"
	@echo "make tools            build nfsfair-ctl and nfsfaird only: no kernel, no make deps"
	@echo "make install          install them, their man pages, the bash completion, the"
	@echo "                      systemd units, a config naming no class (kept if there),"
	@echo "                      the commented example under DOCDIR=$(DOCDIR)"
	@echo "                      and the Prometheus rules in DATADIR/nfsfair/prometheus/,"
	@echo "                      each under DESTDIR: PREFIX=$(PREFIX), SBINDIR=$(SBINDIR),"
	@echo "                      DATADIR=$(DATADIR),"
	@echo "                      MANDIR=$(MANDIR),"
	@echo "                      BASHCOMPDIR=$(BASHCOMPDIR),"
	@echo "                      SYSTEMDUNITDIR=$(SYSTEMDUNITDIR),"
	@echo "                      SYSCONFDIR=$(SYSCONFDIR) (/etc if PREFIX=/usr, else PREFIX/etc);"
	@echo "                      CFLAGS, CPPFLAGS and LDFLAGS from the environment are added"
	@echo "make deb              the Debian packages nfsfair-tools and nfsfair-dkms in build/deb/, lintian-clean"
	@echo "make check            build what is needed and run every test suite"
	@echo "make check-debian12   the stock-server suite on Debian 12, packages built on this host"
	@echo "make check-debian13   the same on Debian 13 (what make check boots), packages built in a trixie chroot"
	@echo "make check-debian13-bpo  the same on Debian 13 with trixie-backports' 7.3 kernel (the 7.3 series)"
	@echo "make check-churn      netns-churn.sh's full 200 namespace cycles (make check: 40)"
	@echo "make bench            the fairness and thread-time tables, baseline against nfsfair, then"
	@echo "                      the dispatch-cost rows (ns per dispatch, a bare clock read beside)"
	@echo "make bench-overhead   the dispatch path's cost, and table changes, in real time"
	@echo "make bench-enqueues   svc_xprt_enqueue() calls per RPC, and how many were no-ops (tracepoints)"
	@echo "make bench-appends    1000 single rule appends against 1000 table-gets, UML and, when"
	@echo "                      built (make kernel-smp), the 2-CPU qemu guest"
	@echo "make bench-real-client  a kernel NFS client walking and reading, alone and loaded"
	@echo "make bench-dispatch-cost  ns per dispatch, fair path against the single queue (KUnit, native)"
	@echo "                      (BENCH_ARGS=--clients: among 1, 64 and 4096 busy clients)"
	@echo "make kernel-smp       the patched x86_64 kernel for the qemu SMP guest"
	@echo "make kernel-baseline-smp  the same without our series"
	@echo "make kernel-debug-smp the patched x86_64 kernel with lockdep and friends"
	@echo "make modules          the modular build: sunrpc, nfsd and the 12 other modules that"
	@echo "                      import from sunrpc, against Debian's kernel headers (what"
	@echo "                      nfsfair-dkms builds), in build/modules/"
	@echo "make kernel-deb       an x86_64 linux-image .deb: Debian's config plus the series (hours)"
	@echo "make check-smp-debug  the guest suites on it, 2 CPUs, then its consoles checked"
	@echo "make check-smp-kasan  the same on a KASAN kernel (kernel-kasan-smp)"
	@echo "make check-smp-kcsan  the same on a KCSAN kernel (kernel-kcsan-smp); any data"
	@echo "                      race in nfsfair's code fails (SMP_SUITES= picks suites;"
	@echo "                      RESUME=1 continues a list cut short, same kernel and tree)"
	@echo "make kernel-kasan-um  a KASAN UML kernel with sunrpc, nfsd and the NFS client as modules"
	@echo "make check-unload-kasan  unload them on it with tables, classes and clients live, twice"
	@echo "make soak-smp         10 minutes of churn and table changes under load on the"
	@echo "                      debug SMP guest, throughput each second (SOAK_SECONDS=)"
	@echo "make bench-smp        on a 2-CPU qemu guest: the XPT_BUSY case, overhead, accept cost"
	@echo "make fuzz             fuzz the YAML loader, the restore file and the command line, FUZZ_SECONDS (600) each"
	@echo "make demo             boot the patched kernel and show nfsfair at work"
	@echo "make clean            remove build products but keep the unpacked trees"
	@echo "make distclean        remove build/ entirely"

deps:
	@scripts/deps

kernel: deps
	@kernel/scripts/build-kernel nfsfair

kernel-baseline: deps
	@kernel/scripts/build-kernel baseline

# The 6.12 backport (kernel/backport-6.12; make kernel builds the series
# on Linux 7.3): its UML kernel, and the UML suites booted on it.
kernel-6.12: deps
	@NFSFAIR_KERNEL=6.12 kernel/scripts/build-kernel nfsfair

check-6.12: userspace kernel-6.12
	@NFSFAIR_UML_KERNEL=build/linux-6.12/um/linux NFSFAIR_TEST_LOGS=build/test-logs-6.12 \
		tests/run-suites tests/kunit/run $(INTEGRATION_SUITES) tests/systemd/check

modules: deps
	@kernel/scripts/build-modules

deps-qemu:
	@scripts/deps qemu

kernel-smp: deps-qemu
	@kernel/scripts/build-kernel nfsfair x86_64

kernel-baseline-smp: deps-qemu
	@kernel/scripts/build-kernel baseline x86_64

kernel-debug-smp: deps-qemu
	@kernel/scripts/build-kernel nfsfair-debug x86_64

# Not in make check: a distribution kernel takes hours on 2 cores.
# Our make's variables must not reach the kernel's debian/rules: with
# them its make fails at include/config/kernel.release.
kernel-deb:
	@scripts/deps kernel-deb
	@env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL kernel/scripts/build-deb

kernel-kasan-smp: deps-qemu
	@kernel/scripts/build-kernel nfsfair-kasan x86_64

kernel-kcsan-smp: deps-qemu
	@kernel/scripts/build-kernel nfsfair-kcsan x86_64

# The guest suites under real concurrency on a checking kernel (lockdep,
# KASAN or KCSAN; not timed: TCG), each flavour's logs in a directory of
# its own, then every guest's console checked. RCU's stall warning waits
# 120 s, not 21: a TCG guest on a busy 2-core host (KASAN's booted with
# ACPI's parser starved for 21 s) is not a kernel stall. A suite's guest
# gets 20 minutes on the debug kernel and two hours on the sanitizers
# (ipv6-flood's 5000 connections took over 40 minutes on KASAN, and ran
# out of an hour beside a fresh clone's make check: its /64 phase alone
# 27 minutes).
# Not the suites marked "# guest-only: uml" (exact figures in time-travel).
SMP_SUITES ?= $(filter-out $(shell grep -l '^\# guest-only: uml' $(INTEGRATION_SUITES)),$(INTEGRATION_SUITES))
# Each finished suite is kept under the kernel and tree it ran on
# (tests/qemu/list-key); RESUME=1 continues a list a session cut short
# instead of starting it over: the suites it finished are not run again.
smp_kernel = build/linux/x86_64-$(1)/arch/x86/boot/bzImage
# The lists run QEMU 10 from bookworm-backports, not Debian 12's 7.2, whose
# multi-threaded TCG can kill a guest at a patched static key ("Text
# patching" in tests/qemu/run): a whole list met it in one suite of 19.
smp_check = $(if $(RESUME),,rm -rf build/test-logs/smp-$(1) &&) \
	key=$$(tests/qemu/list-key $(smp_kernel)) && \
	qemu=$$(scripts/qemu-backports) && NFSFAIR_QEMU=$$qemu \
	NFSFAIR_TEST_LOGS=build/test-logs/smp-$(1) \
	NFSFAIR_GUEST_RUNNER="tests/qemu/run --smp 2 --timeout $(2) \
		--append loglevel=5 --append rcupdate.rcu_cpu_stall_timeout=120 \
		--kernel $(smp_kernel)" \
	tests/run-suites --resume "$$key" $(SMP_SUITES) tests/qemu/console-check

check-smp-debug: kernel-debug-smp userspace
	@$(call smp_check,debug,1200)

check-smp-kasan: kernel-kasan-smp userspace
	@$(call smp_check,kasan,7200)

check-smp-kcsan: kernel-kcsan-smp userspace
	@$(call smp_check,kcsan,7200)

# Not in make check: a third UML kernel to build (KASAN, modular).
kernel-kasan-um: deps
	@kernel/scripts/build-kernel nfsfair-kasan um

check-unload-kasan: kernel-kasan-um userspace
	@tests/uml/run --kernel build/linux/um-kasan/linux --mem 1G --timeout 1800 \
		tests/unload/kasan-unload.sh

# Not in make check: ten minutes of guest time and more under TCG.
SOAK_SECONDS ?= 600
soak-smp: kernel-debug-smp userspace
	@tests/bench/soak $(SOAK_SECONDS)

export-series:
	@kernel/scripts/export-series

split-series:
	@kernel/scripts/split-series

netlink-gen:
	@kernel/scripts/gen-netlink

userspace: deps
	@set -e; for d in $(USERSPACE_DIRS); do $(MAKE) -s -C $$d; done

# The alongside suite needs only the packages: it starts first, and the
# UML kernels build while it fetches and builds its image. The modular
# build is the image's own DKMS build (make modules: the same, alone).
check: userspace deb
	@tests/run-suites $(addprefix --alongside ,$(ALONGSIDE_SUITES)) \
		--before '$(MAKE) -s kernel kernel-baseline' $(SUITES)

# make check's stock server is Debian 13, today's stable (tests/debian/check);
# Debian 12, oldstable, keeps a target of its own. Both by name:
check-debian12: deb
	@tests/debian/check --release 12

check-debian13:
	@tests/debian/check --release 13

# Not in make check: a second image and three more boots (say the time
# in the closing note).
check-debian13-bpo:
	@tests/debian/check --release 13 --kernel 7.3

# The suite's own guest-args line, then a longer timeout (the last wins), 200 cycles.
# A hung cycle is the suite's watchdog's to report (after 120 s, with every
# task's stack); the guest's timeout is only a backstop: 200 cycles took
# over 40 minutes here beside a fresh clone's make check and a series build.
check-churn: kernel userspace
	@tests/uml/run $$(sed -n 's/^# guest-args: //p' tests/integration/netns-churn.sh) --timeout 4800 \
		tests/integration/netns-churn.sh 200

bench: kernel kernel-baseline userspace
	@tests/bench/fairness $(BENCH_ARGS)
	@tests/bench/dispatch-cost

bench-overhead: kernel kernel-baseline userspace
	@tests/bench/overhead $(BENCH_ARGS)

bench-enqueues: kernel kernel-baseline userspace
	@tests/bench/enqueues-per-rpc $(BENCH_ARGS)

bench-appends: kernel
	@tests/bench/single-appends $(BENCH_ARGS)

bench-real-client: kernel kernel-baseline userspace
	@tests/bench/real-client $(BENCH_ARGS)

bench-dispatch-cost: kernel
	@tests/bench/dispatch-cost $(BENCH_ARGS)

bench-smp: kernel-smp kernel-baseline-smp userspace
	@tests/bench/smp $(BENCH_ARGS)

FUZZ_SECONDS ?= 600
fuzz: userspace
	@tests/fuzz/run $(FUZZ_SECONDS)

demo: kernel kernel-baseline userspace
	@demo/run

clean:
	rm -rf build/test-logs build/uml-runs
	@for d in $(USERSPACE_DIRS); do $(MAKE) -s -C $$d clean; done
	[ ! -d build/linux/um ] || $(MAKE) -s -C build/linux O=um ARCH=um clean
	[ ! -d build/linux-baseline/um ] || $(MAKE) -s -C build/linux-baseline O=um ARCH=um clean
	[ ! -d build/linux/x86_64 ] || $(MAKE) -s -C build/linux O=x86_64 ARCH=x86_64 clean
	[ ! -d build/linux-baseline/x86_64 ] || $(MAKE) -s -C build/linux-baseline O=x86_64 ARCH=x86_64 clean
	[ ! -d build/linux/x86_64-debug ] || $(MAKE) -s -C build/linux O=x86_64-debug ARCH=x86_64 clean

# Not rm -rf: a make check stopped in the Debian image's chroot leaves
# the host's /dev bound under build/.
distclean:
	scripts/remove-tree build

# make install: the tools for other distributions; make deb uses it with
# PREFIX=/usr. The config goes under /etc for a system install, else
# beside the rest, and nfsfaird.service is told where. An existing config
# is kept: a reinstall must not undo the admin's edits.
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
DOCDIR ?= $(PREFIX)/share/doc/nfsfair-tools
# prometheus/nfsfair-rules.yml goes to $(DATADIR)/nfsfair/prometheus/.
DATADIR ?= $(PREFIX)/share
TOOLS_DIRS := lib cli daemon
UNITS = $(wildcard systemd/*.service systemd/*.timer)
# The units name /usr/sbin/ and /etc/nfsfair/: make them name ours.
UNIT_SED = -e 's|=/usr/sbin/|=$(SBINDIR)/|' $(if $(filter /etc,$(SYSCONFDIR)),, \
	-e '/^ExecStart=[^ ]*\/nfsfaird /s|$$| -c $(SYSCONFDIR)/nfsfair/nfsfair.yaml -d $(SYSCONFDIR)/nfsfair/conf.d|')
CONFIG = $(DESTDIR)$(SYSCONFDIR)/nfsfair/nfsfair.yaml

.PHONY: tools install deb

# Without make deps: a package build must not install packages.
tools:
	@set -e; for d in $(TOOLS_DIRS); do $(MAKE) -C $$d; done

install: tools
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(SYSTEMDUNITDIR) $(dir $(CONFIG)) \
		$(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DATADIR)/nfsfair/prometheus
	install -m 755 cli/nfsfair-ctl daemon/nfsfaird $(DESTDIR)$(SBINDIR)/
	install -m 644 cli/nfsfair-ctl.8 daemon/nfsfaird.8 $(DESTDIR)$(MANDIR)/man8/
	install -m 644 daemon/nfsfair.yaml.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 644 cli/nfsfair-ctl.bash-completion $(DESTDIR)$(BASHCOMPDIR)/nfsfair-ctl
	@set -e; for u in $(UNITS); do \
		sed $(UNIT_SED) $$u > $(DESTDIR)$(SYSTEMDUNITDIR)/$${u##*/}; \
		chmod 644 $(DESTDIR)$(SYSTEMDUNITDIR)/$${u##*/}; \
	done
	@grep -q '^ExecStart=$(SBINDIR)/nfsfaird ' $(DESTDIR)$(SYSTEMDUNITDIR)/nfsfaird.service || \
		{ echo "make install: nfsfaird.service's ExecStart was not rewritten" >&2; exit 1; }
	@if [ -e $(CONFIG) ]; then echo "make install: keeping the existing $(CONFIG)"; \
	else install -m 644 etc/nfsfair-installed.yaml $(CONFIG); fi
	install -m 644 etc/nfsfair.yaml $(DESTDIR)$(DOCDIR)/examples/nfsfair.yaml
	install -m 644 prometheus/nfsfair-rules.yml $(DESTDIR)$(DATADIR)/nfsfair/prometheus/

# Reused when the tree is unchanged; two makes at once take turns.
deb: deps
	@scripts/build-packages

# A guest suite installs the package: tests/integration/deb.sh.
check check-smp-debug check-smp-kasan check-smp-kcsan: deb
