package main

// Small text helpers the commands share.

import "strings"

func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

func listOrNone(ss []string) string {
	if len(ss) == 0 {
		return "(none)"
	}
	return strings.Join(ss, ", ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
