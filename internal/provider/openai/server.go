package openai

import (
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ikigai-tools/ikigai/internal/plainjson"
	"github.com/ikigai-tools/ikigai/internal/provider"
)

// infoTimeout bounds each question ServerInfo asks: a server that does not
// answer at once does not know.
const infoTimeout = 2 * time.Second

// A ServerModel is what an OpenAI-compatible server says of a model it
// serves, where it says anything.
type ServerModel struct {
	Window int // its context in tokens; 0 when the server does not say
	// Vision is whether it reads images; nil when the server does not say.
	Vision *bool
}

// ServerInfo asks the server what it knows of the model called model: an
// Ollama server through /api/show (its model_info's context_length, less
// the num_ctx its parameters set or, failing that, the context /api/ps
// says it was loaded with; and its capabilities), llama.cpp's through /props (the context it was started
// with, and its modalities). A server that is neither, or does not answer,
// says nothing: the zero ServerModel.
func (p *Provider) ServerInfo(ctx context.Context, model string) ServerModel {
	root := strings.TrimSuffix(strings.TrimSuffix(p.client.API.BaseURL, "/"), "/v1")
	var show struct {
		Parameters   string                     `json:"parameters"`
		ModelInfo    map[string]json.RawMessage `json:"model_info"`
		Capabilities []string                   `json:"capabilities"`
	}
	body, _ := plainjson.Marshal(map[string]string{"model": model})
	if p.ask(ctx, http.MethodPost, root+"/api/show", body, &show) && (show.ModelInfo != nil || show.Capabilities != nil) {
		var m ServerModel
		for k, v := range show.ModelInfo {
			if strings.HasSuffix(k, ".context_length") {
				json.Unmarshal(v, &m.Window)
			}
		}
		// Ollama runs a model with less context than it takes, unless
		// told (and cuts what does not fit without a word): the
		// Modelfile's num_ctx, else what it was loaded with, if it is.
		if n := ollamaContext(show.Parameters); n > 0 {
			m.Window = min(n, cmp.Or(m.Window, n))
		} else if n := p.ollamaLoaded(ctx, root, model); n > 0 {
			m.Window = n
		}
		if show.Capabilities != nil {
			vision := false
			for _, c := range show.Capabilities {
				vision = vision || c == "vision"
			}
			m.Vision = &vision
		}
		return m
	}
	var props struct {
		Settings struct {
			Context int `json:"n_ctx"`
		} `json:"default_generation_settings"`
		Modalities *struct {
			Vision bool `json:"vision"`
		} `json:"modalities"`
	}
	if p.ask(ctx, http.MethodGet, root+"/props", nil, &props) {
		m := ServerModel{Window: props.Settings.Context}
		if props.Modalities != nil {
			m.Vision = &props.Modalities.Vision
		}
		return m
	}
	return ServerModel{}
}

// ollamaContext returns the num_ctx of an Ollama model's parameters (a
// line "num_ctx 16384" of its Modelfile's), 0 when they set none.
func ollamaContext(parameters string) int {
	for line := range strings.Lines(parameters) {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "num_ctx" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

// ollamaLoaded returns the context an Ollama server loaded model with, as
// its /api/ps says; 0 when the model is not loaded.
func (p *Provider) ollamaLoaded(ctx context.Context, root, model string) int {
	var ps struct {
		Models []struct {
			Name    string `json:"name"`
			Context int    `json:"context_length"`
		} `json:"models"`
	}
	if !p.ask(ctx, http.MethodGet, root+"/api/ps", nil, &ps) {
		return 0
	}
	for _, m := range ps.Models {
		if m.Name == model || m.Name == model+":latest" {
			return m.Context
		}
	}
	return 0
}

// ask sends one request to the server and decodes its JSON answer into v,
// reporting whether it could.
func (p *Provider) ask(ctx context.Context, method, url string, body []byte, v any) bool {
	ctx, cancel := context.WithTimeout(ctx, infoTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(string(body)))
	if err != nil {
		return false
	}
	req.Header = p.client.Header.Clone()
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := p.client.Send(req)
	if err != nil {
		return false
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, 4<<20))
	return err == nil && json.Unmarshal(data, v) == nil
}

// Info returns what is known of a model this server serves: window and
// image support as the server reports them.
func (m ServerModel) Info() provider.ModelInfo {
	return provider.ModelInfo{Window: m.Window, TextOnly: m.Vision != nil && !*m.Vision}
}
