#!/bin/sh
# Call stacks in profil report and export, on profiles with stacks written by
# report_stackgen (tests/progs/report_stackgen.c) through the pdata API over its
# own real code:
#  - synthetic: exact numbers.  report --children (self and total, recursion
#    counted once per sample, kernel frames, [truncated], [unknown]), the caller
#    and callee trees with thresholds, --callers/--callees, --threads, --lines,
#    CSV, the JSON stacks (schema: report_jsoncheck), export --format folded
#    byte-exact, the HTML page's stack rows; errors in one sentence;
#  - the merged view: the whole run's --children table (per command, by
#    function over the images, by object), its trees, filters, --percent-limit
#    as the trees' threshold, text and CSV (per image, under --images, the
#    numbers are the same as before the whole run came first);
#  - deep: a stack of 300 frames is its innermost 255 under [truncated];
#  - real: stacks taken by the program itself with backtrace(): report
#    --children, and `gprof -q` printing a call graph from the exported gmon.out
#    of a program built without -pg;
#  - go tool pprof -top -cum and -traces agree with report --children and the
#    folded stacks;
#  - a flat profile: total equals self, and no stack fields in its JSON.
. "$ROOT/tests/e2e/report/common.sh"
G="$P/report_stackgen"
J="$TOOLS/report_jsoncheck"

# same NAME FILE_GOT FILE_WANT: the files are equal (a diff on failure)
same() {
	if cmp -s "$2" "$3"; then
		ok "$1"
	else
		no "$1" "$(diff "$3" "$2" | head -20 | tr '\n' '|')"
	fi
}
# fails_saying NAME STATUS WANT_STDERR CMD...: that exit status, that one line on stderr, no stdout
fails_saying() {
	name=$1 want_rc=$2 want_err=$3
	shift 3
	"$@" >"$T/fo" 2>"$T/fe"
	rc=$?
	if [ "$rc" -eq "$want_rc" ] && [ "$(cat "$T/fe")" = "$want_err" ] && [ ! -s "$T/fo" ]; then
		ok "$name"
	else
		no "$name" "status $rc, stderr '$(cat "$T/fe")', stdout $(wc -c <"$T/fo") bytes"
	fi
}

# ---- synthetic ------------------------------------------------------------------------
"$G" "$T/s.data" synthetic >"$T/s.info" || { no gen_synthetic "report_stackgen failed"; exit 0; }
pid=$(awk '$1 == "pid" { print $2 }' "$T/s.info")
worker=$(awk '$1 == "worker" { print $2 }' "$T/s.info")
child=$(awk '$1 == "child" { print $2 }' "$T/s.info")
# the listing of report_jsoncheck with the ids as P (process and main thread), W, K
norm() { sed -e "s/\b$pid\b/P/g; s/\b$worker\b/W/g; s/\b$child\b/K/g"; }
json() { "$PROFIL" report -i "$T/s.data" --format json "$@" >"$T/r.json" && "$J" "$T/r.json" | norm; }

json --children >"$T/children"
expect children_schema "$(grep -c '^schema' "$T/children")" 0
expect stacks_header "$(grep '^stacks ' "$T/children")" "stacks dwarf 8 0"
grep '^total ' "$T/children" >"$T/got"
cat >"$T/want" <<'EOF'
total P 0 142 cg_main
total P 10 120 cg_run
total P 50 72 cg_hot_a
total P 50 50 cg_leaf
total P 43 43 cg_hot_b
total P 0 40 cg_worker
total P 25 25 cg_rec
total P 12 12 k_write
total P 0 12 k_entry
total P 0 8 [truncated]
total P 0 5 [unknown]
total K 20 20 cg_hot_b
total K 0 20 cg_main
EOF
same "children: self and total of every function (recursion once per sample)" "$T/got" "$T/want"
grep '^func P' "$T/children" | awk '$6 == "k_write" || $6 == "k_entry" { print $6, $7 }' >"$T/got"
printf 'k_write [kernel]\nk_entry [kernel]\n' >"$T/want"
same "children: kernel frames named by the profile's kernel symbols" "$T/got" "$T/want"
# the flat report is unchanged: self samples per function as without --children
json >"$T/flat"
grep '^func ' "$T/flat" | awk '{ print $2, $3, $6 }' | sort >"$T/got"
grep '^total ' "$T/children" | awk '$3 > 0 { print $2, $3, $5 }' | sort >"$T/want"
same "children: self equals the flat report's samples" "$T/got" "$T/want"

# the stacks themselves, root first (T: cut short)
grep '^stack ' "$T/children" >"$T/got"
cat >"$T/want" <<'EOF'
stack P P 50 - cg_main;cg_run;cg_hot_a
stack P P 30 - cg_main;cg_run;cg_hot_b
stack P P 25 - cg_main;cg_rec;cg_rec;cg_rec
stack P P 12 - cg_main;cg_run;cg_hot_a;k_entry;k_write
stack P P 10 - cg_main;cg_run
stack P P 10 - cg_main;cg_run;cg_hot_a;cg_leaf
stack P P 8 T [truncated];cg_run;cg_hot_b
stack P P 5 - cg_main;[unknown];cg_hot_b
stack P W 40 - cg_worker;cg_leaf
stack K K 20 - cg_main;cg_hot_b
EOF
same "json: the stacks of every thread, root first" "$T/got" "$T/want"

# text: the --children table of each image (--images: the whole run's comes first, its
# last column is the function, an image's the object)
"$PROFIL" report -i "$T/s.data" --children --images >"$T/children.txt"
expect text_children_row "$(awk '$NF == "report_stackgen" && $7 == "cg_run" { print $1, $2, $3, $4, $5, $6 }' "$T/children.txt" | head -1)" \
	"63.16 5.26 0.120 0.010 120 10"
expect text_call_stacks_line "$(grep '^# call stacks' "$T/children.txt")" \
	"# call stacks: dwarf; 8 samples cut short (their outer callers are [truncated]), 0 counted without their stack (frame table full)"
"$PROFIL" report -i "$T/s.data" --children --images --top 3 >"$T/top.txt"
expect children_top "$(awk '$NF == "report_stackgen" { print $7 }' "$T/top.txt" | tr '\n' ' ')" \
	"cg_main cg_run cg_hot_a cg_hot_b cg_main "

# the caller tree, every node (threshold 0)
json -g caller,0 | grep -E '^(graph|node) P ' >"$T/got"
cat >"$T/want" <<'EOF'
graph P caller 0 190
node P 0 142 0 cg_main
node P 1 112 10 cg_run
node P 2 72 50 cg_hot_a
node P 3 12 0 k_entry
node P 4 12 12 k_write
node P 3 10 10 cg_leaf
node P 2 30 30 cg_hot_b
node P 1 25 0 cg_rec
node P 2 25 0 cg_rec
node P 3 25 25 cg_rec
node P 1 5 0 [unknown]
node P 2 5 5 cg_hot_b
node P 0 40 0 cg_worker
node P 1 40 40 cg_leaf
node P 0 8 0 [truncated]
node P 1 8 0 cg_run
node P 2 8 8 cg_hot_b
EOF
same "caller tree (top-down), all nodes" "$T/got" "$T/want"
# the callee tree at 5%: nodes under 9.5 of the process's 190 samples are left out
json -g callee,5 | grep -E '^(graph|node) P ' >"$T/got"
cat >"$T/want" <<'EOF'
graph P callee 5 190
node P 0 50 0 cg_hot_a
node P 1 50 0 cg_run
node P 2 50 50 cg_main
node P 0 50 0 cg_leaf
node P 1 40 40 cg_worker
node P 1 10 0 cg_hot_a
node P 2 10 0 cg_run
node P 3 10 10 cg_main
node P 0 43 0 cg_hot_b
node P 1 38 0 cg_run
node P 2 30 30 cg_main
node P 0 25 0 cg_rec
node P 1 25 0 cg_rec
node P 2 25 0 cg_rec
node P 3 25 25 cg_main
node P 0 12 0 k_write
node P 1 12 0 k_entry
node P 2 12 0 cg_hot_a
node P 3 12 0 cg_run
node P 4 12 12 cg_main
node P 0 10 0 cg_run
node P 1 10 10 cg_main
EOF
same "callee tree (bottom-up) with a 5% threshold" "$T/got" "$T/want"
# the default threshold is perf's 0.5%
expect default_threshold "$(json -g caller | grep '^graph P')" "graph P caller 0.5 190"

# callers and callees of one function; cg_rec's recursion counts each sample once
json --callers cg_hot_b --callees cg_rec >"$T/focus"
grep -vE '^(run|time|whole|row|stacks|proc|image|func|thread|stack) |^[a-z]+ run ' "$T/focus" |
	grep -v '/' >"$T/got"
cat >"$T/want" <<'EOF'
callers P cg_hot_b 43 43 22.63
node P 1 38 0 cg_run
node P 2 30 30 cg_main
node P 2 8 8 [truncated]
node P 1 5 0 [unknown]
node P 2 5 5 cg_main
callees P cg_rec 25 25 13.16
node P 1 25 0 cg_rec
node P 2 25 25 cg_rec
callers K cg_hot_b 20 20 100.00
node K 1 20 20 cg_main
callees K cg_rec 0 0 0.00
EOF
same "callers and callees of a function (recursive cg_rec)" "$T/got" "$T/want"
"$PROFIL" report -i "$T/s.data" --callers cg_hot_b --images >"$T/callers.txt"
sed -n "/^process $pid:/,/^process /p" "$T/callers.txt" | sed '1d;$d' >"$T/got"
cat >"$T/want" <<'EOF'

 callers (outwards) of cg_hot_b, nodes of at least 0.5% of the process's samples:
   %total    samples  function
   22.63%         43  cg_hot_b (self 43)
   20.00%         38    cg_run
   15.79%         30      cg_main
    4.21%          8      [truncated]
    2.63%          5    [unknown]
    2.63%          5      cg_main

EOF
same "text: the callers tree" "$T/got" "$T/want"
expect text_focus_absent "$("$PROFIL" report -i "$T/s.data" --callees cg_worker --images | grep -c 'cg_worker is on no stack here')" 1

# --threads: per thread, percent of the process
json --children --threads -g caller,0 >"$T/threads"
expect thread_worker_totals "$(grep '^ttotal P W' "$T/threads" | tr '\n' '|')" \
	"ttotal P W 40 40 cg_leaf|ttotal P W 0 40 cg_worker|"
expect thread_worker_graph "$(grep -E '^(graph|node) P/W ' "$T/threads" | tr '\n' '|')" \
	"graph P/W caller 0 40|node P/W 0 40 0 cg_worker|node P/W 1 40 40 cg_leaf|"
expect thread_main_total "$(grep '^ttotal P P .* cg_main$' "$T/threads")" "ttotal P P 0 142 cg_main"

# ---- the merged view: the whole run's --children table and trees -----------------------
# The whole run merges every image's samples by the report's keys (default comm, dso,
# sym; perf report's): a row's total is the samples whose stack holds it, once per
# sample, summed over the images the row covers.  Listing: rows with "total=", trees
# of the whole run as "graph run" / "node run" / "callers run"; objects as base names.
runrows() { "$J" "$T/r.json" | grep -E "^(whole|row) " | sed 's|object=[^ ]*/|object=|' | norm; }
json --children >/dev/null
runrows >"$T/got"
cat >"$T/want" <<'EOF2'
whole comm,dso,sym total 0.2100 0.2100 0 0.0000
row sampled 0 0.00 0.0000 comm=stackgen object=report_stackgen name=cg_main total=142
row sampled 10 4.76 0.0100 comm=stackgen object=report_stackgen name=cg_run total=120
row sampled 50 23.81 0.0500 comm=stackgen object=report_stackgen name=cg_hot_a total=72
row sampled 43 20.48 0.0430 comm=stackgen object=report_stackgen name=cg_hot_b total=43
row sampled 40 19.05 0.0400 comm=worker object=report_stackgen name=cg_leaf total=40
row sampled 0 0.00 0.0000 comm=worker object=report_stackgen name=cg_worker total=40
row sampled 25 11.90 0.0250 comm=stackgen object=report_stackgen name=cg_rec total=25
row sampled 20 9.52 0.0200 comm=stackgen-kid object=report_stackgen name=cg_hot_b total=20
row sampled 0 0.00 0.0000 comm=stackgen-kid object=report_stackgen name=cg_main total=20
row sampled 12 5.71 0.0120 comm=stackgen object=[kernel] name=k_write total=12
row sampled 0 0.00 0.0000 comm=stackgen object=[kernel] name=k_entry total=12
row sampled 10 4.76 0.0100 comm=stackgen object=report_stackgen name=cg_leaf total=10
row sampled 0 0.00 0.0000 comm=stackgen object=[truncated] name=[truncated] total=8
row sampled 0 0.00 0.0000 comm=stackgen object=[unknown] name=[unknown] total=5
EOF2
same "merged --children: totals per command, object and function, most total first" "$T/got" "$T/want"
# by function alone: cg_main of both images (142 + 20), cg_hot_b's self of both (43 + 20),
# cg_leaf of both threads (10 + 40)
json --children --sort sym >/dev/null
runrows >"$T/got"
cat >"$T/want" <<'EOF2'
whole sym total 0.2100 0.2100 0 0.0000
row sampled 0 0.00 0.0000 object=report_stackgen name=cg_main total=162
row sampled 10 4.76 0.0100 object=report_stackgen name=cg_run total=120
row sampled 50 23.81 0.0500 object=report_stackgen name=cg_hot_a total=72
row sampled 63 30.00 0.0630 object=report_stackgen name=cg_hot_b total=63
row sampled 50 23.81 0.0500 object=report_stackgen name=cg_leaf total=50
row sampled 0 0.00 0.0000 object=report_stackgen name=cg_worker total=40
row sampled 25 11.90 0.0250 object=report_stackgen name=cg_rec total=25
row sampled 12 5.71 0.0120 object=[kernel] name=k_write total=12
row sampled 0 0.00 0.0000 object=[kernel] name=k_entry total=12
row sampled 0 0.00 0.0000 object=[truncated] name=[truncated] total=8
row sampled 0 0.00 0.0000 object=[unknown] name=[unknown] total=5
EOF2
same "merged --children --sort sym: totals summed over the images" "$T/got" "$T/want"
# by object: every sample has a frame of the executable (210), 12 pass through the kernel
json --children --sort dso >/dev/null
expect merged_children_dso "$(runrows | grep '^row' | tr '\n' '|')" \
	"row sampled 198 94.29 0.1980 object=report_stackgen total=210|row sampled 12 5.71 0.0120 object=[kernel] total=12|row sampled 0 0.00 0.0000 object=[truncated] total=8|row sampled 0 0.00 0.0000 object=[unknown] total=5|"
# filters: --pid and --comm keep samples; --dso keeps rows (the frames in the object)
json --children --pid "$child" >/dev/null
expect merged_children_pid "$(runrows | tr '\n' '|')" \
	"whole comm,dso,sym total 0.2100 0.0200 0 0.0000|row sampled 20 9.52 0.0200 comm=stackgen-kid object=report_stackgen name=cg_hot_b total=20|row sampled 0 0.00 0.0000 comm=stackgen-kid object=report_stackgen name=cg_main total=20|"
json --children --dso '[kernel]' >/dev/null
expect merged_children_dso_filter "$(runrows | grep '^row' | tr '\n' '|')" \
	"row sampled 12 5.71 0.0120 comm=stackgen object=[kernel] name=k_write total=12|row sampled 0 0.00 0.0000 comm=stackgen object=[kernel] name=k_entry total=12|"
expect merged_tree_comm "$(json -g caller,0 --comm worker | grep -E '^(graph|node) run' | tr '\n' '|')" \
	"graph run caller 0 40|node run 0 40 0 cg_worker|node run 1 40 40 cg_leaf|"

# the whole run's caller tree: cg_main of both images is one node (142 + 20)
json -g caller,0 | grep -E '^(graph|node) run' >"$T/got"
cat >"$T/want" <<'EOF2'
graph run caller 0 210
node run 0 162 0 cg_main
node run 1 112 10 cg_run
node run 2 72 50 cg_hot_a
node run 3 12 0 k_entry
node run 4 12 12 k_write
node run 3 10 10 cg_leaf
node run 2 30 30 cg_hot_b
node run 1 25 0 cg_rec
node run 2 25 0 cg_rec
node run 3 25 25 cg_rec
node run 1 20 20 cg_hot_b
node run 1 5 0 [unknown]
node run 2 5 5 cg_hot_b
node run 0 40 0 cg_worker
node run 1 40 40 cg_leaf
node run 0 8 0 [truncated]
node run 1 8 0 cg_run
node run 2 8 8 cg_hot_b
EOF2
same "merged caller tree of the whole run, all nodes" "$T/got" "$T/want"
# the callee tree at 5% of the run's 210 samples: nodes under 10.5 are left out
json -g callee,5 | grep -E '^(graph|node) run' >"$T/got"
cat >"$T/want" <<'EOF2'
graph run callee 5 210
node run 0 63 0 cg_hot_b
node run 1 38 0 cg_run
node run 2 30 30 cg_main
node run 1 20 20 cg_main
node run 0 50 0 cg_hot_a
node run 1 50 0 cg_run
node run 2 50 50 cg_main
node run 0 50 0 cg_leaf
node run 1 40 40 cg_worker
node run 0 25 0 cg_rec
node run 1 25 0 cg_rec
node run 2 25 0 cg_rec
node run 3 25 25 cg_main
node run 0 12 0 k_write
node run 1 12 0 k_entry
node run 2 12 0 cg_hot_a
node run 3 12 0 cg_run
node run 4 12 12 cg_main
EOF2
same "merged callee tree of the whole run at 5%" "$T/got" "$T/want"
grep -E '^[a-z]+ run ' "$T/focus" >"$T/got"
cat >"$T/want" <<'EOF2'
callers run cg_hot_b 63 63 30.00
node run 1 38 0 cg_run
node run 2 30 30 cg_main
node run 2 8 8 [truncated]
node run 1 20 20 cg_main
node run 1 5 0 [unknown]
node run 2 5 5 cg_main
callees run cg_rec 25 25 11.90
node run 1 25 0 cg_rec
node run 2 25 25 cg_rec
EOF2
same "merged callers and callees of the whole run" "$T/got" "$T/want"
# --percent-limit: rows under 10% of the run (by total) are left out, and it is the trees'
# threshold when -g gives none (as perf's): nodes under 21 of 210 samples
json --children -g caller --percent-limit 10 >"$T/limit"
expect merged_limit_rows "$(grep -E '^whole' "$T/limit") $(grep -c '^row' "$T/limit")" \
	"whole comm,dso,sym total 0.2100 0.2100 7 0.0420 7"
expect merged_limit_tree "$(grep -E '^(graph|node) run' "$T/limit" | awk '{ print $3 ":" $4 ":" $NF }' | tr '\n' ' ')" \
	"caller:10:210 0:162:cg_main 1:112:cg_run 2:72:cg_hot_a 2:30:cg_hot_b 1:25:cg_rec 2:25:cg_rec 3:25:cg_rec 0:40:cg_worker 1:40:cg_leaf "
expect merged_limit_given "$(json -g caller,0 --percent-limit 10 | grep '^graph run')" "graph run caller 0 210"
# text: the whole run's table with total beside self, then its tree
"$PROFIL" report -i "$T/s.data" --children -g caller >"$T/merged.txt"
expect text_merged_header "$(grep -A1 '^whole run' "$T/merged.txt" | tr -s ' ' | tr '\n' '|')" \
	"whole run: 0.210 s; %time is the share of the whole run (rows by comm,dso,sym, most total first)| %total %self total s self s total self command object function|"
expect text_merged_rows "$(awk '$7 == "stackgen-kid" || ($7 == "worker" && $NF == "cg_worker") { print $1, $2, $3, $4, $5, $6, $7, $NF }' "$T/merged.txt" | tr '\n' '|')" \
	"19.05 0.00 0.040 0.000 40 0 worker cg_worker|9.52 9.52 0.020 0.020 20 20 stackgen-kid cg_hot_b|9.52 0.00 0.020 0.000 20 0 stackgen-kid cg_main|"
expect text_merged_tree "$(sed -n '/^ call graph, caller order/,/^$/p' "$T/merged.txt" | head -4 | tr -s ' ' | tr '\n' '|')" \
	" call graph, caller order (top-down: from the outermost callers inwards), nodes of at least 0.5% of the run's samples:| %total samples function| 77.14% 162 cg_main| 53.33% 112 cg_run|"
# a filter keeps samples; the percentages stay shares of the whole run (40 of 210)
expect text_merged_tree_filtered "$("$PROFIL" report -i "$T/s.data" -g caller --comm worker | sed -n '/^ call graph/,$p' | tail -2 | tr -s ' ' | tr '\n' '|')" \
	" 19.05% 40 cg_worker| 19.05% 40 cg_leaf|"
expect text_merged_no_images "$(grep -c '^process ' "$T/merged.txt")" 0
# CSV of the whole run (--sort KEYS): the totals after the kind
"$PROFIL" report -i "$T/s.data" --format csv --sort sym --children >"$T/run.csv"
expect csv_run_header "$(head -1 "$T/run.csv")" \
	"function,object,samples,percent,self_seconds,kind,total_samples,total_percent,total_seconds"
expect csv_run_row "$(grep '^cg_main,' "$T/run.csv" | cut -d, -f1,3-)" "cg_main,0,0.0000,0.000000,sampled,162,77.1429,0.162000"

# --lines: the frames are the flat report's rows, split by source line
json --children --lines >"$T/lines"
src=$(cd "$ROOT" && pwd)/tests/progs/report_stackgen.c
for f in cg_main cg_run cg_hot_a; do
	line=$(grep -n "^WORK($f," "$src" | cut -d: -f1)
	expect "lines_$f" "$(awk -v f="$f" '$1 == "func" && $2 == "P" && $6 == f { n = split($8, p, "/"); print p[n], $9 }' "$T/lines")" \
		"report_stackgen.c $line"
done

# CSV: the totals after the flat columns
"$PROFIL" report -i "$T/s.data" --format csv --children >"$T/c.csv"
expect csv_header "$(head -1 "$T/c.csv")" \
	"pid,exe,function,object,samples,percent,self_seconds,total_samples,total_percent,total_seconds"
expect csv_row "$(grep ",cg_run," "$T/c.csv" | cut -d, -f3,5-)" "cg_run,10,5.2632,0.010000,120,63.1579,0.120000"

# folded: byte-exact; the command name first, root first, sorted, summed
"$PROFIL" export --format folded -i "$T/s.data" -o "$T/s.folded" 2>"$T/err"
expect folded_status "$?" 0
expect folded_summary "$(cat "$T/err")" \
	"profil export: $T/s.folded: 210 samples in 10 distinct stacks; read it with: flamegraph.pl $T/s.folded > flame.svg"
cat >"$T/want" <<'EOF'
stackgen-kid;cg_main;cg_hot_b 20
stackgen;[truncated];cg_run;cg_hot_b 8
stackgen;cg_main;[unknown];cg_hot_b 5
stackgen;cg_main;cg_rec;cg_rec;cg_rec 25
stackgen;cg_main;cg_run 10
stackgen;cg_main;cg_run;cg_hot_a 50
stackgen;cg_main;cg_run;cg_hot_a;cg_leaf 10
stackgen;cg_main;cg_run;cg_hot_a;k_entry;k_write 12
stackgen;cg_main;cg_run;cg_hot_b 30
stackgen;cg_worker;cg_leaf 40
EOF
same "folded stacks, byte-exact" "$T/s.folded" "$T/want"
"$PROFIL" export --format folded -i "$T/s.data" -o - >"$T/stdout.folded" 2>"$T/err"
same "folded to stdout" "$T/stdout.folded" "$T/want"
expect folded_stdout_quiet "$(cat "$T/err")" ""

# the HTML page: one row per (thread, stack), the same stacks
"$PROFIL" report -i "$T/s.data" --format html -o "$T/s.html" || no html "report --format html failed"
page_data "$T/s.html" |
	python3 -c '
import json, sys
d = json.load(sys.stdin)
comm = {0: "stackgen", 1: "stackgen-kid"}
out = {}
for r in d["samples"]:
    t = d["threads"][r[0]]
    names = [d["frames"][i]["name"] for i in r[2:]]
    k = ";".join([comm.get(t["proc"], "?")] + names[::-1])
    out[k] = out.get(k, 0) + r[1]
for k in sorted(out):
    print(k, out[k])
' >"$T/got" 2>&1
same "html: the page holds the stacks" "$T/got" "$T/want"

# ---- errors -----------------------------------------------------------------------------
fails_saying callers_unknown 1 "profil report: $T/s.data: no function named 'nope' in the profile" \
	"$PROFIL" report -i "$T/s.data" --callers nope
fails_saying callees_unknown_json 1 "profil report: $T/s.data: no function named 'nope' in the profile" \
	"$PROFIL" report -i "$T/s.data" --format json --callees nope
fails_saying call_graph_order 2 "profil report: --call-graph wants caller or callee, optionally with ,PERCENT (e.g. caller,0.5), not 'sideways'" \
	"$PROFIL" report -i "$T/s.data" -g sideways
fails_saying call_graph_percent 2 "profil report: --call-graph: the threshold must be a percentage from 0 to 100, not '101'" \
	"$PROFIL" report -i "$T/s.data" --call-graph caller,101
fails_saying call_graph_percent_junk 2 "profil report: --call-graph: the threshold must be a percentage from 0 to 100, not '1x'" \
	"$PROFIL" report -i "$T/s.data" --call-graph callee,1x
refuse="profil report: --children, --call-graph, --callers and --callees are for text and json (csv: --children); the html page shows totals and stacks itself"
fails_saying html_children 2 "$refuse" "$PROFIL" report -i "$T/s.data" --format html -o "$T/x.html" --children
fails_saying csv_graph 2 "$refuse" "$PROFIL" report -i "$T/s.data" --format csv -g caller
fails_saying call_graph_needs_value 2 "profil report: option '--call-graph' needs a value (try 'profil report --help')" \
	"$PROFIL" report -i "$T/s.data" --call-graph

# ---- deep: a stack longer than the format keeps -------------------------------------
"$G" "$T/d.data" deep >/dev/null || no gen_deep "report_stackgen failed"
json_d() { "$PROFIL" report -i "$T/d.data" --format json "$@" >"$T/d.json" && "$J" "$T/d.json"; }
expect deep_totals "$(json_d --children | awk '$1 == "total" { print $3, $4, $5 }' | tr '\n' '|')" \
	"7 7 cg_rec|0 7 [truncated]|"
"$PROFIL" export --format folded -i "$T/d.data" -o - >"$T/d.folded"
expect deep_folded "$(awk -F';' '{ print NF, $1, $2, $3, $NF }' "$T/d.folded")" \
	"257 stackgen [truncated] cg_rec cg_rec 7"

# ---- a flat profile: totals equal self, and its JSON has no stack fields ------------------
"$P/report_gen_pie" "$T/f.data" >/dev/null || no gen_flat "report_gen failed"
"$PROFIL" report -i "$T/f.data" --format json >"$T/f.json"
expect flat_json_no_stacks "$(grep -c '"stacks"\|"frames"' "$T/f.json")" 0
expect flat_json_callgraph "$("$J" "$T/f.json" | grep '^stacks')" "stacks none 0 0"
"$PROFIL" report -i "$T/f.data" --format json --children >"$T/fc.json"
"$J" "$T/fc.json" >"$T/fc.list"
expect flat_children_schema "$(grep -c '^schema' "$T/fc.list")" 0
expect flat_total_is_self "$(awk '$1 == "total" && $3 != $4' "$T/fc.list" | wc -l) $(grep -c '^total ' "$T/fc.list")" \
	"0 $("$J" "$T/f.json" | grep -c '^func ')"
expect flat_note "$("$PROFIL" report -i "$T/f.data" --children | grep '^# call stacks')" \
	"# call stacks: none (a flat profile: each sample is its leaf alone, so total equals self)"
expect flat_text_no_note "$("$PROFIL" report -i "$T/f.data" | grep -c '^# call stacks')" 0

# ---- real stacks: report and gprof's call graph ----------------------------------------
"$G" "$T/r.data" real >/dev/null || no gen_real "report_stackgen failed"
"$PROFIL" report -i "$T/r.data" --format json --children -g caller,0 >"$T/real.json"
"$J" "$T/real.json" >"$T/real.list"
expect real_schema "$(grep -c '^schema' "$T/real.list")" 0
awk '$1 == "total" && $5 ~ /^(main|_start|real_|cg_)/ { print $3, $4, $5 }' "$T/real.list" | sort -k3 >"$T/got"
cat >"$T/want" <<'EOF'
0 600 _start
0 600 main
300 300 real_leaf_a
200 200 real_leaf_b
0 300 real_mid
100 100 real_rec
0 600 real_top
EOF
same "real stacks: totals and self" "$T/got" "$T/want"
# (the process's tree; the whole run's, "node run", is the same here: one process)
expect real_path "$(awk '$1 == "node" && $2 != "run" && $6 ~ /^(main|real_)/ { print $3 ":" $6 }' "$T/real.list" | tr '\n' ' ')" \
	"$(awk '$1 == "node" && $2 != "run" && $6 == "main" { print $3 ":main" }' "$T/real.list") $(awk '$1 == "node" && $2 != "run" && $6 == "main" { d = $3 + 1; print d ":real_top " d + 1 ":real_mid " d + 2 ":real_leaf_a " d + 1 ":real_leaf_b " d + 1 ":real_rec " d + 2 ":real_rec " d + 3 ":real_rec" }' "$T/real.list") "
expect real_run_tree "$(awk '$1 == "node" && $2 == "run" { print $3, $4, $6 }' "$T/real.list" | md5sum)" \
	"$(awk '$1 == "node" && $2 != "run" { print $3, $4, $6 }' "$T/real.list" | md5sum)"

if command -v gprof >/dev/null; then
	"$PROFIL" export -i "$T/r.data" -o "$T/r.gmon" 2>"$T/err"
	grep -q "600 samples of .*report_stackgen at 1000 Hz (0 elsewhere left out), 6 call-graph arcs;" "$T/err" &&
		ok gmon_arcs_summary || no gmon_arcs_summary "$(cat "$T/err")"
	gprof -b -q "$G" "$T/r.gmon" >"$T/q.txt" 2>"$T/q.err"
	expect gprof_q_status "$?" 0
	# the primary line of each function: [index] %time self children called name
	prim() { awk -v f="$1" '$1 ~ /^\[[0-9]+\]$/ && $(NF - 1) == f { print $2, $3, $4, $5 }' "$T/q.txt"; }
	expect gprof_real_top "$(prim real_top)" "100.0 0.00 0.60 600"
	expect gprof_real_mid "$(prim real_mid)" "50.0 0.00 0.30 300"
	expect gprof_real_leaf_a "$(prim real_leaf_a)" "50.0 0.30 0.00 300"
	expect gprof_real_rec_recursion "$(prim real_rec)" "16.7 0.10 0.00 100+100"
	# the arcs: real_mid calls real_leaf_a in all 300 of its samples
	expect gprof_arc "$(awk '/^\[[0-9]+\].* real_leaf_a \[/ { print prev } { prev = $0 }' "$T/q.txt" | awk '{ print $3, $4 }')" \
		"300/300 real_mid"
	# the flat profile is unchanged
	expect gprof_flat_leaf_a "$(gprof -b -p "$G" "$T/r.gmon" | awk '$NF == "real_leaf_a" { print $3 }')" 0.30
	# a flat profile: no arcs, the file as before
	"$PROFIL" export -i "$T/f.data" -o "$T/f.gmon" 2>"$T/err"
	grep -q "call-graph arcs" "$T/err" && no flat_no_arcs "$(cat "$T/err")" || ok flat_no_arcs
else
	echo "skip gprof_call_graph: gprof (binutils) is not installed"
fi

# ---- go tool pprof agrees ---------------------------------------------------------------
if ! go_offline; then
	echo "skip pprof_stacks: go (golang-go) is not installed"
	exit 0
fi
for d in s r; do
	"$PROFIL" export --format pprof -i "$T/$d.data" -o "$T/$d.pb.gz" 2>/dev/null ||
		no "pprof_export_$d" "export failed"
	# -top -cum: "NAME FLAT CUM" against report --children merged over the processes
	go tool pprof -top -cum -sample_index=samples -nodefraction=0 -edgefraction=0 \
		-nodecount=1000 "$T/$d.pb.gz" 2>"$T/pp.err" |
		awk 'go && NF >= 6 { n = $6; for (i = 7; i <= NF; i++) n = n " " $i; print n, $1, $4 }
			/^ *flat  *flat%/ { go = 1 }' | sort >"$T/got"
	"$PROFIL" report -i "$T/$d.data" --format json --children >"$T/$d.cj"
	"$J" "$T/$d.cj" | awk '$1 == "total" { n = $5; for (i = 6; i <= NF; i++) n = n " " $i;
		s[n] += $3; t[n] += $4 } END { for (n in s) print n, s[n], t[n] }' | sort >"$T/want"
	same "pprof -top -cum agrees with report --children ($d)" "$T/got" "$T/want"
	# -traces: every stack with its samples, as the folded stacks (without the command)
	go tool pprof -traces -sample_index=samples "$T/$d.pb.gz" 2>>"$T/pp.err" | python3 -c '
import re, sys
out, stack, count = {}, [], None
def flush():
    if count is not None:
        k = ";".join(stack[::-1])
        out[k] = out.get(k, 0) + count
for line in sys.stdin:
    if line.startswith("-----------+"):
        flush(); stack, count = [], None
        continue
    m = re.match(r"^\s+(\d+)\s{3}(\S.*)$", line.rstrip("\n"))
    if m and count is None:
        count = int(m.group(1)); stack.append(m.group(2).strip()); continue
    m = re.match(r"^\s{13}(\S.*)$", line.rstrip("\n"))
    if m and count is not None:
        stack.append(m.group(1).strip())
flush()
for k in out:
    print(k, out[k])
' | sort >"$T/got"
	"$PROFIL" export --format folded -i "$T/$d.data" -o - | sed 's/^[^;]*;//' |
		awk '{ c = $NF; $NF = ""; sub(/ $/, ""); s[$0] += c } END { for (k in s) print k, s[k] }' |
		sort >"$T/want"
	if [ -s "$T/want" ] && cmp -s "$T/got" "$T/want"; then
		ok "pprof -traces agrees with the folded stacks ($d, $(wc -l <"$T/want") stacks)"
	else
		no "pprof_traces_$d" "$(diff "$T/want" "$T/got" | head -10 | tr '\n' '|') $(head -3 "$T/pp.err")"
	fi
done
exit 0
