# bash completion for rdmanetctl. The candidates come from rdmanetctl
# itself: its hidden verb "__complete CWORD WORD..." prints them from the
# tables its parser reads, so completion knows exactly the objects, verbs
# and options of the installed binary. Nothing offered (an option's value,
# a device name): the shell completes file names.
_rdmanetctl()
{
	local IFS=$'\n'

	COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" __complete "$COMP_CWORD" \
		"${COMP_WORDS[@]:1}" 2>/dev/null)" -- "${COMP_WORDS[COMP_CWORD]}"))
}
complete -o default -F _rdmanetctl rdmanetctl
