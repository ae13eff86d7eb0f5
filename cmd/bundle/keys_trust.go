package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/discovery"
	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/internal/jsonkind"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/render"
	"github.com/spf13/cobra"
)

type keysTrustOptions struct {
	out                                                       output
	fromDiscovery, fromPEM, fromBundle, keyringPath, hostName string
	origins, onlyIDs                                          []string
	major                                                     int
}

func newKeysTrustCmd() *cobra.Command {
	var o keysTrustOptions
	cmd := command("keys-trust", "trust (--from-discovery URL|FILE | --from-pem FILE | --from-bundle FILE) [flags]",
		"Pin a host's keys, with the origins they sign for, in a keyring", cobra.NoArgs,
		func(cmd *cobra.Command, _ []string) error { return runKeysTrust(cmd, &o) })
	addOutput(cmd, &o.out, true, render.Text, render.JSON)
	fl := cmd.Flags()
	fl.StringVar(&o.fromDiscovery, "from-discovery", "", "discovery `URL|FILE`: its origin's /.well-known/openwop, or a saved document")
	fl.StringVar(&o.fromPEM, "from-pem", "", "SPKI PEM `FILE` of one key (offline; with --key-id, --host-name, --origin)")
	fl.StringVar(&o.fromBundle, "from-bundle", "", "committed bundle `FILE`: pin the key its discovery document publishes under signature.keyId (offline; with --origin)")
	fl.StringVar(&o.keyringPath, "keyring", "keyring.json", "keyring `FILE` to create or update")
	fl.StringVar(&o.hostName, "host-name", "", "host `NAME` (default: the document's implementation.name)")
	stringsVar(fl, &o.origins, "origin", "discovery `ORIGIN` the keys sign for (repeatable; default: the URL's origin, none for a file)")
	stringsVar(fl, &o.onlyIDs, "key-id", "pin only this key `ID` (repeatable; with --from-pem, the key's one id)")
	fl.IntVar(&o.major, "major", 2, "protocol `MAJOR` to ask for (2 sends OpenWOP-Version: 2.0)")
	// --host is the older spelling of --host-name.
	fl.SetNormalizeFunc(aliases(map[string]string{"host": "host-name"}))
	return cmd
}

func runKeysTrust(cmd *cobra.Command, o *keysTrustOptions) error {
	given := 0
	for _, f := range []string{o.fromDiscovery, o.fromPEM, o.fromBundle} {
		if f != "" {
			given++
		}
	}
	if given != 1 {
		return usageErrorf("bundle keys trust: give one of --from-discovery URL|FILE, --from-pem FILE or --from-bundle FILE")
	}
	if o.major != 1 && o.major != 2 {
		return usageErrorf("--major must be 1 or 2")
	}
	var pinned []string
	for _, origin := range o.origins {
		n, err := bundle.Origin(origin)
		if err != nil {
			return usageErrorf("--origin %s: %v", origin, err)
		}
		if !slices.Contains(pinned, n) {
			pinned = append(pinned, n)
		}
	}
	src, err := o.source(cmd.Context(), len(pinned) > 0)
	if err != nil {
		return err
	}
	if len(pinned) == 0 && src.Origin != "" {
		pinned = []string{src.Origin}
	}
	if o.hostName == "" {
		o.hostName = src.Name
	}
	if o.hostName == "" {
		return usageErrorf("the source names no host (implementation.name): give --host-name NAME")
	}
	ring, err := keys.LoadKeyring(o.keyringPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		ring = keys.NewKeyring()
	case err != nil:
		return wrongKind("--keyring", o.keyringPath, jsonkind.Keyring, err)
	}
	host := keys.KeyringHost{Name: o.hostName}.WithOrigins(pinned...)
	var res keys.TrustResult
	if src.Key != nil {
		res, err = ring.TrustKey(*src.Key, host, src.Source, time.Now())
	} else {
		res, err = ring.Trust(*src.Doc, host, src.Source, time.Now(), src.Only)
	}
	var conflict *keys.KeyConflictError
	switch {
	case errors.As(err, &conflict):
		return &exitError{code: 1, err: fmt.Errorf("%v; %s was not changed", err, o.keyringPath)}
	case err != nil:
		return inputError(fmt.Errorf("%s: %w", src.Source, err))
	}
	if err := ring.Save(o.keyringPath); err != nil {
		return inputError(err)
	}
	if pinned == nil {
		pinned = []string{}
	}
	pin := &render.Pin{Keyring: o.keyringPath, Host: o.hostName, Origins: pinned, Source: src.Source, Describe: src.Describe,
		DiscoverySha256: src.DocSha256, Result: res}
	if len(pinned) > 0 {
		pin.Origin = pinned[0]
	}
	if src.UnsignedOrigin != "" && !slices.Contains(pinned, src.UnsignedOrigin) {
		pin.UnpinnedOrigin = src.UnsignedOrigin
	}
	switch {
	case !o.out.text():
		return render.WriteJSON(cmd.OutOrStdout(), pin)
	case o.out.quiet:
		return nil
	}
	return render.WritePin(cmd.OutOrStdout(), pin)
}

// source reads the keys to pin from the one --from-* flag given.
func (o *keysTrustOptions) source(ctx context.Context, hasOrigin bool) (*gate.PinSource, error) {
	var src *gate.PinSource
	var err error
	flag, from := "--from-discovery", o.fromDiscovery
	switch {
	case o.fromDiscovery != "":
		src, err = gate.PinFromDiscovery(ctx, o.fromDiscovery, o.major, o.onlyIDs)
	case o.fromPEM != "":
		flag, from = "--from-pem", o.fromPEM
		switch {
		case len(o.onlyIDs) != 1:
			return nil, usageErrorf("--from-pem needs one --key-id: the id bundles name the key by (signature.keyId)")
		case o.hostName == "":
			return nil, usageErrorf("--from-pem needs --host-name: a PEM file does not say whose key it is")
		case !keys.KeyIDPattern.MatchString(o.onlyIDs[0]):
			return nil, usageErrorf("--key-id %q does not match %s", o.onlyIDs[0], keys.KeyIDPattern)
		}
		src, err = gate.PinFromPEM(o.fromPEM, o.onlyIDs[0])
	default:
		flag, from = "--from-bundle", o.fromBundle
		if !hasOrigin {
			return nil, usageErrorf("--from-bundle needs --origin: the origin you vouch for the key signing for (the bundle's discovery.url is not signed, so it is never taken)")
		}
		src, err = gate.PinFromBundle(o.fromBundle, o.onlyIDs)
	}
	var arg *gate.PinArgError
	var refused *gate.PinRefusedError
	var keyID *gate.PinKeyIDError
	switch {
	case errors.As(err, &arg):
		return nil, usageErrorf("%s %v", flag, err)
	case errors.As(err, &keyID):
		return nil, usageErrorf("--from-bundle pins the key the bundle is signed with, %s; --key-id names %s", keyID.Signed, strings.Join(keyID.Asked, ", "))
	case errors.As(err, &refused):
		return nil, &exitError{code: 1, err: fmt.Errorf("--from-bundle %v", err)}
	case err != nil && discovery.IsURL(from):
		return nil, inputError(err) // the fetch names the URL
	case err != nil:
		return nil, inputError(fmt.Errorf("%s %w", flag, err))
	}
	return src, nil
}
