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
SUITES := $(UNIT_SUITES) tests/kunit/run $(INTEGRATION_SUITES) tests/bench/smoke.sh

.PHONY: all help deps kernel kernel-baseline export-series netlink-gen userspace check bench \
	bench-overhead bench-real-client deps-qemu kernel-smp kernel-baseline-smp kernel-debug-smp check-smp-debug bench-smp fuzz \
	demo clean distclean

all: kernel userspace

help:
	@echo "make deps             install the Debian packages nfsfair needs (as root)"
	@echo "make kernel           build the patched UML kernel ($(KERNEL))"
	@echo "make kernel-baseline  the same kernel without our series ($(KERNEL_BASELINE))"
	@echo "make export-series    write build/linux's commits back to kernel/patches/"
	@echo "make netlink-gen      regenerate the family's code from netlink-spec/nfsfair.yaml"
	@echo "make userspace        build lib/, cli/, daemon/ and tests/load/"
	@echo "make check            build what is needed and run every test suite"
	@echo "make bench            the fairness tables, baseline against nfsfair (build/bench/)"
	@echo "make bench-overhead   the dispatch path's cost, and table changes, in real time"
	@echo "make bench-real-client  a kernel NFS client walking and reading, alone and loaded"
	@echo "make kernel-smp       the patched x86_64 kernel for the qemu SMP guest"
	@echo "make kernel-baseline-smp  the same without our series"
	@echo "make kernel-debug-smp the patched x86_64 kernel with lockdep and friends"
	@echo "make check-smp-debug  the guest suites on it, 2 CPUs, then its consoles checked"
	@echo "make bench-smp        on a 2-CPU qemu guest: the XPT_BUSY case, overhead, accept cost"
	@echo "make fuzz             fuzz nfsfaird's YAML loader for FUZZ_SECONDS (600)"
	@echo "make demo             boot the patched kernel and show nfsfair at work"
	@echo "make clean            remove build products but keep the unpacked trees"
	@echo "make distclean        remove build/ entirely"

deps:
	@scripts/deps

kernel: deps
	@kernel/scripts/build-kernel nfsfair

kernel-baseline: deps
	@kernel/scripts/build-kernel baseline

deps-qemu:
	@scripts/deps qemu

kernel-smp: deps-qemu
	@kernel/scripts/build-kernel nfsfair x86_64

kernel-baseline-smp: deps-qemu
	@kernel/scripts/build-kernel baseline x86_64

kernel-debug-smp: deps-qemu
	@kernel/scripts/build-kernel nfsfair-debug x86_64

# The guest suites under real concurrency with lockdep (not timed: TCG).
check-smp-debug: kernel-debug-smp userspace
	@NFSFAIR_GUEST_RUNNER="tests/qemu/run --smp 2 --timeout 1200 --append loglevel=5 \
		--kernel build/linux/x86_64-debug/arch/x86/boot/bzImage" \
		tests/run-suites $(INTEGRATION_SUITES) tests/qemu/console-check

export-series:
	@kernel/scripts/export-series

netlink-gen:
	@kernel/scripts/gen-netlink

userspace: deps
	@set -e; for d in $(USERSPACE_DIRS); do $(MAKE) -s -C $$d; done

check: kernel kernel-baseline userspace
	@tests/run-suites $(SUITES)

bench: kernel kernel-baseline userspace
	@tests/bench/fairness $(BENCH_ARGS)

bench-overhead: kernel kernel-baseline userspace
	@tests/bench/overhead $(BENCH_ARGS)

bench-real-client: kernel kernel-baseline userspace
	@tests/bench/real-client $(BENCH_ARGS)

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

distclean:
	rm -rf build
