// Prints, as JSON, the Go reference values the Go-semantics module is tested against:
// strconv.Quote, strings.ToLower, strings.TrimSpace and strings.Fields of sample strings,
// and, for every rune, whether strconv.IsPrint and unicode.IsSpace hold and what
// unicode.ToLower maps it to (only where it changes).
package main

import (
	"encoding/json"
	"os"
	"runtime"
	"strconv"
	"strings"
	"unicode"
)

var samples = []string{
	"", "plain", "a\x01b", "\x00", "\x7f", "tab\there", "\a\b\f\n\r\t\v", `"quoted" \ back`,
	"zero\u200bwidth", "soft\u00adhyphen", "bom\ufeff", "line\u2028sep", "para\u2029sep",
	"nbsp\u00a0", "ideographic\u3000space", "é café", "日本語", "emoji \U0001F600",
	"private \ue000", "replacement \ufffd", "\u0085next line", "\u0600arabic mark",
	"combining e\u0301", "\U000E0001tag", "\U0010FFFF", "\u0378unassigned",
	"new in 15: \U0001FA75", "Kelvin \u212a", "ÄÖÜ", "İstanbul", "ΑΣ ΟΔΟΣ", "ẞ sharp s",
	"ǅ titlecase", "Ⅻ roman", "Ⓐ circled", "𐐀 deseret", "ᏸ cherokee", "ꭰ cherokee small",
	"Decode_Worker", "decoder.V2", "MiXeD-Case-123",
	" \t\n\v\f\r padded \u0085\u00a0", "\x1c\x1dunit separators\x1e\x1f", "\u2000\u200a en\u3000",
	"\u200bzero width is no space\u200b", "--flag value\x1f--other\u2028--x", "a  b\tc\u1680d",
}

func main() {
	out := map[string]any{"go": runtime.Version(), "unicode": unicode.Version}
	var printRanges [][2]rune
	var lower [][2]rune
	var space []rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if strconv.IsPrint(r) {
			if n := len(printRanges); n > 0 && printRanges[n-1][1] == r-1 {
				printRanges[n-1][1] = r
			} else {
				printRanges = append(printRanges, [2]rune{r, r})
			}
		}
		if unicode.IsSpace(r) {
			space = append(space, r)
		}
		if l := unicode.ToLower(r); l != r {
			lower = append(lower, [2]rune{r, l})
		}
	}
	quote := [][2]string{}
	toLower := [][2]string{}
	trimSpace := [][2]string{}
	fields := []any{}
	for _, s := range samples {
		quote = append(quote, [2]string{s, strconv.Quote(s)})
		toLower = append(toLower, [2]string{s, strings.ToLower(s)})
		trimSpace = append(trimSpace, [2]string{s, strings.TrimSpace(s)})
		fields = append(fields, []any{s, strings.Fields(s)})
	}
	out["isPrint"] = printRanges
	out["toLowerRunes"] = lower
	out["quote"] = quote
	out["toLower"] = toLower
	out["isSpace"] = space
	out["trimSpace"] = trimSpace
	out["fields"] = fields
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		panic(err)
	}
}
