// Package pick chooses the model provider from the user's settings and the
// environment. What the user set wins: a provider, else a model whose name
// says whose it is. Else ANTHROPIC_API_KEY picks Anthropic (at the base
// URL, if one is set); else a base URL is an OpenAI-compatible server;
// else OPENAI_API_KEY picks OpenAI; else GEMINI_API_KEY or GOOGLE_API_KEY
// picks Google; else a local server (Ollama) is asked for its models. If
// none of that works, the error says what to set.
package pick

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ikigai-tools/ikigai/internal/lazyregexp"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/anthropic"
	"github.com/ikigai-tools/ikigai/internal/provider/gemini"
	"github.com/ikigai-tools/ikigai/internal/provider/openai"
)

// The providers, as the provider setting names them.
const (
	Anthropic        = "anthropic"
	OpenAI           = "openai"
	OpenAICompatible = "openai-compatible"
	Google           = "google"
)

// LocalURL is where a local OpenAI-compatible server is looked for:
// Ollama's default address.
const LocalURL = "http://localhost:11434/v1"

// probeTimeout bounds asking a server for its models.
const probeTimeout = 3 * time.Second

// Settings are the user's choices, from configuration and flags; empty
// fields are left to the environment and the defaults.
type Settings struct {
	Provider   string // Anthropic, OpenAI, OpenAICompatible or Google
	Model      string
	BaseURL    string
	Getenv     func(string) string // os.Getenv when nil
	HTTPClient *http.Client        // http.DefaultClient when nil
	Retry      provider.Retry
	// IdleTimeout is how long an answer may stay silent before its
	// request counts as stalled; provider.DefaultIdleTimeout when 0.
	IdleTimeout time.Duration
	// MaxResponseBytes caps one answer of the model;
	// provider.DefaultMaxResponseBytes when 0.
	MaxResponseBytes int

	localURL string // LocalURL, unless a test moves it
}

// A Choice is the provider to use and why.
type Choice struct {
	Provider provider.Provider
	Name     string // Anthropic, OpenAI, OpenAICompatible or Google
	Model    string
	BaseURL  string
	Reason   string // why this provider and model, in words for the user
}

// Provider chooses and connects the provider. It may ask an OpenAI-
// compatible server for its models, to find out whether it is there and
// which model to use. Its errors are *provider.Error values, with the
// steps to fix them where there are any, except for settings that make no
// sense (an unknown provider, a base URL that is not one).
func Provider(ctx context.Context, s Settings) (*Choice, error) {
	getenv := s.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	// A base URL moves a provider; it does not choose one over a key. A
	// provider the user names is never changed.
	name, reason := s.Provider, "the provider setting"
	switch {
	case name != "":
	case strings.HasPrefix(s.Model, "claude"):
		name, reason = Anthropic, "the model is Anthropic's"
	case openAIModel().MatchString(s.Model):
		name, reason = OpenAI, "the model is OpenAI's"
	case strings.HasPrefix(s.Model, "gemini-"):
		name, reason = Google, "the model is Google's"
	case getenv(anthropic.KeyEnv) != "":
		name, reason = Anthropic, anthropic.KeyEnv+" is set"
	case s.BaseURL != "":
		name, reason = OpenAICompatible, "a base URL is set"
	case getenv(openai.KeyEnv) != "":
		name, reason = OpenAI, openai.KeyEnv+" is set"
	case getenv(gemini.KeyEnv) != "":
		name, reason = Google, gemini.KeyEnv+" is set"
	case getenv(gemini.AltKeyEnv) != "":
		name, reason = Google, gemini.AltKeyEnv+" is set"
	default:
		return local(ctx, s, getenv)
	}

	c := &Choice{Name: name, Model: s.Model, Reason: reason}
	switch name {
	case Anthropic:
		c.BaseURL = cmp.Or(s.BaseURL, getenv("ANTHROPIC_BASE_URL"), anthropic.DefaultBaseURL)
		p, err := anthropic.New(s.config(getenv(anthropic.KeyEnv), c.BaseURL))
		if err != nil {
			return nil, err
		}
		c.Provider = p
		c.Model = cmp.Or(c.Model, anthropic.DefaultModel)
		return c, nil
	case Google:
		c.BaseURL = cmp.Or(s.BaseURL, getenv(gemini.BaseURLEnv), gemini.DefaultBaseURL)
		p, err := gemini.New(s.config(cmp.Or(getenv(gemini.KeyEnv), getenv(gemini.AltKeyEnv)), c.BaseURL))
		if err != nil {
			return nil, err
		}
		c.Provider = p
		c.Model = cmp.Or(c.Model, gemini.DefaultModel)
		return c, nil
	case OpenAI, OpenAICompatible:
		fallback := openai.DefaultBaseURL
		if name == OpenAICompatible {
			fallback = cmp.Or(s.localURL, LocalURL)
		}
		c.BaseURL = cmp.Or(s.BaseURL, getenv("OPENAI_BASE_URL"), fallback)
		connect := openai.New
		if name == OpenAICompatible {
			connect = openai.NewCompatible
		}
		p, err := connect(s.config(getenv(openai.KeyEnv), c.BaseURL))
		if err != nil {
			return nil, err
		}
		c.Provider = p
		switch {
		case c.Model != "":
		case name == OpenAI:
			c.Model = openai.DefaultModel
		default:
			if err := serverModel(ctx, p, c); err != nil {
				return nil, err
			}
		}
		return c, nil
	}
	return nil, fmt.Errorf("unknown provider %q: choose %s, %s, %s or %s", name, Anthropic, OpenAI, OpenAICompatible, Google)
}

// config is what a provider at base, with key, needs from s.
func (s Settings) config(key, base string) provider.Config {
	return provider.Config{APIKey: key, BaseURL: base, HTTPClient: s.HTTPClient, Retry: s.Retry,
		IdleTimeout: s.IdleTimeout, MaxResponseBytes: s.MaxResponseBytes}
}

// openAIModel matches the names of OpenAI's chat models.
var openAIModel = lazyregexp.New(`^(gpt-|chatgpt-|o[0-9])`)

// serverModel sets c.Model to the first model the server lists. A failure
// says that listing the models failed, and that naming one avoids it.
func serverModel(ctx context.Context, p *openai.Provider, c *Choice) error {
	probe, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	models, err := p.Models(probe)
	if err != nil && ctx.Err() == nil && probe.Err() != nil {
		err = &provider.Error{Provider: OpenAICompatible, Kind: provider.Network, URL: c.BaseURL, Err: err,
			Message: fmt.Sprintf("the server at %s did not answer within %v", c.BaseURL, probeTimeout)}
	}
	var perr *provider.Error
	if errors.As(err, &perr) {
		e := *perr
		e.Message = "cannot list the server's models: " + e.Message
		e.Steps = append(slices.Clip(e.Steps), "Or name the model, and the server is not asked: --model NAME")
		return &e
	}
	if err != nil {
		return err
	}
	if len(models) == 0 {
		return &provider.Error{
			Provider: OpenAICompatible,
			Kind:     provider.BadRequest,
			Message:  "the server at " + c.BaseURL + " has no models",
			URL:      c.BaseURL,
			Steps: []string{
				"With Ollama, pull a model that can call tools: ollama pull qwen3",
				"Or name a model the server has: --model NAME",
			},
		}
	}
	c.Model = models[0]
	c.Reason += "; " + c.Model + " is the first model the server lists"
	return nil
}

// local is the choice when nothing is set: a local server, if one answers.
func local(ctx context.Context, s Settings, getenv func(string) string) (*Choice, error) {
	base := cmp.Or(s.localURL, LocalURL)
	p, err := openai.NewCompatible(s.config(getenv(openai.KeyEnv), base))
	if err != nil {
		return nil, err
	}
	c := &Choice{Provider: p, Name: OpenAICompatible, BaseURL: base, Reason: "no key is set, and a server answered at " + base}
	err = serverModel(ctx, p, c)
	var perr *provider.Error
	switch {
	case err == nil:
		return c, nil
	case errors.As(err, &perr) && perr.Kind == provider.BadRequest:
		return nil, err // a server, but without models
	}
	return nil, &provider.Error{
		Kind: provider.Auth,
		Message: fmt.Sprintf("no model provider is set up: %s, %s and %s are not set, and no server answered at %s (%v)",
			anthropic.KeyEnv, openai.KeyEnv, gemini.KeyEnv, base, reason(err)),
		URL: base,
		Steps: []string{
			"For Anthropic: export " + anthropic.KeyEnv + "=<key from https://console.anthropic.com/settings/keys>",
			"For OpenAI: export " + openai.KeyEnv + "=<key from https://platform.openai.com/api-keys>",
			"For Google Gemini: export " + gemini.KeyEnv + "=<key from https://aistudio.google.com/apikey>",
			"For a local model: install Ollama (https://ollama.com), run ollama serve and ollama pull qwen3; " +
				"or point --base-url at another OpenAI-compatible server",
		},
		Err: err,
	}
}

// reason is the innermost cause of a failed probe, which is short:
// "connection refused".
func reason(err error) string {
	for errors.Unwrap(err) != nil {
		err = errors.Unwrap(err)
	}
	return err.Error()
}
