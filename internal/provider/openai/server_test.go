package openai_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/openai"
)

// What local servers say of their models, in their own formats: Ollama's
// /api/show and llama.cpp's /props.
func TestServerInfo(t *testing.T) {
	ollama := func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Model string }
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &req)
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/api/ps":
			// What runs now: the context it was loaded with, not the
			// model's longest.
			io.WriteString(w, `{"models":[{"name":"llama3.2:latest","model":"llama3.2:latest","size":4000000000,"context_length":4096}]}`)
		case r.Method != http.MethodPost || r.URL.Path != "/api/show":
			http.NotFound(w, r)
		case req.Model == "llama3.2":
			io.WriteString(w, `{"model_info":{"general.architecture":"llama","llama.context_length":131072},"capabilities":["completion","tools"]}`)
		case req.Model == "coder":
			io.WriteString(w, `{"parameters":"num_ctx                        16384\nstop                           \"<|im_end|>\"","model_info":{"general.architecture":"qwen2","qwen2.context_length":32768},"capabilities":["completion"]}`)
		case req.Model == "qwen2.5vl":
			io.WriteString(w, `{"license":"...","model_info":{"general.architecture":"qwen25vl","qwen25vl.context_length":128000,"qwen25vl.embedding_length":3584},"capabilities":["completion","vision","tools"]}`)
		case req.Model == "qwen3":
			io.WriteString(w, `{"model_info":{"general.architecture":"qwen3","qwen3.context_length":40960},"capabilities":["completion","tools","thinking"]}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":"model '`+req.Model+`' not found"}`)
		}
	}
	llamacpp := func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/props" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, `{"default_generation_settings":{"n_ctx":8192,"temperature":0.8},"total_slots":1,"model_path":"m.gguf","modalities":{"vision":false,"audio":false}}`)
	}
	yes, no := true, false
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		model   string
		want    openai.ServerModel
		info    provider.ModelInfo
	}{
		{"ollama, vision", ollama, "qwen2.5vl", openai.ServerModel{Window: 128000, Vision: &yes}, provider.ModelInfo{Window: 128000}},
		{"ollama, text", ollama, "qwen3", openai.ServerModel{Window: 40960, Vision: &no}, provider.ModelInfo{Window: 40960, TextOnly: true}},
		{"ollama, loaded with less than its longest", ollama, "llama3.2", openai.ServerModel{Window: 4096, Vision: &no}, provider.ModelInfo{Window: 4096, TextOnly: true}},
		{"ollama, its Modelfile's num_ctx", ollama, "coder", openai.ServerModel{Window: 16384, Vision: &no}, provider.ModelInfo{Window: 16384, TextOnly: true}},
		{"ollama, unknown model", ollama, "nosuch", openai.ServerModel{}, provider.ModelInfo{}},
		{"llama.cpp", llamacpp, "any", openai.ServerModel{Window: 8192, Vision: &no}, provider.ModelInfo{Window: 8192, TextOnly: true}},
		{"neither", http.NotFound, "any", openai.ServerModel{}, provider.ModelInfo{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			p, err := openai.NewCompatible(provider.Config{BaseURL: srv.URL + "/v1"})
			if err != nil {
				t.Fatal(err)
			}
			got := p.ServerInfo(t.Context(), tc.model)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.info, got.Info()); diff != "" {
				t.Errorf("Info (-want +got):\n%s", diff)
			}
		})
	}
}
