#!/bin/sh
# profil record, perf clock: fork, exec, fork+exec through a shell, --no-inherit.
. "$ROOT/tests/e2e/record/common.sh"

if ! perf_usable; then
	skip record_children "perf_event_open is refused here (the fallback is tested in record_fallback)"
	exit 0
fi

# fork: two proc records, the child's parent is the command
RECORD_TRUTH=$T/fork.truth "$P" record -q -o fork.data -- "$PROGS/record_prog" fork
"$DUMP" fork.data >fork.txt
root=$(awk '$1=="proc" && $2=="id=1" {print $2}' fork.txt)
child=$(awk '$1=="proc" && $3=="parent=1" {split($2,a,"="); print a[2]; exit}' fork.txt)
[ -n "$root" ] && [ -n "$child" ]
expect fork_child_record "$(grep '^proc' fork.txt | tr '\n' ' ')"
cs=$(fsamples fork.data child_spin "$child")
ps=$(fsamples fork.data parent_spin 1)
cs_in_root=$(fsamples fork.data child_spin 1)
p=$(hdr fork.data period_ns)
tc=$(truth fork.truth child_spin)
tp=$(truth fork.truth parent_spin)
# each process with the samples its measured CPU time is worth (within 15 %)
near $((cs * p)) "$tc" $((tc * 15 / 100)) && near $((ps * p)) "$tp" $((tp * 15 / 100)) && [ "$cs_in_root" -le 2 ]
expect fork_samples_per_process "child_spin in child=$cs (measured ${tc}ns), parent_spin in parent=$ps (${tp}ns), child_spin in parent=$cs_in_root"
grep -q "^map proc=$child .*record_prog" fork.txt
expect fork_child_inherits_mappings "no mapping of record_prog for the child"

# exec in the same process: a new image, its parent the previous one, which ended by exec
"$P" record -q -o exec.data -- "$PROGS/record_prog" exec "$PROGS/record_prog_nopie"
"$DUMP" exec.data >exec.txt
awk '$1=="proc" {n++; if ($2=="id=1" && $6=="end_kind=3") first=1;
	if ($2=="id=2" && $3=="parent=1" && $0 ~ /record_prog_nopie$/) second=1 }
	END { exit !(n == 2 && first && second) }' exec.txt
expect exec_new_image "$(grep '^proc' exec.txt | tr '\n' ' ')"
a1=$(fsamples exec.data hot_a 1)
a2=$(fsamples exec.data hot_a 2)
b2=$(fsamples exec.data hot_b 2)
[ "$a1" -ge 20 ] && [ "$a2" -ge 50 ] && [ "$b2" -ge 10 ]
expect exec_samples_per_image "hot_a: first image $a1, second $a2; hot_b second $b2"

# a shell running the program twice: each run is its own process image
"$P" record -q -o sh.data -- sh -c "$PROGS/record_prog hot; $PROGS/record_prog hot"
"$DUMP" sh.data >sh.txt
ids=$(awk '$1=="proc" && $NF ~ /record_prog$/ { split($2,a,"="); print a[2] }' sh.txt)
n=0
for id in $ids; do
	s=$(fsamples sh.data hot_a "$id")
	parent=$(awk -v id="id=$id" '$1=="proc" && $2==id { split($3,a,"="); print a[2] }' sh.txt)
	pexe=$(awk -v id="id=$parent" '$1=="proc" && $2==id { print $NF }' sh.txt)
	case "$pexe" in *sh | *dash | *bash) [ "$s" -ge 50 ] && n=$((n + 1)) ;; esac
done
[ $n -eq 2 ]
expect shell_fork_exec_chain "$n images of record_prog with samples and a shell parent: $(grep '^proc' sh.txt | tr '\n' ' ')"

# --no-inherit: threads are followed, children are not
"$P" record -q --no-inherit -o ni.data -- "$PROGS/record_prog" fork
nproc=$("$DUMP" ni.data | grep -c '^proc ')
cs=$(fsamples ni.data child_spin)
ps=$(fsamples ni.data parent_spin)
[ "$nproc" -eq 1 ] && [ "$cs" -eq 0 ] && [ "$ps" -ge 50 ]
expect no_inherit_skips_children "procs=$nproc child_spin=$cs parent_spin=$ps"
"$P" record -q --no-inherit -o nit.data -- "$PROGS/record_prog" threads
n=$("$DUMP" nit.data | awk -v t="$(hdr nit.data samples)" '$1=="tid" { split($4,a,"="); if (a[2] >= t*0.15) n++ } END {print n+0}')
[ "$n" -eq 4 ]
expect no_inherit_follows_threads "$n threads with samples, expected 4"
# PDATA_F_INHERIT is bit 0 (bit 2, PDATA_F_KERNEL, says whether the kernel was sampled)
[ $(($(hdr nit.data flags) & 1)) = 0 ] && [ $(($(hdr fork.data flags) & 1)) = 1 ]
expect inherit_flag "flags: no-inherit $(hdr nit.data flags), default $(hdr fork.data flags)"
