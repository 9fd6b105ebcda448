package provider

import (
	"errors"
	"strings"
	"testing"
)

func TestNewClient(t *testing.T) {
	api := API{Name: "test", KeyEnv: "TEST_API_KEY"}
	const own = "https://api.example.com/v1"
	for _, u := range []string{"localhost:8080", "ftp://example.com", "http://", "://"} {
		if _, err := NewClient(api, own, Config{APIKey: "k", BaseURL: u}); err == nil || !strings.HasSuffix(err.Error(), "is not an http or https URL") {
			t.Errorf("base URL %q: %v", u, err)
		}
	}
	// The API's own URL needs a key; another does not.
	var e *Error
	if _, err := NewClient(api, own, Config{}); !errors.As(err, &e) || e.Kind != Auth {
		t.Errorf("no key at the API's own URL: %v", err)
	}
	c, err := NewClient(api, own, Config{BaseURL: "http://127.0.0.1:8080/v1/"})
	if err != nil {
		t.Fatal(err)
	}
	if c.API.BaseURL != "http://127.0.0.1:8080/v1" || c.Header.Get("User-Agent") != UserAgent {
		t.Errorf("base URL %q, user agent %q", c.API.BaseURL, c.Header.Get("User-Agent"))
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int]string{4 << 20: "4 MiB", 64 << 10: "64 KiB", 1536: "1536 bytes", 100: "100 bytes"} {
		if got := size(n); got != want {
			t.Errorf("size(%d) = %q, want %q", n, got, want)
		}
	}
}
