package calllog

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// redacted replaces a secret.
const redacted = "[REDACTED]"

// secretName matches a word that says the value after it is secret:
// api_key, GITHUB_TOKEN, client-secret, password.
const secretName = `[A-Za-z0-9_.-]*(?:api[_-]?key|apikey|token|secret|pass|pwd|credential|access[_-]?key|private[_-]?key|session[_-]?id)[A-Za-z0-9_.-]*["']?\s*[:=]\s*`

// secretPatterns match what looks like a credential in free text. Each
// replacement keeps what names the secret and drops its value. They are
// compiled on first use: commands that log nothing do not pay for it.
var secretPatterns = sync.OnceValue(func() []secretPattern {
	return []secretPattern{
		// A private key, to its end or the end of the text; first, before
		// the other patterns take pieces of it.
		{regexp.MustCompile(`(?s)-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|$)`), redacted},
		// An Authorization header's value, to the end of the line or string.
		{regexp.MustCompile(`(?i)((?:proxy-)?authorization["']?\s*[:=]\s*["']?)[^\r\n"']+`), "${1}" + redacted},
		// Credentials by the word that introduces them: "Bearer abc", "token xyz".
		{regexp.MustCompile(`(?i)\b(bearer|basic|token)(\s+)[A-Za-z0-9._~+/=-]{8,}`), "${1}${2}" + redacted},
		// name=value, name: 'value' and "name": "value" where the name says
		// the value is secret.
		{regexp.MustCompile(`(?i)(` + secretName + `")[^"\r\n]+`), "${1}" + redacted},
		{regexp.MustCompile(`(?i)(` + secretName + `')[^'\r\n]+`), "${1}" + redacted},
		{regexp.MustCompile(`(?i)(` + secretName + `)[^\s"',;&]{4,}`), "${1}" + redacted},
		// Keys whose shape gives them away.
		{regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`), redacted},                                            // OpenAI, Anthropic
		{regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`), redacted},      // GitHub
		{regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`), redacted},                                      // AWS
		{regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`), redacted},                                    // Slack
		{regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`), redacted},                                            // Google
		{regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), redacted},       // JWT
		{regexp.MustCompile(`\b[rs]k_(?:live|test)_[0-9A-Za-z]{10,}`), redacted},                             // Stripe
		{regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}`), redacted},                                              // npm
		{regexp.MustCompile(`\bhf_[A-Za-z0-9]{30,}`), redacted},                                              // Hugging Face
		{regexp.MustCompile(`\bgl(?:pat|dt|rt|ptt|ft|soat|cbt|imt|oas|agent)-[0-9A-Za-z_-]{20,}`), redacted}, // GitLab
		{regexp.MustCompile(`\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}`), redacted},                         // SendGrid
		{regexp.MustCompile(`\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{20,}`), redacted},                           // PyPI
		{regexp.MustCompile(`\bdo[opr]_v1_[a-f0-9]{64}`), redacted},                                          // DigitalOcean
		{regexp.MustCompile(`\bxapp-[0-9]-[A-Za-z0-9-]{10,}`), redacted},                                     // Slack app
		// A Slack webhook's URL is its credential.
		{regexp.MustCompile(`(hooks\.slack\.com/(?:services|workflows|triggers)/)[A-Za-z0-9/_+-]+`), "${1}" + redacted},
		// A password in a URL: scheme://user:password@host.
		{regexp.MustCompile(`(://[^/\s:@]+:)[^/\s@]+@`), "${1}" + redacted + "@"},
	}
})

type secretPattern struct {
	re   *regexp.Regexp
	repl string
}

// base64Run matches a run of base64 characters, to find 40 of them alone:
// the shape of an AWS secret access key, which has no prefix.
var base64Run = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z0-9/+]+`) })

// awsSecret reports whether a run of base64 characters looks like an AWS
// secret access key: 40 of them, with upper and lower case letters and a
// digit, which a hex digest, a word or most paths are not.
func awsSecret(run string) bool {
	if len(run) != 40 {
		return false
	}
	var upper, lower, digit bool
	for _, c := range run {
		switch {
		case 'A' <= c && c <= 'Z':
			upper = true
		case 'a' <= c && c <= 'z':
			lower = true
		case '0' <= c && c <= '9':
			digit = true
		}
	}
	return upper && lower && digit
}

// secretVariable matches the names of environment variables that hold
// credentials: ANTHROPIC_API_KEY, GITHUB_TOKEN, DB_PASSWORD, MYSQL_PWD,
// DOCKER_PASS. PWD itself is the working directory.
var secretVariable = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(key|token|secret|passw(or)?d|credential|auth|(^|_)(pwd|pass)(_|$))`)
})

// minSecret is the shortest variable value taken for a secret: shorter
// ones ("1", "true") would blank out ordinary words.
const minSecret = 8

// scrubber removes secrets from text: the values of the environment's
// secret-looking variables wherever they appear, and whatever matches
// secretPatterns.
type scrubber struct {
	values []string // longest first, so a value inside another goes too
}

func newScrubber(environ []string) *scrubber {
	s := &scrubber{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if ok && len(value) >= minSecret && name != "PWD" && secretVariable().MatchString(name) {
			s.values = append(s.values, value)
		}
	}
	slices.SortFunc(s.values, func(a, b string) int { return len(b) - len(a) })
	return s
}

// clean returns text without secrets, as valid UTF-8, cut to at most max
// bytes and an ellipsis. It scrubs before cutting, so a secret cut in two
// cannot slip through.
func (s *scrubber) clean(text string, max int) string {
	for _, v := range s.values {
		text = strings.ReplaceAll(text, v, redacted)
	}
	for _, p := range secretPatterns() {
		text = p.re.ReplaceAllString(text, p.repl)
	}
	text = base64Run().ReplaceAllStringFunc(text, func(run string) string {
		if awsSecret(run) {
			return redacted
		}
		return run
	})
	text = strings.ToValidUTF8(text, "\uFFFD")
	if len(text) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "..."
	}
	return text
}

// maxEventText caps each string of a debug event.
const maxEventText = 2 << 10

// scrubHandler scrubs the message and every string attribute of the
// records it passes on, so that no event, whoever wrote it, carries a
// secret into the log.
type scrubHandler struct {
	slog.Handler
	s *scrubber
}

func (h scrubHandler) Handle(ctx context.Context, r slog.Record) error {
	clean := slog.NewRecord(r.Time, r.Level, h.s.clean(r.Message, maxEventText), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		clean.AddAttrs(h.attr(a))
		return true
	})
	return h.Handler.Handle(ctx, clean)
}

func (h scrubHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = h.attr(a)
	}
	return scrubHandler{h.Handler.WithAttrs(clean), h.s}
}

func (h scrubHandler) WithGroup(name string) slog.Handler {
	return scrubHandler{h.Handler.WithGroup(name), h.s}
}

// attr returns a with its strings scrubbed; values of other kinds that
// print as text (errors, Stringers) become scrubbed strings.
func (h scrubHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.s.clean(v.String(), maxEventText))
	case slog.KindAny:
		return slog.String(a.Key, h.s.clean(fmt.Sprint(v.Any()), maxEventText))
	case slog.KindGroup:
		group := v.Group()
		clean := make([]any, len(group))
		for i, g := range group {
			clean[i] = h.attr(g)
		}
		return slog.Group(a.Key, clean...)
	}
	return slog.Attr{Key: a.Key, Value: v}
}
