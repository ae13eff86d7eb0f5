package keys

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/sigstore/sigstore/pkg/signature/options"
)

// silentKMS is a KMS backend that never answers a signature (and, when hangKey
// is set, never answers for the public key either) until released.
type silentKMS struct {
	signature.SignerVerifier
	pub     ed25519.PublicKey
	hangKey bool
	release chan struct{}
}

func (f *silentKMS) PublicKey(...signature.PublicKeyOption) (crypto.PublicKey, error) {
	if f.hangKey {
		<-f.release
	}
	return f.pub, nil
}

func (f *silentKMS) SignMessage(io.Reader, ...signature.SignOption) ([]byte, error) {
	<-f.release
	return nil, errors.New("released")
}

func loadSilent(t *testing.T, ctx context.Context, hangKey bool, opts ...SignerOption) (*Signer, error) {
	t.Helper()
	f := &silentKMS{pub: make(ed25519.PublicKey, ed25519.PublicKeySize), hangKey: hangKey, release: make(chan struct{})}
	t.Cleanup(func() { close(f.release) })
	return wrapKMS(ctx, "hashivault://silent", newSignerConfig(opts), func(context.Context, string, ...signature.RPCOption) (signature.SignerVerifier, error) {
		return f, nil
	})
}

// A signer whose backend never answers fails with a *KMSTimeoutError after the
// timeout it was loaded with (WithTimeout) — when the key is loaded and when it
// signs — and a call whose context is cancelled returns the context's error at
// once, without waiting for the timeout.
func TestKMSSignerTimeoutIsAnOption(t *testing.T) {
	const bound = 150 * time.Millisecond
	if c := newSignerConfig(nil); c.timeout != DefaultKMSTimeout {
		t.Errorf("default timeout %s, want %s", c.timeout, DefaultKMSTimeout)
	}
	if c := newSignerConfig([]SignerOption{WithTimeout(-1)}); c.timeout != DefaultKMSTimeout {
		t.Errorf("a negative timeout gave %s, want the default", c.timeout)
	}

	start := time.Now()
	_, err := loadSilent(t, context.Background(), true, WithTimeout(bound))
	var te *KMSTimeoutError
	if !errors.As(err, &te) || te.Timeout != bound || te.Call != "reading the public key" {
		t.Fatalf("a silent public key: got %v, want a *KMSTimeoutError after %s", err, bound)
	}
	if d := time.Since(start); d < bound || d > 5*time.Second {
		t.Errorf("loading gave up after %s, want about %s", d, bound)
	}

	s, err := loadSilent(t, context.Background(), false, WithTimeout(bound))
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	_, err = Sign(s, []byte("message"))
	if !errors.As(err, &te) || te.Timeout != bound || te.Call != "signing" || !strings.Contains(err.Error(), "--kms-timeout") {
		t.Fatalf("a silent signature: got %v, want a *KMSTimeoutError after %s", err, bound)
	}
	if d := time.Since(start); d < bound || d > 5*time.Second {
		t.Errorf("signing gave up after %s, want about %s", d, bound)
	}

	// With the default bound of 30 s, a cancelled context ends the wait.
	s, err = loadSilent(t, context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start = time.Now()
	_, err = Sign(s, []byte("message"), options.WithContext(ctx))
	if !errors.Is(err, context.Canceled) || errors.As(err, &te) {
		t.Errorf("a cancelled signature: got %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a cancelled signature returned after %s", d)
	}
	if _, err := s.PublicKey(options.WithContext(ctx)); !errors.Is(err, context.Canceled) {
		t.Errorf("a public key under a cancelled context: got %v, want context.Canceled", err)
	}

	// Loading under a cancelled context returns at once too.
	start = time.Now()
	if _, err := loadSilent(t, ctx, true); !errors.Is(err, context.Canceled) {
		t.Errorf("loading under a cancelled context: got %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("loading under a cancelled context returned after %s", d)
	}
}
