package main

import "github.com/spf13/cobra"

// declaredFlags say where the spec's declarations are and how the declared
// rules apply (docs/gate.md "What the spec declares").
type declaredFlags struct {
	declaration, firstSuite, advisories string
	requireSuiteTag                     bool
}

func (d *declaredFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&d.declaration, "declaration", "", "the spec's family declaration `FILE` (default <repo>/spec/v2/declaration.json): bundle.maturity bounds each bundle's family records by it")
	fl.StringVar(&d.firstSuite, "maturity-first-suite", "", "the first suite `VERSION` the maturity bound (RFC 0197 §C.7) binds (default 2.36.0)")
	fl.StringVar(&d.advisories, "suite-advisories", "", "suite advisory list `FILE` to use instead of the built-in one (bundle.suite-advisory)")
	fl.BoolVar(&d.requireSuiteTag, "require-suite-tag", false, "make bundle.suite-identity a witness check: each witness's suite.version needs a tag v<version> or openwop-conformance/v<version> reachable from --history-base")
}
