package bundle

import "testing"

func TestOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://api.myndhyve.ai/.well-known/openwop": "https://api.myndhyve.ai",
		"HTTPS://App.OpenWOP.dev:443/x":               "https://app.openwop.dev",
		"http://127.0.0.1:3838/.well-known/openwop":   "http://127.0.0.1:3838",
		"http://example.com:80":                       "http://example.com",
		"https://example.com:8443/a?b#c":              "https://example.com:8443",
		"http://[::1]:8080/":                          "http://[::1]:8080",
	} {
		got, err := Origin(in)
		if err != nil || got != want {
			t.Errorf("Origin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "/.well-known/openwop", "ftp://x.example", "not a url", "https://", "http://:", "https://:443/x", "http://u:p@:80"} {
		if _, err := Origin(bad); err == nil {
			t.Errorf("Origin(%q): no error", bad)
		}
	}
}
