#!/usr/bin/env bash
# check-config.sh CONFIG FRAGMENT...: fail, naming each option, when a line
# a fragment asks for is not in the final .config (merge_config.sh drops
# options with unmet dependencies without failing).
set -euo pipefail
config=$1; shift
bad=0
for frag in "$@"; do
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) opt=${line%%=*}; want=$line ;;
		"# CONFIG_"*" is not set") opt=${line#\# }; opt=${opt%% *}; want=$line ;;
		*) continue ;;
		esac
		got=$(grep -E "^(# )?$opt[= ]" "$config" || true)
		if [ "$want" = "# $opt is not set" ] && [ -z "$got" ]; then
			continue
		fi
		if [ "$got" != "$want" ]; then
			echo "Error: $frag asks for '$want' but the final .config has '${got:-nothing}': a dependency of $opt is not met" >&2
			bad=1
		fi
	done < "$frag"
done
exit $bad
