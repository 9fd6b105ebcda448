package calllog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/execute"
)

// lines returns the log's lines in dir, decoded.
func lines(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for l := range strings.Lines(string(data)) {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

func TestRecord(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, 1<<20, false)
	if err != nil {
		t.Fatal(err)
	}
	crashed := 139
	calls := []Call{
		{Tool: "bash", Source: "system", Args: []byte(`{"command":"echo hello"}`),
			Envelope: execute.Succeeded(json.RawMessage(`{"output":"hello","exit_code":0}`)), Elapsed: 2500 * time.Microsecond},
		{Tool: "file_read", Source: "user", Args: []byte(`{"file_path":"/nope"}`),
			Envelope: execute.Succeeded(json.RawMessage(`{"error":"Error: reading file '/nope': No such file or directory","error_code":"FILE_NOT_FOUND"}`)), Elapsed: time.Millisecond},
		{Tool: "mcp--srv--echo", Source: "mcp:srv", Args: []byte(`{}`),
			Envelope: execute.Envelope{Error: "Tool 'x' crashed with exit code 139", Code: execute.ToolCrashed, ExitCode: &crashed, Stderr: "a secret on stderr"}, Elapsed: 3 * time.Second},
	}
	for _, c := range calls {
		l.Record(c)
	}
	l.Logger().Debug("not written without debug")
	l.Close()

	got := lines(t, filepath.Join(dir, FileName))
	for _, m := range got {
		if _, err := time.Parse(time.RFC3339Nano, m["time"].(string)); err != nil {
			t.Errorf("time: %v", err)
		}
		delete(m, "time")
	}
	want := []map[string]any{
		{"level": "INFO", "msg": "tool call", "tool": "bash", "source": "system", "duration_ms": 2.5, "outcome": "ok",
			"bytes_in": 24.0, "bytes_out": float64(len(calls[0].Envelope.JSON()))},
		{"level": "INFO", "msg": "tool call", "tool": "file_read", "source": "user", "duration_ms": 1.0, "outcome": "error",
			"error_code": "FILE_NOT_FOUND", "error_bytes": 54.0,
			"bytes_in": 21.0, "bytes_out": float64(len(calls[1].Envelope.JSON()))},
		{"level": "INFO", "msg": "tool call", "tool": "mcp--srv--echo", "source": "mcp:srv", "duration_ms": 3000.0, "outcome": "failed",
			"error_code": "TOOL_CRASHED", "error_bytes": 35.0,
			"bytes_in": 2.0, "bytes_out": float64(len(calls[2].Envelope.JSON()))},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("log lines (-want +got):\n%s", diff)
	}
}

// No text of a call reaches its line, whatever the tool or the host put in
// its error: an argument echoed back, a path, a secret no pattern knows.
// The code and the length of the message are written instead.
func TestRecordWritesNoErrorText(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, 1<<20, false)
	if err != nil {
		t.Fatal(err)
	}
	const planted = "Xq7-planted-argument-value"
	l.Record(Call{Tool: "grep", Args: []byte(`{"pattern":"` + planted + `("}`),
		Envelope: execute.Succeeded(json.RawMessage(`{"error":"Error: invalid pattern '` + planted + `(': missing closing )","error_code":"INVALID_PATTERN"}`))})
	l.Record(Call{Tool: "t", Envelope: execute.Failed(execute.InvalidParams, "bad value %s", planted)})
	l.Close()
	data, _ := os.ReadFile(filepath.Join(dir, FileName))
	if strings.Contains(string(data), planted) {
		t.Errorf("an argument reached the log:\n%s", data)
	}
	got := lines(t, filepath.Join(dir, FileName))
	if got[0]["error_code"] != "INVALID_PATTERN" || got[0]["error_bytes"] != 71.0 || got[1]["error_bytes"] != 36.0 {
		t.Errorf("got %v", got)
	}
}

func TestNilLog(t *testing.T) {
	var l *Log
	l.Record(Call{Tool: "bash"})
	l.Logger().Info("nowhere")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestDebug(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, 1<<20, true)
	if err != nil {
		t.Fatal(err)
	}
	l.Logger().Debug("tool found", "tool", "bash")
	l.Close()
	got := lines(t, filepath.Join(dir, FileName))
	if len(got) != 1 || got[0]["msg"] != "tool found" || got[0]["level"] != "DEBUG" {
		t.Fatalf("got %v", got)
	}
}

// Debug events are scrubbed like call lines, whatever carries the secret.
func TestDebugScrubbed(t *testing.T) {
	const secret = "planted-secret-value-0123456789"
	t.Setenv("IKIGAI_TEST_TOKEN", secret)
	dir := t.TempDir()
	l, err := Open(dir, 1<<20, true)
	if err != nil {
		t.Fatal(err)
	}
	logger := l.Logger().With("context", "with "+secret)
	logger.Debug("message "+secret, "string", secret, "error", fmt.Errorf("failed: %s", secret),
		slog.Group("group", "inner", secret), "count", 3)
	l.Close()
	data, _ := os.ReadFile(filepath.Join(dir, FileName))
	if strings.Contains(string(data), secret) {
		t.Errorf("the secret reached the log:\n%s", data)
	}
	got := lines(t, filepath.Join(dir, FileName))
	if got[0]["count"] != 3.0 || got[0]["error"] != "failed: [REDACTED]" || got[0]["context"] != "with [REDACTED]" {
		t.Errorf("got %v", got[0])
	}
}

func TestScrub(t *testing.T) {
	const key = "sk-ant-api03-FAKEFAKEFAKEFAKEFAKE0123456789"
	s := newScrubber([]string{"ANTHROPIC_API_KEY=" + key, "MY_TOKEN=hunter2hunter2", "SHORT_TOKEN=abc", "HOME=/home/someone"})
	for _, tc := range []struct{ in, want string }{
		{"no secret in /home/someone", "no secret in /home/someone"},
		{"failed with key " + key + " rejected", "failed with key [REDACTED] rejected"},
		{"value hunter2hunter2 leaked", "value [REDACTED] leaked"},
		{"abc is short and stays", "abc is short and stays"},
		{"Authorization: Bearer abc.def.ghi-jkl", "Authorization: [REDACTED]"},
		{`{"authorization":"Basic dXNlcjpwYXNz"}`, `{"authorization":"[REDACTED]"}`},
		{"curl -H 'Authorization: token abcdefgh12345678' url", "curl -H 'Authorization: [REDACTED]' url"},
		{"sent Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "sent Bearer [REDACTED]"},
		{"api_key=abcd1234efgh&x=1", "api_key=[REDACTED]&x=1"},
		{`{"password": "correct horse"}`, `{"password": "[REDACTED]"}`},
		{"pass='two words' then", "pass='[REDACTED]' then"},
		{"mode='two words' then", "mode='two words' then"},
		{"db_password='two words' then", "db_password='[REDACTED]' then"},
		{"GITHUB_TOKEN=ghp_0123456789abcdefghij0123456789abcdef", "GITHUB_TOKEN=[REDACTED]"},
		{"found ghp_0123456789abcdefghij0123456789abcdef in file", "found [REDACTED] in file"},
		{"an OpenAI key sk-proj-0123456789abcdefABCDEF here", "an OpenAI key [REDACTED] here"},
		{"aws AKIAIOSFODNN7EXAMPLE", "aws [REDACTED]"},
		{"slack xoxb-1234567890-abcdefghij", "slack [REDACTED]"},
		{"google AIzaSyA-0123456789abcdefghijklmnopqrstu", "google [REDACTED]"},
		{"connect postgres://admin:s3cretpass@db:5432/x failed", "connect postgres://admin:[REDACTED]@db:5432/x failed"},
		{"a token: but nothing after", "a token: but nothing after"},
	} {
		if got := s.clean(tc.in, 1000); got != tc.want {
			t.Errorf("clean(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// secretSamples are one credential of each family the scrubber knows by
// its shape, with the part of it that must not survive: the fixtures of
// TestScrubFamilies and the seeds of FuzzScrubSecrets. All are made up.
var secretSamples = []struct{ family, text, secret string }{
	{"PEM private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi+AbCdEfGh/IjKlMnOpQrStUvW\nxYz0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX\n-----END RSA PRIVATE KEY-----",
		"MIIEowIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi+AbCdEfGh/IjKlMnOpQrStUvW\nxYz0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX"},
	{"PEM private key, cut", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
		"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"},
	{"PEM private key, JSON-escaped", `-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY/PuoAoGCCqGSM49\n-----END EC PRIVATE KEY-----`,
		"MHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY/PuoAoGCCqGSM49"},
	{"Stripe", "sk_live_51HqLyjWDarjtT1zdp7dcXyzAbCdEfGhIjKlMnOpQr", "51HqLyjWDarjtT1zdp7dcXyzAbCdEfGhIjKlMnOpQr"},
	{"Stripe restricted", "rk_live_51HqLyjWDarjtT1zdp7dcXyzAbCdEfGh", "51HqLyjWDarjtT1zdp7dcXyzAbCdEfGh"},
	{"npm", "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"},
	{"Hugging Face", "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGhIj", "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGhIj"},
	{"GitLab", "glpat-Ab1Cd2Ef3Gh4Ij5Kl6Mn", "Ab1Cd2Ef3Gh4Ij5Kl6Mn"},
	{"AWS secret key", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
	{"AWS secret key, named", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
	{"Slack webhook", "https://hooks.slack.com/services/T0AB1CD2E/B0FG3HI4J/aBcDeFgHiJkLmNoPqRsTuVwX", "T0AB1CD2E/B0FG3HI4J/aBcDeFgHiJkLmNoPqRsTuVwX"},
	{"MySQL password", "MYSQL_PWD=Tr0ub4dor-and-3", "Tr0ub4dor-and-3"},
	{"Docker password", "DOCKER_PASS=correct.horse.battery", "correct.horse.battery"},
	{"SendGrid", "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", "ngeVfQFYQlKU0ufo8x5d1A.TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr"},
	{"PyPI", "pypi-AgEIcHlwaS5vcmcCJDU3OTM5NzdhLTk0YTYtNGZlYi1iNmQwLWI2Y2QwZTkxYjI4MQ", "AgEIcHlwaS5vcmcCJDU3OTM5NzdhLTk0YTYtNGZlYi1iNmQwLWI2Y2QwZTkxYjI4MQ"},
	{"DigitalOcean", "dop_v1_1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef", "1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef"},
}

// Each family is found wherever it stands, and only its secret goes.
func TestScrubFamilies(t *testing.T) {
	s := newScrubber(nil)
	for _, tc := range secretSamples {
		for _, text := range []string{tc.text, "error: " + tc.text + " rejected", `{"value":"` + tc.text + `"}`} {
			got := s.clean(text, 4096)
			if strings.Contains(got, tc.secret) || !strings.Contains(got, redacted) {
				t.Errorf("%s: clean(%q) = %q", tc.family, text, got)
			}
		}
	}
	// Values of variables whose names say they hold passwords go too; the
	// working directory is not a password.
	s = newScrubber([]string{"MYSQL_PWD=Tr0ub4dor-and-3", "DOCKER_PASS=correct.horse.battery", "PWD=/home/someone/project", "OLDPWD=/home/someone/other"})
	for in, want := range map[string]string{
		"connect with Tr0ub4dor-and-3 failed":            "connect with [REDACTED] failed",
		"login correct.horse.battery refused":            "login [REDACTED] refused",
		"reading /home/someone/project/a.go failed":      "reading /home/someone/project/a.go failed",
		"sha1 0123456789abcdef0123456789abcdef01234567":  "sha1 0123456789abcdef0123456789abcdef01234567",
		"a path/to/a/file/that/is/forty/characters/long": "a path/to/a/file/that/is/forty/characters/long",
	} {
		if got := s.clean(in, 1000); got != want {
			t.Errorf("clean(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

func TestScrubCutsAfterScrubbing(t *testing.T) {
	const key = "sk-ant-api03-FAKEFAKEFAKEFAKEFAKE0123456789"
	s := newScrubber([]string{"ANTHROPIC_API_KEY=" + key})
	got := s.clean(strings.Repeat("é", 10)+key, 25)
	if strings.Contains(got, key[:10]) || !strings.HasSuffix(got, "...") || len(got) > 28 {
		t.Errorf("got %q", got)
	}
	if got := s.clean("bad \xff byte", 100); got != "bad \uFFFD byte" {
		t.Errorf("got %q", got)
	}
}

func TestRotate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	const max = 1000
	l, err := Open(dir, max, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		l.Record(Call{Tool: fmt.Sprintf("tool_%02d", i), Source: "system", Envelope: execute.Succeeded(json.RawMessage(`{}`))})
	}
	l.Close()
	for _, p := range []string{path, path + ".1"} {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if info.Size() > max {
			t.Errorf("%s is %d bytes, more than %d", p, info.Size(), max)
		}
		if info.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v", p, info.Mode())
		}
	}
	last := lines(t, path)
	if got := last[len(last)-1]["tool"]; got != "tool_39" {
		t.Errorf("last line is %v", got)
	}
	old := lines(t, path+".1")
	if got, want := old[len(old)-1]["tool"], fmt.Sprintf("tool_%02d", 39-len(last)); got != want {
		t.Errorf("the rotated file ends with %v, want %v", got, want)
	}
}

// Two logs on the same file, as two ikigai processes have: every line
// arrives whole, and rotation by one is seen by the other.
func TestSharedLog(t *testing.T) {
	for _, max := range []int64{1 << 20, 4000} {
		dir := t.TempDir()
		var wg sync.WaitGroup
		for w := range 2 {
			l, err := Open(dir, max, false)
			if err != nil {
				t.Fatal(err)
			}
			wg.Go(func() {
				defer l.Close()
				for i := range 200 {
					l.Record(Call{Tool: fmt.Sprintf("w%d_%03d", w, i), Source: "system", Envelope: execute.Succeeded(json.RawMessage(`{}`))})
				}
			})
		}
		wg.Wait()
		total := 0
		for _, name := range []string{FileName, FileName + ".1"} {
			f, err := os.Open(filepath.Join(dir, name))
			if os.IsNotExist(err) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			info, _ := f.Stat()
			if info.Size() > max {
				t.Errorf("max %d: %s is %d bytes", max, name, info.Size())
			}
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if !json.Valid(sc.Bytes()) || !bytes.Contains(sc.Bytes(), []byte(`"msg":"tool call"`)) {
					t.Errorf("max %d: broken line %q", max, sc.Text())
				}
				total++
			}
			f.Close()
		}
		if max == 1<<20 && total != 400 {
			t.Errorf("got %d lines, want 400", total)
		}
	}
}

// A log that cannot be written (a full disk: /dev/full answers every write
// with ENOSPC) is reported once, saying where, and calls go on.
func TestWriteFailureReportedOnce(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("/dev/full", filepath.Join(dir, FileName)); err != nil {
		t.Fatal(err)
	}
	l, err := Open(dir, 1<<20, false)
	if err != nil {
		t.Skipf("no /dev/full to write to: %v", err)
	}
	defer l.Close()
	var reports []string
	l.OnWriteFailure(func(msg string) { reports = append(reports, msg) })
	for range 3 {
		l.Record(Call{Tool: "bash", Envelope: execute.Succeeded(json.RawMessage(`{}`))})
	}
	want := []string{"Warning: the call log cannot be written to " + filepath.Join(dir, FileName) + ": no space left on device"}
	if diff := cmp.Diff(want, reports); diff != "" {
		t.Errorf("reports (-want +got):\n%s", diff)
	}
}

func TestOpenFails(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := Open(filepath.Join(file, "ikigai"), 1000, false); err == nil {
		t.Fatal("opened a log below a file")
	}
}

// The log decides what is an operation error as the display does.
func TestOutcome(t *testing.T) {
	for _, tc := range []struct {
		result string
		want   [3]string
	}{
		{`{"output":"hello"}`, [3]string{OK, "", ""}},
		{`{"error":"x","error_code":"X"}`, [3]string{Error, "X", "x"}},
		{`{"error":"x"}`, [3]string{Error, execute.ToolError, "x"}},
		{`{"error_code":"X"}`, [3]string{Error, "X", ""}},
	} {
		outcome, code, text := Outcome(execute.Succeeded(json.RawMessage(tc.result)))
		if got := [3]string{outcome, code, text}; got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.result, got, tc.want)
		}
	}
}
