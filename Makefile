# nfsfair: the one entry point. `make help` lists the targets.

SHELL := /bin/bash
KERNEL := build/linux/um/linux
KERNEL_BASELINE := build/linux-baseline/um/linux

INTEGRATION_SUITES := $(sort $(wildcard tests/integration/*.sh))

SUITES := tests/kunit/run $(INTEGRATION_SUITES)

.PHONY: all help deps kernel kernel-baseline export-series netlink-gen check demo clean distclean

all: kernel

help:
	@echo "make deps             install the Debian packages nfsfair needs (as root)"
	@echo "make kernel           build the patched UML kernel ($(KERNEL))"
	@echo "make kernel-baseline  the same kernel without our series ($(KERNEL_BASELINE))"
	@echo "make export-series    write build/linux's commits back to kernel/patches/"
	@echo "make netlink-gen      regenerate the family's code from netlink-spec/nfsfair.yaml"
	@echo "make check            build what is needed and run every test suite"
	@echo "make demo             boot the patched kernel and show nfsfair at work"
	@echo "make clean            remove build products but keep the unpacked trees"
	@echo "make distclean        remove build/ entirely"

deps:
	@scripts/deps

kernel: deps
	@kernel/scripts/build-kernel nfsfair

kernel-baseline: deps
	@kernel/scripts/build-kernel baseline

export-series:
	@kernel/scripts/export-series

netlink-gen:
	@kernel/scripts/gen-netlink

check: kernel
	@tests/run-suites $(SUITES)

demo: kernel
	@demo/run

clean:
	rm -rf build/test-logs build/uml-runs
	[ ! -d build/linux/um ] || $(MAKE) -s -C build/linux O=um ARCH=um clean
	[ ! -d build/linux-baseline/um ] || $(MAKE) -s -C build/linux-baseline O=um ARCH=um clean

distclean:
	rm -rf build
