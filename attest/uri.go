package attest

import (
	"context"
	"errors"
	"fmt"
	"github.com/certcut/certcut/internal/lazyre"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// URIBase is what repository paths in an attestation are appended to, so that
// resourceUri, policy.uri and inputAttestations[].uri are absolute RFC 3986
// URIs (in-toto's ResourceURI) naming one file at one commit of one repository,
// not a relative path that every repository shares.
type URIBase struct {
	// Prefix is the URI up to the path: "git+https://host/owner/repo@COMMIT#"
	// (SPDX's download-location form, which in-toto's examples use), an
	// explicit --resource-uri-base, or a file: URI of the directory.
	Prefix string
	// LastResort is true when Prefix is a file: URI of this machine's
	// directory: no remote or commit was found, so the URI names nothing a
	// reader elsewhere can fetch.
	LastResort bool
}

// URI is the absolute URI of a repository path under b; a zero URIBase gives
// the path itself.
func (b URIBase) URI(repoPath string) string {
	if b.Prefix == "" {
		return repoPath
	}
	return b.Prefix + repoPath
}

// ParseURIBase checks an explicit --resource-uri-base: an absolute URI (a
// scheme, no credentials) that repository paths are appended to as given (end
// it with "#", "/" or whatever separator the scheme wants).
func ParseURIBase(s string) (URIBase, error) {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return URIBase{}, fmt.Errorf("%q is not a URI: %v", s, err)
	case u.Scheme == "":
		return URIBase{}, fmt.Errorf("%q is not an absolute URI (it has no scheme, e.g. git+https://host/owner/repo@COMMIT#)", s)
	case u.User != nil:
		return URIBase{}, errors.New("the URI base carries credentials (user:password@), which would be signed into the attestation; give it without them")
	}
	return URIBase{Prefix: s}, nil
}

// scpLike matches git's scp-like remotes: [user@]host:path.
var scpLike = lazyre.New(`^(?:[A-Za-z0-9._-]+@)?([A-Za-z0-9.-]+):([^/].*)$`)

// RemoteURL turns a git remote into the https URL of the repository: scp-like
// (git@host:owner/repo.git) and ssh:// remotes become https://host/owner/repo,
// credentials and a trailing ".git" are dropped. ok is false for a remote that
// is a local path or names no host.
func RemoteURL(remote string) (string, bool) {
	remote = strings.TrimSpace(remote)
	var host, path string
	if m := scpLike().FindStringSubmatch(remote); m != nil && !strings.Contains(remote, "://") {
		host, path = m[1], m[2]
	} else {
		u, err := url.Parse(remote)
		if err != nil || u.Host == "" {
			return "", false
		}
		switch u.Scheme {
		case "https", "http", "ssh", "git", "git+ssh", "ssh+git":
		default:
			return "", false
		}
		host, path = u.Hostname(), u.Path
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	if host == "" || path == "" {
		return "", false
	}
	return "https://" + host + "/" + path, true
}

// RepoURIBase derives the URI base of the spec repository at root from git:
// "git+" the origin remote's https URL, "@" the commit HEAD names, "#" the
// root's path inside the work tree (root may be a subdirectory). Without git,
// a remote or a commit it falls back to a file: URI of root's absolute path,
// LastResort set: say so to the user.
func RepoURIBase(root string) URIBase {
	if root == "" {
		root = "."
	}
	git := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, "git", append([]string{"-C", root}, args...)...).Output()
		return strings.TrimSpace(string(out)), err
	}
	commit, err1 := git("rev-parse", "--verify", "HEAD^{commit}")
	remote, err2 := git("remote", "get-url", "origin")
	prefix, err3 := git("rev-parse", "--show-prefix")
	if err1 == nil && err2 == nil && err3 == nil {
		if https, ok := RemoteURL(remote); ok {
			return URIBase{Prefix: "git+" + https + "@" + commit + "#" + prefix}
		}
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = root
	}
	return URIBase{Prefix: (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs) + "/"}).String(), LastResort: true}
}
