# SPDX-License-Identifier: MIT
# bash completion for profil(1); installed as
# $(BASHCOMPDIR)/profil (PREFIX/share/bash-completion/completions/profil),
# where bash-completion loads it the first time `profil` is completed.
#
# The subcommands and their options are read from the profil being completed
# (`profil --help`, `profil COMMAND --help`), so a new command or option needs
# no change here.  What --help cannot say is listed below: the words an
# option's value is one of (_profil_values) and which options name files
# (_profil_file_option).  tests/e2e/completion.sh checks these lists against
# the commands' own error messages.

# The words the value of option $2 of command $1 is one of; 1 when it is free.
_profil_values()
{
	case "$1:$2" in
	record:--clock) echo "auto bpf perf thread itimer" ;;
	record:--call-graph) echo "dwarf fp none" ;;
	report:--format) echo "text json csv html" ;;
	report:--sort) echo "comm dso sym pid tid cgroup self name cpu wall off-cpu sleep blocked preempted stopped" ;;
	report:--reason) echo "sleep blocked preempted stopped" ;;
	top:--view) echo "function process cgroup" ;;
	top:--sort) echo "last total" ;;
	report:--call-graph | report:-g) echo "caller callee" ;;
	export:--format) echo "gmon pprof folded" ;;
	export:--value) echo "cpu off-cpu wall" ;;
	events:--format | watch:--format) echo "json table" ;;
	events:--event | watch:--event)
		echo "prof profil sprofil setitimer timer_create perf_event_open" \
			"sched_process_fork sched_process_exec sched_process_exit events_lost"
		;;
	diff:--format) echo "text json html pprof" ;;
	annotate:--format) echo "text json" ;;
	diff:--sort) echo "share seconds offcpu" ;;
	*) return 1 ;;
	esac
}

# Options whose value is a file name.
_profil_file_option()
{
	case "$1" in
	-i | --input | -o | --output | --events | --gmon | --lib) return 0 ;;
	esac
	return 1
}

# The profil being completed (a path as typed, ~ expanded), else the one in PATH.
_profil_prog()
{
	local p=${COMP_WORDS[0]}

	[[ $p == "~"* ]] && p=${p/#\~/$HOME}
	if [[ $p == */* && -x $p ]] || command -v "$p" >/dev/null 2>&1; then
		printf '%s\n' "$p"
	else
		echo profil
	fi
}

_profil_commands()
{
	"$1" --help 2>/dev/null | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'
}

# "OPTION 1" (takes a value) or "OPTION 0", one per option of command $2, from its --help.
_profil_options()
{
	"$1" "$2" --help 2>/dev/null | awk '
	/^[ \t]+--?[A-Za-z]/ {
		n = 0
		for (i = 1; i <= NF; i++) {
			t = $i
			sub(/,$/, "", t)
			if (t !~ /^--?[A-Za-z][A-Za-z0-9-]*$/)
				break
			opt[++n] = t
			if ($i !~ /,$/) {
				i++
				break
			}
		}
		takes = (i <= NF && $i ~ /^[A-Z][A-Z_]*(\[.*)?$/) ? 1 : 0
		for (k = 1; k <= n; k++)
			print opt[k], takes
	}'
}

# Files (and directories to walk into) matching $1.
_profil_files()
{
	compopt -o filenames 2>/dev/null
	COMPREPLY=($(compgen -f -- "$1"))
}

_profil_pids()
{
	COMPREPLY=($(compgen -W "$(ls /proc 2>/dev/null | grep -E '^[0-9]+$')" -- "$1"))
}

# The value of option $3 of command $2 (profil $1), matching $4.
_profil_value()
{
	local words

	if words=$(_profil_values "$2" "$3"); then
		COMPREPLY=($(compgen -W "$words" -- "$4"))
	elif _profil_file_option "$3"; then
		_profil_files "$4"
	elif [[ $3 == -p || $3 == --pid ]]; then
		_profil_pids "$4"
	elif [[ $3 == --comm ]]; then
		COMPREPLY=($(compgen -W "$(ps -eo comm= 2>/dev/null | sort -u)" -- "$4"))
	else
		COMPREPLY=()
	fi
}

# Does option $2 of command $1 take a value?  (--help says so with a word in
# capitals after it; the options with known values or files do too.)  Uses
# the caller's $takes.
_profil_takes()
{
	[[ $takes == *" $2 "* ]] || _profil_values "$1" "$2" >/dev/null || _profil_file_option "$2"
}

_profil()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev= prog cmd= cmd_at=0 i w opts takes=" "
	local operand_at=0 opt=

	COMPREPLY=()
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	prog=$(_profil_prog)
	# the subcommand: the first word after profil's own options
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*)
			cmd=${COMP_WORDS[i]}
			cmd_at=$i
			break
			;;
		esac
	done
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--help --version" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_profil_commands "$prog")" -- "$cur"))
		fi
		return 0
	fi
	if [[ $cmd == help ]]; then
		((COMP_CWORD == cmd_at + 1)) &&
			COMPREPLY=($(compgen -W "$(_profil_commands "$prog")" -- "$cur"))
		return 0
	fi

	opts=$(_profil_options "$prog" "$cmd")
	while read -r w i; do
		[[ $i == 1 ]] && takes+="$w "
	done <<<"$opts"

	# --opt=value: bash splits it at '=' (COMP_WORDBREAKS) or leaves it whole
	if [[ $cur == = && $prev == -* ]]; then
		opt=$prev
		cur=
	elif [[ $prev == = ]] && ((COMP_CWORD >= 2)) && [[ ${COMP_WORDS[COMP_CWORD - 2]} == -* ]]; then
		opt=${COMP_WORDS[COMP_CWORD - 2]}
	elif [[ $cur == --*=* ]]; then
		_profil_value "$prog" "$cmd" "${cur%%=*}" "${cur#*=}"
		local k pre=${cur%%=*}=
		for k in "${!COMPREPLY[@]}"; do
			COMPREPLY[k]=$pre${COMPREPLY[k]}
		done
		return 0
	elif _profil_takes "$cmd" "$prev"; then
		opt=$prev
	fi
	if [[ -n $opt ]]; then
		_profil_value "$prog" "$cmd" "$opt" "$cur"
		return 0
	fi

	# record, top: options end at "--" or at the command; after it, the command's words
	if [[ $cmd == record || $cmd == top ]]; then
		for ((i = cmd_at + 1; i < COMP_CWORD; i++)); do
			w=${COMP_WORDS[i]}
			if [[ $w == -- ]]; then
				operand_at=$((i + 1))
				break
			elif [[ $w == = ]]; then
				((i++))
			elif [[ $w == -* ]]; then
				_profil_takes "$cmd" "$w" && [[ ${COMP_WORDS[i + 1]} != [=-]* ]] && ((i++))
			else
				operand_at=$i
				break
			fi
		done
		if ((operand_at > 0)); then
			if ((COMP_CWORD == operand_at)); then
				COMPREPLY=($(compgen -c -- "$cur" | sort -u))
			else
				_profil_files "$cur"
			fi
			return 0
		fi
	fi

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(awk '{print $1}' <<<"$opts") --help" -- "$cur"))
		[[ $cmd == record || $cmd == top ]] && COMPREPLY+=($(compgen -W "--" -- "$cur"))
	elif [[ $cmd == diff ]]; then
		_profil_files "$cur"
	fi
	return 0
}

complete -F _profil profil
