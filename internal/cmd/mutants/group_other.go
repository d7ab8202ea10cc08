//go:build !unix

package main

import "os/exec"

// runGrouped runs cmd: process groups are a unix matter (group_unix.go).
func runGrouped(cmd *exec.Cmd) error { return cmd.Run() }

// killGroupOnCancel leaves cmd as it is.
func killGroupOnCancel(*exec.Cmd) {}
