package store

import "strings"

// placeholders is a list of n placeholders: "?, ?, ?" (for IN lists).
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// valueRows is the VALUES list of n rows of width placeholders:
// "(?, ?), (?, ?)" (for multi-row inserts).
func valueRows(n, width int) string {
	row := "(" + placeholders(width) + ")"
	return strings.TrimSuffix(strings.Repeat(row+", ", n), ", ")
}
