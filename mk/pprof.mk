# pprof export (profile/pprof.c): profile/profile.proto compiled to C with
# protoc-c (Debian protobuf-c-compiler) into $(B)/profile/, linked with
# libprotobuf-c; gzip through zlib (already in CLI_LIBS).
PPROF_GEN  := $(B)/profile/profile.pb-c.c $(B)/profile/profile.pb-c.h
PPROF_OBJS := $(B)/profile/profile.pb-c.o \
	$(filter-out $(CLI_OBJS),$(patsubst %.c,$(B)/%.o,$(wildcard profile/*.c)))
BASE_CFLAGS += -Iprofile -I$(B)/profile
CLI_LIBS += -lprotobuf-c
CLI_EXTRA_OBJS += $(PPROF_OBJS)

# Both generated files come from one protoc-c run (grouped target).
$(PPROF_GEN) &: profile/profile.proto | $(SETUP_STAMP)
	@mkdir -p $(B)/profile
	protoc-c --c_out=$(B)/profile --proto_path=profile $<

$(B)/profile/profile.pb-c.o: $(B)/profile/profile.pb-c.c $(B)/profile/profile.pb-c.h
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# Anything including the generated header waits for it.
$(filter-out $(B)/profile/profile.pb-c.o,$(PPROF_OBJS)): $(B)/profile/profile.pb-c.h
$(CLI_BIN): $(PPROF_OBJS)

# tests/unit/test_pprof encodes a profile and decodes it back.
UNIT_EXTRA_OBJS += $(PPROF_OBJS)
$(B)/tests/unit/test_pprof: $(B)/profile/profile.pb-c.h
