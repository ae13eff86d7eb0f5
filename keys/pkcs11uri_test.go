package keys_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/certcut/certcut/keys"
)

// The URIs certcut reads (RFC 7512 and what cosign users write), each with its
// canonical form: the same URI without pin-value.
func TestParsePKCS11URI(t *testing.T) {
	for _, c := range []struct {
		in, canonical string
		want          keys.PKCS11URI
		pin           bool
	}{
		{
			in:        "pkcs11:token=certcut;object=host-2026-11?module-path=/usr/lib/softhsm/libsofthsm2.so&pin-source=/run/secrets/pin",
			canonical: "pkcs11:token=certcut;object=host-2026-11?module-path=/usr/lib/softhsm/libsofthsm2.so&pin-source=/run/secrets/pin",
			want:      keys.PKCS11URI{Token: "certcut", Object: "host-2026-11", ModulePath: "/usr/lib/softhsm/libsofthsm2.so", PINSource: "/run/secrets/pin"},
		},
		{
			in:        "PKCS11:object=k;id=%01%ab;slot-id=3;type=private?pin-value=123456&module-path=/m.so",
			canonical: "pkcs11:slot-id=3;object=k;id=%01%AB;type=private?module-path=/m.so",
			want:      keys.PKCS11URI{Object: "k", ID: []byte{1, 0xab}, SlotID: 3, HasSlotID: true, Type: "private", ModulePath: "/m.so"},
			pin:       true,
		},
		{
			in:        "pkcs11:manufacturer=SoftHSM%20project;serial=0a1b;model=SoftHSM%20v2;token=My%20Token;object=a%3Bb?module-path=/opt/lib%20dir/p11.so&pin-source=file:///etc/pin",
			canonical: "pkcs11:token=My%20Token;manufacturer=SoftHSM%20project;serial=0a1b;model=SoftHSM%20v2;object=a%3Bb?module-path=/opt/lib%20dir/p11.so&pin-source=/etc/pin",
			want:      keys.PKCS11URI{Token: "My Token", Manufacturer: "SoftHSM project", Serial: "0a1b", Model: "SoftHSM v2", Object: "a;b", ModulePath: "/opt/lib dir/p11.so", PINSource: "/etc/pin"},
		},
		{
			in:        "pkcs11:token=t",
			canonical: "pkcs11:token=t",
			want:      keys.PKCS11URI{Token: "t"},
		},
	} {
		u, err := keys.ParsePKCS11URI(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if u.HasPINValue() != c.pin {
			t.Errorf("%s: HasPINValue = %v", c.in, u.HasPINValue())
		}
		got := *u
		want := c.want
		got, want = stripPIN(got), stripPIN(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %#v\nwant %#v", c.in, fields(got), fields(want))
		}
		if u.String() != c.canonical {
			t.Errorf("%s: String = %s, want %s", c.in, u, c.canonical)
		}
		again, err := keys.ParsePKCS11URI(u.String())
		if err != nil || again.String() != u.String() {
			t.Errorf("%s: the canonical form does not read back: %v", c.in, err)
		}
	}
}

// stripPIN zeroes the PIN field (unexported): compare the rest.
func stripPIN(u keys.PKCS11URI) keys.PKCS11URI {
	return keys.PKCS11URI{Token: u.Token, Manufacturer: u.Manufacturer, Serial: u.Serial, Model: u.Model, SlotID: u.SlotID, HasSlotID: u.HasSlotID, Object: u.Object, ID: u.ID, Type: u.Type, ModulePath: u.ModulePath, PINSource: u.PINSource}
}

func fields(u keys.PKCS11URI) string {
	return fmt.Sprintf("{token %q manuf %q serial %q model %q slot %d/%v object %q id %x type %q module %q pin-source %q}", u.Token, u.Manufacturer, u.Serial, u.Model, u.SlotID, u.HasSlotID, u.Object, u.ID, u.Type, u.ModulePath, u.PINSource)
}

// What certcut cannot honour in full is refused, saying what to write instead,
// and no refusal quotes a value: the PIN (s3cr3t) never appears.
func TestParsePKCS11URIRefusals(t *testing.T) {
	for _, c := range []struct{ in, says string }{
		{"pkcs11", "does not start with pkcs11:"},
		{"hashivault://k", "does not start with pkcs11:"},
		{"pkcs11:object=k;module-path=/m.so", "module-path is a query attribute"},
		{"pkcs11:object=k;pin-value=s3cr3t", "pin-value is a query attribute"},
		{"pkcs11:object=k?token=t", "token is a path attribute"},
		{"pkcs11:object=k;slot-description=x", "path attribute slot-description is not one certcut reads"},
		{"pkcs11:object=k?module-name=softhsm2", "module-name is not supported"},
		{"pkcs11:object=k?module-path=lib/softhsm2.so", "module-path must be an absolute path"},
		{"pkcs11:object=k?pin-source=relative/file:x", ""},
		{"pkcs11:object=k?pin-source=file:relative", "must name an absolute path"},
		{"pkcs11:object=k?pin-source=|/bin/getpin", "runs no command"},
		{"pkcs11:object=k?pin-source=/p&pin-value=s3cr3t", "pin-source or pin-value, not both"},
		{"pkcs11:object=k;object=l", "object is given twice"},
		{"pkcs11:object=k?pin-value=s3cr3t&pin-value=s3cr3t", "pin-value is given twice"},
		{"pkcs11:object=k;type=public", "type must be private"},
		{"pkcs11:object=k;slot-id=x1", "slot-id must be a decimal number"},
		{"pkcs11:object=%zz", "a '%' not followed by two hex digits"},
		{"pkcs11:object=k?pin-value=s3cr3t%2", "pin-value: a '%' not followed"},
		{"pkcs11:object=", "object is empty"},
		{"pkcs11:object=k;s3cr3t", "no name=value form"},
		{"pkcs11:object=k?pin-value=s3c&r3t=x", "a query attribute is not one certcut reads"},
		{"pkcs11:object=k?pin-value=s3c&r3t", "no name=value form"},
		{"pkcs11:object=a b", "must percent-encode"},
		{"pkcs11:object=k\n", "must percent-encode"},
		{"pkcs11:object=ké", "must percent-encode"},
	} {
		_, err := keys.ParsePKCS11URI(c.in)
		var ue *keys.PKCS11URIError
		if !errors.As(err, &ue) {
			if c.says == "" && err == nil {
				continue // a relative pin-source path is the caller's to resolve
			}
			t.Errorf("%q: got %v, want a *PKCS11URIError", c.in, err)
			continue
		}
		if !strings.Contains(err.Error(), c.says) {
			t.Errorf("%q: %q does not say %q", c.in, err, c.says)
		}
		for _, secret := range []string{"s3cr3t", "s3c", "r3t"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%q: the error quotes part of the PIN: %v", c.in, err)
			}
		}
	}
}

// No way of printing a URI shows its pin-value.
func TestPKCS11URIHidesPIN(t *testing.T) {
	u, err := keys.ParsePKCS11URI("pkcs11:token=t;object=k?module-path=/m.so&pin-value=s3cr3t-pin")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{u.String(), fmt.Sprint(u), fmt.Sprintf("%v %+v %#v %s", u, u, u, u), fmt.Sprintf("%v %+v %#v", *u, *u, *u)} {
		if strings.Contains(s, "s3cr3t") {
			t.Errorf("printed with the PIN: %s", s)
		}
	}
	pin, ok, err := u.PIN()
	if pin != "s3cr3t-pin" || !ok || err != nil {
		t.Errorf("PIN() = %q, %v, %v", pin, ok, err)
	}
}

// pin-source: the first line of a file only its owner can read.
func TestPKCS11PINSource(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		return p
	}
	for _, c := range []struct {
		path, want, says string
	}{
		{write("pin", "123456\n", 0o600), "123456", ""},
		{write("pin-crlf", "123456\r\nsecond line\n", 0o400), "123456", ""},
		{write("pin-no-newline", "abc 123", 0o600), "abc 123", ""},
		{write("pin-open", "123456\n", 0o644), "", "readable by others (mode 0644)"},
		{write("pin-empty", "\n", 0o600), "", "its first line is empty"},
		{write("pin-big", strings.Repeat("9", 2000), 0o600), "", "at most 1 KiB"},
		{filepath.Join(dir, "absent"), "", "no such file"},
		{private(t, filepath.Join(dir, "a-directory")), "", "cannot be read as a PIN file"},
	} {
		u, err := keys.ParsePKCS11URI("pkcs11:object=k?pin-source=" + c.path)
		if err != nil {
			t.Fatal(err)
		}
		pin, ok, err := u.PIN()
		if c.says == "" {
			if err != nil || !ok || pin != c.want {
				t.Errorf("%s: PIN() = %q, %v, %v; want %q", c.path, pin, ok, err, c.want)
			}
			continue
		}
		var pe *keys.PINFileError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: got %v, want a *PINFileError saying %q", c.path, err, c.says)
		}
		if strings.Contains(fmt.Sprint(err), "123456") {
			t.Errorf("%s: the error quotes the PIN: %v", c.path, err)
		}
	}
	u, _ := keys.ParsePKCS11URI("pkcs11:object=k")
	if _, ok, err := u.PIN(); ok || err != nil {
		t.Errorf("a URI without a PIN: ok %v, err %v", ok, err)
	}
}

// FuzzParsePKCS11URI: no input makes the URI reader panic; what it accepts has a
// canonical form that reads back to itself and never holds the pin-value.
func FuzzParsePKCS11URI(f *testing.F) {
	for _, seed := range []string{
		"pkcs11:token=certcut;object=host?module-path=/usr/lib/softhsm/libsofthsm2.so&pin-source=/p",
		"pkcs11:object=k;id=%01%ab;slot-id=3;type=private?pin-value=123456&module-path=/m.so",
		"pkcs11:token=My%20Token;object=a%3Bb?pin-source=file:///etc/pin",
		"pkcs11:object=k;object=l",
		"pkcs11:object=%zz",
		"pkcs11:?",
		"pkcs11:;",
		"pkcs11:id=%00?pin-value=%00%ff",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := keys.ParsePKCS11URI(s)
		if err != nil {
			return
		}
		canon := u.String()
		again, err := keys.ParsePKCS11URI(canon)
		if err != nil {
			t.Fatalf("%q: canonical form %q does not parse: %v", s, canon, err)
		}
		if again.String() != canon {
			t.Fatalf("%q: canonical form %q reads back as %q", s, canon, again.String())
		}
		if again.HasPINValue() {
			t.Fatalf("%q: the canonical form %q keeps pin-value", s, canon)
		}
		if !reflect.DeepEqual(stripPIN(*u), stripPIN(*again)) {
			t.Fatalf("%q: canonical form %q reads back as another URI", s, canon)
		}
	})
}

func private(t *testing.T, dir string) string {
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}
