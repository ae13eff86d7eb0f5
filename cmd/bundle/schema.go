package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/certcut/certcut/render"
	"github.com/certcut/certcut/schemas"
	"github.com/spf13/cobra"
)

func newSchemaCmd() *cobra.Command {
	var list bool
	var out output
	cmd := command("schema", "schema [NAME]", "Print one of certcut's JSON Schemas ("+strings.Join(schemas.Names(), ", ")+")",
		cobra.MaximumNArgs(1), func(cmd *cobra.Command, args []string) error {
			stdout := cmd.OutOrStdout()
			if list {
				if !out.text() {
					return render.WriteJSON(stdout, schemas.List())
				}
				tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
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
			_, err = stdout.Write(data)
			return err
		})
	var lines []string
	for _, e := range schemas.List() {
		lines = append(lines, fmt.Sprintf("  %-8s %s (schemas/%s)", e.Name, e.Title, e.File))
	}
	cmd.Long = strings.Replace(cmd.Long, "{{schemas}}", strings.Join(lines, "\n"), 1)
	cmd.ValidArgs = schemas.Names()
	cmd.Flags().BoolVar(&list, "list", false, "list the schemas: name, file, title (--json: as JSON)")
	addOutput(cmd, &out, false, render.Text, render.JSON)
	return cmd
}
