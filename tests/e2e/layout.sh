#!/bin/sh
# The layout of the tree (doc/architecture.md), checked on the sources and on
# the built objects:
#  - cmds/ is thin: no perf_event, BPF, ELF or DWARF header, no call into
#    those libraries, and from the components only their interface headers
#    (record/record.h, output/output.h, annotate/annotate.h, events/, utils/);
#  - the components depend one way (the layers of doc/architecture.md):
#    cmds -> live -> record -> events -> output -> annotate -> report -> symbols ->
#    profile -> utils, record -> unwind -> utils; agent -> profile/pdata.h, lib;
#    bpf -> events/events.h; lib on nothing of ours;
#  - no circle: no file includes itself through others, and no object calls
#    into an object that calls back into it (directly or round a loop);
#  - no function over 100 lines (split it into named steps).
. "$ROOT/tests/lib.sh"

cd "$ROOT" || exit 1

# check NAME FILE-OF-VIOLATIONS: ok when empty
check() {
	if [ -s "$2" ]; then no "$1" "$(head -5 "$2" | tr '\n' ';')"; else ok "$1"; fi
}

# the product's folders, top layer first
COMPONENTS="cmds live record events output annotate report symbols unwind profile utils agent lib bpf"
SRCS=$(for c in $COMPONENTS; do git ls-files "$c/*.[ch]" "$c/*/*.[ch]"; done; git ls-files 'include/*.h')

# every include as "FILE INCLUDED" (quoted includes resolved as the compiler does:
# the including file's folder, then -Iinclude -Ilib -I.; generated headers are left out)
for f in $SRCS; do
	d=$(dirname "$f")
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*\(["<][^">]*[">]\).*/\1/p' "$f" |
		while read -r inc; do
			name=$(echo "$inc" | sed 's/^.\(.*\).$/\1/')
			case "$inc" in
			\<*)
				echo "$f <$name>"
				continue
				;;
			esac
			for cand in "$d/$name" "include/$name" "lib/$name" "$name"; do
				if [ -f "$cand" ]; then
					echo "$f $(echo "$cand" | sed 's|^\./||; s|/\./|/|g')"
					break
				fi
			done
		done
done >"$T/includes"
[ -s "$T/includes" ] || no includes_read "no include found in $(echo "$SRCS" | wc -w) files"

# --- cmds/ is thin --------------------------------------------------------------------
grep -E '^cmds/[^ ]* <(linux/perf_event\.h|bpf/.*|libelf\.h|gelf\.h|elfutils/.*|dwarf\.h|libdw\.h)>$' \
	"$T/includes" >"$T/v"
check cmds_no_perf_bpf_elf_headers "$T/v"
grep -E '^cmds/[^ ]* (record/|profile/|symbols/|report/|output/|unwind/|annotate/|live/)' "$T/includes" |
	grep -vE ' (record/record\.h|output/output\.h|annotate/annotate\.h|live/live\.h)$' >"$T/v"
check cmds_use_component_interfaces "$T/v"
grep -E '^cmds/[^ ]* (lib/|agent/|bpf/)' "$T/includes" >"$T/v"
check cmds_no_lib_agent_bpf_internals "$T/v"

# --- one-way dependencies -------------------------------------------------------------
# forbidden FROM-FOLDER TARGET-REGEX: no file of FROM includes a file matching TARGET
forbidden() {
	grep -E "^$1/[^ ]* ($2)" "$T/includes"
}
{
	forbidden utils 'annotate/|cmds/|live/|record/|events/|output/|report/|symbols/|unwind/|profile/|agent/|bpf/|lib/'
	forbidden profile 'annotate/|cmds/|live/|record/|events/|output/|report/|symbols/|unwind/|agent/|bpf/|lib/'
	forbidden symbols 'annotate/|cmds/|live/|record/|events/|output/|report/|unwind/|profile/|agent/|bpf/|lib/'
	forbidden unwind 'annotate/|cmds/|live/|record/|events/|output/|report/|symbols/|profile/|agent/|lib/'
	forbidden unwind 'bpf/' | grep -v ' bpf/kunwind\.h$'
	forbidden report 'annotate/|cmds/|live/|record/|events/|output/|unwind/|agent/|bpf/|lib/'
	forbidden output 'cmds/|live/|record/|events/|unwind/|agent/|bpf/|lib/'
	forbidden annotate 'cmds/|live/|record/|events/|output/|unwind/|agent/|bpf/|lib/'
	forbidden events 'annotate/|cmds/|live/|record/|output/|report/|symbols/|unwind/|agent/'
	forbidden events 'profile/' | grep -v ' profile/pdata\.h$'
	forbidden events 'bpf/' | grep -v ' bpf/watch\.h$'
	forbidden events 'lib/' | grep -vE ' lib/(callmsg|env)\.h$'
	forbidden live 'annotate/|cmds/|output/|unwind/|agent/|bpf/|lib/|events/'
	forbidden live 'record/' | grep -v ' record/record\.h$'
	forbidden record 'annotate/|cmds/|live/|output/|report/|symbols/'
	forbidden record 'unwind/' | grep -vE ' unwind/unwind(_bpf)?\.h$'
	forbidden record 'agent/' | grep -v ' agent/agent_env\.h$'
	forbidden record 'bpf/' | grep -vE ' bpf/(histclock|procacct|kunwind|offcpu)\.h$'
	forbidden record 'lib/'
	forbidden agent 'annotate/|cmds/|live/|record/|events/|output/|report/|symbols/|unwind/|bpf/'
	forbidden agent 'profile/' | grep -v ' profile/pdata\.h$'
	forbidden lib 'annotate/|cmds/|live/|record/|events/|output/|report/|symbols/|unwind/|profile/|utils/|agent/|bpf/'
	forbidden bpf 'annotate/|cmds/|live/|record/|output/|report/|symbols/|unwind/|profile/|utils/|agent/|lib/'
	forbidden bpf 'events/' | grep -v ' events/events\.h$'
} >"$T/v"
check dependencies_one_way "$T/v"

# --- no folder holds more than a quarter of the product's C lines ------------------
for c in $COMPONENTS; do
	n=$(git ls-files "$c/*.[ch]" "$c/*/*.[ch]" | grep -v '\.bpf\.c$' | xargs cat 2>/dev/null | wc -l)
	echo "$c $n"
done | awk '{ n[$1] = $2; all += $2 } END { for (c in n) if (n[c] * 4 > all) printf "%s: %d of %d lines\n", c, n[c], all }' >"$T/v"
check no_folder_over_a_quarter "$T/v"

# --- small functions: none over 100 lines ------------------------------------------------
# Kernel style: a definition starts at column 0 and its body's braces stand at column 0, so
# a function runs from its first line to the "}" that closes it.
for f in $SRCS; do
	case "$f" in *.c) echo "$f" ;; esac
done | xargs awk -v max=100 '
	FNR == 1 { head = ""; body = 0 }
	/^[A-Za-z_].*\(/ && !/;[ \t]*$/ && !body { head = $0; start = FNR }
	/^\{/ && head != "" { body = 1; next }
	/^\}/ && body {
		if (FNR - start + 1 > max)
			printf "%s:%d: %s: %d lines\n", FILENAME, start, head, FNR - start + 1
		body = 0
		head = ""
	}' >"$T/v"
check no_function_over_100_lines "$T/v"

# --- no circle ------------------------------------------------------------------------
# find_cycle < "A B" edges: prints one cycle "A -> B -> ... -> A", or nothing
find_cycle() {
	awk '
	{ n = ++deg[$1]; adj[$1, n] = $2; node[$1] = 1; node[$2] = 1 }
	function visit(v,    i, w) {
		state[v] = 1
		path[++depth] = v
		for (i = 1; i <= deg[v]; i++) {
			w = adj[v, i]
			if (state[w] == 1) {
				for (k = 1; k <= depth && path[k] != w; k++)
					;
				for (; k <= depth; k++)
					printf "%s -> ", path[k]
				print w
				found = 1
				exit
			}
			if (!state[w])
				visit(w)
		}
		depth--
		state[v] = 2
	}
	END {
		if (found)
			exit
		for (v in node)
			if (!state[v])
				visit(v)
	}'
}

grep -v ' <' "$T/includes" | awk '$1 != $2' >"$T/inc_edges"
find_cycle <"$T/inc_edges" >"$T/v"
check no_include_circle "$T/v"

# objects: A -> B when A uses a symbol B defines (objects whose source is gone are stale: left out)
OBJS=$(for c in $(for d in cmds live record events output annotate report symbols unwind profile utils; do git ls-files "$d/*.c"; done); do
	[ -f "$B/${c%.c}.o" ] && echo "$B/${c%.c}.o"
done)
if [ -z "$OBJS" ]; then
	echo "skip layout_objects: no objects under $B (make first)"
	exit 0
fi
for o in $OBJS; do
	rel=${o#"$B"/}
	nm --defined-only -g "$o" | awk -v f="$rel" 'NF == 3 { print $3, f }'
done | sort >"$T/defs"
for o in $OBJS; do
	rel=${o#"$B"/}
	nm -u "$o" | awk -v f="$rel" '{ print $NF, f }'
done | sort >"$T/uses"
join "$T/uses" "$T/defs" | awk '$2 != $3 { print $2, $3 }' | sort -u >"$T/call_edges"
[ -s "$T/call_edges" ] || no object_calls_read "no call between the objects of $B"
find_cycle <"$T/call_edges" >"$T/v"
check no_call_circle "$T/v"

# cmds/ objects call no perf_event, BPF, ELF or DWARF function themselves
for o in $OBJS; do
	case "$o" in "$B"/cmds/*) ;; *) continue ;; esac
	nm -u "$o" | awk -v f="${o#"$B"/}" \
		'$NF ~ /^(elf_|elf32_|elf64_|gelf_|dwarf_|dwfl_|dwelf_|bpf_|libbpf_|ring_buffer__|perf_event_|syscall$|ioctl$)/ { print f, $NF }'
done >"$T/v"
check cmds_call_no_perf_bpf_elf "$T/v"
