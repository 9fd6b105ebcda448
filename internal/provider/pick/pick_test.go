package pick

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/anthropic"
	"github.com/ikigai-tools/ikigai/internal/provider/openai"
	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
)

func env(vars ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(vars); i += 2 {
		m[vars[i]] = vars[i+1]
	}
	return func(k string) string { return m[k] }
}

// nowhere is a URL where nothing listens.
func nowhere(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return "http://" + l.Addr().String() + "/v1"
}

func TestChoice(t *testing.T) {
	local := providertest.NewServer(providertest.Transcript{Models: []string{"qwen3:8b", "llama3.2"}})
	defer local.Close()
	remote := providertest.NewServer(providertest.Transcript{Models: []string{"vendor/model-x"}})
	defer remote.Close()

	for _, tc := range []struct {
		name                 string
		settings             Settings
		want                 string // provider
		model, base, because string
	}{
		{"nothing set, a local server answers", Settings{Getenv: env()},
			OpenAICompatible, "qwen3:8b", local.OpenAIURL(), "no key is set, and a server answered at " + local.OpenAIURL() + "; qwen3:8b is the first model the server lists"},
		{"an Anthropic key", Settings{Getenv: env(anthropic.KeyEnv, "a")},
			Anthropic, anthropic.DefaultModel, anthropic.DefaultBaseURL, "ANTHROPIC_API_KEY is set"},
		{"both keys", Settings{Getenv: env(anthropic.KeyEnv, "a", openai.KeyEnv, "o")},
			Anthropic, anthropic.DefaultModel, anthropic.DefaultBaseURL, "ANTHROPIC_API_KEY is set"},
		{"an OpenAI key", Settings{Getenv: env(openai.KeyEnv, "o")},
			OpenAI, openai.DefaultModel, openai.DefaultBaseURL, "OPENAI_API_KEY is set"},
		{"both keys and an OpenAI model", Settings{Model: "gpt-5.4-mini", Getenv: env(anthropic.KeyEnv, "a", openai.KeyEnv, "o")},
			OpenAI, "gpt-5.4-mini", openai.DefaultBaseURL, "the model is OpenAI's"},
		{"an o-series model", Settings{Model: "o3", Getenv: env(anthropic.KeyEnv, "a", openai.KeyEnv, "o")},
			OpenAI, "o3", openai.DefaultBaseURL, "the model is OpenAI's"},
		{"an Anthropic model", Settings{Model: "claude-haiku-4-5", Getenv: env(anthropic.KeyEnv, "a", openai.KeyEnv, "o")},
			Anthropic, "claude-haiku-4-5", anthropic.DefaultBaseURL, "the model is Anthropic's"},
		{"a provider wins over keys", Settings{Provider: OpenAI, Getenv: env(anthropic.KeyEnv, "a", openai.KeyEnv, "o")},
			OpenAI, openai.DefaultModel, openai.DefaultBaseURL, "the provider setting"},
		{"a base URL alone", Settings{BaseURL: remote.OpenAIURL(), Getenv: env(anthropic.KeyEnv, "a")},
			OpenAICompatible, "vendor/model-x", remote.OpenAIURL(), "a base URL is set; vendor/model-x is the first model the server lists"},
		{"a compatible server with a model", Settings{Provider: OpenAICompatible, Model: "mistral", Getenv: env()},
			OpenAICompatible, "mistral", local.OpenAIURL(), "the provider setting"},
		{"the SDKs' base URL variables", Settings{Getenv: env(anthropic.KeyEnv, "a", "ANTHROPIC_BASE_URL", "https://proxy.example.com")},
			Anthropic, anthropic.DefaultModel, "https://proxy.example.com", "ANTHROPIC_API_KEY is set"},
		{"OpenAI with another base URL asks it", Settings{Provider: OpenAI, Getenv: env(openai.KeyEnv, "o", "OPENAI_BASE_URL", remote.OpenAIURL())},
			OpenAI, "vendor/model-x", remote.OpenAIURL(), "the provider setting; vendor/model-x is the first model the server lists"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.settings.localURL = local.OpenAIURL()
			c, err := Provider(context.Background(), tc.settings)
			if err != nil {
				t.Fatal(err)
			}
			if c.Name != tc.want || c.Model != tc.model || c.BaseURL != tc.base || c.Reason != tc.because || c.Provider == nil {
				t.Errorf("got %s %s at %s because %q\nwant %s %s at %s because %q", c.Name, c.Model, c.BaseURL, c.Reason, tc.want, tc.model, tc.base, tc.because)
			}
		})
	}
}

// The chosen local provider works, and the key is sent when there is one.
func TestChoiceStreams(t *testing.T) {
	srv := providertest.NewServer(providertest.Transcript{Models: []string{"qwen3:8b"}, Replies: []providertest.Reply{{Text: "hi there"}}})
	defer srv.Close()
	c, err := Provider(context.Background(), Settings{Provider: OpenAICompatible, BaseURL: srv.OpenAIURL(), Getenv: env(openai.KeyEnv, "router-key")})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Provider.Stream(context.Background(), provider.Request{Model: c.Model, Messages: []provider.Message{provider.UserText("hi")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if res.Message.Text() != "hi there" || len(reqs) != 2 || reqs[0].Path != "/v1/models" || reqs[1].Header.Get("Authorization") != "Bearer router-key" {
		t.Errorf("answer %q after requests %+v", res.Message.Text(), reqs)
	}
}

func TestModelIsNotProbedWhenSet(t *testing.T) {
	srv := providertest.NewServer(providertest.Transcript{})
	defer srv.Close()
	if _, err := Provider(context.Background(), Settings{BaseURL: srv.OpenAIURL(), Model: "m", Getenv: env()}); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests, want none", n)
	}
}

func TestNothingUsable(t *testing.T) {
	url := nowhere(t)
	_, err := Provider(context.Background(), Settings{Getenv: env(), localURL: url})
	var e *provider.Error
	if !errors.As(err, &e) || e.Kind != provider.Auth {
		t.Fatalf("got %v, want an auth error", err)
	}
	for _, want := range []string{
		"no model provider is set up: ANTHROPIC_API_KEY and OPENAI_API_KEY are not set, and no server answered at " + url + " (connection refused)",
		"export ANTHROPIC_API_KEY=", "export OPENAI_API_KEY=", "ollama pull", "--base-url",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q\ndoes not say %q", err, want)
		}
	}
}

func TestServerWithoutModels(t *testing.T) {
	srv := providertest.NewServer(providertest.Transcript{})
	defer srv.Close()
	_, err := Provider(context.Background(), Settings{Getenv: env(), localURL: srv.OpenAIURL()})
	if err == nil || !strings.Contains(err.Error(), "has no models") || !strings.Contains(err.Error(), "ollama pull") {
		t.Errorf("got %v, want no models and how to get one", err)
	}
}

func TestSettingErrors(t *testing.T) {
	for _, tc := range []struct {
		settings Settings
		want     string
	}{
		{Settings{Provider: "gemini"}, `unknown provider "gemini": choose anthropic, openai or openai-compatible`},
		{Settings{Provider: Anthropic}, "anthropic: no API key: ANTHROPIC_API_KEY is not set"},
		{Settings{Provider: OpenAI}, "openai: no API key: OPENAI_API_KEY is not set"},
		{Settings{BaseURL: "localhost:11434"}, `openai: base URL "localhost:11434" is not an http or https URL`},
		{Settings{Provider: OpenAICompatible, localURL: "http://127.0.0.1:1/v1"}, "cannot reach 127.0.0.1:1"},
	} {
		tc.settings.Getenv = env()
		_, err := Provider(context.Background(), tc.settings)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.settings, err, tc.want)
		}
	}
}
