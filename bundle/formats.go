package bundle

// The two string formats the bundle schema asserts, date-time (generatedAt) and
// uri (discovery.url), checked exactly as the schema validator certcut used
// before does (github.com/santhosh-tekuri/jsonschema/v6 format.go, Apache License
// 2.0, Copyright Santhosh Kumar Tekuri), with the same error texts: CheckSchema's
// messages must not change. Adapted to take a string.

import (
	"fmt"
	"net/netip"
	gourl "net/url"
	"strconv"
	"strings"
	"time"
)

// formatError is the validator's LocalizableError, printed as its Error does.
func formatError(format string, args ...any) error { return fmt.Errorf(format, args...) }

func validateIPV6(s string) error {
	if !strings.Contains(s, ":") {
		return formatError("missing colon")
	}
	addr, err := netip.ParseAddr(s)
	if err != nil {
		return err
	}
	if addr.Zone() != "" {
		return formatError("zone id is not a part of ipv6 address")
	}
	return nil
}

func validateDate(s string) error {
	_, err := time.Parse("2006-01-02", s)
	return err
}

func validateTime(str string) error {

	// min: hh:mm:ssZ
	if len(str) < 9 {
		return formatError("less than 9 characters long")
	}
	if str[2] != ':' || str[5] != ':' {
		return formatError("missing colon in correct place")
	}

	// parse hh:mm:ss
	var hms []int
	for _, tok := range strings.SplitN(str[:8], ":", 3) {
		i, err := strconv.Atoi(tok)
		if err != nil {
			return formatError("invalid hour/min/sec")
		}
		if i < 0 {
			return formatError("non-positive hour/min/sec")
		}
		hms = append(hms, i)
	}
	if len(hms) != 3 {
		return formatError("missing hour/min/sec")
	}
	h, m, s := hms[0], hms[1], hms[2]
	if h > 23 || m > 59 || s > 60 {
		return formatError("hour/min/sec out of range")
	}
	str = str[8:]

	// parse sec-frac if present
	if rem, ok := strings.CutPrefix(str, "."); ok {
		numDigits := 0
		for _, ch := range rem {
			if ch >= '0' && ch <= '9' {
				numDigits++
			} else {
				break
			}
		}
		if numDigits == 0 {
			return formatError("no digits in second fraction")
		}
		str = rem[numDigits:]
	}

	if str != "z" && str != "Z" {
		// parse time-numoffset
		if len(str) != 6 {
			return formatError("offset must be 6 characters long")
		}
		var sign int
		switch str[0] {
		case '+':
			sign = -1
		case '-':
			sign = +1
		default:
			return formatError("offset must begin with plus/minus")
		}
		str = str[1:]
		if str[2] != ':' {
			return formatError("missing colon in offset in correct place")
		}

		var zhm []int
		for _, tok := range strings.SplitN(str, ":", 2) {
			i, err := strconv.Atoi(tok)
			if err != nil {
				return formatError("invalid hour/min in offset")
			}
			if i < 0 {
				return formatError("non-positive hour/min in offset")
			}
			zhm = append(zhm, i)
		}
		zh, zm := zhm[0], zhm[1]
		if zh > 23 || zm > 59 {
			return formatError("hour/min in offset out of range")
		}

		// apply timezone
		hm := (h*60 + m) + sign*(zh*60+zm)
		if hm < 0 {
			hm += 24 * 60
		}
		h, m = hm/60, hm%60
	}

	// check leap second
	if s >= 60 && (h != 23 || m != 59) {
		return formatError("invalid leap second")
	}

	return nil
}

func validateDateTime(s string) error {

	// min: yyyy-mm-ddThh:mm:ssZ
	if len(s) < 20 {
		return formatError("less than 20 characters long")
	}

	if s[10] != 't' && s[10] != 'T' {
		return formatError("11th character must be t or T")
	}
	if err := validateDate(s[:10]); err != nil {
		return formatError("invalid date element: %v", err)
	}
	if err := validateTime(s[11:]); err != nil {
		return formatError("invalid time element: %v", err)
	}
	return nil
}

func parseURL(s string) (*gourl.URL, error) {
	u, err := gourl.Parse(s)
	if err != nil {
		return nil, err
	}

	// gourl does not validate ipv6 host address
	hostName := u.Hostname()
	if strings.Contains(hostName, ":") {
		if !strings.Contains(u.Host, "[") || !strings.Contains(u.Host, "]") {
			return nil, formatError("ipv6 address not enclosed in brackets")
		}
		if err := validateIPV6(hostName); err != nil {
			return nil, formatError("invalid ipv6 address: %v", err)
		}
	}

	return u, nil
}

func validateURI(s string) error {
	u, err := parseURL(s)
	if err != nil {
		return err
	}
	if !u.IsAbs() {
		return formatError("relative url")
	}
	return nil
}
