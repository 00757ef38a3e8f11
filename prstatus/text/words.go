package text

import "strconv"

// Plural is the word for a count: one when n is 1, else many ("is" or "are", "thread" or
// "threads").
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count is a count with its word: "1 thread", "3 threads", "0 threads".
func Count(n int, one, many string) string { return strconv.Itoa(n) + " " + Plural(n, one, many) }

// ShortSHALen is how many characters of a commit's id people recognise it by.
const ShortSHALen = 7

// ShortSHA is a commit's id as people recognise it: its first ShortSHALen characters.
func ShortSHA(oid string) string {
	if len(oid) > ShortSHALen {
		return oid[:ShortSHALen]
	}
	return oid
}
