package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/discovery"
	"github.com/certcut/certcut/keys"
	"github.com/spf13/cobra"
)

func newKeysTrustCmd() *cobra.Command {
	var (
		from, keyringPath, hostName, origin string
		onlyIDs                             []string
		major                               int
		jsonOut                             bool
	)
	cmd := &cobra.Command{
		Use:   "trust --from-discovery URL|FILE [flags]",
		Short: "Pin the keys a host publishes in its discovery document",
		Long: `trust reads a host's discovery document — fetched from a URL (its origin's
/.well-known/openwop, with Accept: application/json and, at major 2,
OpenWOP-Version: 2.0; redirects to another origin are refused) or read from a
file — and adds every signingKeys[] entry (or those named by --key-id) to the
keyring, with the host's name and discovery origin. The keyring is created if
absent and written atomically.

A key already pinned with the same public key gains the document's retiredAt.
A key id the keyring pins with a different public key, or a key the keyring
revoked, is refused and nothing is written: a reviewer must decide.

Review the result before committing it: pinning is the moment trust is granted.

Exit codes: 0 pinned (or already pinned), 1 refused (conflict with the keyring),
3 the document or keyring could not be read, 4 usage error.`,
		Example: `  bundle keys trust --from-discovery https://api.myndhyve.ai --keyring keyring.json
  bundle keys trust --from-discovery discovery.json --host openwop-host-v2-reference \
      --origin http://127.0.0.1:3838 --keyring keyring.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if from == "" {
				return usageErrorf("bundle keys trust: give --from-discovery URL or FILE")
			}
			if major != 1 && major != 2 {
				return usageErrorf("--major must be 1 or 2")
			}
			var doc *discovery.Document
			var err error
			source := from
			if discovery.IsURL(from) {
				u, uerr := discovery.NormalizeURL(from)
				if uerr != nil {
					return usageErrorf("--from-discovery %s: %v", from, uerr)
				}
				source = u
				if doc, err = discovery.Fetch(context.Background(), u, discovery.Options{TargetMajor: major}); err != nil {
					return inputError(err)
				}
				if origin == "" {
					origin = doc.Origin()
				}
			} else {
				data, rerr := os.ReadFile(from)
				if rerr != nil {
					return inputError(fmt.Errorf("--from-discovery: %w", rerr))
				}
				if doc, err = discovery.Parse(data, from); err != nil {
					return inputError(fmt.Errorf("--from-discovery %s: %w", from, err))
				}
			}
			if origin != "" {
				o, oerr := bundle.Origin(origin)
				if oerr != nil {
					return usageErrorf("--origin %s: %v", origin, oerr)
				}
				origin = o
			}
			if hostName == "" {
				if impl, ok := doc.Value.Get("implementation"); ok {
					if n, ok := impl.Get("name"); ok {
						hostName, _ = n.Str()
					}
				}
			}
			if hostName == "" {
				return usageErrorf("the discovery document names no implementation.name: give --host NAME")
			}
			ring, err := keys.LoadKeyring(keyringPath)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				ring = keys.NewKeyring()
			case err != nil:
				return inputError(err)
			}
			res, err := ring.Trust(doc.Value, keys.KeyringHost{Name: hostName, Origin: origin}, source, time.Now(), onlyIDs)
			var conflict *keys.KeyConflictError
			switch {
			case errors.As(err, &conflict):
				return &exitError{code: 1, err: fmt.Errorf("%v; %s was not changed", err, keyringPath)}
			case err != nil:
				return inputError(fmt.Errorf("%s: %w", source, err))
			}
			if err := ring.Save(keyringPath); err != nil {
				return inputError(err)
			}
			out := cmd.OutOrStdout()
			if jsonOut {
				return writeJSON(out, map[string]any{"keyring": keyringPath, "host": hostName, "origin": origin, "source": source, "discoverySha256": doc.Sha256, "result": res})
			}
			fmt.Fprintf(out, "keyring:   %s\n", keyringPath)
			fmt.Fprintf(out, "host:      %s %s\n", hostName, orDash(origin))
			fmt.Fprintf(out, "source:    %s (discovery sha256 %s)\n", source, doc.Sha256)
			for label, ids := range map[string][]string{"added": res.Added, "updated": res.Updated, "unchanged": res.Unchanged} {
				if len(ids) > 0 {
					fmt.Fprintf(out, "%-10s %s\n", label+":", strings.Join(ids, ", "))
				}
			}
			fmt.Fprintln(out, "Review the keyring diff before committing it: pinning a key is granting trust.")
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&from, "from-discovery", "", "discovery `URL` (its origin's /.well-known/openwop) or FILE")
	fl.StringVar(&keyringPath, "keyring", "keyring.json", "keyring `file` to create or update")
	fl.StringVar(&hostName, "host", "", "host `name` (default: the document's implementation.name)")
	fl.StringVar(&origin, "origin", "", "discovery `origin` to record (default: the URL's origin; none for a file)")
	fl.StringArrayVar(&onlyIDs, "key-id", nil, "pin only this key `id` (repeatable)")
	fl.IntVar(&major, "major", 2, "protocol major to ask for (2 sends OpenWOP-Version: 2.0)")
	fl.BoolVar(&jsonOut, "json", false, "print the result as JSON")
	return cmd
}
