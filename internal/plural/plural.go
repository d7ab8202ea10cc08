// Package plural writes counts of things in English, so that a message
// says "1 case" and "2 cases", never "1 cases".
package plural

import (
	"fmt"
	"strings"
)

// Noun returns noun, a singular of one or more words ("key", "live
// table"), as it goes with a count of n: unchanged for 1, else with its
// last word's plural ("keys", "properties", "matches").
func Noun(n int, noun string) string {
	if n == 1 || noun == "" {
		return noun
	}
	switch {
	case strings.HasSuffix(noun, "y") && len(noun) > 1 && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	}
	return noun + "s"
}

// Count returns n and noun as it goes with n: "1 case", "0 cases",
// "3 live tables".
func Count(n int, noun string) string { return fmt.Sprintf("%d %s", n, Noun(n, noun)) }

// Verb returns one when n is 1, else many: the verb of a count, as in
// Count(n, "case") + " " + Verb(n, "differs", "differ").
func Verb(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
