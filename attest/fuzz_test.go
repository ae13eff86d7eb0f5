package attest_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/certcut/certcut/attest"
	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/verify"
)

// FuzzVerify feeds hostile envelopes to Verify under the demo attestor's key. It
// must never panic, and whatever it calls VERIFIED must verify with code that is
// not certcut's or sigstore's: every signature it accepted checks with
// crypto/ed25519 over a PAE written out by hand from the envelope as a plain JSON
// reader sees it.
func FuzzVerify(f *testing.F) {
	golden, _ := filepath.Glob(filepath.Join(goldenDir, "*.json"))
	for _, g := range golden {
		if data, err := os.ReadFile(g); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"payloadType":"application/vnd.in-toto+json","payload":"e30=","signatures":[{"keyid":"demo-attestor-1","sig":"AA=="}]}`))
	ks, err := keys.LoadPublic(attestorPub)
	if err != nil {
		f.Fatal(err)
	}
	pub := ks[0].Key
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := attest.Verify(data, attest.Policy{Keys: ks})
		if err != nil || res.Outcome != verify.Verified {
			return
		}
		root, err := bundle.ParseIJSON(data)
		if err != nil {
			t.Fatalf("VERIFIED, but not I-JSON: %v", err)
		}
		str := func(v bundle.Value, name string) string {
			m, _ := v.Get(name)
			s, _ := m.Str()
			return s
		}
		payloadType := str(root, "payloadType")
		payload, err := base64.StdEncoding.DecodeString(str(root, "payload"))
		if err != nil {
			if payload, err = base64.URLEncoding.DecodeString(str(root, "payload")); err != nil {
				t.Fatalf("VERIFIED, but the payload is not base64")
			}
		}
		pae := []byte("DSSEv1 " + strconv.Itoa(len(payloadType)) + " " + payloadType + " " + strconv.Itoa(len(payload)) + " " + string(payload))
		sigs, _ := root.Get("signatures")
		for i, c := range res.Signatures {
			if !c.Verified {
				continue
			}
			raw := str(sigs.Items()[i], "sig")
			sig, err := base64.StdEncoding.DecodeString(raw)
			if err != nil {
				sig, _ = base64.URLEncoding.DecodeString(raw)
			}
			if !ed25519.Verify(pub, pae, sig) {
				t.Fatalf("Verify accepted signature %d, which crypto/ed25519 refuses over the hand-written PAE", i+1)
			}
		}
	})
}
