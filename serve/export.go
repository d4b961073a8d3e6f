package serve

import "github.com/tidwall/gjson"

// ErrorResponse is a JSON-RPC error response to id (null when id is empty),
// as the handler writes its own: for backends that answer for a server
// (serve/mock).
func ErrorResponse(id []byte, code int, text string) []byte { return errorResponse(id, code, text) }

// ReplaceValue returns raw with the value r (read from raw with gjson)
// replaced by val, every other byte as it was: how an id or a progress
// token is rewritten in a message without re-encoding it.
func ReplaceValue(raw []byte, r gjson.Result, val []byte) ([]byte, error) {
	return replace(raw, r, val)
}
