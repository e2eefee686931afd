#!/usr/bin/env bash
# A short libFuzzer run of nfsfaird's YAML loader for make check; make fuzz
# runs it longer (FUZZ_SECONDS).
exec "$(dirname "$0")/../fuzz/run" 10
