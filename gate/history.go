package gate

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/certcut/certcut/internal/limitedfile"
)

// HistoryBinding is what a repository's history says about a committed bundle's
// discovery.url, which no signature covers: every committed version of the file
// that carries the current signed payload (bundle.Attestation) carries the current
// discovery.url, no commit ever changed discovery.url while leaving the signed
// payload as it was, and the commit that added this discovery.url with the payload
// is already on the reviewed base (an ancestor of it). Commit is that commit.
//
// The base is what makes history a binder: a file's history only shows that
// someone committed the URL, and a pull request's own commits are the author's
// word. Only a URL that reviewed history carried with its payload is bound.
type HistoryBinding struct {
	Commit string
	// Versions is how many committed versions of the file were read.
	Versions int
}

// HistoryUnavailableError says the history could not be consulted at all: git
// is missing, the file is not in a git work tree, the clone is shallow, or the
// file is untracked or differs from its committed version. It binds nothing, and
// it refutes nothing.
type HistoryUnavailableError struct{ Reason string }

func (e *HistoryUnavailableError) Error() string { return "git history unavailable: " + e.Reason }

// HistoryEditError says the history shows discovery.url edited without a
// re-mint: commit Commit carries the signed payload that commit Other carries,
// with discovery.url URL where Other has OtherURL.
type HistoryEditError struct {
	Path            string
	Commit, URL     string
	Other, OtherURL string
}

func (e *HistoryEditError) Error() string {
	return fmt.Sprintf("discovery.url was edited without a re-mint: in the history of %s, commit %s has %s and commit %s has %s under the same signed payload",
		e.Path, short(e.Commit), e.URL, short(e.Other), e.OtherURL)
}

// BindByHistory asks git whether the history of the committed bundle file binds
// its discovery.url (see HistoryBinding). sha256 is the hex SHA-256 of the
// content that was judged: the file must be committed at HEAD with exactly that
// content. base names the reviewed branch or commit (the pull request's base, a
// protected branch); without one the history binds nothing. It reads the history
// of the file's directory with plumbing only (rev-parse, ls-tree, log, cat-file
// --batch; no hooks, filters, textconv or replace objects): the file's versions
// under its path and every path git saw renamed into it, and every other file
// there, since a copy of the signed payload under another discovery.url binds
// neither URL. A run over many bundles reads that history once (Repo does).
//
// The errors are *HistoryUnavailableError (the binder cannot be consulted, or the
// URL is not on the reviewed base), *HistoryEditError (the file's history
// refutes the URL) and *HistoryCopyError (the payload is committed under
// another URL elsewhere).
func BindByHistory(ctx context.Context, file, sha256Hex, base string) (*HistoryBinding, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, &HistoryUnavailableError{Reason: err.Error()}
	}
	dir := filepath.Dir(abs)
	ix := buildHistoryIndex(ctx, dir, []string{dir}, base, func(string) (string, string, bool) { return "", "", false })
	return ix.bind(file, sha256Hex)
}

// ShortRev shortens a full commit id to 12 characters for messages; any other
// revision (a branch, HEAD) is returned as it is.
func ShortRev(rev string) string {
	if len(rev) == 40 && strings.Trim(rev, "0123456789abcdef") == "" {
		return rev[:12]
	}
	return rev
}

// isAncestor reports whether commit a is b or an ancestor of b
// (git merge-base --is-ancestor).
func (g gitRunner) isAncestor(a, b string) (bool, error) {
	cmd := g.command("merge-base", "--is-ancestor", a, b)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return false, nil
	}
	msg := strings.TrimSpace(strings.SplitN(stderr.String(), "\n", 2)[0])
	if msg == "" {
		msg = err.Error()
	}
	return false, fmt.Errorf("git merge-base: %s", msg)
}

type version struct {
	url, payload string
	ok           bool
}

type gitRunner struct {
	ctx  context.Context
	path string
	dir  string
}

func (g gitRunner) command(args ...string) *exec.Cmd {
	// No hooks, fsmonitor, pager, prompt or replace objects: reading history must
	// not run anything the repository configures.
	base := []string{"-C", g.dir, "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "--no-pager", "--no-replace-objects"}
	cmd := exec.CommandContext(g.ctx, g.path, append(base, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_NO_REPLACE_OBJECTS=1", "LC_ALL=C")
	return cmd
}

func (g gitRunner) output(stdin []byte, args ...string) ([]byte, error) {
	cmd := g.command(args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(strings.SplitN(stderr.String(), "\n", 2)[0])
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", subcommand(args), msg)
	}
	return out, nil
}

// subcommand names the git subcommand among args: the first that is not an option.
func subcommand(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return "(no subcommand)"
}

// blobs reads each rev:path with one `git cat-file --batch`; a missing object
// (the path does not exist in that commit) or one larger than a bundle may be
// is nil.
func (g gitRunner) blobs(specs []string) ([][]byte, error) {
	var in bytes.Buffer
	for _, s := range specs {
		if strings.ContainsAny(s, "\n") {
			return nil, fmt.Errorf("a path with a newline")
		}
		in.WriteString(s + "\n")
	}
	cmd := g.command("cat-file", "--batch")
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	out := make([][]byte, len(specs))
	r := bufio.NewReader(stdout)
	readErr := func() error {
		for i := range specs {
			header, err := r.ReadString('\n')
			if err != nil {
				return fmt.Errorf("git cat-file: %w", err)
			}
			f := strings.Fields(header)
			if len(f) == 2 && f[1] == "missing" || len(f) >= 2 && f[len(f)-1] == "ambiguous" {
				continue
			}
			if len(f) != 3 {
				return fmt.Errorf("git cat-file: unexpected %q", strings.TrimSpace(header))
			}
			size, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil {
				return fmt.Errorf("git cat-file: unexpected %q", strings.TrimSpace(header))
			}
			if f[1] != "blob" || size > limitedfile.MaxBundle {
				if _, err := io.CopyN(io.Discard, r, size+1); err != nil {
					return fmt.Errorf("git cat-file: %w", err)
				}
				continue
			}
			data := make([]byte, size+1)
			if _, err := io.ReadFull(r, data); err != nil {
				return fmt.Errorf("git cat-file: %w", err)
			}
			out[i] = data[:size]
		}
		return nil
	}()
	io.Copy(io.Discard, r)
	if err := cmd.Wait(); err != nil && readErr == nil {
		readErr = fmt.Errorf("git cat-file: %s", strings.TrimSpace(stderr.String()+" "+err.Error()))
	}
	if readErr != nil {
		return nil, readErr
	}
	return out, nil
}
