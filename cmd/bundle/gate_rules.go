package main

import (
	"fmt"
	"strings"

	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/render"
	"github.com/spf13/cobra"
)

func newGateRulesCmd() *cobra.Command {
	var o output
	cmd := command("gate-rules", "rules [flags]", "Print the gate's rules: id, title, severity, gates and source of each", cobra.NoArgs,
		func(cmd *cobra.Command, _ []string) error { return printRules(cmd, o.f, gate.Rules()) })
	addOutput(cmd, &o, false, render.Text, render.JSON)
	return cmd
}

// rulesDoc is the JSON form of the registry.
type rulesDoc struct {
	Rules []gate.Rule `json:"rules"`
}

// printRules prints the registry in the format: text, one block per rule, or
// JSON. Every field is the registry's own text, escaped for the terminal.
func printRules(cmd *cobra.Command, f render.Format, rules []gate.Rule) error {
	w := cmd.OutOrStdout()
	if f == render.JSON {
		return render.WriteJSON(w, rulesDoc{Rules: rules})
	}
	var b strings.Builder
	for i, r := range rules {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s  %s\n", render.Inline(string(r.ID)), render.Inline(r.Title))
		if r.Group != "" {
			fmt.Fprintf(&b, "  group:    %s\n", render.Inline(r.Group))
		}
		fmt.Fprintf(&b, "  severity: %s\n", render.Inline(string(r.Severity)))
		fmt.Fprintf(&b, "  gates:    %s\n", render.Inline(strings.Join(r.Gates, ", ")))
		fmt.Fprintf(&b, "  source:   %s\n", render.Inline(r.Source))
		fmt.Fprintf(&b, "  docs:     docs/gate.md#%s\n", render.Inline(r.Anchor))
	}
	fmt.Fprintf(&b, "\n%d rules\n", len(rules))
	_, err := fmt.Fprint(w, b.String())
	return err
}
