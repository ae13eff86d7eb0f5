package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/certcut/certcut/verify"
	"github.com/spf13/cobra"
)

// maturityFlags are the flags of a command that applies the maturity bound (RFC
// 0197 §C.7) to a bundle: mint and verify.
type maturityFlags struct {
	declaration, capabilities, firstSuite string
}

func (m *maturityFlags) register(cmd *cobra.Command, what string) {
	fl := cmd.Flags()
	fl.StringVar(&m.declaration, "declaration", "", "the spec's declaration `FILE` (spec/v2/declaration.json): "+what)
	fl.StringVar(&m.capabilities, "capabilities", "", "with --declaration: the capabilities schema `FILE` (schemas/v2/capabilities.schema.json) naming the family records; without it, the declaration's family keys")
	fl.StringVar(&m.firstSuite, "maturity-first-suite", verify.FirstBoundSuite, "with --declaration: the first suite `VERSION` the maturity bound binds (upstream's OPENWOP_0197_FIRST_SUITE)")
}

// policy reads the declaration and the capabilities schema; nil when
// --declaration is not given. A flag that needs --declaration without it, or a
// first suite with no major.minor, is a usage error; a file that cannot be read
// or is not what it should be, an input error.
func (m *maturityFlags) policy(cmd *cobra.Command, name string) (*verify.MaturityPolicy, error) {
	if m.declaration == "" {
		if m.capabilities != "" || cmd.Flags().Changed("maturity-first-suite") {
			return nil, usageErrorf("%s: --capabilities and --maturity-first-suite apply the maturity bound of a --declaration FILE; give it too", name)
		}
		return nil, nil
	}
	if !verify.ValidFirstSuite(m.firstSuite) {
		return nil, usageErrorf("%s: --maturity-first-suite %q: give a suite version, e.g. %s", name, m.firstSuite, verify.FirstBoundSuite)
	}
	pol, file, err := verify.LoadMaturityPolicy(m.declaration, m.capabilities, m.firstSuite)
	if err != nil {
		flag := "--declaration"
		if file == m.capabilities && file != m.declaration {
			flag = "--capabilities"
		}
		return nil, inputError(fmt.Errorf("%s: %s %s: %w", name, flag, file, missing(err)))
	}
	return pol, nil
}

// missing words a file that is not there.
func missing(err error) error {
	if errors.Is(err, os.ErrNotExist) {
		return errors.New("no such file")
	}
	return err
}

// loadAdvisories sets opts.Advisories from --suite-advisories, or the built-in
// list.
func loadAdvisories(name, path string, opts *verify.Options) error {
	a, err := verify.LoadAdvisories(path)
	if err != nil {
		return inputError(fmt.Errorf("%s: --suite-advisories %s: %w", name, path, missing(err)))
	}
	opts.Advisories = a
	return nil
}
