package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"

	"github.com/certcut/certcut/attest"
	"github.com/rogpeppe/go-internal/testscript"
)

// sha256env FILE VAR: set $VAR to the lowercase hex SHA-256 of FILE.
func cmdSha256Env(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sha256env FILE VAR")
	}
	sum := sha256.Sum256([]byte(ts.ReadFile(args[0])))
	ts.Setenv(args[1], hex.EncodeToString(sum[:]))
}

// attestflip IN payload|sig|payloadjson OUT: write the envelope IN with one byte
// of its decoded payload (or of its first signature) changed; payloadjson
// replaces the payload with the base64 of the JSON in $PAYLOAD, keeping the
// signature.
func cmdAttestFlip(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: attestflip IN payload|sig|payloadjson OUT")
	}
	var env attest.Envelope
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &env))
	switch args[1] {
	case "payload", "sig":
		field := &env.Payload
		if args[1] == "sig" {
			field = &env.Signatures[0].Sig
		}
		raw, err := base64.StdEncoding.DecodeString(*field)
		ts.Check(err)
		raw[len(raw)/2] ^= 0x01
		*field = base64.StdEncoding.EncodeToString(raw)
	case "payloadjson":
		env.Payload = base64.StdEncoding.EncodeToString([]byte(ts.Getenv("PAYLOAD")))
	default:
		ts.Fatalf("attestflip: %s is not payload, sig or payloadjson", args[1])
	}
	out, err := json.Marshal(env)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), out, 0o644))
}
