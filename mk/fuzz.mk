# Fuzzing (tests/fuzz/): libFuzzer targets, one file per target (tests/fuzz/fuzz_NAME.c), each
# with a seed corpus (tests/fuzz/corpus/NAME/).
#
#   make fuzz     builds the targets with clang -fsanitize=fuzzer,address,undefined (in
#                 $(B)/fuzz, the code under test instrumented too) and runs each for
#                 FUZZ_SECONDS (default 60) from its seeds; prints executions and coverage per
#                 target; fails on a crash, keeping the input in $(B)/fuzz/artifacts/.  A crash
#                 input, once fixed, goes into tests/fuzz/corpus/NAME/: a regression test.
#   make check    replays every corpus file through the same targets built as plain programs
#                 with the build's own compiler (tests/fuzz/replay.c; under ASan+UBSan in
#                 ci-extra): tests/e2e/fuzz_corpus.sh.
#
# A target links every object of the profil command but its main() (cmds/profil.o), the
# agent's ELF note reader (agent/build_id.o, fuzzed by fuzz_elf) and its unwinder
# (agent/unwind.o, frame_cache.o, cfi_check.o: fuzz_agent_unwind).
FUZZ_TARGETS := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SECONDS ?= 60
FUZZ_B       := $(B)/fuzz
FUZZ_SRCS    := tests/fuzz/input_file.c
FUZZ_DEPS    := $(FUZZ_SRCS) $(wildcard tests/fuzz/*.h)
FUZZ_LINK    = $(filter-out $(B)/cmds/profil.o,$(CMDS_OBJS)) $(COMPONENT_OBJS) \
	$(B)/agent/build_id.o $(B)/agent/unwind.o $(B)/agent/frame_cache.o $(B)/agent/cfi_check.o \
	$(LIB_A)
FUZZ_SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer

.PHONY: fuzz fuzz-build
FUZZ_REPLAY := $(FUZZ_TARGETS:%=$(B)/tests/fuzz/replay_%)
tests: $(FUZZ_REPLAY)

$(B)/tests/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(FUZZ_DEPS) $$(FUZZ_LINK) \
		| $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -Itests/fuzz -o $@ $< tests/fuzz/replay.c $(FUZZ_SRCS) \
		$(FUZZ_LINK) $(BASE_LDFLAGS) $(CLI_LIBS) $(LIB_LIBS)

# The libFuzzer binaries, built by the inner make of `make fuzz` (B=$(FUZZ_B), CC=clang).
fuzz-build: $(FUZZ_TARGETS:%=$(B)/tests/fuzz/fuzz_%)

$(B)/tests/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_DEPS) $$(FUZZ_LINK) | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -fsanitize=fuzzer -Itests/fuzz -o $@ $< $(FUZZ_SRCS) \
		$(FUZZ_LINK) $(BASE_LDFLAGS) -fsanitize=fuzzer $(CLI_LIBS) $(LIB_LIBS)

fuzz: $(SETUP_STAMP)
	$(MAKE) --no-print-directory B=$(FUZZ_B) CC=clang CFLAGS="-O1 -g" \
		SANITIZE="$(FUZZ_SANITIZE) -fsanitize=fuzzer-no-link" fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/run.sh $(FUZZ_B) $(FUZZ_TARGETS)
