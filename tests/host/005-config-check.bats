#!/usr/bin/env bats
# scripts/check-config.sh names every fragment option the final .config
# lost, as merge_config.sh drops options with unmet dependencies silently.

load ../bats/helpers

setup() {
	dir=$(mktemp -d)
	printf 'CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=m\n' > "$dir/.config"
}

teardown() {
	rm -rf "$dir"
}

@test "check-config passes when every option made it" {
	printf 'CONFIG_A=y\n# CONFIG_B is not set\n# CONFIG_D is not set\n' > "$dir/frag"
	run "$TOP/scripts/check-config.sh" "$dir/.config" "$dir/frag"
	assert_success
}

@test "check-config fails naming a dropped option" {
	printf 'CONFIG_A=y\nCONFIG_B=y\nCONFIG_C=y\n' > "$dir/frag"
	run "$TOP/scripts/check-config.sh" "$dir/.config" "$dir/frag"
	assert_failure
	assert_output --partial "CONFIG_B=y"
	assert_output --partial "CONFIG_C=y"
	assert_output --partial "has 'CONFIG_C=m'"
}
