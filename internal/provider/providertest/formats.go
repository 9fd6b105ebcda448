package providertest

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/ikigai-tools/ikigai/internal/provider"
)

type obj = map[string]any

// anthropic is the Messages API's format.
type anthropic struct{}

func (anthropic) check(body []byte) string {
	var req struct {
		Model     string `json:"model"`
		MaxTokens int    `json:"max_tokens"`
		Thinking  *struct {
			Type         string `json:"type"`
			BudgetTokens int    `json:"budget_tokens"`
		} `json:"thinking"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return err.Error()
	}
	switch {
	case req.Model == "":
		return "model: Field required"
	case req.MaxTokens <= 0:
		return "max_tokens: Field required"
	case len(req.Messages) == 0:
		return "messages: at least one message is required"
	}
	thinking := req.Thinking != nil && req.Thinking.Type == "enabled"
	if thinking && req.Thinking.BudgetTokens < 1024 {
		return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
	}
	if thinking && req.MaxTokens <= req.Thinking.BudgetTokens {
		return "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size"
	}
	var pending []string // the tool_use ids of the previous assistant message
	used := map[string]bool{}
	for i, m := range req.Messages {
		var blocks []struct {
			anthropicImage
			ID        string          `json:"id"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
			Thinking  string          `json:"thinking"`
			Signature string          `json:"signature"`
		}
		json.Unmarshal(m.Content, &blocks) // a string content has no blocks
		if c := string(m.Content); c == "" || c == "[]" || c == `""` {
			return fmt.Sprintf("messages.%d: all messages must have non-empty content except for the optional final assistant message", i)
		}
		var uses, results []string
		for j, b := range blocks {
			if b.Type == "thinking" && b.Signature != thinkingSignature(b.Thinking) {
				return fmt.Sprintf("messages.%d.content.%d: Invalid `signature` in `thinking` block", i, j)
			}
			// With thinking on, the assistant turn that a final set of tool
			// results answers must begin with its thinking.
			if thinking && m.Role == "assistant" && i == len(req.Messages)-2 && j == 0 && b.Type != "thinking" && b.Type != "redacted_thinking" &&
				bytes.Contains(req.Messages[i+1].Content, []byte(`"tool_result"`)) {
				return fmt.Sprintf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, "+
					"a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). "+
					"We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`.", i, b.Type)
			}
			at := fmt.Sprintf("messages.%d.content.%d", i, j)
			if problem := b.check(at); problem != "" {
				return problem
			}
			if b.Type == "tool_result" {
				var inner []anthropicImage
				json.Unmarshal(b.Content, &inner)
				for k, c := range inner {
					if problem := c.check(fmt.Sprintf("%s.content.%d", at, k)); problem != "" {
						return problem
					}
				}
			}
			switch b.Type {
			case "tool_use":
				if used[b.ID] {
					return fmt.Sprintf("messages.%d.content.%d: `tool_use` ids must be unique", i, j)
				}
				if !toolUseID.MatchString(b.ID) {
					return fmt.Sprintf("messages.%d.content.%d.id: String should match pattern '^[a-zA-Z0-9_-]+$'", i, j)
				}
				used[b.ID] = true
				uses = append(uses, b.ID)
			case "tool_result":
				if !slices.Contains(pending, b.ToolUseID) {
					return fmt.Sprintf("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. "+
						"Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, b.ToolUseID)
				}
				results = append(results, b.ToolUseID)
			}
		}
		if missing := without(pending, results); len(missing) > 0 {
			return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. "+
				"Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i-1, strings.Join(missing, ", "))
		}
		pending = nil
		if m.Role == "assistant" {
			pending = uses
		}
	}
	return ""
}

// anthropicImage is a content block as far as an image's checks go.
type anthropicImage struct {
	Type   string `json:"type"`
	Source struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
}

// check returns what the API says of a wrong image block at, if b is one.
func (b anthropicImage) check(at string) string {
	if b.Type != "image" {
		return ""
	}
	src := b.Source
	switch _, err := base64.StdEncoding.DecodeString(src.Data); {
	case src.Type != "base64":
		return at + ".source: Input tag '" + src.Type + "' found using 'type' does not match any of the expected tags: 'base64', 'url'"
	case !slices.Contains(provider.ImageTypes, src.MediaType):
		return at + ".source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"
	case err != nil || src.Data == "":
		return at + ".source.base64.data: Invalid base64 data"
	}
	return ""
}

func (anthropic) fail(w http.ResponseWriter, status int, typ, msg string) {
	if typ == "" {
		switch status {
		case 400:
			typ = "invalid_request_error"
		case 401:
			typ = "authentication_error"
		case 403:
			typ = "permission_error"
		case 404:
			typ = "not_found_error"
		case 413:
			typ = "request_too_large"
		case 429:
			typ = "rate_limit_error"
		case 529:
			typ = "overloaded_error"
		default:
			typ = "api_error"
		}
	}
	w.Header().Set("Request-Id", "req_fake")
	writeJSON(w, status, obj{"type": "error", "error": obj{"type": typ, "message": cmp.Or(msg, http.StatusText(status))}})
}

func (anthropic) stream(w *eventWriter, r Reply, calls []Call, q query) {
	model := q.model
	u := r.usage()
	w.event("message_start", obj{"type": "message_start", "message": obj{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": obj{"input_tokens": u.InputTokens, "output_tokens": 1},
	}})
	w.event("ping", obj{"type": "ping"})
	index := 0
	block := func(start obj, deltas []obj) {
		w.event("content_block_start", obj{"type": "content_block_start", "index": index, "content_block": start})
		for _, d := range deltas {
			w.event("content_block_delta", obj{"type": "content_block_delta", "index": index, "delta": d})
		}
		w.event("content_block_stop", obj{"type": "content_block_stop", "index": index})
		index++
	}
	if r.Thinking != "" && q.thinking {
		var deltas []obj
		for _, word := range words(r.Thinking) {
			deltas = append(deltas, obj{"type": "thinking_delta", "thinking": word})
		}
		deltas = append(deltas, obj{"type": "signature_delta", "signature": thinkingSignature(r.Thinking)})
		block(obj{"type": "thinking", "thinking": "", "signature": ""}, deltas)
	}
	if r.Text != "" {
		var deltas []obj
		for _, word := range words(r.Text) {
			deltas = append(deltas, obj{"type": "text_delta", "text": word})
		}
		block(obj{"type": "text", "text": ""}, deltas)
	}
	for _, c := range calls {
		deltas := []obj{{"type": "input_json_delta", "partial_json": ""}}
		for _, p := range pieces(string(c.Arguments), 12) {
			deltas = append(deltas, obj{"type": "input_json_delta", "partial_json": p})
		}
		block(obj{"type": "tool_use", "id": c.ID, "name": c.Name, "input": obj{}}, deltas)
	}
	switch {
	case r.StreamError != "":
		w.event("error", obj{"type": "error", "error": obj{"type": r.StreamError, "message": cmp.Or(r.Error, r.StreamError)}})
	case !r.Hang:
		w.event("message_delta", obj{"type": "message_delta",
			"delta": obj{"stop_reason": r.stop(calls), "stop_sequence": nil},
			"usage": obj{"output_tokens": u.OutputTokens}})
		w.event("message_stop", obj{"type": "message_stop"})
	}
}

var toolUseID = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// thinkingSignature is the signature the fake gives a thinking block's
// text, and checks when the block comes back: changed or moved text
// fails, as it does with Anthropic.
func thinkingSignature(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "EqQBCkgIARAB" + base64.StdEncoding.EncodeToString(sum[:18])
}

// openai is the Chat Completions API's format.
type openai struct{}

func (openai) check(body []byte) string {
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return err.Error()
	}
	switch {
	case req.Model == "":
		return "you must provide a model parameter"
	case len(req.Messages) == 0:
		return "[] is too short - 'messages'"
	}
	var pending []string // tool_call ids not yet answered
	unanswered := func() string {
		return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
			"The following tool_call_ids did not have response messages: " + strings.Join(pending, ", ")
	}
	for i, m := range req.Messages {
		var parts []struct {
			Type     string `json:"type"`
			ImageURL struct {
				URL string `json:"url"`
			} `json:"image_url"`
		}
		json.Unmarshal(m.Content, &parts) // a string content has no parts
		for j, p := range parts {
			if p.Type != "image_url" {
				continue
			}
			typ, data, ok := strings.Cut(strings.TrimPrefix(p.ImageURL.URL, "data:"), ";base64,")
			if _, err := base64.StdEncoding.DecodeString(data); m.Role != "user" || !ok || err != nil || !slices.Contains(provider.ImageTypes, typ) {
				return fmt.Sprintf("Invalid content type. image_url is only supported by certain models, for messages with role 'user', as a URL or a base64 data URL of a supported image type (messages.%d.content.%d).", i, j)
			}
		}
		if m.Role == "tool" {
			if !slices.Contains(pending, m.ToolCallID) {
				return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls' (tool_call_id " + m.ToolCallID + ")."
			}
			pending = without(pending, []string{m.ToolCallID})
			continue
		}
		if len(pending) > 0 {
			return unanswered()
		}
		for _, c := range m.ToolCalls {
			pending = append(pending, c.ID)
		}
	}
	if len(pending) > 0 {
		return unanswered()
	}
	return ""
}

func (openai) fail(w http.ResponseWriter, status int, typ, msg string) {
	code := typ
	if typ == "" {
		switch status {
		case 401:
			typ, code = "invalid_request_error", "invalid_api_key"
		case 404:
			typ, code = "invalid_request_error", "model_not_found"
		case 429:
			typ, code = "requests", "rate_limit_exceeded"
		default:
			typ = "invalid_request_error"
			if status >= 500 {
				typ = "server_error"
			}
		}
	}
	writeJSON(w, status, obj{"error": obj{"message": cmp.Or(msg, http.StatusText(status)), "type": typ, "param": nil, "code": nilIfEmpty(code)}})
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (openai) stream(w *eventWriter, r Reply, calls []Call, q query) {
	model, withUsage := q.model, q.withUsage
	chunk := func(delta obj, finish any) obj {
		return obj{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []obj{{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}}
	}
	w.event("", chunk(obj{"role": "assistant", "content": ""}, nil))
	for _, word := range words(r.Thinking) {
		w.event("", chunk(obj{"reasoning_content": word}, nil))
	}
	for _, word := range words(r.Text) {
		w.event("", chunk(obj{"content": word}, nil))
	}
	for i, c := range calls {
		w.event("", chunk(obj{"tool_calls": []obj{{"index": i, "id": c.ID, "type": "function",
			"function": obj{"name": c.Name, "arguments": ""}}}}, nil))
		for _, p := range pieces(string(c.Arguments), 12) {
			w.event("", chunk(obj{"tool_calls": []obj{{"index": i, "function": obj{"arguments": p}}}}, nil))
		}
	}
	switch {
	case r.StreamError != "":
		w.event("", obj{"error": obj{"message": cmp.Or(r.Error, r.StreamError), "type": r.StreamError}})
		return
	case r.Hang:
		return
	}
	finish := map[string]string{"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length"}
	stop := r.stop(calls)
	w.event("", chunk(obj{}, cmp.Or(finish[stop], stop)))
	if withUsage {
		u := r.usage()
		w.event("", obj{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []obj{}, "usage": obj{"prompt_tokens": u.InputTokens, "completion_tokens": u.OutputTokens,
				"total_tokens": u.InputTokens + u.OutputTokens, "completion_tokens_details": obj{"reasoning_tokens": len(r.Thinking) / 4}}})
	}
	w.event("", "[DONE]")
}

// without returns the elements of list that are not in drop, in order.
func without(list, drop []string) []string {
	var out []string
	for _, s := range list {
		if !slices.Contains(drop, s) {
			out = append(out, s)
		}
	}
	return out
}
