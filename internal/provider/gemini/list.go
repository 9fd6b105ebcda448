package gemini

import (
	"context"
	"slices"
	"strings"
)

// Models lists the models the API offers that can generate content, as
// its models endpoint does; only the first page (a thousand models).
func (p *Provider) Models(ctx context.Context) ([]string, error) {
	var list struct {
		Models []struct {
			Name    string   `json:"name"`
			Methods []string `json:"supportedGenerationMethods"`
		} `json:"models"`
	}
	if err := p.client.GetJSON(ctx, "/v1beta/models?pageSize=1000", "the model list", &list); err != nil {
		return nil, err
	}
	var names []string
	for _, m := range list.Models {
		if slices.Contains(m.Methods, "generateContent") {
			names = append(names, strings.TrimPrefix(m.Name, "models/"))
		}
	}
	return names, nil
}
