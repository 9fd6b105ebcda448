package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNPMReason(t *testing.T) {
	for _, tc := range []struct{ name, out, want string }{
		{"no registry", `npm error code ECONNREFUSED
npm error syscall connect
npm error errno ECONNREFUSED
npm error FetchError: request to http://127.0.0.1:9/left-pad failed, reason: connect ECONNREFUSED 127.0.0.1:9
npm error     at ClientRequest.<anonymous> (/usr/lib/node_modules/npm/node_modules/minipass-fetch/lib/index.js:130:14)
npm error
npm error If you are behind a proxy, please make sure that the 'proxy' config is set properly.  See: 'npm help config'
npm error A complete log of this run can be found in: /root/.npm/_logs/2026-11-23T00_59_58_191Z-debug-0.log
`, "ECONNREFUSED: FetchError: request to http://127.0.0.1:9/left-pad failed, reason: connect ECONNREFUSED 127.0.0.1:9"},
		{"no such version", `npm error code ETARGET
npm error notarget No matching version found for @openai/codex@0.0.0-nonexistent.
npm error notarget In most cases you or one of your dependencies are requesting a package version that doesn't exist.
npm error A complete log of this run can be found in: /root/.npm/_logs/2026-11-23T00_59_59_291Z-debug-0.log
`, "ETARGET: No matching version found for @openai/codex@0.0.0-nonexistent."},
		{"something else", "Killed\n", "Killed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := npmReason(tc.out); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// gemini-cli's model router asks for JSON of a schema before the prompt
// goes to the model it picks; an answer that does not fit is retried for
// seconds, so the fake answers with a value of the schema.
func TestFakeAnswersGeminiJSONFromTheSchema(t *testing.T) {
	api, err := newFakeAPI("ok")
	if err != nil {
		t.Fatal(err)
	}
	defer api.Close()
	for _, tc := range []struct{ name, config, want string }{
		{"json schema", `{"responseMimeType":"application/json","responseJsonSchema":{"type":"object",
			"properties":{"complexity_reasoning":{"type":"string"},"complexity_score":{"type":"integer","minimum":1},"extra":{"type":"string"}},
			"required":["complexity_reasoning","complexity_score"]}}`, `{"complexity_reasoning":"bench","complexity_score":1}`},
		{"gemini schema", `{"responseSchema":{"type":"OBJECT","properties":{"next_speaker":{"type":"STRING","enum":["user","model"]},
			"ok":{"type":"BOOLEAN"},"list":{"type":"ARRAY"}},"required":["next_speaker","ok","list"]}}`, `{"list":[],"next_speaker":"user","ok":false}`},
		{"text", `{}`, "ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"contents":[{"role":"user","parts":[{"text":"Say ok."}]}],"generationConfig":` + tc.config + `}`
			res, err := http.Post(api.URL+"/v1beta/models/m:generateContent", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var got struct {
				Candidates []struct {
					Content struct {
						Parts []struct{ Text string }
					}
				}
			}
			if err := json.NewDecoder(res.Body).Decode(&got); err != nil {
				t.Fatal(err)
			}
			if text := got.Candidates[0].Content.Parts[0].Text; text != tc.want {
				t.Errorf("answer %s, want %s", text, tc.want)
			}
		})
	}
}

func TestFakeRecordsRequests(t *testing.T) {
	api, err := newFakeAPI("ok")
	if err != nil {
		t.Fatal(err)
	}
	defer api.Close()
	for _, r := range []struct{ method, path, body string }{
		{"POST", "/v1/messages?beta=true", `{"model":"m","stream":true}`},
		{"POST", "/v1/responses", `{"model":"m","stream":true}`},
		{"POST", "/v1beta/models/m:countTokens", `{}`},
		{"GET", "/v1/models", ``},
		{"GET", "/api/oauth/profile", ``},
	} {
		req, _ := http.NewRequest(r.method, api.URL+r.path, strings.NewReader(r.body))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	type seen struct {
		Path         string
		Bytes        int
		Model, Known bool
	}
	var got []seen
	for _, r := range api.Take() {
		got = append(got, seen{r.Path, r.Bytes, r.Model, r.Known})
	}
	want := []seen{
		{"/v1/messages?beta=true", 27, true, true},
		{"/v1/responses", 27, true, true},
		{"/v1beta/models/m:countTokens", 2, false, true},
		{"/v1/models", 0, false, true},
		{"/api/oauth/profile", 0, false, false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if rest := api.Take(); len(rest) != 0 {
		t.Errorf("taken twice: %v", rest)
	}
}
