package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// A ServerEntry is an MCP server as ikigai mcp add writes it, its keys in
// the order people write them.
type ServerEntry struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// Check reports what is wrong with data as the configuration file name
// of scope, or, with mcpFile, as a project's .mcp.json: what a file
// about to be written must pass.
func Check(data []byte, name string, scope Scope, mcpFile bool) error {
	if mcpFile {
		return Default().applyMCPFile(data, name)
	}
	return Default().apply(data, name, scope)
}

// ErrNoServer is returned by RemoveServer for a server the file does not
// hold.
var ErrNoServer = errors.New("no such server")

// AddServer returns data, a configuration file's JSON, with the server
// added under key, or under whichever of mcp_servers and mcpServers the
// file has already; the rest of the file is kept byte for byte. A server
// of that name already there is an error.
func AddServer(data []byte, key, name string, e ServerEntry) ([]byte, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}\n")
	}
	top, lists, err := serverLists(data)
	if err != nil {
		return nil, err
	}
	for _, l := range lists {
		if l.find(name) >= 0 {
			return nil, fmt.Errorf("server %q exists already under %q; remove it first", name, l.key)
		}
	}
	for _, l := range lists {
		if l.key == key || !top.has(key) {
			return l.insert(data, name, e, l.indent(data, "    "))
		}
	}
	// No list of servers yet: one, with this server in it.
	entry, err := json.MarshalIndent(e, "    ", "  ")
	if err != nil {
		return nil, err
	}
	q, _ := json.Marshal(name)
	k, _ := json.Marshal(key)
	value := fmt.Sprintf("{\n    %s: %s\n  }", q, entry)
	return top.insertRaw(data, string(k), value, top.indent(data, "  ")), nil
}

// indent is the white space before the object's last member on its
// line, if it has one on a line of its own; else def.
func (o object) indent(data []byte, def string) string {
	if len(o.list) == 0 {
		return def
	}
	start := o.list[len(o.list)-1].start
	nl := bytes.LastIndexByte(data[:start], '\n')
	if nl < 0 || len(bytes.TrimSpace(data[nl:start])) > 0 {
		return def
	}
	return string(data[nl+1 : start])
}

// RemoveServer returns data without the server called name, from
// whichever list of servers holds it; the rest of the file is kept byte
// for byte. ErrNoServer if none does.
func RemoveServer(data []byte, name string) ([]byte, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, ErrNoServer
	}
	_, lists, err := serverLists(data)
	if err != nil {
		return nil, err
	}
	for _, l := range lists {
		if i := l.find(name); i >= 0 {
			return l.remove(data, i), nil
		}
	}
	return nil, ErrNoServer
}

// HasServer reports whether data, a configuration file's JSON, holds a
// server called name in either list of servers.
func HasServer(data []byte, name string) bool {
	if len(bytes.TrimSpace(data)) == 0 {
		return false
	}
	_, lists, err := serverLists(data)
	if err != nil {
		return false
	}
	for _, l := range lists {
		if l.find(name) >= 0 {
			return true
		}
	}
	return false
}

// A serverList is a file's list of MCP servers and the key it is under.
type serverList struct {
	object
	key string
}

// serverLists returns the file's top object and its lists of servers,
// under mcp_servers and mcpServers, in the file's order.
func serverLists(data []byte) (object, []serverList, error) {
	top, err := members(data, 0)
	if err != nil {
		return top, nil, err
	}
	var lists []serverList
	for _, m := range top.list {
		if m.key != "mcp_servers" && m.key != "mcpServers" {
			continue
		}
		servers, err := members(data, m.value)
		if err != nil {
			return top, nil, fmt.Errorf("%q: %w", m.key, err)
		}
		lists = append(lists, serverList{servers, m.key})
	}
	return top, lists, nil
}

// find returns the index of the member called name, or -1.
func (o object) find(name string) int {
	for i, m := range o.list {
		if m.key == name {
			return i
		}
	}
	return -1
}

// object is where a JSON object's members are in a file.
type object struct {
	open, close int // offsets of { and }
	list        []member
}

// member is one member of an object: where its key starts and its value
// starts and ends.
type member struct {
	key               string
	start, value, end int
}

func (o object) has(key string) bool {
	for _, m := range o.list {
		if m.key == key {
			return true
		}
	}
	return false
}

// insert adds name: e as the object's last member, indented by indent.
func (o object) insert(data []byte, name string, e ServerEntry, indent string) ([]byte, error) {
	entry, err := json.MarshalIndent(e, indent, "  ")
	if err != nil {
		return nil, err
	}
	q, _ := json.Marshal(name)
	return o.insertRaw(data, string(q), string(entry), indent), nil
}

// insertRaw adds key: value (both JSON) as the object's last member, on a
// line of its own indented by indent.
func (o object) insertRaw(data []byte, key, value, indent string) []byte {
	var b bytes.Buffer
	if len(o.list) == 0 {
		b.Write(data[:o.open+1])
		fmt.Fprintf(&b, "\n%s%s: %s\n%s", indent, key, value, indent[:max(0, len(indent)-2)])
		b.Write(data[o.close:])
		return b.Bytes()
	}
	last := o.list[len(o.list)-1]
	b.Write(data[:last.end])
	fmt.Fprintf(&b, ",\n%s%s: %s", indent, key, value)
	b.Write(data[last.end:])
	return b.Bytes()
}

// remove drops the i'th member, with the comma and the line it sits on.
func (o object) remove(data []byte, i int) []byte {
	m := o.list[i]
	from, to := m.start, m.end
	switch {
	case i+1 < len(o.list):
		to = o.list[i+1].start // its comma and the space before the next
	case i > 0:
		from = o.list[i-1].end // the comma after the one before
	default:
		from, to = o.open+1, o.close // the only member: {}
	}
	// Drop the whole line when the member had one of its own.
	if i+1 < len(o.list) {
		if ls := bytes.LastIndexByte(data[:from], '\n'); ls >= 0 && len(bytes.TrimSpace(data[ls:from])) == 0 {
			if ln := bytes.LastIndexByte(data[:to], '\n'); ln >= from {
				from, to = ls, ln
			}
		}
	}
	return append(append([]byte{}, data[:from]...), data[to:]...)
}

// members finds the object at data[at:] (after white space) and its
// members.
func members(data []byte, at int) (object, error) {
	i := skipSpace(data, at)
	if i >= len(data) || data[i] != '{' {
		return object{}, errors.New("not a JSON object")
	}
	o := object{open: i}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		o.close = i
		return o, nil
	}
	for {
		start := i
		end, err := skipValue(data, i)
		if err != nil || data[i] != '"' {
			return object{}, errors.New("invalid JSON")
		}
		var key string
		if json.Unmarshal(data[i:end], &key) != nil {
			return object{}, errors.New("invalid JSON")
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return object{}, errors.New("invalid JSON")
		}
		value := skipSpace(data, i+1)
		end, err = skipValue(data, value)
		if err != nil {
			return object{}, err
		}
		o.list = append(o.list, member{key: key, start: start, value: value, end: end})
		i = skipSpace(data, end)
		if i >= len(data) {
			return object{}, errors.New("invalid JSON")
		}
		if data[i] == '}' {
			o.close = i
			return o, nil
		}
		if data[i] != ',' {
			return object{}, errors.New("invalid JSON")
		}
		i = skipSpace(data, i+1)
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && strings.IndexByte(" \t\r\n", data[i]) >= 0 {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value at data[i:].
func skipValue(data []byte, i int) (int, error) {
	if i >= len(data) {
		return 0, errors.New("invalid JSON")
	}
	switch data[i] {
	case '"':
		for j := i + 1; j < len(data); j++ {
			switch data[j] {
			case '\\':
				j++
			case '"':
				return j + 1, nil
			}
		}
		return 0, errors.New("invalid JSON")
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				end, err := skipValue(data, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errors.New("invalid JSON")
	default:
		j := i
		for j < len(data) && strings.IndexByte(",}] \t\r\n", data[j]) < 0 {
			j++
		}
		return j, nil
	}
}
