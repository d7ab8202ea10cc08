#!/usr/bin/env bash
# dockerd.sh — make sure a Docker engine answers, by starting one where none
# does, and stop it again afterwards: what .ci/run does on a machine with no
# engine running (a CI machine, a container without systemd), usable by hand.
#
# Usage: tools/dockerd.sh start|stop|status   (from any directory)
#   start   if `docker info` answers, do nothing: an engine that was already
#           running is left alone, and `stop` never touches it. Otherwise
#           (as root) install Debian's docker.io with apt-get when dockerd is
#           missing, start `dockerd $DOCKERD_FLAGS` in the background, and
#           wait until `docker info` answers; if it never does within
#           DOCKERD_TIMEOUT seconds, or dockerd exits, show the end of its log,
#           stop it and exit 1.
#   stop    stop the dockerd that `start` started from this clone, and only
#           that one (its pid is recorded in .cache/dockerd/dockerd.pid):
#           SIGTERM, then SIGKILL if it has not exited after
#           DOCKERD_STOP_TIMEOUT seconds. Without a recorded pid it does
#           nothing.
#   status  say whether an engine answers and whether this clone started it.
#
# The default flags need neither iptables nor a bridge, which a container or
# a locked-down VM may not allow:
#   --iptables=false --ip6tables=false --bridge=none --storage-driver=overlay2
# With no bridge, containers have no network of their own: builds that
# download (apt, the Go module proxy) need `docker build --network host`,
# which tools/compat.sh adds by itself when the daemon has no bridge network.
#
# The daemon's log goes to .cache/dockerd/dockerd.log, written anew by each
# start.
#
# Environment:
#   DOCKERD_FLAGS         flags for dockerd (default: the ones above)
#   DOCKERD_TIMEOUT       seconds to wait for `docker info` (default 120)
#   DOCKERD_STOP_TIMEOUT  seconds to wait for dockerd to exit (default 60)

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
state="$(cd "$here/.." && pwd)/.cache/dockerd"
pidfile="$state/dockerd.pid"
log="$state/dockerd.log"
flags=${DOCKERD_FLAGS:---iptables=false --ip6tables=false --bridge=none --storage-driver=overlay2}
timeout=${DOCKERD_TIMEOUT:-120}
stop_timeout=${DOCKERD_STOP_TIMEOUT:-60}

say() { printf 'dockerd: %s\n' "$*" >&2; }
die() {
	say "error: $*"
	exit 1
}
usage() { sed -n '/^# Usage:/,/^# The default flags/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }

# answers: succeed if the docker client reaches an engine, within 20 s.
answers() {
	command -v docker >/dev/null 2>&1 || return 1
	if command -v timeout >/dev/null 2>&1; then
		timeout 20 docker info >/dev/null 2>&1
	else
		docker info >/dev/null 2>&1
	fi
}

# ours: print the pid recorded by `start` if that process is still a dockerd.
ours() {
	local pid
	[ -f "$pidfile" ] || return 1
	pid=$(cat "$pidfile")
	case "$pid" in '' | *[!0-9]*) return 1 ;; esac
	[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = dockerd ] || return 1
	echo "$pid"
}

# halt PID: SIGTERM, wait up to stop_timeout seconds, then SIGKILL.
halt() {
	local pid=$1 i
	kill -TERM "$pid" 2>/dev/null || return 0
	for ((i = 0; i < stop_timeout * 2; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.5
	done
	say "dockerd (pid $pid) still runs after ${stop_timeout}s: killing it"
	kill -KILL "$pid" 2>/dev/null || true
	for ((i = 0; i < 20; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.5
	done
	say "dockerd (pid $pid) survived SIGKILL"
	return 1
}

install_docker() {
	[ "$(id -u)" = 0 ] || die "dockerd is not installed; install docker.io (sudo apt-get install docker.io) or Docker Engine"
	command -v apt-get >/dev/null 2>&1 || die "dockerd is not installed and there is no apt-get to install docker.io"
	say "dockerd is not installed: installing docker.io with apt-get"
	export DEBIAN_FRONTEND=noninteractive
	# Package lists may be missing or stale on a fresh machine: update and
	# try again when the first attempt fails.
	local apt=(apt-get -o DPkg::Lock::Timeout=900)
	"${apt[@]}" install -y -qq docker.io >&2 ||
		{ "${apt[@]}" update -qq >&2 && "${apt[@]}" install -y -qq docker.io >&2; } ||
		die "could not install docker.io"
	command -v dockerd >/dev/null 2>&1 || die "docker.io is installed, but dockerd is not on PATH ($PATH)"
}

start() {
	if answers; then
		say "an engine answers 'docker info' already: leaving it alone"
		return 0
	fi
	local pid
	if pid=$(ours); then
		say "dockerd (pid $pid), started earlier from this clone, does not answer yet: waiting for it"
	else
		[ -z "${DOCKER_HOST:-}" ] ||
			die "DOCKER_HOST=$DOCKER_HOST does not answer 'docker info'; start that engine, or unset DOCKER_HOST to use a local dockerd"
		[ "$(id -u)" = 0 ] || die "no engine answers 'docker info', and starting dockerd needs root"
		command -v dockerd >/dev/null 2>&1 || install_docker
		command -v docker >/dev/null 2>&1 || die "dockerd is installed but the docker client is not on PATH"
		# A dockerd that runs but does not answer is not ours to replace.
		if [ -f /var/run/docker.pid ]; then
			local other
			other=$(cat /var/run/docker.pid 2>/dev/null || true)
			if [ -n "$other" ] && [ "$(cat "/proc/$other/comm" 2>/dev/null)" = dockerd ]; then
				die "a dockerd (pid $other) runs but 'docker info' fails: see its log, or stop it, then try again"
			fi
		fi
		mkdir -p "$state"
		local -a args
		read -r -a args <<<"$flags"
		printf '=== %s: dockerd %s\n' "$(date '+%F %T')" "$flags" >"$log"
		say "starting dockerd ${args[*]} (log: $log)"
		dockerd "${args[@]}" </dev/null >>"$log" 2>&1 &
		pid=$!
		echo "$pid" >"$pidfile"
	fi
	local t0=$SECONDS
	until answers; do
		if ! kill -0 "$pid" 2>/dev/null; then
			rm -f "$pidfile"
			tail -n 40 "$log" >&2
			die "dockerd exited before 'docker info' answered (the end of $log is above)"
		fi
		if ((SECONDS - t0 >= timeout)); then
			tail -n 40 "$log" >&2
			say "stopping dockerd (pid $pid)"
			halt "$pid" || true
			rm -f "$pidfile"
			die "'docker info' did not answer within ${timeout}s of starting dockerd (the end of $log is above)"
		fi
		sleep 1
	done
	say "dockerd (pid $pid) answers after $((SECONDS - t0))s: $(docker version --format 'server {{.Server.Version}}, client {{.Client.Version}}' 2>/dev/null || echo '?')"
}

stop() {
	local pid
	if ! pid=$(ours); then
		if [ -f "$pidfile" ]; then
			say "the dockerd recorded in $pidfile runs no more: nothing to stop"
			rm -f "$pidfile"
		else
			say "no dockerd was started from this clone: nothing to stop"
		fi
		return 0
	fi
	say "stopping dockerd (pid $pid), started by tools/dockerd.sh start"
	if halt "$pid"; then
		rm -f "$pidfile"
		say "dockerd (pid $pid) stopped"
	else
		die "could not stop dockerd (pid $pid)"
	fi
}

status() {
	local pid
	if answers; then say "an engine answers 'docker info'"; else say "no engine answers 'docker info'"; fi
	if pid=$(ours); then say "dockerd (pid $pid) was started from this clone"; else say "no dockerd started from this clone runs"; fi
}

case "${1:-}" in
start | stop | status) "$1" ;;
-h | --help) usage ;;
*)
	usage >&2
	exit 2
	;;
esac
