# profile/: the profile file (format and writer: pdata; reader: pview),
# symbolisation (elfutils), the report's model and every exporter (gmon.out).
# profile/pdata.o is also linked into the agent (mk/agent.mk).
PROFILE_OBJS := $(patsubst %.c,$(B)/%.o,$(wildcard profile/*.c))
COMPONENT_OBJS += $(PROFILE_OBJS)
CLI_LIBS += -lelf -ldw -llzma -liberty
