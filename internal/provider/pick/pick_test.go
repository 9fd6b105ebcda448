package pick

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/anthropic"
	"github.com/ikigai-tools/ikigai/internal/provider/gemini"
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
	// silent is a server the choice must not ask anything.
	silent := providertest.NewServer(providertest.Transcript{Models: []string{"never-asked"}})
	defer silent.Close()

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
		{"a base URL alone", Settings{BaseURL: remote.OpenAIURL(), Getenv: env()},
			OpenAICompatible, "vendor/model-x", remote.OpenAIURL(), "a base URL is set; vendor/model-x is the first model the server lists"},
		{"a base URL and an OpenAI key", Settings{BaseURL: remote.OpenAIURL(), Getenv: env(openai.KeyEnv, "o")},
			OpenAICompatible, "vendor/model-x", remote.OpenAIURL(), "a base URL is set; vendor/model-x is the first model the server lists"},
		// A base URL moves Anthropic's API; it does not override the key.
		{"a base URL and an Anthropic key", Settings{BaseURL: silent.AnthropicURL(), Getenv: env(anthropic.KeyEnv, "a")},
			Anthropic, anthropic.DefaultModel, silent.AnthropicURL(), "ANTHROPIC_API_KEY is set"},
		{"a compatible server with a model", Settings{Provider: OpenAICompatible, Model: "mistral", Getenv: env()},
			OpenAICompatible, "mistral", local.OpenAIURL(), "the provider setting"},
		{"the SDKs' base URL variables", Settings{Getenv: env(anthropic.KeyEnv, "a", "ANTHROPIC_BASE_URL", "https://proxy.example.com")},
			Anthropic, anthropic.DefaultModel, "https://proxy.example.com", "ANTHROPIC_API_KEY is set"},
		{"OpenAI at another base URL keeps its model", Settings{Provider: OpenAI, Getenv: env(openai.KeyEnv, "o", "OPENAI_BASE_URL", silent.OpenAIURL())},
			OpenAI, openai.DefaultModel, silent.OpenAIURL(), "the provider setting"},
		{"OpenAI at a base URL, without a key", Settings{Provider: OpenAI, BaseURL: silent.OpenAIURL(), Getenv: env(anthropic.KeyEnv, "a")},
			OpenAI, openai.DefaultModel, silent.OpenAIURL(), "the provider setting"},
		// Google's keys come after the others: nobody's choice changes.
		{"a Gemini key", Settings{Getenv: env(gemini.KeyEnv, "g")},
			Google, gemini.DefaultModel, gemini.DefaultBaseURL, "GEMINI_API_KEY is set"},
		{"a Google key", Settings{Getenv: env(gemini.AltKeyEnv, "g")},
			Google, gemini.DefaultModel, gemini.DefaultBaseURL, "GOOGLE_API_KEY is set"},
		{"a Gemini key after the OpenAI key", Settings{Getenv: env(gemini.KeyEnv, "g", openai.KeyEnv, "o")},
			OpenAI, openai.DefaultModel, openai.DefaultBaseURL, "OPENAI_API_KEY is set"},
		{"a Gemini key after a base URL", Settings{BaseURL: remote.OpenAIURL(), Getenv: env(gemini.KeyEnv, "g")},
			OpenAICompatible, "vendor/model-x", remote.OpenAIURL(), "a base URL is set; vendor/model-x is the first model the server lists"},
		{"a Gemini model", Settings{Model: "gemini-3-pro-preview", Getenv: env(anthropic.KeyEnv, "a", gemini.AltKeyEnv, "g")},
			Google, "gemini-3-pro-preview", gemini.DefaultBaseURL, "the model is Google's"},
		{"Google's SDK's base URL variable", Settings{Provider: Google, Getenv: env("GOOGLE_GEMINI_BASE_URL", silent.GeminiURL())},
			Google, gemini.DefaultModel, silent.GeminiURL(), "the provider setting"},
		{"a provider wins over a Gemini model", Settings{Provider: Anthropic, Model: "gemini-2.5-flash", Getenv: env(anthropic.KeyEnv, "a")},
			Anthropic, "gemini-2.5-flash", anthropic.DefaultBaseURL, "the provider setting"},
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
	if reqs := silent.Requests(); len(reqs) > 0 {
		t.Errorf("the choice sent %s %s", reqs[0].Method, reqs[0].Path)
	}
}

// The provider chosen is the one that talks: its failures name it, and
// OpenAI at any base URL gets OpenAI's max_completion_tokens.
func TestChosenProviderSpeaks(t *testing.T) {
	for _, name := range []string{Anthropic, OpenAI, OpenAICompatible, Google} {
		srv := providertest.NewServer(providertest.Transcript{Replies: []providertest.Reply{{Text: "ok"}, {Status: 400, Error: "no"}}})
		defer srv.Close()
		base := srv.OpenAIURL()
		switch name {
		case Anthropic:
			base = srv.AnthropicURL()
		case Google:
			base = srv.GeminiURL()
		}
		c, err := Provider(context.Background(), Settings{Provider: name, Model: "m", BaseURL: base, Getenv: env()})
		if err != nil {
			t.Fatal(err)
		}
		req := provider.Request{Model: c.Model, MaxTokens: 100, Messages: []provider.Message{provider.UserText("hi")}}
		if _, err := c.Provider.Stream(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
		_, err = c.Provider.Stream(context.Background(), req, nil)
		if e, ok := err.(*provider.Error); !ok || e.Provider != name {
			t.Errorf("%s: the failure is %v, want one of %s", name, err, name)
		}
		var body map[string]any
		json.Unmarshal(srv.Requests()[0].Body, &body)
		if name == OpenAI && (body["max_completion_tokens"] != 100.0 || body["max_tokens"] != nil) {
			t.Errorf("OpenAI got max_tokens %v, max_completion_tokens %v", body["max_tokens"], body["max_completion_tokens"])
		}
	}
}

// The idle timeout reaches whichever provider is chosen.
func TestIdleTimeout(t *testing.T) {
	for _, name := range []string{Anthropic, OpenAI, OpenAICompatible, Google} {
		srv := providertest.NewServer(providertest.Transcript{Replies: []providertest.Reply{{StallBeforeHeaders: true}}})
		defer srv.Close()
		base := srv.OpenAIURL()
		switch name {
		case Anthropic:
			base = srv.AnthropicURL()
		case Google:
			base = srv.GeminiURL()
		}
		c, err := Provider(context.Background(), Settings{Provider: name, Model: "m", BaseURL: base, Getenv: env(),
			Retry: provider.Retry{Attempts: 1}, IdleTimeout: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Provider.Stream(context.Background(), provider.Request{Model: c.Model, Messages: []provider.Message{provider.UserText("hi")}}, nil)
		if err == nil || err.Error() != name+": stream stalled for 0.1s before the response began" {
			t.Errorf("%s: got %v, want the stall", name, err)
		}
	}
}

// The cap on an answer reaches whichever provider is chosen.
func TestMaxResponseBytes(t *testing.T) {
	for _, name := range []string{Anthropic, OpenAI, OpenAICompatible} {
		srv := providertest.NewServer(providertest.Transcript{Replies: []providertest.Reply{{Text: strings.Repeat("word ", 20)}}})
		defer srv.Close()
		base := srv.OpenAIURL()
		switch name {
		case Anthropic:
			base = srv.AnthropicURL()
		case Google:
			base = srv.GeminiURL()
		}
		c, err := Provider(context.Background(), Settings{Provider: name, Model: "m", BaseURL: base, Getenv: env(), MaxResponseBytes: 50})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Provider.Stream(context.Background(), provider.Request{Model: c.Model, Messages: []provider.Message{provider.UserText("hi")}}, nil)
		if err == nil || !strings.HasPrefix(err.Error(), name+": response too large: more than 50 bytes") {
			t.Errorf("%s: got %v, want the cap", name, err)
		}
	}
}

// A failed model listing says that is what failed, and how to do without.
func TestModelListFails(t *testing.T) {
	srv := providertest.NewServer(providertest.Transcript{})
	defer srv.Close()
	_, err := Provider(context.Background(), Settings{Provider: OpenAICompatible, BaseURL: srv.URL, Getenv: env()})
	want := "openai-compatible: cannot list the server's models: not found (HTTP 404) at " + srv.URL + "/models: the fake provider has no route GET /models\n" +
		"To fix it:\n" +
		"  1. Most servers want /v1 at the end of the base URL: --base-url " + srv.URL + "/v1\n" +
		"  2. If the server speaks Anthropic's API: --provider anthropic\n" +
		"  3. Or name the model, and the server is not asked: --model NAME"
	if err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
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
		"no model provider is set up: ANTHROPIC_API_KEY, OPENAI_API_KEY and GEMINI_API_KEY are not set, and no server answered at " + url + " (connection refused)",
		"export ANTHROPIC_API_KEY=", "export OPENAI_API_KEY=", "export GEMINI_API_KEY=", "ollama pull", "--base-url",
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
		{Settings{Provider: "gemini"}, `unknown provider "gemini": choose anthropic, openai, openai-compatible or google`},
		{Settings{Provider: Google}, "google: no API key: GEMINI_API_KEY is not set"},
		{Settings{Provider: Anthropic}, "anthropic: no API key: ANTHROPIC_API_KEY is not set"},
		{Settings{Provider: OpenAI}, "openai: no API key: OPENAI_API_KEY is not set"},
		{Settings{BaseURL: "localhost:11434"}, `openai-compatible: base URL "localhost:11434" is not an http or https URL`},
		{Settings{Provider: OpenAICompatible, localURL: "http://127.0.0.1:1/v1"}, "cannot reach 127.0.0.1:1"},
	} {
		tc.settings.Getenv = env()
		_, err := Provider(context.Background(), tc.settings)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.settings, err, tc.want)
		}
	}
}

// Each provider's default model is in its table, window and price known,
// so that a conversation with the defaults can be compacted and costed.
func TestDefaultsInTables(t *testing.T) {
	for _, tc := range []struct {
		model string
		table provider.ModelTable
	}{
		{anthropic.DefaultModel, anthropic.Models},
		{openai.DefaultModel, openai.Models},
		{gemini.DefaultModel, gemini.Models},
	} {
		if info := tc.table.Lookup(tc.model); info.Window == 0 || info.Price == nil {
			t.Errorf("%s: window %d, price %v; want both known", tc.model, info.Window, info.Price)
		}
	}
	if w := gemini.Models.Lookup("gemini-2.5-pro").Window; w != 1_048_576 {
		t.Errorf("gemini-2.5-pro reads %d tokens, want 1,048,576", w)
	}
	if info := gemini.Models.Lookup("gemini-3-pro-preview"); info.Price == nil || info.Price.Input != 2 {
		t.Errorf("gemini-3-pro-preview: %+v", info)
	}
}
