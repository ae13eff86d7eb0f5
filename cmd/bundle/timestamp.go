package main

import (
	"fmt"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/limitedfile"
	"github.com/certcut/certcut/render"
	"github.com/certcut/certcut/timestamp"
	"github.com/spf13/cobra"
)

type timestampOptions struct {
	out      output
	tsa      tsaFlags
	verifier bool
	force    bool
}

func newTimestampCmd() *cobra.Command {
	var o timestampOptions
	cmd := command("timestamp", "timestamp --tsa URL [--tsa-cert PEM]... [--verifier] FILE...",
		"Ask an RFC 3161 Time-Stamp Authority to vouch for when a bundle was signed; write FILE.tsr",
		minArgs(1, "at least one signed bundle FILE"), func(cmd *cobra.Command, args []string) error { return runTimestamp(cmd, &o, args) })
	addOutput(cmd, &o.out, true, render.Text, render.JSON)
	o.tsa.register(cmd, "the Time-Stamp Authority's `URL` (RFC 3161 over HTTP; required)")
	fl := cmd.Flags()
	fl.BoolVar(&o.verifier, "verifier", false, "stamp the verifier signature (verifierSignature) and write FILE.verifier.tsr")
	fl.BoolVar(&o.force, "force", false, "overwrite a token file that exists")
	return cmd
}

func runTimestamp(cmd *cobra.Command, o *timestampOptions, files []string) error {
	if o.tsa.url == "" {
		return usageErrorf("timestamp: --tsa URL is required: the Time-Stamp Authority to ask (any RFC 3161 TSA)")
	}
	role := timestamp.HostRole
	if o.verifier {
		role = timestamp.VerifierRole
	}
	var trust *timestamp.Trust
	for _, file := range files {
		if file == limitedfile.Stdin {
			return usageErrorf("timestamp: the token is written beside the bundle, so the bundle must be a file, not standard input")
		}
		var err error
		if trust, err = o.tsa.check("timestamp", file, o.force, role); err != nil {
			return err
		}
	}
	written := []timestamp.Written{}
	w := render.SafeWriter(cmd.OutOrStdout())
	for _, file := range files {
		data, err := bundle.ReadFile(file)
		if err != nil {
			return inputError(fmt.Errorf("timestamp: %s: %s", file, describeReadError(err)))
		}
		b, _, err := bundle.Parse(data)
		if err != nil {
			return inputError(fmt.Errorf("timestamp: %s: %s", file, describeReadError(err)))
		}
		got, err := o.tsa.stamp(cmd.Context(), "timestamp", b, file, trust, role)
		if err != nil {
			return err
		}
		if err := o.tsa.write("timestamp", got, o.force); err != nil {
			return err
		}
		written = append(written, got...)
		if o.out.text() && !o.out.quiet {
			fmt.Fprintf(w, "bundle timestamp: %s\n", render.Inline(render.TokenLine(got[0])))
		}
	}
	if !o.out.text() {
		return render.WriteJSON(cmd.OutOrStdout(), written)
	}
	return nil
}
