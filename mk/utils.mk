# utils/: what several components share, and nothing else: the hash table
# (htab), the -errno + sentence convention (why), the option-error
# convention of every subcommand (opts) and the one way to open an output
# (outfile).  utils/why.o and utils/outfile.o are also linked into the agent.
UTILS_OBJS := $(patsubst %.c,$(B)/%.o,$(wildcard utils/*.c))
COMPONENT_OBJS += $(UTILS_OBJS)
