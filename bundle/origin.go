package bundle

import (
	"fmt"
	"net/url"
	"strings"
)

// Origin returns the origin of an absolute http(s) URL as a browser's URL.origin
// writes it: lower-case scheme and host, the port only when it is not the scheme's
// default. Governance keys hosts by the origin of a bundle's discovery.url.
func Origin(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%q is not a URL: %w", raw, err)
	}
	scheme := strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (scheme != "http" && scheme != "https") || host == "" {
		return "", fmt.Errorf("%q is not an absolute http(s) URL with a host", raw)
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port == "" || (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		return scheme + "://" + host, nil
	}
	return scheme + "://" + host + ":" + port, nil
}

// ImplementationName returns implementation.name of a discovery document, the
// host's name as its (signed, once discovery.sha256 checks) document states it;
// "" when absent.
func ImplementationName(doc Value) string {
	impl, _ := doc.Get("implementation")
	n, _ := impl.Get("name")
	s, _ := n.Str()
	return s
}
