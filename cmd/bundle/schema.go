package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/certcut/certcut/schemas"
	"github.com/spf13/cobra"
)

func newSchemaCmd() *cobra.Command {
	var list, asJSON bool
	cmd := &cobra.Command{
		Use:   "schema [NAME]",
		Short: "Print one of certcut's JSON Schemas (bundle, key, …)",
		Long: `schema prints a JSON Schema (Draft 2020-12) certcut generates from its Go types
and validates with: NAME is one of the names --list shows (default: bundle).

  bundle   the certification bundle v3 (bundle verify validates every file with it)
  key      one entry of a discovery document's signingKeys[]

The schemas agree with OpenWOP's public schema facts (schemas/v2/
certification-bundle.schema.json); docs/schemas.md lists the two deliberate
differences. Use them with any Draft 2020-12 validator whose regular expressions
are ECMA-262: the requirement id pattern needs a negative lookahead.

Exit codes: 0 printed; 4 unknown NAME or bad flags.`,
		Example: `  bundle schema > bundle-v3.schema.json
  bundle schema key
  bundle schema --list`,
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: schemas.Names(),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if list {
				if asJSON {
					enc := json.NewEncoder(out)
					enc.SetIndent("", "  ")
					return enc.Encode(schemas.List())
				}
				tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
				for _, e := range schemas.List() {
					fmt.Fprintf(tw, "%s\tschemas/%s\t%s\n", e.Name, e.File, e.Title)
				}
				return tw.Flush()
			}
			name := "bundle"
			if len(args) == 1 {
				name = args[0]
			}
			data, err := schemas.Get(name)
			if err != nil {
				return usageErrorf("bundle schema: %v", err)
			}
			_, err = out.Write(data)
			return err
		},
	}
	cmd.Flags().BoolVar(&list, "list", false, "list the schemas: name, file, title")
	cmd.Flags().BoolVar(&asJSON, "json", false, "with --list: print the list as JSON")
	return cmd
}
