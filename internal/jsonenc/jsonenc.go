// Package jsonenc appends JSON values byte for byte as encoding/json
// writes them (HTML escaping on), for the bodies written often enough that
// encoding/json's reflection and re-scanning show: the API's job bodies
// and the outbox's event rows.
package jsonenc

import "unicode/utf8"

// List writes a slice as encoding/json does: null when nil.
func List[T any](b []byte, list []T, appendOne func([]byte, T) []byte) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, v := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendOne(b, v)
	}
	return append(b, ']')
}

// Strings writes a list of strings: null when nil.
func Strings(b []byte, list []string) []byte {
	return List(b, list, String)
}

const hexDigits = "0123456789abcdef"

// String quotes s as encoding/json does with HTML escaping on: <, >
// and & as \u003c..., control characters escaped, invalid UTF-8 as
// \ufffd, U+2028 and U+2029 escaped.
func String(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
