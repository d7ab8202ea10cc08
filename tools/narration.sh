#!/usr/bin/env bash
# Fails when a tracked file narrates how the project was made instead of
# saying what it is: our own tracker's issue numbers ("issue 22", "#22"),
# sittings of work, and ordinal accounts of them ("a tenth pass,
# 2026-11-27"). Upstream issues are cited as owner/repo#N
# (google/leveldb#243) and pass. make lint runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each pattern with what it catches (Perl syntax, case-insensitive).
patterns=(
	# "#22" standing alone: not owner/repo#22, a "<#1" operator or an
	# HTML/colour code.
	'(?:^|(?<=[\s(,;]))#[0-9]+\b'
	# Sittings of work, by both names (a RocksDB "sess""ion id" is a
	# thing); the word is split here so that this file does not hold it.
	'\bsittings?\b'
	'\bsess''ions?\b(?! ids?\b)'
	# An ordinal sitting of work: "a tenth pass", "the twelfth run of work".
	'\b(?:a|the) (?:second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth) (?:pass|sitting|sess''ion|round of work)\b'
)

# Not checked: this script (its patterns are the words), and go.sum
# files (hashes).
exclude=(':!tools/narration.sh' ':!*go.sum')

status=0
# "issue 20", "issues 20 and 22", "pull request #5", unless an owner/repo
# names the tracker ("google/leveldb issue 243"): git grep finds the
# lines, perl drops those whose every mention follows an owner/repo.
issue='\b(?:issues?|pull requests?|PRs?) #?[0-9]+\b'
if git grep -nIiP -e "$issue" -- . "${exclude[@]}" |
	perl -ne 'my ($where, $text) = /^([^:]*:[0-9]+:)(.*)$/s or next; $text =~ s{[\w.-]+/[\w.-]+ '"$issue"'}{}gi; print if $text =~ /'"$issue"'/i' |
	grep .; then
	status=1
fi
for p in "${patterns[@]}"; do
	if git grep -nIiP -e "$p" -- . "${exclude[@]}"; then
		status=1
	fi
done
if [ "$status" != 0 ]; then
	echo "narration.sh: the lines above narrate the work or name our tracker's issues: say what the project is (cite upstream as owner/repo#N)" >&2
fi
exit "$status"
