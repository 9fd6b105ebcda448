package providertest

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// gemini is the Gemini API's format (generateContent, streamed with
// alt=sse). Its model is in the path, not the body.
type gemini struct{}

// The signature the fake attaches to the first call of each of its turns,
// as Gemini does, and the value Google documents for a call it did not
// make.
const (
	fakeSignature = "c2lnbmF0dXJl"
	skipSignature = "skip_thought_signature_validator"
)

// geminiRoute reports whether path is a streamGenerateContent request,
// and for which model.
func geminiRoute(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, "/v1beta/models/")
	if !ok {
		return "", false
	}
	return strings.CutSuffix(rest, ":streamGenerateContent")
}

type geminiPart struct {
	Text       *string `json:"text"`
	Thought    bool    `json:"thought"`
	InlineData *struct {
		MIMEType string `json:"mimeType"`
		Data     string `json:"data"`
	} `json:"inlineData"`
	FunctionCall *struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
	ThoughtSignature string `json:"thoughtSignature"`
}

func (gemini) check(body []byte) string {
	var req struct {
		Contents []struct {
			Role  string       `json:"role"`
			Parts []geminiPart `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return err.Error()
	}
	if len(req.Contents) == 0 {
		return "* GenerateContentRequest.contents: contents is not specified"
	}
	// The current turn begins at the user's last text: every model turn
	// since must carry the signatures Gemini gave it.
	current := 0
	for i, c := range req.Contents {
		if c.Role != "model" {
			for _, p := range c.Parts {
				if p.Text != nil {
					current = i
				}
			}
		}
	}
	type call struct{ id, name string }
	var pending []call // the calls of the previous model turn
	for i, c := range req.Contents {
		if len(c.Parts) == 0 {
			return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts: contents.parts must not be empty.", i)
		}
		var calls, answers []call
		for j, p := range c.Parts {
			switch {
			case p.FunctionCall != nil:
				if c.Role != "model" {
					return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts[%d]: a function call belongs to a model turn", i, j)
				}
				if len(calls) == 0 && i > current && p.ThoughtSignature == "" {
					return fmt.Sprintf("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, "+
						"and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:%s` , position %d. "+
						"Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", p.FunctionCall.Name, i+1)
				}
				calls = append(calls, call{p.FunctionCall.ID, p.FunctionCall.Name})
			case p.InlineData != nil:
				at := fmt.Sprintf("contents[%d].parts[%d].inline_data", i, j)
				if !slices.Contains([]string{"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif", "image/gif"}, p.InlineData.MIMEType) {
					return fmt.Sprintf("* GenerateContentRequest.%s.mime_type: Unsupported MIME type: %s", at, p.InlineData.MIMEType)
				}
				if _, err := base64.StdEncoding.DecodeString(p.InlineData.Data); err != nil || p.InlineData.Data == "" {
					return fmt.Sprintf("Invalid value at '%s.data' (TYPE_BYTES), Base64 decoding failed", at)
				}
			case p.FunctionResponse != nil:
				answers = append(answers, call{p.FunctionResponse.ID, p.FunctionResponse.Name})
				var obj map[string]json.RawMessage
				if json.Unmarshal(p.FunctionResponse.Response, &obj) != nil || obj == nil {
					return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts[%d].function_response.response: a response must be a JSON object", i, j)
				}
			}
		}
		if len(pending) > 0 || len(answers) > 0 {
			if len(pending) == 0 {
				return fmt.Sprintf("Please ensure that function response turn comes immediately after a function call turn. (contents[%d])", i)
			}
			if len(answers) != len(pending) {
				return fmt.Sprintf("Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn. (contents[%d]: %d calls, %d responses)", i, len(pending), len(answers))
			}
			for k, want := range pending {
				got := answers[k]
				if got.name != want.name || (want.id != "" && got.id != want.id) {
					return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts[%d].function_response: the response (name %q, id %s) does not answer the call in its place (name %q, id %s)",
						i, k, got.name, got.id, want.name, want.id)
				}
			}
		}
		pending = calls
	}
	if len(pending) > 0 {
		return "Please ensure that function call turn comes immediately after a user turn or after a function response turn."
	}
	return ""
}

func (gemini) fail(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, obj{"error": geminiError(status, typ, msg)})
}

func geminiError(status int, typ, msg string) obj {
	code := map[int]string{400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
		429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}[status]
	e := obj{"code": status, "message": cmp.Or(msg, http.StatusText(status)), "status": cmp.Or(code, "UNKNOWN")}
	if typ != "" {
		// A reason of Google's, as an ErrorInfo detail: API_KEY_INVALID.
		e["details"] = []obj{{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": typ, "domain": "googleapis.com"}}
	}
	return e
}

func (gemini) stream(w *eventWriter, r Reply, calls []Call, q query) {
	model := q.model
	u := r.usage()
	usage := obj{"promptTokenCount": u.InputTokens, "totalTokenCount": u.InputTokens}
	chunk := func(parts []obj, finish string, last bool) obj {
		cand := obj{"content": obj{"parts": parts, "role": "model"}, "index": 0}
		if finish != "" {
			cand["finishReason"] = finish
		}
		c := obj{"candidates": []obj{cand}, "usageMetadata": usage, "modelVersion": model, "responseId": "resp_fake"}
		if last {
			thoughts := len(r.Thinking) / 4
			c["usageMetadata"] = obj{"promptTokenCount": u.InputTokens, "candidatesTokenCount": u.OutputTokens,
				"thoughtsTokenCount": thoughts, "totalTokenCount": u.InputTokens + u.OutputTokens + thoughts}
		}
		return c
	}
	// The first chunk carries no text yet, as when the model starts.
	w.event("", chunk([]obj{{"text": ""}}, "", false))
	if q.thinking {
		for _, word := range words(r.Thinking) {
			w.event("", chunk([]obj{{"text": word, "thought": true}}, "", false))
		}
	}
	for _, word := range words(r.Text) {
		w.event("", chunk([]obj{{"text": word}}, "", false))
	}
	if len(calls) > 0 {
		var parts []obj
		for i, c := range calls {
			p := obj{"functionCall": obj{"id": c.ID, "name": c.Name, "args": c.Arguments}}
			if i == 0 {
				p["thoughtSignature"] = fakeSignature
			}
			parts = append(parts, p)
		}
		w.event("", chunk(parts, "", false))
	}
	switch {
	case r.StreamError != "":
		status := map[string]int{"overloaded_error": 503, "rate_limit_error": 429, "invalid_request_error": 400}[r.StreamError]
		w.event("", obj{"error": geminiError(cmp.Or(status, 500), "", cmp.Or(r.Error, r.StreamError))})
		return
	case r.Hang:
		return
	}
	finish := map[string]string{"end_turn": "STOP", "tool_use": "STOP", "max_tokens": "MAX_TOKENS"}
	stop := r.stop(calls)
	w.event("", chunk([]obj{{"text": ""}}, cmp.Or(finish[stop], stop), true))
}
