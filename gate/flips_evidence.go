package gate

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/verify"
)

// This file is how gate flips judges and pairs the bundles a change touches:
// both versions judged once each, pairs made by signed facts, an added bundle
// judged as the Accepted gate judges it.

// flipsOptions are the verify options of the change's bundles.
func (f *flipsRun) flipsOptions() verify.Options {
	if f.cfg.Loader != nil {
		return f.cfg.Loader.Options
	}
	return verify.Options{}
}

// judgeVersion judges one side of a change whole (every row, the parse tree),
// once per blob: base is the version at the merge base, else the one at head.
// It is nil when that side is absent or not a regular file.
func (f *flipsRun) judgeVersion(c treeChange, base bool) *Entry {
	id, mode, p := c.DstBlob, c.DstMode, c.DstPath
	name := f.toDisk(p)
	if base {
		id, mode, p = c.SrcBlob, c.SrcMode, c.SrcPath
		name = short(f.rep.MergeBase) + ":" + strings.TrimPrefix(p, f.prefix)
	}
	if p == "" {
		return nil
	}
	data, ok := f.blob(id, mode)
	if !ok {
		return nil
	}
	if f.judgedBlobs == nil {
		f.judgedBlobs = map[string]*Entry{}
	}
	key := name + "\x00" + id
	if e, ok := f.judgedBlobs[key]; ok {
		return e
	}
	e := judgeBytes(name, data, f.flipsOptions())
	f.judgedBlobs[key] = e
	return e
}

// loadAdded judges a bundle the change adds as the Accepted gate judges a
// committed one: through the Loader, from the checked-out file (which startFlips
// checked is the head version), with the time-stamp tokens beside it. When the
// file on disk is not the head version after all, the blob is judged instead.
func (f *flipsRun) loadAdded(c treeChange) *Entry {
	head := f.judgeVersion(c, false)
	if head == nil || head.Bundle == nil {
		return head
	}
	l := f.cfg.Loader
	if l == nil {
		l = &Loader{}
	}
	e := l.LoadFile(f.toDisk(c.DstPath))
	if e.Sha256 != head.Sha256 || e.Bundle == nil {
		return head
	}
	return e
}

// sameSigner reports whether two judged bundles come from one signer, by signed
// facts only: the same signing key (the same public key bytes when both
// signatures verified, else the same key id) and the same implementation.name in
// the discovery document, which discovery.sha256 binds to the signature. The
// unsigned host.name and host.vendor play no part.
func sameSigner(a, b *Entry) bool {
	if a == nil || b == nil || a.Bundle == nil || b.Bundle == nil || a.Bundle.Signature == nil || b.Bundle.Signature == nil {
		return false
	}
	va, vb := a.Verdict, b.Verdict
	if va != nil && vb != nil && va.SignatureVerified && vb.SignatureVerified && va.HostKey != nil && vb.HostKey != nil {
		ka, errA := keys.ParseRawPublic(va.HostKey.PublicKey)
		kb, errB := keys.ParseRawPublic(vb.HostKey.PublicKey)
		if errA != nil || errB != nil || !ka.Equal(kb) {
			return false
		}
	} else if a.Bundle.Signature.KeyID == "" || a.Bundle.Signature.KeyID != b.Bundle.Signature.KeyID {
		return false
	}
	return implementationName(a.Bundle) == implementationName(b.Bundle)
}

func implementationName(b *Facts) string {
	if b.Discovery.Document == nil {
		return ""
	}
	return bundle.ImplementationName(*b.Discovery.Document)
}

// sameHostNamed: the unsigned host.name and host.vendor agree. Pairing on them
// only adds comparisons (stricter); it never keeps two versions apart.
func sameHostNamed(a, b *Entry) bool {
	return a != nil && b != nil && a.Bundle != nil && b.Bundle != nil &&
		a.Bundle.Host.Name == b.Bundle.Host.Name && a.Bundle.Host.Vendor == b.Bundle.Host.Vendor
}

// pairBySigner joins each bundle the change deletes with every bundle it adds
// from the same signer (sameSigner) into a rename, so the added cut is compared
// with the one it replaces whatever its file name and unsigned host fields say.
func (f *flipsRun) pairBySigner(cs []treeChange) []treeChange {
	var dels, adds []int
	for i, c := range cs {
		switch c.Status {
		case 'D':
			dels = append(dels, i)
		case 'A':
			adds = append(adds, i)
		}
	}
	used := map[int]bool{}
	var out []treeChange
	for _, di := range dels {
		d := f.judgeVersion(cs[di], true)
		for _, ai := range adds {
			if a := f.judgeVersion(cs[ai], false); sameSigner(d, a) {
				del, add := cs[di], cs[ai]
				out = append(out, treeChange{Status: 'R', SrcMode: del.SrcMode, SrcBlob: del.SrcBlob, SrcPath: del.SrcPath, DstMode: add.DstMode, DstBlob: add.DstBlob, DstPath: add.DstPath})
				used[di], used[ai] = true, true
			}
		}
	}
	for i, c := range cs {
		if !used[i] {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].path() < out[j].path() })
	return out
}

// addedCheck judges a bundle the change adds as bundle.verified and bundle.key
// of the Accepted gate do: zero rejections under a trusted key, and the key in
// service when it signed (at a trusted time-stamp's time; --require-timestamp
// applies). The worse of the two decides, with its reason.
func addedCheck(e *Entry, requireTimestamp bool) check {
	v := verifiedCheck(e)
	k := keyCheckOf(e, requireTimestamp)
	if worse(v.status, k.status) == v.status {
		return v
	}
	return check{id: v.id, title: v.title, status: k.status, reason: "bundle.key (" + k.title + "): " + k.reason}
}

// CritPayloadCopy is the flips criterion on signed payloads repeated under
// evidence/: a bundle the change adds that repeats a committed payload, a
// deletion that leaves a copy of its payload behind, a discovery.url edited
// without a re-mint.
const CritPayloadCopy = "flips.payload-copy"

// signedOf is the entry's discovery.url and signed payload, read from its parse
// tree (ok false when it has none).
func signedOf(e *Entry) version {
	if e == nil || e.Bundle == nil {
		return version{}
	}
	return e.signed
}

// evidenceHistory is the history of evidence/ up to the merge base and head:
// the Accepted gate's index when an RFC flip opened it, else read here.
func (f *flipsRun) evidenceHistory() *historyIndex {
	if f.repo != nil {
		return f.repo.historyOf(f.g.ctx)
	}
	if f.history == nil {
		dir := filepath.Join(f.g.dir, filepath.FromSlash(strings.TrimSuffix(f.evidenceDir(), "/")))
		base := f.rep.MergeBase
		if f.shallow {
			base = ""
		}
		f.history = buildHistoryIndex(f.ctx, f.g.dir, []string{dir}, base, func(string) (string, string, bool) { return "", "", false })
	}
	return f.history
}

// payloadCopyCriterion flags a change that repeats a signed payload: an added
// bundle whose payload is committed in another file (at the merge base or since, at head or deleted), a version whose
// discovery.url changed while its payload did not, and a deleted bundle whose
// payload another file still carries at head. A payload binds one URL; a copy
// under another name is how a URL is moved without a re-mint. nil: nothing to
// flag.
func (f *flipsRun) payloadCopyCriterion(c treeChange, before, after *Entry) *Criterion {
	ix := f.evidenceHistory()
	if ix.unavailable != "" || ix.notTree {
		return nil
	}
	crit := func(file, reason string) *Criterion {
		c := rule(CritPayloadCopy).Criterion(Result{Status: Fail, Reason: reason, Location: &Location{File: file}})
		return &c
	}
	b, a := signedOf(before), signedOf(after)
	switch {
	case c.DstPath == "" && b.ok:
		var copies []string
		for p, blob := range ix.head {
			if fa := ix.facts[blob]; fa.bundle && fa.payload == b.payload && p != c.SrcPath {
				copies = append(copies, p)
			}
		}
		if len(copies) > 0 {
			sort.Strings(copies)
			p := copies[0]
			return crit(f.toDisk(c.SrcPath), fmt.Sprintf("the change deletes %s, but %s still carries its signed payload (discovery.url %s): the copy would outlive the original, and a deletion does not make its URL the payload's", f.toDisk(c.SrcPath), f.toDisk(p), ix.facts[ix.head[p]].url))
		}
	case a.ok && b.ok && a.payload == b.payload && a.url != b.url:
		return crit(f.toDisk(c.DstPath), fmt.Sprintf("discovery.url was edited without a re-mint: %s has %s where %s had %s under the same signed payload", f.toDisk(c.DstPath), a.url, before.File, b.url))
	case a.ok && !b.ok:
		// Added (or not a bundle at base). An edit in place is judged by its
		// regressions, and the binder refuses a payload under two URLs anyway.
		for _, s := range ix.sites[a.payload] {
			if s.path == c.DstPath || s.path == c.SrcPath {
				continue
			}
			where := "committed at the merge base or before"
			if !s.reviewed {
				where = "committed by this change"
			}
			return crit(f.toDisk(c.DstPath), fmt.Sprintf("%s repeats the signed payload of %s (commit %s, %s, discovery.url %s): a copy of a committed cut, not a new one", f.toDisk(c.DstPath), f.toDisk(s.path), short(s.commit), where, ix.facts[s.blob].url))
		}
	}
	return nil
}
