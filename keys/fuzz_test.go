package keys_test

import (
	"encoding/json"
	"testing"

	"github.com/certcut/certcut/keys"
)

// FuzzParseKeyring: no input makes the keyring reader panic; what it accepts is
// valid, and survives a write and a second read unchanged.
func FuzzParseKeyring(f *testing.F) {
	for _, seed := range []string{
		`{"keyringVersion":1,"keys":[]}`,
		`{"$schema":"x","keyringVersion":1,"keys":[{"keyId":"k-1","alg":"ed25519","publicKey":"MrdDL0mvwRNsj6c_cGxbxRNm9vIUedGAwvt-_XAZKGs","host":{"name":"h","origin":"https://h.example"},"retiredAt":"2026-01-01T00:00:00Z"}]}`,
		`{"keyringVersion":1,"keys":[{"keyId":"k","alg":"ed25519","publicKey":"MrdDL0mvwRNsj6c_cGxbxRNm9vIUedGAwvt-_XAZKGs","host":{"name":"h"},"PublicKey":"x"}]}`,
		`{"keyringVersion":1,"keyringVersion":1,"keys":[]}`,
		`{"keyringVersion":1,"keys":[{"keyId":"k","revokedAt":"2026-01-01T00:00:00Z"}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := keys.ParseKeyring(data)
		if err != nil {
			return
		}
		if err := k.Validate(); err != nil {
			t.Fatalf("accepted a keyring that does not validate: %v", err)
		}
		out, err := json.Marshal(k)
		if err != nil {
			t.Fatal(err)
		}
		again, err := keys.ParseKeyring(out)
		if err != nil {
			t.Fatalf("its own output is refused: %v\n%s", err, out)
		}
		if len(again.Keys) != len(k.Keys) {
			t.Fatalf("round trip changed the number of keys: %d → %d", len(k.Keys), len(again.Keys))
		}
		for i := range k.Keys {
			if again.Keys[i] != k.Keys[i] {
				t.Fatalf("round trip changed keys[%d]: %+v → %+v", i, k.Keys[i], again.Keys[i])
			}
		}
	})
}
