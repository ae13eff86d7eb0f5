package timestamp_test

import (
	"crypto/sha256"
	"testing"
	"time"

	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/timestamp"
)

// FuzzCheck feeds Check hostile replies, seeded with a genuine one, a bare one
// and their halves. Whatever the input: no panic, and a token is trusted only
// at the genuine token's time (the TSA's signature covers the time; a changed
// copy of the CA certificate the token carries may pass, harmlessly).
func FuzzCheck(f *testing.F) {
	s := testkit.NewStamper("fuzz TSA", false)
	sig := sha256.Sum256([]byte("a signature"))
	sig64 := append(sig[:], sig[:]...)
	at := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	good := s.Reply(sig64, at, false)
	bare := s.Reply(sig64, at, true)
	for _, seed := range [][]byte{good, bare, good[:len(good)/2], bare[:len(bare)/3], {0x30, 0x80, 0x00, 0x00}, nil} {
		f.Add(seed)
	}
	trust := timestamp.NewTrust(s.CA)
	f.Fuzz(func(t *testing.T, reply []byte) {
		for _, tr := range []*timestamp.Trust{trust, nil} {
			tok, err := timestamp.Check(reply, sig64, tr)
			if err != nil {
				if _, ok := err.(*timestamp.Error); !ok {
					t.Fatalf("error %T %v is not a *timestamp.Error", err, err)
				}
				continue
			}
			if tok.Trusted && !tok.Time.Equal(at) {
				t.Fatalf("trusted time %s, not the genuine %s", tok.Time, at)
			}
			if tok.Trusted && tr == nil {
				t.Fatal("trusted without a trust")
			}
		}
	})
}
