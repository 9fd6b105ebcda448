package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
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
// Ollama server through /api/show (its model_info's context_length and its
// capabilities), llama.cpp's through /props (the context it was started
// with, and its modalities). A server that is neither, or does not answer,
// says nothing: the zero ServerModel.
func (p *Provider) ServerInfo(ctx context.Context, model string) ServerModel {
	root := strings.TrimSuffix(strings.TrimSuffix(p.client.API.BaseURL, "/"), "/v1")
	var show struct {
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
