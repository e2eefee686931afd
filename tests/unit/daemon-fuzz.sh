#!/usr/bin/env bash
# A short libFuzzer run of each target (nfsfaird's YAML loader, the restore
# parser, nfsfair-ctl's arguments) for make check; make fuzz runs them
# longer (FUZZ_SECONDS).
exec "$(dirname "$0")/../fuzz/run" 10
