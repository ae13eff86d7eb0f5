//go:build !cgo

package keys

import (
	"context"
	"time"
)

// PKCS11Available reports whether this build can load a PKCS#11 module: true
// with cgo, false without (see ErrPKCS11Unavailable).
const PKCS11Available = false

func loadPKCS11(_ context.Context, u *PKCS11URI, _ time.Duration) (*Signer, error) {
	return nil, &PKCS11Error{URI: u.String(), Call: "loading the module", Err: ErrPKCS11Unavailable}
}

func generatePKCS11(_ context.Context, u *PKCS11URI, _ string, _ time.Duration) (*Signer, error) {
	return nil, &PKCS11Error{URI: u.String(), Call: "loading the module", Err: ErrPKCS11Unavailable}
}
