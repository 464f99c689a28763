#!/bin/sh
# bash completion (completion/profil.bash): it registers itself for profil, and
# completing (COMP_WORDS/COMP_CWORD as bash sets them) gives the subcommands,
# every option of each command's --help, files for -i/-o, commands after
# `record --`, pids, and the values of --format, --clock, --sort and --event,
# which must be exactly the values the commands accept (read from their
# error messages, so a value added to a command but not here fails).
. "$ROOT/tests/lib.sh"

C="$ROOT/completion/profil.bash"
mkdir "$T/w"
cd "$T/w" || exit 1

if ! command -v bash >/dev/null; then
	echo "skip completion: bash is not installed"
	exit 0
fi

# complete WORD...: what completing the last word offers, sorted, one line
complete_words() {
	bash -c '
		. "$1"
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		_profil
		printf "%s\n" "${COMPREPLY[@]}"' bash "$C" "$@" 2>"$T/bash.err" | sort -u | tr '\n' ' ' | sed 's/ $//'
	[ -s "$T/bash.err" ] && echo " [stderr: $(head -2 "$T/bash.err")]"
}
# the words a command's error message lists: "(a, b or c)" or "is a or b, not"
accepted() {
	"$PROFIL" "$@" 2>&1 >/dev/null </dev/null | sed -n -e 's/.*(\([^()]*\))$/\1/p' -e 's/.* is \(.*\), not .*/\1/p' |
		sed 's/, / /g; s/ or / /g' | tr ' ' '\n' | sort -u | tr '\n' ' ' | sed 's/ $//'
}

out=$(bash -c '. "$1"; complete -p profil' bash "$C" 2>&1)
expect registered "$out" "complete -F _profil profil"

cmds=$("$PROFIL" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' | sort | tr '\n' ' ' | sed 's/ $//')
expect subcommands "$(complete_words "$PROFIL" '')" "$cmds"
expect subcommand_prefix "$(complete_words "$PROFIL" re)" "record report"
expect help_commands "$(complete_words "$PROFIL" help '')" "$cmds"
expect top_options "$(complete_words "$PROFIL" --)" "--help --version"

# every long option of every command's --help, and --help itself
for c in record report export events watch diff; do
	want=$( ("$PROFIL" $c --help | grep -oE '^ {2,6}(-[A-Za-z], )?--[a-z][a-z0-9-]*' | grep -oE -- '--[a-z][a-z0-9-]*'; echo --help) | sort -u)
	got=$(complete_words "$PROFIL" $c --)
	missing=""
	for o in $want; do
		case " $got " in *" $o "*) ;; *) missing="$missing $o" ;; esac
	done
	if [ -z "$missing" ]; then ok "options_$c"; else no "options_$c" "missing$missing (got: $got)"; fi
done

# option values: exactly what the command accepts
value() {
	name=$1 cmd=$2 opt=$3
	shift 3
	expect "values_$name" "$(complete_words "$PROFIL" $cmd $opt '')" "$(accepted $cmd "$@")"
}
value record_clock record --clock --clock x -- true
value record_sample_by record --sample-by --sample-by x -- true
value report_format report --format --format x
value report_sort report --sort --sort x
value report_reason report --reason --reason x
value export_value export --value --value x
value export_format export --format --format x
value events_format events --format --format x
value watch_format watch --format --format x
value diff_format diff --format --format x a b
value diff_sort diff --sort --sort x a b
bad=""
for e in $(complete_words "$PROFIL" events --event ''); do
	"$PROFIL" events --event "$e" -i /dev/null >/dev/null 2>&1 || bad="$bad $e"
done
expect event_names_accepted "$bad" ""

# --opt=value, split at '=' by bash (COMP_WORDBREAKS) or whole
expect value_after_equals "$(complete_words "$PROFIL" report --format = j)" json
expect value_in_one_word "$(complete_words "$PROFIL" diff --format=j)" --format=json
expect value_prefix "$(complete_words "$PROFIL" record --clock th)" thread

# files for -i/-o and for diff's profiles; commands after record --; pids
mkdir sub
: >a.data
: >b.txt
expect input_files "$(complete_words "$PROFIL" report -i '')" "a.data b.txt sub"
expect input_files_prefix "$(complete_words "$PROFIL" report --input a)" a.data
expect output_files "$(complete_words "$PROFIL" export -o '')" "a.data b.txt sub"
expect diff_files "$(complete_words "$PROFIL" diff --top 3 a.data '')" "a.data b.txt sub"
got=$(complete_words "$PROFIL" record -q -- s)
case " $got " in *" sh "*) ok record_command ;; *) no record_command "'sh' not in: $got" ;; esac
expect record_command_args "$(complete_words "$PROFIL" record -o x.data -- sh a)" a.data
got=$(complete_words "$PROFIL" record -q sh '')
expect record_command_without_dashes "$got" "a.data b.txt sub"
got=$(complete_words "$PROFIL" record --gmon -- s)
case " $got " in *" sh "*) ok record_gmon_command ;; *) no record_gmon_command "'sh' not in: $got" ;; esac
got=$(complete_words "$PROFIL" record --pid '')
case " $got " in *" $$ "*) ok pids ;; *) no pids "$$ not offered" ;; esac
