# utils/: what several components share, and nothing else: the hash table
# (htab), the -errno + sentence convention (why) and the option-error
# convention of every subcommand (opts).  utils/why.o is also linked into the agent.
UTILS_OBJS := $(patsubst %.c,$(B)/%.o,$(wildcard utils/*.c))
COMPONENT_OBJS += $(UTILS_OBJS)
