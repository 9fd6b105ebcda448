package gemini

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
)

// Models lists the models the API offers that can generate content, as
// its models endpoint does; only the first page (a thousand models).
func (p *Provider) Models(ctx context.Context) ([]string, error) {
	req, err := p.client.NewRequest(ctx, http.MethodGet, "/v1beta/models?pageSize=1000", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	res, err := p.client.Send(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	res.Body.Close()
	if err != nil {
		return nil, p.client.API.Failure(ctx, err)
	}
	var list struct {
		Models []struct {
			Name    string   `json:"name"`
			Methods []string `json:"supportedGenerationMethods"`
		} `json:"models"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, p.client.API.Malformed("the model list: " + err.Error())
	}
	var names []string
	for _, m := range list.Models {
		if slices.Contains(m.Methods, "generateContent") {
			names = append(names, strings.TrimPrefix(m.Name, "models/"))
		}
	}
	return names, nil
}
