# pprof export (profile/pprof.c, built with the component by mk/profile.mk):
# profile/profile.proto compiled to C with protoc-c (Debian
# protobuf-c-compiler) into $(B)/profile/, linked with libprotobuf-c; gzip
# through zlib (already in CLI_LIBS).  Included as "profile/profile.pb-c.h"
# through -I$(B).
PPROF_GEN  := $(B)/profile/profile.pb-c.c $(B)/profile/profile.pb-c.h
PPROF_OBJS := $(B)/profile/profile.pb-c.o
BASE_CFLAGS += -I$(B)
CLI_LIBS += -lprotobuf-c
COMPONENT_OBJS += $(PPROF_OBJS)

# Both generated files come from one protoc-c run (grouped target).
$(PPROF_GEN) &: profile/profile.proto | $(SETUP_STAMP)
	@mkdir -p $(B)/profile
	protoc-c --c_out=$(B)/profile --proto_path=profile $<

# The generated code includes its header by its bare name.
$(B)/profile/profile.pb-c.o: $(B)/profile/profile.pb-c.c $(B)/profile/profile.pb-c.h
	$(CC) $(BASE_CFLAGS) -I$(B)/profile $(CFLAGS) -MMD -MP -c $< -o $@

# Anything including the generated header waits for it.
$(B)/profile/pprof.o $(B)/tests/unit/test_pprof: $(B)/profile/profile.pb-c.h
