# annotate/: a function's time down to its source lines and instructions (profil annotate),
# over the profile component; disassembly with capstone (libcapstone-dev).
ANNOTATE_OBJS := $(patsubst %.c,$(B)/%.o,$(wildcard annotate/*.c))
COMPONENT_OBJS += $(ANNOTATE_OBJS)
CLI_LIBS += -lcapstone
