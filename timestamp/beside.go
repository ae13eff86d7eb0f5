package timestamp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/atomicfile"
)

// Written is a token asked for one signature of a bundle, to be written beside
// it (FileFor): what mint, sign and timestamp report.
type Written struct {
	Path     string `json:"file"`
	Role     Role   `json:"signature"`
	Time     string `json:"time"`
	Accuracy string `json:"accuracy,omitempty"`
	TSA      string `json:"tsa"`
	// TrustedBy is the trusted certificate the token chains to; "" when no
	// trust was given, and the reply was checked for form and imprint only.
	TrustedBy string `json:"trustedBy,omitempty"`
	// Reply is the TSA's reply, the bytes to write.
	Reply []byte `json:"-"`
}

// StampError is a token that could not be had for a bundle's signature: the
// bundle has no such signature, or the TSA failed or answered something Stamp
// refused. Nothing was written.
type StampError struct {
	Out  string
	Role Role
	Err  error
}

func (e *StampError) Error() string {
	return fmt.Sprintf("%s signature of %s: %v; nothing written", e.Role, e.Out, e.Err)
}

func (e *StampError) Unwrap() error { return e.Err }

// StampBeside asks the TSA at tsaURL for a token of each role's signature of b,
// to be written beside out, giving up on the TSA after timeout and following no
// redirect. Nothing is written: a command writes its bundle and the tokens only
// once every token came (WriteBeside).
func StampBeside(ctx context.Context, tsaURL string, timeout time.Duration, b *bundle.Bundle, out string, trust *Trust, roles ...Role) ([]Written, error) {
	client := &http.Client{
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	var files []Written
	for _, role := range roles {
		sig, err := SignatureOf(b, role)
		if err != nil {
			return nil, &StampError{Out: out, Role: role, Err: err}
		}
		st, err := Stamp(ctx, tsaURL, sig, trust, client)
		if err != nil {
			return nil, &StampError{Out: out, Role: role, Err: err}
		}
		f := Written{Path: FileFor(out, role), Role: role, Time: st.Token.Time.Format(time.RFC3339Nano),
			TSA: st.Token.TSA, TrustedBy: st.Token.Anchor, Reply: st.Reply}
		if st.Token.Accuracy > 0 {
			f.Accuracy = st.Token.Accuracy.String()
		}
		files = append(files, f)
	}
	return files, nil
}

// WriteBeside writes each token atomically; an existing file is kept unless
// force (*atomicfile.ExistsError).
func WriteBeside(files []Written, force bool) error {
	for _, f := range files {
		if err := atomicfile.Write(f.Path, f.Reply, 0o644, force); err != nil {
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
	}
	return nil
}

// StaleToken is a token file beside a bundle that does not stamp its signature.
type StaleToken struct {
	Path string
	Role Role
}

// FindStale returns the token files beside out, left from an earlier bundle,
// that do not stamp b's signatures (verify would reject them:
// timestamp-imprint), other than those just written.
func FindStale(out string, b *bundle.Bundle, written []Written) []StaleToken {
	var stale []StaleToken
	for _, role := range []Role{HostRole, VerifierRole} {
		path := FileFor(out, role)
		fresh := false
		for _, f := range written {
			fresh = fresh || f.Path == path
		}
		f, err := ReadBeside(path)
		if fresh || err != nil || f == nil {
			continue
		}
		sig, err := SignatureOf(b, role)
		if err == nil {
			_, err = Check(f.Reply, sig, nil)
		}
		var te *Error
		if err != nil && (!errors.As(err, &te) || te.Problem == WrongImprint || te.Problem == Malformed) {
			stale = append(stale, StaleToken{Path: path, Role: role})
		}
	}
	return stale
}
