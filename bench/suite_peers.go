package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

func init() {
	register("peers: Claude Code, gemini-cli and Codex beside ikigai", benchPeers)
}

// The peers, pinned to the versions measured. The bench installs each with
// npm into the user's cache directory, outside the tree, once.
var peers = []peer{
	{
		name: "Claude Code", pkg: "@anthropic-ai/claude-code", version: "2.1.330", bin: "claude",
		args: []string{"-p", peerPrompt},
		env: func(api string) []string {
			return []string{"ANTHROPIC_BASE_URL=" + api, "ANTHROPIC_API_KEY=bench",
				"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
		},
		how: "`claude -p` with `ANTHROPIC_BASE_URL` and `ANTHROPIC_API_KEY`; telemetry, error reporting, the auto-updater " +
			"and other non-essential traffic off (`DISABLE_TELEMETRY`, `DISABLE_ERROR_REPORTING`, `DISABLE_AUTOUPDATER`, " +
			"`CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC`).",
	},
	{
		name: "gemini-cli", pkg: "@google/gemini-cli", version: "0.61.0", bin: "gemini",
		args: []string{"-p", peerPrompt},
		env: func(api string) []string {
			return []string{"GOOGLE_GEMINI_BASE_URL=" + api, "GEMINI_API_KEY=bench", "GEMINI_CLI_TRUST_WORKSPACE=true"}
		},
		// Left to itself it would choose the gateway auth type from
		// GOOGLE_GEMINI_BASE_URL, which -p refuses; usage statistics go to
		// Google and the update check to npm unless turned off.
		files: map[string]string{".gemini/settings.json": `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
  "telemetry": {"enabled": false}
}
`},
		how: "`gemini -p` with `GOOGLE_GEMINI_BASE_URL` (honoured by `@google/genai`), `GEMINI_API_KEY`, " +
			"`GEMINI_CLI_TRUST_WORKSPACE=true`, and a `~/.gemini/settings.json` that selects the API-key auth type " +
			"(without it the base URL selects the gateway type, which `-p` refuses) and turns off usage statistics, " +
			"telemetry and the update check. Its default model, `auto`, first asks a small model to rate the prompt's " +
			"complexity (JSON the fake answers from the request's schema), then sends the prompt to the model chosen.",
	},
	{
		name: "Codex", pkg: "@openai/codex", version: "0.169.0", bin: "codex",
		args: []string{"exec", "--skip-git-repo-check", peerPrompt},
		env:  func(api string) []string { return []string{"BENCH_API_KEY=bench"} },
		// OPENAI_BASE_URL is not honoured any more, and the built-in
		// provider tries a WebSocket first; a provider of one's own speaks
		// the Responses API over HTTP (wire_api = "chat" is refused).
		files: map[string]string{".codex/config.toml": `model_provider = "bench"
check_for_update_on_startup = false

[model_providers.bench]
name = "bench"
base_url = "{{API}}/v1"
env_key = "BENCH_API_KEY"
wire_api = "responses"

[analytics]
enabled = false

[features]
plugins = false
remote_plugin = false
`},
		how: "`codex exec --skip-git-repo-check` with a provider of its own in `~/.codex/config.toml` " +
			"(`base_url` the fake, `wire_api = \"responses\"`: Codex speaks only the Responses API now, and ignores " +
			"`OPENAI_BASE_URL`), the update check, analytics and the plugin features (which `git ls-remote` GitHub) off. " +
			"`codex` is a Node.js script that starts the native binary.",
	},
}

// peerPrompt is the prompt every agent gets; the fake answers peerAnswer.
const (
	peerPrompt = "Say ok."
	peerAnswer = "ok"
)

type peer struct {
	name, pkg, version, bin string
	args                    []string
	env                     func(api string) []string
	files                   map[string]string // written under the peer's home; {{API}} is the fake's URL
	how                     string            // how it is pointed at the fake, for the notes
}

// A contender is one agent measured: ikigai or a peer.
type contender struct {
	name    string
	argv    []string // the one-line answer
	version []string // the version, as the start-up floor
	env     []string // the whole environment
	dir     string
	skip    string // why it was not measured, if it was not

	first, total, vtotal []time.Duration
	rss, vrss            int64        // KiB, the kernel's peak RSS of the largest process
	tree, vtree          int64        // KiB, the peak PSS of the whole process tree, sampled
	requests             []apiRequest // of the last run
	strays               int
}

// peerTimeout is how long a run may take before it is killed and its agent
// dropped from the comparison: one waiting for a network it cannot reach.
const peerTimeout = 2 * time.Minute

// memoryRuns is how many runs of each command sample the memory of the
// whole process tree, apart from the timed runs, which sampling would slow.
const memoryRuns = 2

// benchPeers runs ikigai and each peer, interleaved, against the bench's
// fake API on loopback, in an empty directory with a home of their own, and
// times from the start of the process to the first request the fake
// receives, and to the end of the one-line answer, with each one's peak
// memory and what it sent; then each one's version, the floor of its
// start-up.
func benchPeers(b *bench) error {
	api, err := newFakeAPI(peerAnswer)
	if err != nil {
		return err
	}
	defer api.Close()
	cache, err := os.UserCacheDir()
	if err != nil {
		return err
	}
	// The homes are outside the temporary directory: Codex declines to set
	// up its helpers under it.
	if err := os.MkdirAll(filepath.Join(cache, "ikigai-bench"), 0o755); err != nil {
		return err
	}
	homes, err := os.MkdirTemp(filepath.Join(cache, "ikigai-bench"), "homes-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(homes)

	base := &contender{name: "ikigai", argv: []string{b.Ikigai(), "-p", peerPrompt}, version: []string{b.Ikigai(), "version"}}
	home, dir, err := agentHome(homes, "ikigai", nil, api.URL)
	if err != nil {
		return err
	}
	base.env = append(baseEnv(home), "IKIGAI_PROVIDER=anthropic", "ANTHROPIC_API_KEY=bench", "IKIGAI_BASE_URL="+api.URL)
	base.dir = dir
	all := []*contender{base}

	npmDir := filepath.Join(cache, "ikigai-bench", "npm")
	var installed []string
	for _, p := range peers {
		a := &contender{name: p.name + " " + p.version}
		all = append(all, a)
		bin, err := npmInstall(npmDir, p)
		if err != nil {
			a.skip = err.Error()
			continue
		}
		installed = append(installed, fmt.Sprintf("%s %s (`%s`)", p.name, p.version, p.pkg))
		home, dir, err := agentHome(homes, p.bin, p.files, api.URL)
		if err != nil {
			return err
		}
		a.argv = append([]string{bin}, p.args...)
		a.version = []string{bin, "--version"}
		a.env = append(baseEnv(home), p.env(api.URL)...)
		a.dir = dir
	}

	runs := b.Runs(5)
	for round := range runs + 1 { // the first round warms the caches up
		for _, a := range all {
			if a.skip == "" {
				if err := a.timed(api, round > 0); err != nil {
					a.skip = err.Error()
				}
			}
		}
	}
	for range memoryRuns {
		for _, a := range all {
			if a.skip == "" {
				if err := a.sampled(api); err != nil {
					a.skip = err.Error()
				}
			}
		}
	}
	if base.skip != "" {
		return fmt.Errorf("ikigai: %s", base.skip)
	}
	var measured []*contender
	for _, a := range all {
		if a.skip == "" {
			measured = append(measured, a)
		}
	}

	b.Printf("Measured on %s. Each agent answers `%s` non-interactively, in an empty directory with a fresh home, against the bench's fake API on loopback, "+
		"which answers `%s` at once in the agent's own wire format; %d rounds, interleaved, after a warm-up round. ",
		time.Now().UTC().Format("2006-01-02"), peerPrompt, peerAnswer, runs)
	if len(installed) > 0 {
		b.Printf("Peers installed with npm %s into `%s`, running on Node.js %s where they need it: %s.\n\n", toolVersion("npm"), tildePath(npmDir),
			toolVersion("node"), strings.Join(installed, ", "))
	} else {
		b.Printf("\n\n")
	}
	b.Printf("| agent | start to first request | one-line answer | peak RSS | process tree, peak PSS | sent to the API |\n|---|---|---|---|---|---|\n")
	for _, a := range measured {
		b.Printf("| %s | %s | %s | %s | %s | %s |\n", a.name,
			vs(Dur(median(a.first)), float64(median(a.first)), float64(median(base.first)), a == base),
			vs(Dur(median(a.total)), float64(median(a.total)), float64(median(base.total)), a == base),
			vs(KiB(a.rss), float64(a.rss), float64(base.rss), a == base),
			vs(KiB(a.tree), float64(a.tree), float64(base.tree), a == base),
			vs(kB(sentBytes(a.requests)), float64(sentBytes(a.requests)), float64(sentBytes(base.requests)), a == base)+several(a.requests))
	}
	b.Printf("\n| agent | version: start-up floor | peak RSS | process tree, peak PSS |\n|---|---|---|---|\n")
	for _, a := range measured {
		b.Printf("| %s `%s` | %s | %s | %s |\n", a.name, strings.Join(a.version[1:], " "),
			vs(Dur(median(a.vtotal)), float64(median(a.vtotal)), float64(median(base.vtotal)), a == base),
			vs(KiB(a.vrss), float64(a.vrss), float64(base.vrss), a == base),
			vs(KiB(a.vtree), float64(a.vtree), float64(base.vtree), a == base))
	}
	b.Printf("\nRatios in brackets are to ikigai's figure in the same column. Times are medians. Peak RSS is the kernel's figure "+
		"for the largest single process of a run, the largest over the timed runs: for gemini-cli, which starts a second Node.js process "+
		"with a larger heap, and for Codex, a Node.js script that starts a native binary, it is not their sum. The process tree's peak PSS "+
		"adds up every process of a run, pages shared between them counted once, sampled every millisecond for the first 50 ms and every 5 ms after in %d further runs of each command "+
		"(the sampling would slow the timed ones). Sent to the API: the bodies of the requests for a model's answer, of the last run.\n\n", memoryRuns)

	met := true
	var behind []string
	for _, a := range measured[1:] {
		for _, c := range []struct {
			what     string
			us, them float64
		}{
			{"start to first request", float64(median(base.first)), float64(median(a.first))},
			{"one-line answer", float64(median(base.total)), float64(median(a.total))},
			{"peak RSS", float64(base.rss), float64(a.rss)},
			{"process tree", float64(base.tree), float64(a.tree)},
			{"bytes sent", float64(sentBytes(base.requests)), float64(sentBytes(a.requests))},
		} {
			if c.us >= c.them {
				met = false
				behind = append(behind, fmt.Sprintf("%s (%s)", c.what, a.name))
			}
		}
	}
	switch {
	case len(measured) == 1:
		b.Printf("Target: ikigai ahead of every peer, on start-up, the whole answer, memory and bytes sent: not judged, no peer could be measured")
	default:
		b.Printf("Target: ikigai ahead of every peer measured, on start-up, the whole answer, memory and bytes sent: %s", Verdict(met))
	}
	if len(behind) > 0 {
		b.Printf(" (behind on %s)", strings.Join(behind, ", "))
	}
	b.Printf(".")
	if len(measured) > 1 {
		var lo, hi [2]float64 // start to first request, peak RSS
		for i, a := range measured[1:] {
			f := float64(median(a.first)) / float64(median(base.first))
			m := float64(a.rss) / float64(base.rss)
			if i == 0 {
				lo, hi = [2]float64{f, m}, [2]float64{f, m}
			}
			lo = [2]float64{min(lo[0], f), min(lo[1], m)}
			hi = [2]float64{max(hi[0], f), max(hi[1], m)}
		}
		b.Printf(" ikigai reaches the API %s sooner than the peers, with %s less memory (peak RSS).", span(lo[0], hi[0]), span(lo[1], hi[1]))
	}
	b.Printf("\n\nHow each was run:\n\n")
	b.Printf("- ikigai: `ikigai -p` with `IKIGAI_PROVIDER=anthropic`, `IKIGAI_BASE_URL` and `ANTHROPIC_API_KEY`. Requests: %s.\n", describe(base.requests))
	for i, p := range peers {
		a := all[i+1]
		if a.skip != "" {
			b.Printf("- %s %s: not measured: %s\n", p.name, p.version, strings.Join(strings.Fields(a.skip), " "))
			continue
		}
		b.Printf("- %s: %s Requests: %s.\n", a.name, p.how, describe(a.requests))
	}
	for _, a := range all {
		if a.strays > 0 {
			b.Printf("- %s left %d processes outside its process group; the spawner killed them.\n", a.name, a.strays)
		}
	}
	b.Printf("\n")
	return nil
}

// vs formats a figure with its ratio to ikigai's.
func vs(figure string, v, ikigai float64, self bool) string {
	if self || ikigai == 0 {
		return figure
	}
	return fmt.Sprintf("%s (%s)", figure, times(v/ikigai))
}

func times(r float64) string {
	if r < 10 {
		return fmt.Sprintf("%.1f×", r)
	}
	return fmt.Sprintf("%.0f×", r)
}

// span formats a range of ratios: "12×" or "12–180×".
func span(lo, hi float64) string {
	if times(lo) == times(hi) {
		return times(lo)
	}
	return strings.TrimSuffix(times(lo), "×") + "–" + times(hi)
}

// timed runs the agent's one-line answer and its version once each, and
// keeps the figures if keep is set.
func (a *contender) timed(api *fakeAPI, keep bool) error {
	r, reqs, err := a.answer(api, 0)
	if err != nil {
		return err
	}
	v, err := spawnRun(Cmd{Label: a.name + " version", Argv: a.version, Dir: a.dir}, a.env, 0, peerTimeout)
	if err != nil {
		return err
	}
	a.strays += v.Strays
	if keep {
		a.first = append(a.first, reqs[0].At.Sub(r.Start))
		a.total = append(a.total, r.Wall)
		a.rss = max(a.rss, r.MaxRSS)
		a.requests = reqs
		a.vtotal = append(a.vtotal, v.Wall)
		a.vrss = max(a.vrss, v.MaxRSS)
	}
	return nil
}

// sampled runs the agent's one-line answer and its version once each,
// sampling the memory of the process tree.
func (a *contender) sampled(api *fakeAPI) error {
	r, _, err := a.answer(api, 5)
	if err != nil {
		return err
	}
	v, err := spawnRun(Cmd{Label: a.name + " version", Argv: a.version, Dir: a.dir}, a.env, 5, peerTimeout)
	if err != nil {
		return err
	}
	a.strays += v.Strays
	a.tree, a.vtree = max(a.tree, r.TreePeak), max(a.vtree, v.TreePeak)
	return nil
}

// answer runs the one-line answer and checks it: the answer on the last
// line of the output, and at least one request at the fake.
func (a *contender) answer(api *fakeAPI, sampleMS int) (spawned, []apiRequest, error) {
	api.Take()
	r, err := spawnRun(Cmd{Label: a.name, Argv: a.argv, Dir: a.dir, Check: func([]byte) error { return nil }}, a.env, sampleMS, peerTimeout)
	if err != nil {
		return r, nil, err
	}
	reqs := api.Take()
	a.strays += r.Strays
	lines := strings.Split(strings.TrimSpace(string(r.Stdout)), "\n")
	if r.Exit != 0 || strings.TrimSpace(lines[len(lines)-1]) != peerAnswer {
		return r, nil, fmt.Errorf("`%s` exited %d with the output %q, not %q: %s", strings.Join(a.argv[1:], " "), r.Exit,
			clip(string(r.Stdout), 200), peerAnswer, clip(lastLines(r.Stderr, 5), 600))
	}
	if len(reqs) == 0 {
		return r, nil, fmt.Errorf("`%s` answered without a request to the fake API", strings.Join(a.argv[1:], " "))
	}
	return r, reqs, nil
}

// npmInstall returns the path of the peer's command, installing the
// package with npm into its own directory under dir first if it is not
// there yet.
func npmInstall(dir string, p peer) (string, error) {
	prefix := filepath.Join(dir, strings.NewReplacer("@", "", "/", "+").Replace(p.pkg)+"@"+p.version)
	bin := filepath.Join(prefix, "node_modules", ".bin", p.bin)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("npm is not installed (Debian package npm), so %s@%s could not be installed", p.pkg, p.version)
	}
	fmt.Fprintf(os.Stderr, "bench: npm install %s@%s\n", p.pkg, p.version)
	cmd := exec.Command(npm, "install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error", p.pkg+"@"+p.version)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("`npm install %s@%s` failed (%v): %s", p.pkg, p.version, err, npmReason(string(out)))
	}
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("`npm install %s@%s` installed no `%s` command", p.pkg, p.version, p.bin)
	}
	return bin, nil
}

// npmReason picks the line that says why from npm's error output: the
// first message after the error code, without the stack trace.
func npmReason(out string) string {
	code := ""
	for line := range strings.Lines(out) {
		msg, ok := strings.CutPrefix(strings.TrimSpace(line), "npm error ")
		if !ok {
			continue
		}
		msg = strings.TrimSpace(msg)
		switch {
		case strings.HasPrefix(msg, "code "):
			code = strings.TrimPrefix(msg, "code ") + ": "
		case len(msg) > 20 && !strings.HasPrefix(msg, "at ") && !strings.Contains(msg, "complete log"):
			msg, _ = strings.CutPrefix(msg, "notarget ")
			return code + clip(msg, 300)
		}
	}
	return code + clip(lastLines(out, 1), 300)
}

// agentHome makes a home directory for an agent, with its files, and an
// empty project directory to run it in.
func agentHome(homes, name string, files map[string]string, api string) (home, project string, err error) {
	home = filepath.Join(homes, name)
	project = filepath.Join(home, "project")
	for _, d := range []string{project, filepath.Join(home, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", "", err
		}
	}
	for path, content := range files {
		path = filepath.Join(home, path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", "", err
		}
		if err := os.WriteFile(path, []byte(strings.ReplaceAll(content, "{{API}}", api)), 0o644); err != nil {
			return "", "", err
		}
	}
	return home, project, nil
}

// baseEnv is the environment every agent starts from: the user's PATH and
// locale, and a home and temporary directory of its own, so that no
// configuration, key or state of the user's reaches it and nothing it
// leaves behind stays.
func baseEnv(home string) []string {
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + filepath.Join(home, "tmp"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share")}
	for _, k := range []string{"LANG", "LC_ALL"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// sentBytes adds up the bodies of the requests for a model's answer.
func sentBytes(reqs []apiRequest) int {
	n := 0
	for _, r := range reqs {
		if r.Model {
			n += r.Bytes
		}
	}
	return n
}

// several says how many model requests a run made, if more than one.
func several(reqs []apiRequest) string {
	n, largest := 0, 0
	for _, r := range reqs {
		if r.Model {
			n++
			largest = max(largest, r.Bytes)
		}
	}
	if n < 2 {
		return ""
	}
	return fmt.Sprintf(", in %d requests, the largest %s", n, kB(largest))
}

// describe lists every request of a run.
func describe(reqs []apiRequest) string {
	var parts []string
	for _, r := range reqs {
		s := fmt.Sprintf("`%s %s` (%s", r.Method, r.Path, kB(r.Bytes))
		if r.Encoding != "" {
			s += ", " + r.Encoding
		}
		if !r.Known {
			s += ", not served by the fake"
		}
		parts = append(parts, s+")")
	}
	return strings.Join(parts, ", then ")
}

func kB(n int) string {
	if n < 1000 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f kB", float64(n)/1000)
}

func toolVersion(name string) string {
	out, err := exec.Command(name, "--version").Output()
	if err != nil {
		return "(unknown version)"
	}
	return strings.TrimSpace(lastLines(string(out), 1))
}

func tildePath(p string) string {
	if home, err := os.UserHomeDir(); err == nil {
		if rest, ok := strings.CutPrefix(p, home+"/"); ok {
			return "~/" + rest
		}
	}
	return p
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func clip(s string, n int) string {
	s = string(bytes.ToValidUTF8([]byte(s), nil))
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
