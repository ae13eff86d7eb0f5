package vaulttransit

// Unexported helpers for the external tests.
var (
	KeyName      = keyName
	StripVersion = stripVersion
)
