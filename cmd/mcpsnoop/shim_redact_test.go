//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// What --redact-secrets once let through to the log (issue 36), written by
// a real server process through the built shim: key=value pairs, flags
// and headers on its stderr, almost-JSON with an escaped or unquoted name,
// and a credential in a result. The client gets every byte as sent.
func TestShimRedactSecretsOnStderrAndInText(t *testing.T) {
	bin := mcpsnoopBinary(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "s.jsonl")
	gh := "ghp_" + strings.Repeat("Q7w", 12)
	script := `read -r request
echo 'connecting with token=tok-s3cr3t-1 --api-key=key-s3cr3t-2' >&2
echo 'starting: server --token tok-s3cr3t-3' >&2
echo 'Authorization: Bearer bearer-s3cr3t-4xxxxxxxxxxx' >&2
printf '%s\n' '{"pass\u0077ord":"pw-s3cr3t-5",}' '{password:"pw-s3cr3t-6"}' >&2
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + gh + `"}]}}'`
	// The server is a script file, so that its secrets are what it writes,
	// not its command line; and its command line carries one in a flag
	// inside sh -c's one word.
	file := filepath.Join(dir, "server.sh")
	if err := os.WriteFile(file, []byte(script+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--label", "leaky", "--redact-secrets", "--trace-file", log, "--", "sh", "-c", `sh "$0" --token cmd-s3cr3t-8`, file)
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"accessToken":"at-s3cr3t-7"}}}` + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("shim: %v", err)
	}
	if !strings.Contains(string(out), gh) {
		t.Errorf("the client did not get the result as sent: %s", out)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "s3cr3t") || strings.Contains(string(data), gh) {
		t.Errorf("a secret is in the log:\n%s", data)
	}
	if n := strings.Count(string(data), "[REDACTED]"); n < 8 {
		t.Errorf("%d placeholders in the log:\n%s", n, data)
	}
}
