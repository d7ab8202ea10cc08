//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// sweepEvery is how often runGrouped looks for orphans while cmd runs.
var sweepEvery = 5 * time.Second

// runGrouped runs cmd in a process group of its own, kills the group's
// orphans while it runs and the rest once it exits: a test binary whose
// go test gremlins stopped can run on, reparented (one did for 22 minutes).
func runGrouped(cmd *exec.Cmd) error {
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	pgid := cmd.Process.Pid
	done := make(chan struct{})
	swept := make(chan struct{})
	go func() {
		defer close(swept)
		t := time.NewTicker(sweepEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				for _, pid := range orphans(pgid) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	<-swept
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	return err
}

// killGroupOnCancel makes cmd, an exec.CommandContext, kill its whole
// process group when its context ends.
func killGroupOnCancel(cmd *exec.Cmd) {
	ownGroup(cmd)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// ownGroup makes cmd start in a process group of its own.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// pids returns the processes /proc lists (none where it cannot be read).
func pids() []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// orphans returns the processes of group pgid whose parent is not in it.
func orphans(pgid int) []int {
	group := map[int]int{} // pid -> parent, for the group's processes
	for _, pid := range pids() {
		if _, ppid, pg, ok := procStat(pid); ok && pg == pgid {
			group[pid] = ppid
		}
	}
	var out []int
	for pid, ppid := range group {
		if _, in := group[ppid]; !in && pid != pgid {
			out = append(out, pid)
		}
	}
	return out
}

// procStat returns a process's state, parent and process group from
// /proc/PID/stat.
func procStat(pid int) (state string, ppid, pgid int, ok bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return "", 0, 0, false
	}
	// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 3 {
		return "", 0, 0, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgid, err2 := strconv.Atoi(f[2])
	return f[0], ppid, pgid, err1 == nil && err2 == nil
}
